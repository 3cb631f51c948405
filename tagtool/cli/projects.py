"""The project commands: ``import``, ``export``, ``info`` and ``gui`` (and ``tagtool`` alone).

``import`` creates a project from corpus files or adds files to one,
``export`` writes its tokens and annotations, ``info`` summarises it and
``gui`` opens it in the desktop app; with no command, ``tagtool`` opens the
sample project, or prints its summary where no window can show.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from tagtool.cli.answers import add_annotator_import_options, attributed, check_new_labels, import_answers
from tagtool.cli.attach import attach_files, refuse_or_skip
from tagtool.cli.inputs import (
    add_label_field_option,
    add_reader_options,
    check_text_options,
    reader_kwargs,
    report_reading,
    text_kwargs,
)
from tagtool.display import check_display
from tagtool.errors import TagtoolError
from tagtool.store.outputs import check_not_input
from tagtool.store.sample import ensure_sample_project


def add_project_commands(sub) -> None:
    """Add ``import``, ``export``, ``info`` and ``gui`` to the subcommands ``sub``."""
    p = sub.add_parser("import", help="create a project from corpus files, or add files to one")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("-p", "--project", type=Path, required=True, help="project file (.tagproj)")
    p.add_argument("--labels", help="comma-separated label set (default: the labels in the files)")
    p.add_argument("--name", help="project name (new projects)")
    p.add_argument(
        "--add-labels",
        action="store_true",
        help="existing project: add the labels of the files that it does not have "
        "(without it they are an error, so a typo cannot grow the label set)",
    )
    add_reader_options(p)
    add_annotator_import_options(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser(
        "export",
        help="write a project's tokens and annotations to a file (conllu and jsonl "
        "also carry review flags: tagtool:flag, tagtool:skipped)",
    )
    p.add_argument("project", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument(
        "--format",
        choices=["conll", "conllu", "text", "jsonl", "csv", "tsv", "doccano", "labelstudio"],
        help="default: from the extension; jsonl token records keep each annotator's labels "
        '("annotators"); doccano (span records, as --spans) and labelstudio (tasks, one annotation '
        'per annotator) keep unlabeled tokens, candidate sets and answers in each record\'s "tagtool" '
        "metadata, so a partly labeled project reads back as it was",
    )
    p.add_argument("--spans", action="store_true", help="span records (doccano JSONL), as --format doccano")
    add_label_field_option(p, "that receives the labels (default: the one they were imported from)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("info", help="summarise a project: sizes, labels, annotation progress")
    p.add_argument("project", type=Path, nargs="?", help="project file (default: the sample project)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("gui", help="open the desktop app on a project (default: the sample project)")
    p.add_argument("project", type=Path, nargs="?", help="project file (.tagproj)")
    p.add_argument(
        "--quit-after",
        type=int,
        metavar="MS",
        help="smoke test of an installed or bundled build: close the window after MS "
        "milliseconds of running; exit status 0 only if the project opened",
    )
    p.set_defaults(func=cmd_gui)


def cmd_import(args: argparse.Namespace) -> int:
    from tagtool.core import Corpus, LabelSet
    from tagtool.core.corpus import merge_corpora
    from tagtool.core.labels import complete_scheme
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project
    from tagtool.store.sources import text_options_meta

    check_not_input(args.project, {"corpus file": args.files}, "project")
    check_text_options(args, args.files, args.format)
    if args.as_annotator:
        return import_answers(args)
    if args.attach:
        if args.match not in (None, "text"):
            raise TagtoolError(f"--attach places spans by their text; --match {args.match} is for --as-annotator")
        return attach_files(args, answers=False)
    if args.merge_crossing:
        raise TagtoolError("--merge-crossing goes with --attach or --as-annotator (spans placed by text)")
    labels = LabelSet(args.labels.split(",")) if args.labels else None
    # Candidate sets are normalised against the project's labels when stored (a set naming all of
    # them is no label), not against each file's own: O|B-PER of a file without I-PER still
    # excludes the I-PER of the completed scheme or of the project.
    read = [
        attributed(read_corpus(f, labels=labels, keep_full_sets=True, **reader_kwargs(args, f)), args, f)
        for f in args.files
    ]
    if args.no_labels:
        for path, part in zip(args.files, read):
            _warn_label_columns(path, part)
    corpus = merge_corpora(read)
    report_reading(corpus)
    _warn_suspicious(corpus.labels)
    if args.project.exists():
        with Project.open(args.project) as project:
            added = check_new_labels(project.labels, corpus.labels, args)
            corpus = refuse_or_skip(args, project, corpus)
            ids = project.imports.import_corpus(corpus, add_labels=bool(added)) if len(corpus) else []
        print(f"added {len(ids)} sentences ({corpus.n_tokens} tokens) to {args.project}")
        if added:
            print(f"added labels: {' '.join(added)}")
        return 0
    if labels is None:
        if not len(corpus.labels):
            # A new project needs a label set; this file gives none (unlabeled text).
            raise TagtoolError(
                f"{', '.join(map(str, args.files))}: holds no labels; "
                "give the project's label set with --labels A,B,..."
            )
        completed, added = complete_scheme(corpus.labels)
        corpus = Corpus(completed, corpus.documents)
        if added:
            print(f"completed the label scheme with: {' '.join(added)} (edit it with the app's Labels dialog)")
    with Project.create(args.project, corpus, name=args.name, meta=text_options_meta(text_kwargs(args))):
        pass  # with the raw-text options given, which text added later is read with
    print(
        f"created {args.project}: {len(corpus)} sentences, {corpus.n_tokens} tokens, "
        f"{len(corpus.labels)} labels: {' '.join(corpus.labels)}"
    )
    return 0


def _warn_label_columns(path, corpus) -> None:
    from tagtool.core.labels import label_column_warnings

    for line in label_column_warnings(path, corpus.sentences):
        print(f"warning: {line}", file=sys.stderr)


def _warn_suspicious(labels) -> None:
    from tagtool.core.labels import suspicious_labels

    for name in suspicious_labels(labels):
        print(
            f"warning: label {name!r} looks like a candidate set with the wrong separator; "
            "candidate sets are written A|B",
            file=sys.stderr,
        )


def cmd_export(args: argparse.Namespace) -> int:
    from tagtool.store.formats import write_corpus
    from tagtool.store.formats.detect import EXTENSIONS
    from tagtool.store.project import Project

    check_not_input(args.output, {"project": args.project})
    with Project.open(args.project, readonly=True) as project:
        corpus = project.review.export_corpus()  # with the review flags, for formats that keep them
    options: dict = {}
    if args.spans:
        # Span records are JSON Lines whatever the output's name (-o -, out.txt).
        if (args.format or "doccano") not in ("jsonl", "doccano"):
            raise TagtoolError(f"--spans writes JSON Lines; it cannot be used with --format {args.format}")
        args.format = "doccano"
    if args.label_field is not None:
        if (args.format or EXTENSIONS.get(args.output.suffix.lower())) != "conllu":
            raise TagtoolError("--label-field needs CoNLL-U output (a .conllu file or --format conllu)")
        options["label_field"] = args.label_field
    write_corpus(corpus, args.output, format=args.format, **options)
    # With -o - the records are the standard output; the summary goes aside.
    print(f"wrote {len(corpus)} sentences to {args.output}", file=sys.stderr if str(args.output) == "-" else sys.stdout)
    return 0


def project_summary(project) -> dict:
    """Sizes, labels and annotation progress of an open project."""
    return {
        "project": str(project.path),
        "name": project.name,
        "schema_version": project.schema_version,
        "documents": len(project.documents()),
        "sentences": project.n_sentences,
        "tokens": project.n_tokens,
        "labels": list(project.labels.names),
        "sentence_status": project.listing.status_counts(),
        "token_annotations": project.listing.annotation_counts(),
        "review": _review_summary(project),
        "models": len(project.stored.models()),
        "text_tokens": project.stored.text_tokens(),
        "word_representations": _representations_summary(project),
        "word_vectors": _vectors_summary(project),
    }


def _review_summary(project) -> dict[str, int]:
    """Sentences flagged for review and skipped in the app."""
    reviews = project.review.all().values()
    return {"flagged": sum(r.flagged for r in reviews), "skipped": sum(r.skipped for r in reviews)}


def _representations_summary(project) -> str:
    record = project.stored.representations_record()
    if record is None:
        return "none"
    state = "out of date" if project.stored.representations_stale() else "current"
    return f"{record.info.get('n_words', '?')} words from {record.text_tokens} tokens ({state})"


def _vectors_summary(project) -> str:
    from tagtool.services.user_vectors import describe, vectors_info, vectors_use

    info = vectors_info(project.stored)
    return describe(info) + (f" (use: {vectors_use(project)})" if info else "")


def cmd_info(args: argparse.Namespace) -> int:
    from tagtool.store.project import Project

    path = args.project or ensure_sample_project()
    with Project.open(path, readonly=True) as project:
        summary = project_summary(project)
    if args.json:
        print(json.dumps(summary))
        return 0
    for key, value in summary.items():
        if isinstance(value, list):
            value = " ".join(value)
        elif isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key:>20}: {value}")
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    """Open the desktop app (Qt is imported only here)."""
    path = args.project or ensure_sample_project()
    if not path.is_file():
        raise TagtoolError(f"{path}: no such project file")
    display = check_display()
    if not display.starts:
        raise TagtoolError(
            f"gui: no display ({display.reason}); run it in a desktop session, "
            f"or look at the project with 'tagtool info {path}'"
        )
    from tagtool.gui.qt_libraries import preflight

    problem = preflight()  # before Qt: it would end in a traceback or an abort for a missing library or X server
    if problem is not None:
        raise TagtoolError(problem)
    quit_after = getattr(args, "quit_after", None)
    if quit_after is None:
        from tagtool.services.warmup import start_filling_cache

        child = start_filling_cache()  # on a cold cache, compiling while Qt and the window load (seconds)
        from tagtool.gui.app import run

        return run(path, child=child)
    from tagtool.gui.app import run

    if quit_after < 0:
        raise TagtoolError(f"--quit-after {quit_after}: milliseconds must be 0 or more")
    status = run(path, quit_after_ms=quit_after)
    if status == 0:
        print(f"gui: opened {path} and closed it after {quit_after} ms")
    else:
        print(f"tagtool: error: gui: {path} did not open", file=sys.stderr)
    return status


def open_sample() -> int:
    """What ``tagtool`` with no command does: open the sample project in the
    window, or print its summary (``tagtool info``) where no window can show."""
    if check_display().shows:
        return cmd_gui(argparse.Namespace(project=None))
    path = ensure_sample_project()
    print(f"sample project: {path} (no display for the window; this is 'tagtool info')")
    return cmd_info(argparse.Namespace(project=path, json=False))

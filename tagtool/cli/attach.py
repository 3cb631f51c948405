"""``tagtool import`` of span records onto a project's own text, and of texts the project already holds.

``--attach fill|replace`` (training labels) and ``--as-annotator`` with
``--match text`` (answers) place the spans of doccano / Label Studio
records by character offsets on the project's text of the same text
(:mod:`tagtool.store.span_attach`); ``--merge-crossing`` joins the
project's sentences a span crosses. ``--duplicates add|skip`` says what a
plain import does with texts the project holds already
(:mod:`tagtool.store.duplicates`); without it they are refused.
"""

from __future__ import annotations

import argparse
import sys

from tagtool.errors import TagtoolError

#: Notes listed one by one; the rest are counted.
SHOWN_NOTES = 50


def add_attach_options(parser: argparse.ArgumentParser) -> None:
    """``--attach``, ``--merge-crossing`` and ``--duplicates`` of ``tagtool import``."""
    group = parser.add_argument_group("span records onto the project's own text")
    group.add_argument(
        "--attach",
        choices=("fill", "replace"),
        help="existing project: the files' doccano / Label Studio spans become the training "
        "labels of the project's text they were made on, placed by character offsets (whatever "
        "the tokenization and sentence split): fill labels only tokens that have none, replace "
        "every token a record covers (--as-annotator keeps them as annotators' answers instead)",
    )
    group.add_argument(
        "--merge-crossing",
        action="store_true",
        help="--attach or --as-annotator by text: join the project's sentences a span crosses "
        "(default: such spans are listed and left out)",
    )
    group.add_argument(
        "--duplicates",
        choices=("add", "skip"),
        help="existing project: what to do with texts of the files the project holds already "
        "(same text): add them again, or skip them (default: refuse the import)",
    )


def text_match(args: argparse.Namespace) -> bool:
    """Whether ``--as-annotator`` places the files by text: ``--match text``, or by default span records
    going into an existing project that keeps its text."""
    from tagtool.store.project import Project
    from tagtool.store.span_attach import is_span_file

    if args.match is not None:
        return args.match == "text"
    if not args.project.exists() or not all(is_span_file(f) for f in args.files):
        return False
    with Project.open(args.project, readonly=True) as project:
        return project.spans.has_texts()


def attach_files(args: argparse.Namespace, answers: bool) -> int:
    """Place every file's spans on the project's text (one transaction per file); print what happened."""
    from tagtool.cli.answers import check_new_labels, file_annotator
    from tagtool.cli.inputs import span_kwargs
    from tagtool.store.project import Project
    from tagtool.store.project_attach import NewLabelsError
    from tagtool.store.span_attach import read_span_records

    if not args.project.exists():
        raise TagtoolError(f"{args.project}: no such project; spans are attached to an existing project's text")
    options = {k: v for k, v in span_kwargs(args).items() if k not in ("tokenizer", "sentence_split")}
    with Project.open(args.project) as project:
        if not project.spans.has_texts():
            raise TagtoolError(
                f"{args.project} keeps no text (its sentences were read as tokens); spans cannot "
                "be placed by character offsets (--match order or tokens matches sentences)"
            )
        for path in args.files:
            records = read_span_records(path, encoding=args.encoding, **options)
            kwargs = dict(
                mode=args.attach,
                answers=answers,
                owner=file_annotator(args, path),
                merge_crossing=args.merge_crossing,
                annotator=getattr(args, "annotator", None) or "import",
            )
            try:
                done = project.spans.attach(path, records, add_labels=args.add_labels, **kwargs)
            except NewLabelsError as exc:
                check_new_labels(project.labels, exc.labels, args)  # refuses, naming --add-labels
                raise
            _report(path, done, answers)
    return 0


def _report(path, done, answers: bool) -> None:
    placed = done.placed
    for note in placed.notes[:SHOWN_NOTES]:
        print(f"tagtool: {note}", file=sys.stderr)
    if len(placed.notes) > SHOWN_NOTES:
        print(f"tagtool: ... and {len(placed.notes) - SHOWN_NOTES} more notes", file=sys.stderr)
    if placed.crossing and not done.joined:
        print(
            f"tagtool: {len(placed.crossing)} span(s) cross a sentence boundary of the project and were left "
            "out; --merge-crossing joins those sentences and attaches them",
            file=sys.stderr,
        )
    print(
        f"{path}: {placed.found} of {placed.records} records found in the project's text, "
        f"{len(placed.labels)} sentences labeled by offsets"
        + (f", {placed.snapped} span(s) moved out to token edges" if placed.snapped else "")
        + (f", {done.joined} sentence(s) joined to hold the spans that crossed them" if done.joined else "")
    )
    if not answers:
        print(f"  {done.changed} training labels changed")
    counts = done.counts  # answers mode, or the annotators' answers a tagtool doccano export keeps
    if counts is not None:
        print(
            f"  answers for {counts.sentences} sentences ({counts.answers} tokens); {counts.changed} training "
            f"labels changed, {counts.candidate_sets} became the candidate set of differing answers"
        )


def refuse_or_skip(args: argparse.Namespace, project, corpus):
    """``corpus`` for a plain import into ``project``: the texts it holds already refused, skipped or kept."""
    from tagtool.store.duplicates import held_texts

    if args.duplicates == "add":
        return corpus
    held = held_texts(project, corpus)
    if not held.texts:
        return corpus
    files = ", ".join(map(str, args.files))
    if args.duplicates is None:
        raise TagtoolError(
            f"{files}: {held.texts} of its {held.total} texts ({held.sentences} sentences) are already in "
            f"{args.project} (same text); --duplicates skip leaves them out, --duplicates add adds them again "
            "(to take the files' labels for the project's own sentences instead: --as-annotator, or for span "
            "records --attach fill|replace)"
        )
    print(f"skipped {held.texts} of {held.total} texts ({held.sentences} sentences) already in {args.project}")
    return held.rest

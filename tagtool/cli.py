"""The ``tagtool`` command line.

Every command calls the same core functions the desktop app calls; output
for people goes to stdout, progress and errors to stderr.  Errors are one
line and a non-zero exit status; Ctrl-C exits with status 130.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from tagtool import __version__
from tagtool.errors import TagtoolError

logger = logging.getLogger("tagtool")

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130
#: Sentences of the sample project that start fully labeled.
SAMPLE_LABELED = 50


def _add_reader_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=["conll", "conllu", "text", "jsonl", "csv", "tsv"],
                        help="input format (default: from the extension and content)")
    parser.add_argument("--token-column", type=int, default=0, metavar="N",
                        help="0-based token column of column files (default 0)")
    parser.add_argument("--label-column", type=int, default=-1, metavar="N",
                        help="0-based label column of column files (default -1, the last)")
    parser.add_argument("--no-labels", action="store_true", help="read no labels: every token unlabeled")
    parser.add_argument("--encoding", default="utf-8", help="text encoding (default utf-8)")


def _reader_kwargs(args: argparse.Namespace) -> dict:
    return {
        "format": args.format,
        "token_column": args.token_column,
        "label_column": None if args.no_labels else args.label_column,
        "encoding": args.encoding,
    }


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tagtool",
        description="Token annotation with full, partial and no labels. "
        "Without a command: open the built-in sample project.",
    )
    parser.add_argument("--version", action="version", version=f"tagtool {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("import", help="create a project from corpus files, or add files to one")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("-p", "--project", type=Path, required=True, help="project file (.tagproj)")
    p.add_argument("--labels", help="comma-separated label set (default: the labels in the files)")
    p.add_argument("--name", help="project name (new projects)")
    _add_reader_options(p)
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("export", help="write a project's tokens and annotations to a file")
    p.add_argument("project", type=Path)
    p.add_argument("-o", "--output", type=Path, required=True)
    p.add_argument("--format", choices=["conll", "conllu", "text", "jsonl", "csv", "tsv"])
    p.add_argument("--spans", action="store_true", help="jsonl: span records (BIO, full labels only)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("info", help="summarise a project: sizes, labels, annotation progress")
    p.add_argument("project", type=Path, nargs="?", help="project file (default: the sample project)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_info)
    return parser


def cmd_import(args: argparse.Namespace) -> int:
    from tagtool.core import LabelSet
    from tagtool.core.corpus import merge_corpora
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    labels = LabelSet(args.labels.split(",")) if args.labels else None
    corpus = merge_corpora(read_corpus(f, labels=labels, **_reader_kwargs(args)) for f in args.files)
    if args.project.exists():
        with Project.open(args.project) as project:
            ids = project.import_corpus(corpus, add_labels=labels is None)
        print(f"added {len(ids)} sentences ({corpus.n_tokens} tokens) to {args.project}")
    else:
        with Project.create(args.project, corpus, name=args.name):
            pass
        print(f"created {args.project}: {len(corpus)} sentences, {corpus.n_tokens} tokens, "
              f"{len(corpus.labels)} labels")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from tagtool.store.formats import write_corpus
    from tagtool.store.project import Project

    with Project.open(args.project, readonly=True) as project:
        corpus = project.corpus()
    options = {"spans": True} if args.spans else {}
    write_corpus(corpus, args.output, format=args.format, **options)
    print(f"wrote {len(corpus)} sentences to {args.output}")
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
        "sentence_status": project.status_counts(),
        "token_annotations": project.annotation_counts(),
        "models": len(project.models()),
    }


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
        print(f"{key:>18}: {value}")
    return 0


def ensure_sample_project() -> Path:
    """The built-in sample project in the user data folder, created on first use.

    The first :data:`SAMPLE_LABELED` sentences keep their gold chunk labels and
    the rest start unlabeled: where an annotator starts on a real task.
    """
    from tagtool.core import Corpus
    from tagtool.paths import SAMPLE_CORPUS, SAMPLE_PROJECT, resource, user_data_dir
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    path = user_data_dir() / SAMPLE_PROJECT
    if not path.exists():
        gold = read_corpus(resource(SAMPLE_CORPUS), format="conll", column_names=["token", "pos", "chunk"])
        corpus = Corpus.from_sentences(
            [s if i < SAMPLE_LABELED else s.unlabeled() for i, s in enumerate(gold)],
            labels=gold.labels, name="conll2000-train-400",
        )
        with Project.create(path, corpus, name="CoNLL-2000 sample"):
            pass
        logger.info("created the sample project %s", path)
    return path


def open_sample() -> int:
    """What ``tagtool`` with no command does: show the sample project."""
    path = ensure_sample_project()
    print(f"sample project: {path}")
    return cmd_info(argparse.Namespace(project=path, json=False))


def _configure_logging(verbosity: int) -> None:
    level = logging.WARNING - 10 * min(verbosity, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tagtool`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    try:
        if args.command is None:
            return open_sample()
        return args.func(args)
    except KeyboardInterrupt:
        print("tagtool: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (TagtoolError, OSError) as exc:
        print(f"tagtool: error: {exc}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())

"""What every ``tagtool`` command that reads corpus files takes, in one place.

Format and columns, the CoNLL-U label field, the raw-text and span-record
options (tokenizer, sentence splitting, document unit, strictness,
annotators) and the read limits are added to each reading command's parser
here and turned into the keyword arguments of
:func:`tagtool.store.formats.read_corpus` (or
:func:`tagtool.store.sources.read_source`, which also reads project files),
so ``import``, ``train``, ``tag``, ``evaluate``, ``experiment`` and
``simulate`` cannot drift apart. :func:`check_text_options` refuses a
raw-text option that none of a command's inputs reads: no option is
silently ignored.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path


def add_reader_options(parser: argparse.ArgumentParser) -> None:
    """Options of ``tagtool import``: those of every reading command, and ``--no-labels``."""
    add_column_options(parser)
    parser.add_argument("--no-labels", action="store_true", help="read no labels: every token unlabeled")


def label_field(text: str) -> str:
    """``--label-field`` value, checked as CoNLL-U field or ``misc:KEY``."""
    from tagtool.store.formats.conllu import LabelField

    try:
        LabelField.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_label_field_option(parser: argparse.ArgumentParser, what: str = "the labels are read from") -> None:
    """Add ``--label-field`` (CoNLL-U: the field ``what``)."""
    parser.add_argument(
        "--label-field",
        type=label_field,
        metavar="FIELD",
        help=f"CoNLL-U files: the field {what}: upos (default), xpos, deprel, any other "
        "field, or misc:KEY for a KEY=VALUE entry of MISC (e.g. misc:NER)",
    )


def format_options(path: Path, format: str | None, label_field: str | None) -> dict:
    """Format options of one input file: ``label_field`` if it is CoNLL-U."""
    from tagtool.store.formats import detect_format

    if label_field is None or not path.is_file():
        return {}
    return {"label_field": label_field} if (format or detect_format(path)) == "conllu" else {}


def reader_kwargs(args: argparse.Namespace, path: Path) -> dict:
    """``read_corpus`` keyword arguments of ``tagtool import`` for the file ``path``; raw text going into an
    existing project is read with the options its text was read with, unless given."""
    return {
        "format": args.format,
        "token_column": args.token_column,
        "label_column": None if args.no_labels else args.label_column,
        "encoding": args.encoding,
        **format_options(path, args.format, args.label_field),
        **project_text_options(getattr(args, "project", None), path, args.format),
        **span_kwargs(args),
    }


def project_text_options(project: Path | None, path: Path, format: str | None) -> dict:
    """The raw-text reader options ``project`` (an existing project file) records, those ``path`` takes."""
    from tagtool.store.sources import input_format, is_project_file, stored_text_options

    if project is None or not is_project_file(project):
        return {}
    from tagtool.store.project import Project

    with Project.open(project, readonly=True) as opened:
        meta = opened.meta
    return stored_text_options(meta, input_format(path, format))


#: ``tagtool.core.tokenize.TOKENIZERS`` (kept here so that building the parser
#: imports nothing; a test checks them).
TOKENIZER_CHOICES = ("default", "whitespace")


#: ``tagtool.store.formats.text.DOCUMENT_UNITS``.
DOCUMENT_UNIT_CHOICES = ("auto", "line", "paragraph")


def add_span_options(parser: argparse.ArgumentParser, annotators: bool = True) -> None:
    """Add the raw-text and span-record options and ``--limit``; ``annotators=False`` for commands reading no labels."""
    group = parser.add_argument_group("raw text (plain text files) and span records (doccano, Label Studio)")
    add_text_options(group)
    group.add_argument(
        "--strict",
        action="store_true",
        default=None,
        help="a span that cannot be placed is an error (default: skipped and listed)",
    )
    parser.add_argument(
        "--limit",
        action="append",
        default=[],
        type=read_limit,
        metavar="NAME=N",
        help="raise (or lower) a read limit, repeatable: max_line_chars, max_sentence_tokens, "
        "max_token_chars, max_labels, max_table_bytes (an input beyond one is refused with an "
        "error naming the limit; defaults in the formats package docs)",
    )
    if annotators:
        who = group.add_mutually_exclusive_group()
        who.add_argument(
            "--annotator",
            metavar="NAME",
            help="the labels read are NAME's: in files that name annotators (Label Studio, "
            "doccano) only NAME's are read (an id, email or user name); the labels of files or "
            "records that name nobody are NAME's. tagtool import keeps them as NAME's answers and "
            "records NAME as who gave the training labels (without it: 'import')",
        )
        who.add_argument(
            "--annotators",
            choices=["all"],
            help="Label Studio: read every annotator's annotations (the default); where they "
            "differ a token gets the candidate set of their labels",
        )


def add_text_options(group) -> None:
    """Add ``--tokenizer``, ``--no-sentence-split`` and ``--document-unit`` (defaults None: given or not)."""
    group.add_argument(
        "--tokenizer",
        choices=TOKENIZER_CHOICES,
        help="how raw text becomes tokens: default splits punctuation from words (U.S., 3.5, "
        "don't, URLs, e-mail addresses, @mentions handled), whitespace splits on spaces only; "
        "plain text that is already tokenised, one sentence a line: --tokenizer whitespace "
        "--no-sentence-split",
    )
    group.add_argument(
        "--no-sentence-split",
        action="store_true",
        default=None,
        help="keep each record (plain text: each line) one sentence (default: split texts at sentence ends)",
    )
    group.add_argument(
        "--document-unit",
        choices=DOCUMENT_UNIT_CHOICES,
        help="plain text: what one document (one record's text) is: a line, or a paragraph "
        "between blank lines (default auto: paragraph when the file has blank lines between "
        "lines of text, else line; line with --no-sentence-split)",
    )


def span_kwargs(args: argparse.Namespace) -> dict:
    """Reader options every input file gets: raw-text and span-record options given, and read limits."""
    given = {
        "tokenizer": args.tokenizer,
        "sentence_split": False if args.no_sentence_split else None,
        "document_unit": getattr(args, "document_unit", None),
    }
    return {
        **{name: value for name, value in given.items() if value is not None},
        "strict": bool(args.strict),
        "annotator": getattr(args, "annotator", None),
        **dict(args.limit),
    }


def text_kwargs(args: argparse.Namespace) -> dict:
    """The raw-text reader options given (plain text read for word representations)."""
    return {k: v for k, v in span_kwargs(args).items() if k in ("tokenizer", "sentence_split", "document_unit")}


#: The raw-text options: their flag, their attribute, and their reader option (the formats taking
#: it are :func:`tagtool.store.sources.options_taken`'s, the rule the app's batch dialog follows too).
TEXT_FLAGS = (
    ("--tokenizer", "tokenizer", "tokenizer"),
    ("--no-sentence-split", "no_sentence_split", "sentence_split"),
    ("--document-unit", "document_unit", "document_unit"),
    ("--strict", "strict", "strict"),
)
_KINDS = {
    "text": "plain text",
    "jsonl": "JSON Lines",
    "conll": "a CoNLL column file",
    "conllu": "CoNLL-U",
    "csv": "a CSV table",
    "tsv": "a TSV table",
    "project": "a project file",
}


def check_text_options(
    args: argparse.Namespace, inputs: Sequence[Path], format: str | None = None, text_files: Sequence[Path] = ()
) -> None:
    """Refuse a raw-text option that no input of the command reads (none is silently ignored).

    ``inputs`` are read in ``format`` (None: detected; project files are
    projects); ``text_files`` are always read as plain text. An option is
    refused only when no input takes it, so that ``train data.conll
    --unlabeled raw.txt --tokenizer whitespace`` gives it to ``raw.txt``.
    """
    from tagtool.errors import TagtoolError
    from tagtool.store.sources import input_format, options_taken

    formats = {p: input_format(p, format) for p in inputs}
    formats.update({p: "text" for p in text_files})
    known = {p: f for p, f in formats.items() if f is not None}
    for flag, attr, option in TEXT_FLAGS:
        if getattr(args, attr, None) is None or not known:
            continue
        takers = tuple(f for f in ("text", "jsonl") if option in options_taken(f))
        if not any(f in takers for f in known.values()):
            what = ", ".join(f"{p} is {_KINDS.get(f, f)}" for p, f in known.items())
            readers = {("text",): "plain text", ("jsonl",): "span records (doccano, Label Studio)"}.get(
                takers, "plain text and span records (doccano, Label Studio)"
            )
            raise TagtoolError(f"{flag} applies to {readers}, and no input is: {what}")


def read_limit(text: str) -> tuple[str, int]:
    """``NAME=N`` of ``--limit``, checked against :class:`ReadLimits`."""
    from dataclasses import fields

    from tagtool.store.formats.limits import ReadLimits

    names = [f.name for f in fields(ReadLimits)]
    name, _, value = text.partition("=")
    if name not in names:
        raise argparse.ArgumentTypeError(f"unknown limit {name!r}; the limits are {', '.join(names)}")
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"{name} takes a positive integer, got {value!r}")
    return name, number


def report_reading(corpus) -> None:
    """What the readers skipped, and how several annotators were merged (stderr)."""
    for warning in corpus.warnings:
        print(f"tagtool: {warning}", file=sys.stderr)
    skipped = corpus.skipped_spans
    if skipped:
        print(
            f"tagtool: {skipped} span(s) could not be placed and were skipped (listed above; "
            "--strict makes them errors)",
            file=sys.stderr,
        )
    names = sorted({name for s in corpus for name in s.annotator_labels})
    if len(names) > 1:
        differ = sum(
            len({a for a in votes if a}) > 1
            for s in corpus
            if len(s.annotator_labels) > 1
            for votes in zip(*s.annotator_labels.values())
        )
        print(
            f"tagtool: annotators {', '.join(names)}: each one's labels are kept; {differ} token(s) where "
            "they differ got the candidate set of their labels (--annotator NAME reads one)",
            file=sys.stderr,
        )


def add_column_options(parser: argparse.ArgumentParser, label_default: int | None = -1) -> None:
    """Options of the learning commands' input files (format, columns, label field, encoding, span options)."""
    parser.add_argument(
        "--format",
        choices=["conll", "conllu", "text", "jsonl", "csv", "tsv"],
        help="input format (default: from the extension and content)",
    )
    parser.add_argument(
        "--token-column", type=int, default=0, metavar="N", help="0-based token column of column files (default 0)"
    )
    parser.add_argument(
        "--label-column",
        type=int,
        default=label_default,
        metavar="N",
        help="0-based label column of column files (default -1, the last); "
        "labels A|B are candidate sets, _ means no label",
    )
    add_label_field_option(parser)
    parser.add_argument("--encoding", default="utf-8", help="text encoding (default utf-8)")
    add_span_options(parser)


def read_files(paths: Sequence[Path], args: argparse.Namespace, label_column: int | None):
    """The corpus of corpus files and project files (a project's annotations as stored)."""
    from tagtool.core.corpus import merge_corpora
    from tagtool.store.sources import read_source

    corpus = merge_corpora(
        read_source(
            p,
            format=args.format,
            token_column=args.token_column,
            label_column=label_column,
            encoding=args.encoding,
            **format_options(p, args.format, args.label_field),
            **span_kwargs(args),
        )
        for p in paths
    )
    report_reading(corpus)
    return corpus


def add_missing_columns_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--allow-missing-columns`` (``tag`` and ``evaluate``: input without a column the tagger read)."""
    parser.add_argument(
        "--allow-missing-columns",
        action="store_true",
        help="tag input lacking an extra column the tagger was trained with (e.g. POS): "
        "a warning with the expected loss instead of an error",
    )

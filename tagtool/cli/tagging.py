"""The command ``tag``: a tagger's predictions for a file, streamed in batches.

The input is read and written in batches by :func:`tagtool.services.batch.tag_file`
(in this process, in ``--workers`` processes or on a Dask cluster); the
output is written atomically in the input's own format unless ``--format``
names another.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tagtool.cli.inputs import (
    add_label_field_option,
    add_missing_columns_option,
    add_span_options,
    check_text_options,
    span_kwargs,
)
from tagtool.cli.progress import EXIT_INTERRUPTED, progress_bar, stop_on_sigint
from tagtool.errors import Cancelled
from tagtool.store import format_catalog
from tagtool.store.outputs import check_not_input


def add_tag_command(sub) -> None:
    """Add ``tag`` to the subcommands ``sub``."""
    p = sub.add_parser(
        "tag",
        help="tag a file with a tagger",
        description="Tag INPUT (streamed in batches, any format) and write the predictions "
        "atomically to OUTPUT, or to stdout. Memory stays flat whatever the number of "
        "sentences of a column, CoNLL-U, text or JSON Lines file (a CSV/TSV table or a JSON "
        "array is loaded whole, a table up to 32 MiB); a line over 16 Mi characters, a "
        "sentence over 100,000 tokens or a token over 4,096 characters stops with an error "
        "naming its line. Progress on "
        "stderr; Ctrl-C stops cleanly and writes nothing. --workers and --dask give the same "
        "output as one process.",
    )
    p.add_argument("model", type=Path, metavar="MODEL")
    p.add_argument("input", type=Path, metavar="INPUT")
    p.add_argument("-o", "--output", type=Path, metavar="OUTPUT", help="output file; - or none: standard output")
    p.add_argument(
        "--format",
        choices=format_catalog.TAG_FORMATS,
        help="output format (default: the input's own: CoNLL-U with the prediction in the label "
        "field, JSONL span or token records as given, a column file in its own layout with the "
        "prediction appended; conll for CSV/TSV); text writes token/LABEL",
    )
    p.add_argument(
        "--input-format",
        choices=["conll", "conllu", "text", "jsonl", "csv", "tsv"],
        help="input format (default: from the extension and content)",
    )
    p.add_argument("--token-column", type=int, default=0, metavar="N", help="0-based token column (default 0)")
    p.add_argument(
        "--output-column",
        type=int,
        metavar="N",
        help="column files: write the prediction into output column N (0-based), replacing "
        "that input column (default: append a column)",
    )
    # the old name, hidden: everywhere else --label-column names an input column
    p.add_argument("--label-column", type=int, dest="deprecated_label_column", help=argparse.SUPPRESS)
    add_label_field_option(p, "that receives the prediction")
    p.add_argument(
        "--batch-size", type=_positive_int, default=2000, metavar="N", help="sentences per batch (default 2000)"
    )
    p.add_argument("--encoding", default="utf-8")
    add_span_options(p, annotators=False)
    add_missing_columns_option(p)
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=_positive_int, default=1, metavar="N", help="tagging processes on this machine (default 1)"
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="tag on the Dask cluster whose scheduler is at ADDRESS (e.g. tcp://host:8786); "
        "needs tagtool[dask] here and tagtool on the workers",
    )
    p.set_defaults(func=cmd_tag)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def cmd_tag(args: argparse.Namespace) -> int:
    from tagtool.services.batch import tag_file

    for path in (args.model, args.input):
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such file")
    check_not_input(args.output, {"input": args.input, "tagger": args.model})
    check_text_options(args, [args.input], args.input_format)
    output_column = args.output_column
    if args.deprecated_label_column is not None:
        print("warning: tag --label-column is deprecated: it is --output-column", file=sys.stderr)
        output_column = args.deprecated_label_column if output_column is None else output_column
    # The real stdout, taken before the progress bar starts: on a terminal,
    # rich swaps sys.stdout for a proxy that prints to the bar's stderr.
    output = args.output if args.output not in (None, Path("-")) else sys.stdout
    # The model goes by path: with --workers each worker process loads it
    # itself, and the main process, which only reads and writes, never does.
    try:
        with stop_on_sigint() as stop, progress_bar(f"tagging {args.input.name}") as report:
            result = tag_file(
                args.model,
                args.input,
                output,
                args.format,
                input_format=args.input_format,
                token_column=args.token_column,
                label_column=output_column,
                label_field=args.label_field,
                batch_size=args.batch_size,
                encoding=args.encoding,
                progress=report,
                should_stop=stop,
                reader_options={k: v for k, v in span_kwargs(args).items() if k != "annotator"},
                workers=args.workers,
                dask_address=args.dask,
                allow_missing_columns=args.allow_missing_columns,
            )
    except Cancelled:
        print("tagtool: interrupted: tagging cancelled, nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"tagged {result.n_sentences} sentences, {result.n_tokens} tokens in {result.seconds:.2f} s "
        f"({result.tokens_per_second:,.0f} tokens/s)",
        file=sys.stderr,
    )
    return 0

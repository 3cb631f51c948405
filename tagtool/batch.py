"""Batch tagging of a corpus file: the one function the CLI and the desktop app call.

:func:`tag_file` streams the input in batches, tags each with a
:class:`~tagtool.tagger.Tagger` and writes the predictions atomically (a
temporary file beside the output, renamed when complete), so a cancelled or
failed run leaves no partial output.  Progress is reported per batch; the
total is known after a quick first pass that only counts sentences.
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from tagtool.core.corpus import Corpus, Document
from tagtool.errors import TagtoolError

#: Output formats of a tagged file.
TAG_FORMATS = ("conll", "text", "jsonl")
_WRITE_OPTIONS = {"conll": {"docstart": False}, "text": {"tagged": True}, "jsonl": {}}


class BatchCancelled(TagtoolError):
    """Batch tagging stopped because ``should_stop()`` returned True; nothing was written."""


@dataclass(frozen=True)
class BatchResult:
    """What a batch run did."""

    n_sentences: int
    n_tokens: int
    seconds: float
    output_format: str

    @property
    def tokens_per_second(self) -> float:
        return self.n_tokens / max(self.seconds, 1e-9)


def output_format_for(input_format: str, requested: str | None = None) -> str:
    """The output format: ``requested``, else the input's if taggable, else conll."""
    if requested is not None:
        if requested not in TAG_FORMATS:
            raise TagtoolError(f"cannot write tagged {requested!r}; choose one of {', '.join(TAG_FORMATS)}")
        return requested
    return input_format if input_format in TAG_FORMATS else "conll"


def _batches(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, max(1, size))):
        yield batch


@contextmanager
def _stream(path: Path | None, encoding: str):
    from tagtool.store.formats._common import WriteContext, atomic_write

    if path is None:
        yield sys.stdout, WriteContext(Path("stdout"))
        return
    with atomic_write(path, encoding) as fh:
        yield fh, WriteContext(path)


def tag_file(
    tagger,
    input: str | PathLike,
    output: str | PathLike | None,
    format: str | None = None,
    *,
    input_format: str | None = None,
    token_column: int = 0,
    batch_size: int = 2000,
    encoding: str = "utf-8",
    progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> BatchResult:
    """Tag ``input`` with ``tagger`` and write the predictions to ``output``.

    Parameters
    ----------
    tagger : Tagger
    input : path
        Any corpus format (labels in it are ignored).
    output : path or None
        Written atomically; None writes to standard output.
    format : {"conll", "text", "jsonl"}, optional
        Output format (default: the input's if taggable, else conll).
    input_format : str, optional
        Default: detected from the extension and content.
    progress : callable(fraction, message), optional
    should_stop : callable() -> bool, optional
        Polled per batch; True raises :class:`BatchCancelled` and the output
        is left as it was.

    Returns
    -------
    BatchResult
    """
    from tagtool.store.formats import FORMATS, detect_format, iter_sentences

    input = Path(input)
    in_format = input_format or detect_format(input)
    out_format = output_format_for(in_format, format)

    def read():
        return iter_sentences(input, in_format, token_column=token_column, label_column=None, encoding=encoding)

    total = sum(1 for _ in read()) if progress is not None else 0
    started, n_sentences, n_tokens = time.perf_counter(), 0, 0
    output = None if output is None else Path(output)
    with _stream(output, encoding) as (fh, ctx):
        for batch in _batches(read(), batch_size):
            if should_stop is not None and should_stop():
                raise BatchCancelled("batch tagging cancelled")
            corpus = Corpus(tagger.labels, (Document(ctx.document_name, tuple(batch)),))
            FORMATS[out_format].write(tagger.tag_corpus(corpus), fh, ctx, **_WRITE_OPTIONS[out_format])
            n_sentences += len(batch)
            n_tokens += sum(len(s) for s in batch)
            if progress is not None:
                progress(n_sentences / max(total, 1), f"{n_sentences} of {total} sentences")
    return BatchResult(n_sentences, n_tokens, time.perf_counter() - started, out_format)

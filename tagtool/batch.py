"""Batch tagging of a corpus file: the one function the CLI and the desktop app call.

:func:`tag_file` streams the input in batches, tags each with a
:class:`~tagtool.tagger.Tagger` and writes the predictions atomically (a
temporary file beside the output, renamed when complete), so a cancelled or
failed run leaves no partial output.  Progress is reported per batch; the
total is known after a quick first pass that only counts sentences.

Memory stays flat with the input's size: the counting pass keeps nothing,
a batch is written as soon as it is tagged, and at most a few batches are
in flight at once.  With ``workers > 1`` the batches go to a process pool,
with ``dask_address`` to a Dask cluster (:mod:`tagtool.batch_parallel`);
every mode runs the same :func:`format_batch` on the same batches and
writes them in input order, so the output is byte for byte the same.
"""

from __future__ import annotations

import io
import itertools
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.errors import FormatError, TagtoolError

#: Output formats of a tagged file.
TAG_FORMATS = ("conll", "text", "jsonl")
_WRITE_OPTIONS = {"conll": {"docstart": False}, "text": {"tagged": True}, "jsonl": {}}
#: A column file's document boundary (``tagtool.store.formats.conll.DOCSTART``), as it starts a line.
DOCSTART_PREFIX = "-DOCSTART-"

#: Sentences read between two polls of ``should_stop`` in the counting pass.
_COUNT_POLL = 1000


class BatchCancelled(TagtoolError):
    """Batch tagging stopped because ``should_stop()`` returned True; nothing was written."""


class BatchError(TagtoolError):
    """A batch could not be tagged or written; the message names the input and the sentence.

    Holds only its message, so it crosses process and Dask boundaries intact.
    """


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


@dataclass(frozen=True)
class BatchJob:
    """What every batch of one run shares (small and picklable: it travels to workers).

    Attributes
    ----------
    out_format : str
        One of :data:`TAG_FORMATS`.
    output_name : str
        The output path (or ``"stdout"``): its file name is the document name
        the writers expect, so batches need no document markers.
    input_name : str
        The input path, for error messages.
    """

    out_format: str
    output_name: str
    input_name: str


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


# ---------------------------------------------------------------------------
# one batch: the work every mode runs


def _write_batch(tagger, sentences: Iterable[Sentence], job: BatchJob) -> str:
    from tagtool.store.formats import FORMATS
    from tagtool.store.formats._common import WriteContext

    ctx = WriteContext(Path(job.output_name))
    corpus = Corpus(tagger.labels, (Document(ctx.document_name, tuple(sentences)),))
    buffer = io.StringIO()
    FORMATS[job.out_format].write(tagger.tag_corpus(corpus), buffer, ctx, **_WRITE_OPTIONS[job.out_format])
    return buffer.getvalue()


def format_batch(tagger, sentences: list[Sentence], first: int, job: BatchJob) -> str:
    """Tag ``sentences`` and return them written in ``job.out_format``.

    Parameters
    ----------
    tagger : Tagger
    sentences : list of Sentence
    first : int
        0-based index of ``sentences[0]`` in the input (for error messages).
    job : BatchJob

    Returns
    -------
    str
        The text to append to the output.

    Raises
    ------
    BatchError
        Naming the input file and the 1-based number of the first sentence
        that cannot be tagged or written (e.g. a token holding a space,
        which a column file cannot hold).
    """
    try:
        return _write_batch(tagger, sentences, job)
    except Exception as exc:  # noqa: BLE001 - every failure becomes one line naming the sentence
        raise BatchError(_locate_failure(tagger, sentences, first, job, exc)) from None


def _locate_failure(tagger, sentences: list[Sentence], first: int, job: BatchJob, exc: Exception) -> str:
    """The message of a failed batch: retry its sentences one by one to name the culprit."""
    for i, sentence in enumerate(sentences):
        try:
            _write_batch(tagger, [sentence], job)
        except Exception as single:  # noqa: BLE001
            return f"{job.input_name}: sentence {first + i + 1}: {_reason(single, job)}"
    last = first + len(sentences)
    return f"{job.input_name}: sentences {first + 1}-{last}: {_reason(exc, job)}"


def _reason(exc: Exception, job: BatchJob) -> str:
    if isinstance(exc, FormatError):
        # The writer's "document ..., sentence 1" counts within one batch;
        # the caller names the sentence in the input instead.
        from tagtool.store.formats._common import WriteContext

        where = f"document {WriteContext(Path(job.output_name)).document_name!r}, sentence 1: "
        message = exc.message.removeprefix(where)
        return f"cannot write it as {job.out_format}: {message}"
    if isinstance(exc, TagtoolError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


# ---------------------------------------------------------------------------
# runners: where format_batch runs


class _Done:
    """A finished future: what the serial runner hands back."""

    def __init__(self, value: str):
        self._value = value

    def result(self) -> str:
        return self._value

    def cancel(self) -> bool:
        return False


@contextmanager
def _serial_runner(tagger, job: BatchJob):
    if not hasattr(tagger, "tag_corpus"):
        from tagtool.tagger import load_tagger

        tagger = load_tagger(tagger)
    yield (lambda batch, first: _Done(format_batch(tagger, batch, first, job))), 1


def _runner(tagger, job: BatchJob, workers: int, dask_address: str | None):
    """A context manager yielding ``(submit(batch, first) -> future, batches in flight)``."""
    if dask_address is not None:
        from tagtool.batch_parallel import dask_runner

        return dask_runner(tagger, job, dask_address)
    if workers > 1:
        from tagtool.batch_parallel import process_runner

        return process_runner(tagger, job, workers)
    return _serial_runner(tagger, job)


def ordered_results(submit, batches: Iterable[tuple[int, list[Sentence]]], in_flight: int,
                    describe: Callable[[int, int], str]) -> Iterator[tuple[int, int, str]]:
    """Submit batches, keep at most ``in_flight`` of them pending, yield results in input order.

    Yields ``(n_sentences, n_tokens, text)`` per batch.  Only the counts of a
    pending batch are kept here, never its sentences, so memory is bounded
    by ``in_flight`` batches whatever the input's size.  A worker failure
    that is not already a :class:`TagtoolError` becomes a :class:`BatchError`
    naming the sentences (``describe(first, n)``).
    """
    pending: deque = deque()

    def take():
        first, n_sentences, n_tokens, future = pending.popleft()
        try:
            text = future.result()
        except TagtoolError:
            raise
        except Exception as exc:  # noqa: BLE001 - a dead worker, a lost connection, ...
            raise BatchError(f"{describe(first, n_sentences)}: {type(exc).__name__}: {exc}") from None
        return n_sentences, n_tokens, text

    try:
        for first, batch in batches:
            pending.append((first, len(batch), sum(len(s) for s in batch), submit(batch, first)))
            del batch  # not kept alive here while the oldest result is awaited
            if len(pending) >= in_flight:
                yield take()
        while pending:
            yield take()
    finally:
        for *_, future in pending:
            future.cancel()


# ---------------------------------------------------------------------------
# the entry point


@contextmanager
def _stream(output, encoding: str):
    from tagtool.store.formats._common import atomic_write

    if output is None or hasattr(output, "write"):
        yield sys.stdout if output is None else output
        return
    with atomic_write(output, encoding) as fh:
        yield fh


def _check_stop(should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None and should_stop():
        raise BatchCancelled("batch tagging cancelled")


def _count(sentences: Iterable, should_stop: Callable[[], bool] | None) -> int:
    total = 0
    for total, _ in enumerate(sentences, 1):
        if total % _COUNT_POLL == 0:
            _check_stop(should_stop)
    return total


def quick_count(path: Path, in_format: str, encoding: str) -> int | None:
    """Sentences of a conll, text or jsonl file from its lines alone, without parsing them.

    The progress bar's total: a sentence of a column file is a run of
    non-blank lines (``-DOCSTART-`` lines end one and are not one), of a
    text or JSONL file a non-blank line — the readers' own rules.  About ten
    times faster than reading the sentences; malformed input is reported by
    the tagging pass, not here.  None for the other formats.
    """
    if in_format not in ("conll", "text", "jsonl"):
        return None
    total, in_block = 0, False
    with open(path, encoding=encoding, errors="replace") as fh:
        for line in fh:
            blank = not line.strip()
            if in_format != "conll":
                total += not blank
            elif blank or line.lstrip("\ufeff").startswith(DOCSTART_PREFIX):
                in_block = False
            elif not in_block:
                total, in_block = total + 1, True
    return total


def _numbered_batches(sentences: Iterable, size: int, should_stop) -> Iterator[tuple[int, list]]:
    first = 0
    for batch in _batches(sentences, size):
        _check_stop(should_stop)
        yield first, batch
        first += len(batch)


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
    workers: int = 1,
    dask_address: str | None = None,
) -> BatchResult:
    """Tag ``input`` with ``tagger`` and write the predictions to ``output``.

    Parameters
    ----------
    tagger : Tagger or path
        A tagger, or the path of a tagger file (then the main process of a
        parallel run never loads it: each worker does).
    input : path
        Any corpus format (labels in it are ignored).
    output : path, text stream or None
        A path is written atomically; None writes to standard output (as
        found at the call), a stream is written to as the batches finish.
    format : {"conll", "text", "jsonl"}, optional
        Output format (default: the input's if taggable, else conll).
    input_format : str, optional
        Default: detected from the extension and content.
    token_column : int
        0-based token column of column files.
    batch_size : int
        Sentences per batch (the unit of work, progress and cancelling).
    encoding : str
        Of the input and the output.
    progress : callable(fraction, message), optional
        Called after each batch is written; asking for it adds a first pass
        over the input that counts its sentences.
    should_stop : callable() -> bool, optional
        Polled per batch; True raises :class:`BatchCancelled` and the output
        is left as it was.
    workers : int
        Tagging processes; above 1, a process pool whose workers each load
        the tagger once.
    dask_address : str, optional
        Scheduler address of a Dask cluster (``tcp://host:8786``) to tag on
        instead; needs the ``dask`` extra (``distributed``) here and tagtool
        on the workers.

    Returns
    -------
    BatchResult

    Raises
    ------
    BatchError
        A batch could not be tagged or written (the message names the input
        and sentence); :class:`~tagtool.errors.FormatError` for malformed
        input (naming file and line).
    """
    from tagtool.store.formats import detect_format, iter_sentences

    if workers < 1:
        raise TagtoolError(f"workers must be at least 1, got {workers}")
    input = Path(input)
    _check_paths(tagger, input, output)
    in_format = input_format or detect_format(input)
    if output is None or hasattr(output, "write"):
        output_name = "stdout" if output is None else str(getattr(output, "name", "<stream>"))
    else:
        output = output_name = Path(output)
    job = BatchJob(output_format_for(in_format, format), str(output_name), str(input))

    def read():
        return iter_sentences(input, in_format, token_column=token_column, label_column=None, encoding=encoding)

    started, n_sentences, n_tokens = time.perf_counter(), 0, 0
    # The runner first: workers load the tagger while the sentences are counted.
    with _runner(tagger, job, workers, dask_address) as (submit, in_flight), _stream(output, encoding) as fh:
        total = 0
        if progress is not None:
            counted = quick_count(input, in_format, encoding)
            total = counted if counted is not None else _count(read(), should_stop)
        batches = _numbered_batches(read(), batch_size, should_stop)
        for n, tokens, text in ordered_results(submit, batches, in_flight, _describer(job)):
            fh.write(text)
            n_sentences, n_tokens = n_sentences + n, n_tokens + tokens
            if progress is not None:
                progress(n_sentences / max(total, 1), f"{n_sentences} of {total} sentences")
    return BatchResult(n_sentences, n_tokens, time.perf_counter() - started, job.out_format)


def _check_paths(tagger, input: Path, output) -> None:
    """The input exists, and the output is neither the input nor the tagger file."""
    from tagtool.outputs import check_not_input

    if not input.is_file():
        raise FileNotFoundError(f"{input}: no such file")
    tagger_path = None if hasattr(tagger, "tag_corpus") else tagger
    check_not_input(output, {"input": input, "tagger": tagger_path})


def _describer(job: BatchJob) -> Callable[[int, int], str]:
    return lambda first, n: f"{job.input_name}: sentences {first + 1}-{first + n}"

"""Batch tagging of a corpus file: the one function the CLI and the desktop app call.

:func:`tag_file` streams the input in batches, tags each with a
:class:`~tagtool.tagger.model.Tagger` and writes the predictions atomically (a
temporary file beside the output, renamed when complete), so a cancelled or
failed run leaves no partial output.  Progress is reported per batch; the
total is known after a quick first pass that only counts sentences.

Memory stays flat with the input's size: the counting pass keeps nothing,
a batch is written as soon as it is tagged, and at most a few batches are
in flight at once.  With ``workers > 1`` the batches go to a process pool,
with ``dask_address`` to a Dask cluster (:mod:`tagtool.services.batch_parallel`);
every mode runs the same :func:`~tagtool.services.batch_job.format_batch` on the same batches and
writes them in input order, so the output is byte for byte the same.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from tagtool import collector
from tagtool.services.batch_job import BatchError, BatchJob, format_batch
from tagtool.services.batch_output import TAG_FORMATS, output_format_for, output_plan
from tagtool.core.corpus import Sentence
from tagtool.errors import Cancelled, FormatError, TagtoolError
from tagtool.store import format_catalog

#: A column file's document boundary (``tagtool.store.formats.conll.DOCSTART``), as it starts a line.
DOCSTART_PREFIX = "-DOCSTART-"

#: Sentences read between two polls of ``should_stop`` in the counting pass.
_COUNT_POLL = 1000


@dataclass(frozen=True)
class BatchResult:
    """What a batch run did."""

    n_sentences: int
    n_tokens: int
    seconds: float
    output_format: str
    #: One line per problem tagged through (a missing input column, with its expected loss).
    warnings: tuple[str, ...] = ()

    @property
    def tokens_per_second(self) -> float:
        return self.n_tokens / max(self.seconds, 1e-9)


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
        from tagtool.tagger.model import load_tagger

        tagger = load_tagger(tagger)
    yield (lambda batch, first: _Done(format_batch(tagger, batch, first, job))), 1


def _runner(tagger, job: BatchJob, workers: int, dask_address: str | None):
    """A context manager yielding ``(submit(batch, first) -> future, batches in flight)``."""
    if dask_address is not None:
        from tagtool.services.batch_parallel import dask_runner

        return dask_runner(tagger, job, dask_address)
    if workers > 1:
        from tagtool.services.batch_parallel import process_runner

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
    from tagtool.store.atomic import atomic_write

    if output is None or hasattr(output, "write"):
        yield sys.stdout if output is None else output
        return
    with atomic_write(output, encoding) as fh:
        yield fh


def _check_stop(should_stop: Callable[[], bool] | None) -> None:
    if should_stop is not None and should_stop():
        raise Cancelled("batch tagging cancelled")


def _count(sentences: Iterable, should_stop: Callable[[], bool] | None) -> int:
    total = 0
    for total, _ in enumerate(sentences, 1):
        if total % _COUNT_POLL == 0:
            _check_stop(should_stop)
    return total


def quick_count(path: Path, in_format: str, encoding: str) -> int | None:
    """Sentences of a file from its lines alone, without parsing them, by its format's ``counted_by``.

    The progress bar's total (:data:`tagtool.store.format_catalog.CATALOG`):
    a sentence of a column file is a run of non-blank lines (``-DOCSTART-``
    lines end one and are not one in a CoNLL file; CoNLL-U has none), of a
    text or JSONL file a non-blank line — the readers' own rules.  About ten
    times faster than reading the sentences; malformed input is reported by
    the tagging pass, not here.  None for the formats not counted.
    """
    info = format_catalog.CATALOG.get(in_format)
    rule = None if info is None else info.counted_by
    if rule is None:
        return None
    total, in_block, docstart = 0, False, rule == "block-docstart"
    with open(path, encoding=encoding, errors="replace") as fh:
        for line, blank in _line_heads(fh):
            if rule == "line":
                total += not blank
            elif blank or (docstart and line.lstrip("\ufeff").startswith(DOCSTART_PREFIX)):
                in_block = False
            elif not in_block:
                total, in_block = total + 1, True
    return total


def _line_heads(fh, chunk: int = 2**20) -> Iterator[tuple[str, bool]]:
    """``(start, blank)`` of every line of ``fh`` (no newline), read ``chunk`` characters at a time.

    A 100 MB line is never held whole (the reader refuses it later, naming
    its line): it counts as one line, blank if all of it is whitespace, and
    its start is its first 64 characters at least.
    """
    head, blank, partial = "", True, False
    while block := fh.read(chunk):
        pieces = block.split("\n")
        for piece in pieces[:-1]:
            if partial:
                yield (head + piece[:64] if len(head) < 64 else head), blank and not piece.strip()
                partial = False
            else:
                yield piece, not piece.strip()
        last = pieces[-1]
        if last:
            if not partial:
                head, blank, partial = last, True, True
            elif len(head) < 64:
                head += last[:64]
            blank = blank and not last.strip()
    if partial:
        yield head, blank


def _numbered_batches(sentences: Iterable, size: int, should_stop) -> Iterator[tuple[int, list]]:
    """``(index of the first, sentences)`` of each batch of about ``size`` sentences.

    A batch never ends inside a span record split into sentences: it runs
    over ``size`` to finish its record, which the writer can only put back
    together from sentences of one batch; so the output is the same
    whatever the batch size.
    """
    from tagtool.store.formats.spans import continues_record

    first, batch = 0, []
    for sentence in sentences:
        if len(batch) >= max(1, size) and not continues_record(sentence):
            _check_stop(should_stop)
            yield first, batch
            first, batch = first + len(batch), []
        batch.append(sentence)
    if batch:
        _check_stop(should_stop)
        yield first, batch


def tag_file(
    tagger,
    input: str | PathLike,
    output: str | PathLike | None,
    format: str | None = None,
    *,
    input_format: str | None = None,
    token_column: int = 0,
    label_column: int | None = None,
    label_field: str | None = None,
    batch_size: int = 2000,
    encoding: str = "utf-8",
    progress: Callable[[float, str], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    workers: int = 1,
    dask_address: str | None = None,
    reader_options: dict | None = None,
    allow_missing_columns: bool = False,
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
    format : {"conll", "conllu", "text", "jsonl"}, optional
        Output format (default: the input's own, in its layout, see
        :mod:`tagtool.services.batch_output`; conll for CSV/TSV).
    input_format : str, optional
        Default: detected from the extension and content.
    token_column : int
        0-based token column of column files.
    label_column : int, optional
        Column files: the column the prediction replaces (default: appended).
    label_field : str, optional
        CoNLL-U output: the field that receives the prediction (default upos).
    batch_size : int
        Sentences per batch (the unit of work, progress and cancelling).
    encoding : str
        Of the input and the output.
    progress : callable(fraction, message), optional
        Called after each batch is written; asking for it adds a first pass
        over the input that counts its sentences.
    should_stop : callable() -> bool, optional
        Polled per batch; True raises :class:`Cancelled` and the output
        is left as it was.
    workers : int
        Tagging processes; above 1, a process pool whose workers each load
        the tagger once.
    dask_address : str, optional
        Scheduler address of a Dask cluster (``tcp://host:8786``) to tag on
        instead; needs the ``dask`` extra (``distributed``) here and tagtool
        on the workers.
    reader_options : dict, optional
        Format options for reading ``input`` (span records: ``tokenizer``,
        ``sentence_split``, ``strict``; see ``read_corpus``).
    allow_missing_columns : bool
        Tag an input that lacks an extra column the tagger was trained with
        (``BatchResult.warnings`` names it and the expected loss) instead of
        refusing it.

    Returns
    -------
    BatchResult

    Raises
    ------
    TaggerInputError
        The input lacks such a column and ``allow_missing_columns`` is
        False (checked on the first sentence, before anything is written).
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
    out_format = output_format_for(in_format, format)
    options = output_plan(in_format, out_format, input, encoding, token_column=token_column,
                          label_column=label_column, label_field=label_field)
    job = BatchJob(out_format, str(output_name), str(input), options, allow_missing_columns)

    def read():
        return iter_sentences(
            input, in_format, token_column=token_column, label_column=None, encoding=encoding,
            **(reader_options or {}),
        )

    with collector.paused():  # see there: loading, reading and tagging make no cycles
        if workers == 1 and dask_address is None and not hasattr(tagger, "tag_corpus"):
            from tagtool.tagger.model import load_tagger

            tagger = load_tagger(tagger)  # once: the column check then needs no second read of its meta
        warnings = _check_columns(tagger, read(), job)

        started, n_sentences, n_tokens = time.perf_counter(), 0, 0
        # The runner first: workers load the tagger while the sentences are counted.
        with _runner(tagger, job, workers, dask_address) as (submit, in_flight), _stream(output, encoding) as fh:
            total = 0
            if progress is not None:
                # A JSONL line is one sentence unless span records are split into several.
                splits = in_format == "jsonl" and (reader_options or {}).get("sentence_split", True)
                counted = None if splits else quick_count(input, in_format, encoding)
                total = counted if counted is not None else _count(read(), should_stop)
            batches = _numbered_batches(read(), batch_size, should_stop)
            for n, tokens, text in ordered_results(submit, batches, in_flight, _describer(job)):
                fh.write(text)
                n_sentences, n_tokens = n_sentences + n, n_tokens + tokens
                if progress is not None:
                    progress(n_sentences / max(total, 1), f"{n_sentences} of {total} sentences")
        return BatchResult(n_sentences, n_tokens, time.perf_counter() - started, job.out_format, tuple(warnings))


def _check_columns(tagger, sentences: Iterator, job: BatchJob) -> list[str]:
    """Refuse (or warn about) an input whose first sentence lacks a column the tagger needs.

    The first sentence stands for the file: column files are rectangular
    and CoNLL-U has every field; a later sentence lacking a column fails
    its batch instead (:func:`format_batch` names it).
    """
    from tagtool.tagger.file_format import TaggerFileError
    from tagtool.tagger.inputs import check_input, tagger_record

    try:
        record = tagger_record(tagger)
    except TaggerFileError:
        return []  # a broken tagger file: the runner that loads it reports it as it always has
    if not record["required"]:
        return []
    stream = iter(sentences)
    first = next(stream, None)
    getattr(stream, "close", lambda: None)()  # the file it reads
    if first is None:
        return []
    return check_input(record, [first], job.input_name, job.allow_missing_columns)


def _check_paths(tagger, input: Path, output) -> None:
    """The input exists, and the output is neither the input nor the tagger file."""
    from tagtool.store.outputs import check_not_input

    if not input.is_file():
        raise FileNotFoundError(f"{input}: no such file")
    tagger_path = None if hasattr(tagger, "tag_corpus") else tagger
    check_not_input(output, {"input": input, "tagger": tagger_path})


def _describer(job: BatchJob) -> Callable[[int, int], str]:
    return lambda first, n: f"{job.input_name}: sentences {first + 1}-{first + n}"

"""Batch tagging of a corpus file: the one function the CLI and the desktop app call.

:func:`tag_file` streams the input in batches, tags each with a
:class:`~tagtool.tagger.model.Tagger` and writes the predictions atomically (a
temporary file beside the output, renamed when complete), so a cancelled or
failed run leaves no partial output.  Progress is reported per batch; the
total is known after a quick first pass that only counts sentences
(:mod:`tagtool.services.batch_count`).

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
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

from tagtool import collector
from tagtool.core.corpus import Sentence
from tagtool.errors import Cancelled, TagtoolError
from tagtool.services.batch_count import count_sentences, quick_count
from tagtool.services.batch_job import BatchJob
from tagtool.services.batch_output import output_format_for, output_plan
from tagtool.services.batch_runners import ordered_results, runner


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


def _numbered_batches(sentences: Iterable, size: int, should_stop) -> Iterator[tuple[int, list]]:
    """``(index of the first, sentences)`` of each batch of about ``size`` sentences.

    A batch never ends inside a span record split into sentences: it runs
    over ``size`` to finish its record, which the writer can only put back
    together from sentences of one batch; so the output is the same
    whatever the batch size.
    """
    from tagtool.store.formats.spans import continues_record

    first = 0
    batch: list[Sentence] = []
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
    from tagtool.store.formats import detect_format

    if workers < 1:
        raise TagtoolError(f"workers must be at least 1, got {workers}")
    input = Path(input)
    _check_paths(tagger, input, output)
    source = _Source(input, input_format or detect_format(input), encoding, token_column, dict(reader_options or {}))
    if output is not None and not hasattr(output, "write"):
        output = Path(output)
    job = _job(source, output, format, label_column, label_field, allow_missing_columns)
    with collector.paused():  # see there: loading, reading and tagging make no cycles
        if workers == 1 and dask_address is None and not hasattr(tagger, "tag_corpus"):
            from tagtool.tagger.model import load_tagger

            tagger = load_tagger(tagger)  # once: the column check then needs no second read of its meta
        return _tag(
            tagger,
            source,
            job,
            output,
            batch_size=batch_size,
            progress=progress,
            should_stop=should_stop,
            workers=workers,
            dask_address=dask_address,
        )


def _tag(
    tagger,
    source: _Source,
    job: BatchJob,
    output,
    *,
    batch_size: int,
    progress,
    should_stop,
    workers: int,
    dask_address: str | None,
) -> BatchResult:
    """The run of :func:`tag_file` once its input, output and job are settled."""
    sentences = source.read()
    try:
        # One read of the input: the column check takes its first sentence, tagging the rest.
        sentences, warnings = _checked_columns(tagger, sentences, job)
        started = time.perf_counter()
        # The runner first: workers load the tagger while the sentences are counted.
        with runner(tagger, job, workers, dask_address) as (submit, in_flight), _stream(output, source.encoding) as fh:
            total = source.count(should_stop) if progress is not None else 0
            batches = _numbered_batches(sentences, batch_size, should_stop)
            results = ordered_results(submit, batches, in_flight, _describer(job))
            n_sentences, n_tokens = _write_results(results, fh, progress, total)
    finally:
        getattr(sentences, "close", lambda: None)()  # the file it reads
    return BatchResult(n_sentences, n_tokens, time.perf_counter() - started, job.out_format, tuple(warnings))


@dataclass(frozen=True)
class _Source:
    """The input of a run: how to read its sentences and to count them for the progress bar."""

    path: Path
    format: str
    encoding: str
    token_column: int
    reader_options: dict

    def read(self) -> Iterator[Sentence]:
        from tagtool.store.formats import iter_sentences

        return iter_sentences(
            self.path,
            self.format,
            token_column=self.token_column,
            label_column=None,
            encoding=self.encoding,
            **self.reader_options,
        )

    def count(self, should_stop: Callable[[], bool] | None) -> int:
        """The progress bar's total: :func:`quick_count`, else a reading pass that keeps nothing."""
        # A JSONL line, or a line of plain text, is one sentence unless the text is split into several
        # (or, plain text, a paragraph is one text).
        options = self.reader_options
        splits = self.format in ("jsonl", "text") and options.get("sentence_split", True)
        splits = splits or (self.format == "text" and options.get("document_unit") == "paragraph")
        counted = None if splits else quick_count(self.path, self.format, self.encoding)
        return counted if counted is not None else count_sentences(self.read(), should_stop)


def _job(
    source: _Source,
    output,
    format: str | None,
    label_column: int | None,
    label_field: str | None,
    allow_missing_columns: bool,
) -> BatchJob:
    """The :class:`BatchJob` of a run: output format, write options and names."""
    if output is None or hasattr(output, "write"):
        output_name = "stdout" if output is None else str(getattr(output, "name", "<stream>"))
    else:
        output_name = str(output)
    out_format = output_format_for(source.format, format)
    options = output_plan(
        source.format,
        out_format,
        source.path,
        source.encoding,
        token_column=source.token_column,
        label_column=label_column,
        label_field=label_field,
    )
    return BatchJob(out_format, output_name, str(source.path), options, allow_missing_columns)


def _write_results(results: Iterator[tuple[int, int, str]], fh, progress, total: int) -> tuple[int, int]:
    """Write each batch's text as it comes, reporting progress; the sentences and tokens written."""
    n_sentences, n_tokens = 0, 0
    for n, tokens, text in results:
        fh.write(text)
        n_sentences, n_tokens = n_sentences + n, n_tokens + tokens
        if progress is not None:
            progress(n_sentences / max(total, 1), f"{n_sentences} of {total} sentences")
    return n_sentences, n_tokens


def _checked_columns(tagger, sentences: Iterator[Sentence], job: BatchJob) -> tuple[Iterator[Sentence], list[str]]:
    """Refuse (or warn about) an input whose first sentence lacks a column the tagger needs.

    Returns the sentences (the first one put back) and the warnings.  The
    first sentence stands for the file: column files are rectangular and
    CoNLL-U has every field; a later sentence lacking a column fails its
    batch instead (:func:`format_batch` names it).
    """
    from tagtool.tagger.file_format import TaggerFileError
    from tagtool.tagger.inputs import check_input, tagger_record

    try:
        record = tagger_record(tagger)
    except TaggerFileError:
        return sentences, []  # a broken tagger file: the runner that loads it reports it as it always has
    if not record["required"]:
        return sentences, []
    first = next(sentences, None)
    if first is None:
        return sentences, []
    warnings = check_input(record, [first], job.input_name, job.allow_missing_columns)
    return _put_back(first, sentences), warnings


def _put_back(first: Sentence, rest: Iterator[Sentence]) -> Iterator[Sentence]:
    """``first`` then ``rest``; closing it closes ``rest`` (the file it reads)."""
    try:
        yield first
        del first  # not kept alive while the rest is tagged
        yield from rest
    finally:
        getattr(rest, "close", lambda: None)()


def _check_paths(tagger, input: Path, output) -> None:
    """The input exists, and the output is neither the input nor the tagger file."""
    from tagtool.store.outputs import check_not_input

    if not input.is_file():
        raise FileNotFoundError(f"{input}: no such file")
    tagger_path = None if hasattr(tagger, "tag_corpus") else tagger
    check_not_input(output, {"input": input, "tagger": tagger_path})


def _describer(job: BatchJob) -> Callable[[int, int], str]:
    return lambda first, n: f"{job.input_name}: sentences {first + 1}-{first + n}"

"""One batch of :func:`tagtool.services.batch.tag_file`: the work every mode runs.

The serial loop in :mod:`tagtool.services.batch`, the process pool and the Dask
workers of :mod:`tagtool.services.batch_parallel` all run :func:`format_batch` on a
:class:`BatchJob`; both modules import it from here, so neither imports the
other for it.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from tagtool import collector
from tagtool.core.annotation import format_annotation
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.errors import FormatError, TagtoolError
from tagtool.services.batch_output import Options, column_layout, columns_text, writer


class BatchError(TagtoolError):
    """A batch could not be tagged or written; the message names the input and the sentence.

    Holds only its message, so it crosses process and Dask boundaries intact.
    """


@dataclass(frozen=True)
class BatchJob:
    """What every batch of one run shares (small and picklable: it travels to workers).

    Attributes
    ----------
    out_format : str
        One of :data:`~tagtool.services.batch_output.TAG_FORMATS`.
    output_name : str
        The output path (or ``"stdout"``): its file name is the document name
        the writers expect, so batches need no document markers.
    input_name : str
        The input path, for error messages.
    options : tuple of (name, value)
        Write options (:func:`tagtool.services.batch_output.output_plan`).
    allow_missing_columns : bool
        Tag sentences lacking an input column the tagger was trained with.
    """

    out_format: str
    output_name: str
    input_name: str
    options: Options = ()
    allow_missing_columns: bool = False


def _write_batch(tagger, sentences: Iterable[Sentence], job: BatchJob) -> str:
    from tagtool.store.formats._common import WriteContext

    sentences = list(sentences)
    layout = column_layout(job.out_format, job.options)
    if layout is not None and sentences:
        text = _layout_text(tagger, sentences, job, layout)
        if text is not None:
            return text
    ctx = WriteContext(Path(job.output_name))
    corpus = Corpus(tagger.labels, (Document(ctx.document_name, tuple(sentences)),))
    buffer = io.StringIO()
    tagged = tagger.tag_corpus(corpus, allow_missing_columns=job.allow_missing_columns)
    writer(job.out_format, job.options)(tagged, buffer, ctx)
    return buffer.getvalue()


def _layout_text(tagger, sentences: list[Sentence], job: BatchJob, layout: tuple) -> str | None:
    """A column file's batch written column by column from the flat predictions (:func:`columns_text`).

    None when the batch needs the reference writer (which then names the
    sentence and cell it refuses).
    """
    # The batch in one feature transform: its words are encoded once, not once per block of
    # TRANSFORM_BLOCK sentences (a third of the feature time of a 2,000-sentence batch); a batch is
    # the unit of progress and cancelling anyway, and the app tags batches of the default size.
    names, _ = tagger.tag_flat(sentences, allow_missing_columns=job.allow_missing_columns, block=len(sentences))
    spelled = {name: format_annotation(frozenset((name,)), tagger.labels) for name in tagger.labels.names}
    return columns_text(sentences, list(map(spelled.__getitem__, names)), *layout)


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
        with collector.paused():  # tagging makes no cycles (tagtool.collector)
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

"""Where the batches of :func:`tagtool.services.batch.tag_file` run, and their results put back in order.

:func:`runner` picks the place :func:`~tagtool.services.batch_job.format_batch`
runs: here, one batch at a time (:func:`serial_runner`), or a process pool or a
Dask cluster (:mod:`tagtool.services.batch_parallel`).  Each is a context
manager yielding ``(submit(batch, first) -> future, batches in flight)``;
:func:`ordered_results` submits the batches, keeps at most that many pending,
and yields their results in input order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from tagtool.core.corpus import Sentence
from tagtool.errors import TagtoolError
from tagtool.services.batch_job import BatchError, BatchJob, format_batch


class _Done:
    """A finished future: what the serial runner hands back."""

    def __init__(self, value: str):
        self._value = value

    def result(self) -> str:
        return self._value

    def cancel(self) -> bool:
        return False


@contextmanager
def serial_runner(tagger, job: BatchJob):
    """Batches tagged here, one at a time (a tagger given by its file loaded first)."""
    if not hasattr(tagger, "tag_corpus"):
        from tagtool.tagger.model import load_tagger

        tagger = load_tagger(tagger)
    yield (lambda batch, first: _Done(format_batch(tagger, batch, first, job))), 1


def runner(tagger, job: BatchJob, workers: int, dask_address: str | None):
    """A context manager yielding ``(submit(batch, first) -> future, batches in flight)``."""
    if dask_address is not None:
        from tagtool.services.batch_parallel import dask_runner

        return dask_runner(tagger, job, dask_address)
    if workers > 1:
        from tagtool.services.batch_parallel import process_runner

        return process_runner(tagger, job, workers)
    return serial_runner(tagger, job)


def ordered_results(
    submit, batches: Iterable[tuple[int, list[Sentence]]], in_flight: int, describe: Callable[[int, int], str]
) -> Iterator[tuple[int, int, str]]:
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

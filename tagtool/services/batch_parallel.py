"""Where batches of :func:`tagtool.services.batch.tag_file` run in parallel: a process pool or a Dask cluster.

Both runners are context managers yielding ``(submit, in_flight)``:
``submit(batch, first)`` sends one batch of sentences to a worker, which
runs :func:`tagtool.services.batch_job.format_batch` on it and returns the text to
append; :func:`tagtool.services.batch_runners.ordered_results` keeps ``in_flight`` batches
pending and writes results in input order.  The main process only reads,
ships and writes.

Every worker loads the tagger once: a pool worker in its initializer
(from the tagger file's path, or the bytes of an in-memory tagger), a Dask
worker on its first batch from bytes scattered to every worker (the
workers need not see the client's files).  Sentences travel as plain
tuples (:func:`pack`): :class:`~tagtool.core.corpus.Sentence` holds
read-only mappings that pickle refuses.

Dask is imported only here and only by :func:`dask_runner`, so a plain
install without the ``dask`` extra tags on one machine as before.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import signal
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from tagtool.core.corpus import Sentence
from tagtool.errors import TagtoolError
from tagtool.services.batch_job import BatchError, BatchJob, format_batch

logger = logging.getLogger(__name__)

#: Batches pending per worker thread: one tagging, one waiting, so no
#: worker idles while the main process writes.
IN_FLIGHT_PER_WORKER = 2
#: Seconds to wait for a Dask scheduler, and then for its first worker.
DASK_TIMEOUT = 10

Packed = tuple[tuple[str, ...], dict | None, dict | None]


def pack(sentences: list[Sentence]) -> list[Packed]:
    """Sentences as picklable tuples (tokens, columns, meta); annotations are dropped."""
    return [(s.tokens, dict(s.columns) or None, dict(s.meta) or None) for s in sentences]


def unpack(packed: list[Packed]) -> list[Sentence]:
    """Inverse of :func:`pack` (without the annotations, which tagging ignores)."""
    return [Sentence(tokens, (), columns or {}, meta or {}) for tokens, columns, meta in packed]


def _load(source: str | bytes):
    from tagtool.tagger.model import Tagger, load_tagger

    return Tagger.from_bytes(source, "tagger") if isinstance(source, bytes) else load_tagger(source)


def _tagger_bytes(tagger) -> bytes:
    if hasattr(tagger, "to_bytes"):
        return tagger.to_bytes()
    path = Path(tagger)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return path.read_bytes()


# ---------------------------------------------------------------------------
# process pool

_worker_tagger = None
_worker_error = ""


def _init_worker(source: str | bytes) -> None:
    """Pool initializer: load the tagger once; keep a failure for the first batch to report."""
    global _worker_tagger, _worker_error
    # Ctrl-C reaches the whole process group; the main process decides what
    # it means (cancel cleanly), so a worker must not die of it mid-batch.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _worker_tagger = _load(source)
    except Exception as exc:  # noqa: BLE001 - an initializer that raises breaks the pool without a message
        _worker_error = str(exc) if isinstance(exc, TagtoolError | OSError) else f"{type(exc).__name__}: {exc}"


def _warm_up() -> None:
    """A no-op task whose only effect is to start a worker process."""


def _pool_task(packed: list[Packed], first: int, job: BatchJob) -> str:
    if _worker_tagger is None:
        raise BatchError(f"cannot load the tagger: {_worker_error}")
    return format_batch(_worker_tagger, unpack(packed), first, job)


def _start_method() -> str:
    # Not fork: the caller may have threads (the GUI, a progress bar), and a
    # forked child inherits their locks in whatever state they were.
    return "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"


@contextmanager
def process_runner(tagger, job: BatchJob, workers: int) -> Iterator:
    """Run batches on ``workers`` processes, each holding its own copy of the tagger.

    Parameters
    ----------
    tagger : Tagger or path
        A path is handed to the workers, which read the file themselves; an
        in-memory tagger travels once per worker as its file bytes.
    job : BatchJob
    workers : int
    """
    if hasattr(tagger, "to_bytes"):
        source: str | bytes = tagger.to_bytes()
    else:
        source = str(tagger)
        if not Path(source).is_file():
            raise FileNotFoundError(f"{source}: no such file")
    context = multiprocessing.get_context(_start_method())
    executor = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker, initargs=(source,))
    logger.info("tagging on %d worker processes (%s)", workers, context.get_start_method())
    for _ in range(workers):
        # The pool starts a process per submission: start them all now, so
        # they load the tagger while the main process counts the input.
        executor.submit(_warm_up)

    def submit(batch: list[Sentence], first: int):
        return executor.submit(_pool_task, pack(batch), first, job)

    try:
        yield submit, IN_FLIGHT_PER_WORKER * workers
    except KeyboardInterrupt:
        # A second Ctrl-C: stop now, not once the batches in flight are done.
        for process in list(getattr(executor, "_processes", {}).values()):
            process.terminate()
        executor.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        # In-flight batches are bounded, so waiting for them is short.
        executor.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------------------
# Dask

_dask_lock = threading.Lock()
_dask_tagger: tuple[str, object] | None = None


def _dask_task(key: str, model: bytes, packed: list[Packed], first: int, job: BatchJob) -> str:
    """One batch on a Dask worker; the tagger is parsed once per worker process and kept."""
    global _dask_tagger
    with _dask_lock:  # threads of one worker share the cached tagger
        if _dask_tagger is None or _dask_tagger[0] != key:
            try:
                _dask_tagger = (key, _load(model))
            except TagtoolError as exc:
                raise BatchError(f"cannot load the tagger: {exc}") from None
        tagger = _dask_tagger[1]
    return format_batch(tagger, unpack(packed), first, job)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise TagtoolError(
            "tagging on a Dask cluster needs the 'distributed' package: pip install 'tagtool[dask]'"
        ) from None
    return distributed


def _connect(distributed, address: str):
    try:
        client = distributed.Client(address, timeout=DASK_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise TagtoolError(f"cannot connect to the Dask scheduler at {address}: {exc}") from None
    try:
        client.wait_for_workers(1, timeout=DASK_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise TagtoolError(f"the Dask scheduler at {address} has no workers: {exc}") from None
    return client


@contextmanager
def dask_runner(tagger, job: BatchJob, address: str) -> Iterator:
    """Run batches on the Dask cluster whose scheduler is at ``address``.

    Parameters
    ----------
    tagger : Tagger or path
        Sent to every worker once, as the tagger file's bytes.
    job : BatchJob
    address : str
        Scheduler address, e.g. ``tcp://10.0.0.5:8786``.
    """
    distributed = _import_distributed()
    import dask  # installed with distributed

    data = _tagger_bytes(tagger)
    # The client's outgoing channel keeps its last 1000 messages under 1 MB
    # "for developers"; each of ours carries a batch, so that log alone grew
    # the client by hundreds of MB on a large input. Keep none.
    with dask.config.set({"distributed.admin.low-level-log-length": 0}):
        client = _connect(distributed, address)
    try:
        [model] = client.scatter([data], broadcast=True, hash=False)
        key = hashlib.sha256(data).hexdigest()
        del data
        threads = max(1, sum(client.nthreads().values()))
        logger.info("tagging on the Dask cluster at %s (%d worker threads)", address, threads)

        def submit(batch: list[Sentence], first: int):
            return client.submit(_dask_task, key, model, pack(batch), first, job, pure=False)

        yield submit, IN_FLIGHT_PER_WORKER * threads
    finally:
        client.close()

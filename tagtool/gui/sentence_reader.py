"""Reading a big project's training sentences in a worker thread, gently.

:class:`SnapshotRead` is the task (:class:`~tagtool.gui.worker.TaskRunner`
runs it): it opens the project on a read-only connection of its own and
reads :meth:`Project.snapshot`.  Two things keep the window responsive
meanwhile: the reader gives the GUI thread a turn every few milliseconds
(:class:`Pacer`), and Python's garbage collector is paused during the read
and the result frozen (:func:`collector_paused`).  Used by
:meth:`tagtool.gui.session_cache.SentenceCache.read_sentences`.
"""

from __future__ import annotations

import gc
import threading
import time
import warnings
from contextlib import contextmanager

from PySide6.QtCore import QObject, Qt, Signal

from tagtool import collector
from tagtool.core.corpus import Sentence
from tagtool.store.project import NewerSchemaWarning, Project

#: Seconds a background read runs before it lets the GUI thread have a turn.
READ_SLICE = 0.004
#: Longest wait for that turn (the GUI thread may be busy elsewhere).
TURN_TIMEOUT = 0.5


class Pacer(QObject):
    """Lets a worker thread go on only after the GUI thread has had a turn.

    A thread running Python holds the GIL, and each Python call of the GUI
    thread (the list's ``data()``, a query's every row) then waits for it,
    up to the interpreter's switch interval each time; painting the
    list makes hundreds of such calls.  So the reader stops every
    :data:`READ_SLICE` seconds and posts an event to the GUI thread; it
    goes on once the GUI thread takes it, after the window's own pending
    events.
    """

    _turn = Signal()

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._go = threading.Event()
        self._free = False
        self._since = time.perf_counter()
        self._turn.connect(self._give_turn, Qt.QueuedConnection)

    def pause(self, force: bool = False) -> None:
        """Worker thread: after a slice of work, wait for the GUI thread's turn.

        ``force``: wait even if the last turn was less than :data:`READ_SLICE`
        ago (the worker has just handed the GUI thread something to show).
        """
        if self._free or (not force and time.perf_counter() - self._since < READ_SLICE):
            return
        self._go.clear()
        self._turn.emit()
        self._go.wait(TURN_TIMEOUT)
        self._since = time.perf_counter()

    def free(self) -> None:
        """GUI thread: stop pausing (it is about to wait for the worker)."""
        self._free = True
        self._go.set()

    def _give_turn(self) -> None:
        self._go.set()


class SnapshotRead:
    """Reads a project's snapshot in a worker thread, on a connection of its own.

    The window's connection belongs to the GUI thread; this one is
    read-only and closed when the read ends.  The result is also kept on
    the object, so the GUI thread can take it after waiting for the thread.
    """

    def __init__(self, path, pacer: Pacer):
        self.path = path
        self.pacer = pacer
        self.result: tuple[list[int], list[Sentence]] | None = None

    def __call__(self, state) -> tuple[list[int], list[Sentence]]:
        def checkpoint() -> bool:
            self.pacer.pause()
            return state.should_stop()

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NewerSchemaWarning)  # the window has said so already
            project = Project.open(self.path, readonly=True)
        with project, collector_paused():
            self.result = project.snapshot(checkpoint)
        return self.result


@contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector while a snapshot is built, then freeze what exists.

    Reading 100k sentences makes millions of objects, and the collector walks
    all of them again at each full collection it triggers on the way
    (each holding the GIL: a stall in the window; benchmarks/results/design-measurements.md,
    "Garbage collection").  Afterwards every full collection would walk them again.  Sentences are immutable and form no
    cycles, so they are
    frozen (:func:`gc.freeze`): the collector skips them, and reference
    counting still frees them when the cache drops them.  Closing the
    project unfreezes (:meth:`Session.shutdown`), so nothing frozen stays
    out of the collector's reach.
    """
    with collector.paused():
        try:
            yield
        finally:
            gc.freeze()

"""Background tasks: superqt's worker pattern on a one-worker ``QThreadPool``.

A :class:`Task` is a ``QRunnable`` whose :class:`TaskSignals` (a ``QObject``
living on the GUI thread) carry ``progress``, ``ready``, ``returned``,
``errored``, ``cancelled`` and ``finished``; signals emitted from the worker
thread arrive on the GUI thread as queued calls, so every slot — swapping in
a new model included — runs on the GUI thread.  Errors inside the task
arrive as ``errored(message, traceback)`` instead of dying in the thread.

Progress is not a queued signal per report: :meth:`TaskState.progress` only
keeps the latest ``(fraction, message)`` and the runner's timer on the GUI
thread emits ``progress`` with it at most every :data:`PROGRESS_INTERVAL_MS`.
A learner may report hundreds of times a second; each queued call would
make the GUI thread wait for the GIL the training thread holds (up to the
interpreter's switch interval), and a burst of them stalled the
event loop (benchmarks/results/design-measurements.md, "GUI thread: stalls").

:class:`TaskRunner` keeps one task at a time (Orange3): starting a new one
requests the previous one to stop, and a stale task's signals are ignored.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

from tagtool import pacing
from tagtool.errors import Cancelled, TagtoolError

log = logging.getLogger(__name__)

#: How often the GUI thread shows a running task's latest progress.
PROGRESS_INTERVAL_MS = 100


class TaskSignals(QObject):
    started = Signal()
    progress = Signal(float, str)
    ready = Signal(object)
    returned = Signal(object)
    errored = Signal(str, str)
    cancelled = Signal()
    finished = Signal()


class TaskState:
    """Handed to the task function: progress, stop requests, early results."""

    def __init__(self, signals: TaskSignals):
        self._signals = signals
        self._stop = threading.Event()
        self._latest: tuple[float, str] | None = None
        #: Gives the GUI thread a turn at :meth:`pause` (a paced runner's tasks only).
        self.pacer = None
        self._gui_thread = threading.get_ident()  # made there: the GUI thread never pauses for itself

    def pause(self, force: bool = False) -> None:
        """Worker thread, between two steps of work: let the GUI thread have a turn first (paced runners).

        A thread running Python holds the GIL, and every Python call the
        GUI thread makes meanwhile (painting the sentence list calls
        ``data()`` a thousand times) waits for it up to the switch interval
        (:class:`~tagtool.gui.sentence_reader.Pacer`).
        """
        if self.pacer is not None and threading.get_ident() != self._gui_thread:
            self.pacer.pause(force)

    def request_stop(self) -> None:
        self._stop.set()

    def should_stop(self) -> bool:
        """Whether to stop; in a paced runner's worker also a turn for the GUI thread (:meth:`pause`).

        Learners and feature extraction poll it every few tens of
        milliseconds, which is how often the window then gets a turn.
        """
        self.pause()
        return self._stop.is_set()

    def progress(self, fraction: float, message: str = "") -> None:
        """Keep the latest report; the runner shows it (see the module docstring)."""
        self._latest = (float(fraction), str(message))  # one atomic store, no lock needed

    def take_progress(self) -> tuple[float, str] | None:
        """The report not shown yet, if any (GUI thread)."""
        latest, self._latest = self._latest, None
        return latest

    def model_ready(self, result) -> None:
        self._signals.ready.emit(result)


class Task(QRunnable):
    """Runs ``function(*args, state)`` on a pool thread."""

    def __init__(self, function: Callable, *args):
        super().__init__()
        self.setAutoDelete(False)  # the runner keeps it until ``finished``
        self.signals = TaskSignals()
        self.state = TaskState(self.signals)
        self._function, self._args = function, args

    def run(self) -> None:
        signals = self.signals
        try:
            if self.state.should_stop():
                signals.cancelled.emit()
                return
            signals.started.emit()
            with pacing.paced(self.state.pause):  # long loops (tagtool.pacing) pause too, in a paced runner
                result = self._function(*self._args, self.state)
        except Exception as exc:  # every error becomes a signal
            if isinstance(exc, Cancelled) or self.state.should_stop():
                signals.cancelled.emit()
            else:
                if isinstance(exc, TagtoolError):  # bad input, said in the message its task shows: no ⚠ as well
                    log.info("background task: %s", exc)
                else:
                    log.exception("background task failed")
                message = str(exc) if isinstance(exc, TagtoolError) else f"{type(exc).__name__}: {exc}"
                signals.errored.emit(message, traceback.format_exc())
        else:
            signals.returned.emit(result)
        finally:
            signals.finished.emit()


class TaskRunner(QObject):
    """One task at a time on its own one-thread pool."""

    def __init__(self, parent: QObject | None = None, paced: bool = False):
        super().__init__(parent)
        self.paced = paced
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.current: Task | None = None
        self._alive: set[Task] = set()
        self._poll = QTimer(self, interval=PROGRESS_INTERVAL_MS)
        self._poll.timeout.connect(self._show_progress)

    def start(self, function: Callable, *args, wire: Callable[[Task], object] | None = None) -> Task:
        """Cancel the running task (if any) and queue ``function(*args, state)``.

        ``wire(task)`` connects the task's signals before it is queued: a
        signal emitted before a connection is made reaches nobody, and a
        short task can finish before the line after ``start`` runs.
        """
        self.cancel()
        task = Task(function, *args)
        if wire is not None:
            wire(task)
        if self.paced:
            from tagtool.gui.sentence_reader import Pacer

            task.state.pacer = Pacer(task.signals)
        self.current = task
        self._alive.add(task)
        task.signals.finished.connect(lambda t=task: self._done(t))
        self.pool.start(task)
        self._poll.start()
        return task

    def cancel(self) -> bool:
        """Ask the current task to stop; True if there was one."""
        task, self.current = self.current, None
        if task is None:
            return False
        task.state.request_stop()
        if task.state.pacer is not None:
            task.state.pacer.free()  # a stopping task does not wait for the GUI thread's turn
        return True

    def is_current(self, task: Task) -> bool:
        return task is self.current

    @property
    def busy(self) -> bool:
        return self.current is not None

    def _show_progress(self) -> None:
        task = self.current
        if task is None:
            self._poll.stop()
            return
        latest = task.state.take_progress()
        if latest is not None:
            task.signals.progress.emit(*latest)

    def _done(self, task: Task) -> None:
        self._alive.discard(task)
        if task is self.current:
            self.current = None
            if shiboken6.isValid(self._poll):  # the runner's parent may be gone when a late task ends
                self._poll.stop()

    def wait(self, msecs: int = 30000) -> bool:
        """Block until every task has ended (closing the window, tests)."""
        for task in self._alive:  # the GUI thread gives no turns while it waits
            if task.state.pacer is not None:
                task.state.pacer.free()
        return self.pool.waitForDone(msecs)

    def shutdown(self, msecs: int = 30000) -> None:
        self.cancel()
        self.pool.clear()
        self.wait(msecs)

"""The default learner's kernels compile in the background while the window opens.

:func:`tagtool.services.warmup.warm_up` runs in a daemon thread: it waits
for the child process that :func:`tagtool.services.warmup.start_filling_cache`
started before the window was built (on a cold cache) and loads the
kernels it compiled, or compiles them itself.  The
kernels release the GIL while they run, and numba's compiler, which does
not, competes with the GUI thread only at the interpreter's short switch
interval (:data:`tagtool.gui.app.GIL_SWITCH_SECONDS`).  A first training
run that starts meanwhile waits on numba's compile lock for the kernels
being compiled, and compiles nothing twice.  Not the window's
:class:`~tagtool.gui.worker.TaskRunner`: a compile cannot be stopped, and a
pool thread would hold the closing app until it ended; a daemon thread ends
with the process.
"""

from __future__ import annotations

import logging
import subprocess
import threading

from PySide6.QtCore import QObject, Qt, Signal

log = logging.getLogger(__name__)


class KernelWarmup(QObject):
    """Starts :func:`~tagtool.services.warmup.warm_kernels` once; ``done(seconds)`` on the GUI thread."""

    done = Signal(float)
    failed = Signal(str)
    _finished = Signal(object)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.thread: threading.Thread | None = None
        self.seconds: float | None = None
        self._finished.connect(self._report, Qt.QueuedConnection)

    def start(self, learner_name: str | None = None, child: subprocess.Popen | None = None) -> None:
        """Warm up ``learner_name``'s kernels, after ``child`` (compiling them into the cache) has ended."""
        if self.thread is not None:
            return
        self.thread = threading.Thread(target=self._run, args=(learner_name, child), name="kernel-warmup", daemon=True)
        self.thread.start()

    def _run(self, learner_name: str | None, child: subprocess.Popen | None) -> None:
        from tagtool.services.warmup import warm_up

        try:
            outcome: object = warm_up(learner_name, child)
        except Exception as exc:  # noqa: BLE001 — the first model compiles them then; nothing is lost
            log.warning("compiling the kernels in the background failed: %s", exc)
            outcome = exc
        try:
            self._finished.emit(outcome)
        except RuntimeError:  # the window is gone
            pass

    def _report(self, outcome: object) -> None:
        if isinstance(outcome, Exception):
            self.failed.emit(str(outcome))
        else:
            self.seconds = float(outcome)
            self.done.emit(self.seconds)

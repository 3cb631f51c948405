"""Reading the sentence list's ids in a worker thread.

A :class:`~tagtool.store.worker_reads.SentenceIdQuery` runs on a thread of its
own (:class:`~tagtool.gui.worker.TaskRunner`, one at a time: starting one
asks the previous to stop, which interrupts its SQLite query), and its
answer comes back to the GUI thread as a queued signal carrying the ticket
it was started with, so the list can drop an answer it no longer wants.
The signals are this object's, connected before any query starts: a task
that ends at once cannot answer to nobody.

Any read of the project's file that takes ``should_stop`` runs the same way
(a :class:`~tagtool.store.worker_reads.ReadOnlyCall`: the window's progress
counts, :mod:`tagtool.gui.counts`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal

from tagtool.gui.worker import TaskRunner
from tagtool.store.worker_reads import ReadOnlyCall, SentenceIdQuery


class IdReader(QObject):
    """Runs id queries (or other reads) on a worker thread; answers with ``done`` or ``failed``."""

    #: ``(ticket, ids)``: the query's answer.
    done = Signal(int, object)
    #: ``(ticket, message)``: the query failed (not when it was stopped).
    failed = Signal(int, str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._runner: TaskRunner | None = None

    def start(self, ticket: int, query: SentenceIdQuery | ReadOnlyCall | Callable[..., Any]) -> None:
        """Run ``query(should_stop)`` (stopping the one running, whose answer is then never sent)."""
        if self._runner is None:
            self._runner = TaskRunner(self)
        done, failed = self.done, self.failed

        def run(state) -> None:  # worker thread
            try:
                ids = query(state.should_stop)
            except Exception as e:  # noqa: BLE001 - the list reads the ids itself then
                if not state.should_stop():
                    failed.emit(ticket, f"{type(e).__name__}: {e}")
                return
            if not state.should_stop():
                done.emit(ticket, ids)

        self._runner.start(run)

    def cancel(self) -> None:
        """Stop the running query, if any."""
        if self._runner is not None:
            self._runner.cancel()

    def shutdown(self) -> None:
        """Stop the running query and wait for its thread (the project closes)."""
        if self._runner is not None:
            self._runner.shutdown()

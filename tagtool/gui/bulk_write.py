"""Edits of many sentences off the GUI thread: Label all occurrences, its undo and its redo.

A :class:`BulkWrite` (the session's ``bulk``) runs one such job at a time:

1. It *holds* the session's edits (:attr:`Session.held
   <tagtool.gui.session.Session.held>`): a label key, a flag, a split and
   the undo stack wait — refused with a word in the status bar — so nothing
   edits the sentences concurrently; browsing the project goes on.
2. A worker thread (a :class:`~tagtool.gui.worker.TaskRunner`) does
   the work: finding the occurrences, and writing every sentence in one
   transaction with its action on a connection of its own
   (:func:`tagtool.store.bulk_writes.write_groups`); the status bar shows how
   far it is.  A failure writes nothing.
3. The window learns of the changed sentences a slice at a time
   (:data:`SLICE_SECONDS` per turn of the event loop: counts, list,
   string-match index, statistics), so it stays responsive throughout; then
   the edits are let go.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from tagtool.errors import ProjectError, TagtoolError
from tagtool.gui.worker import TaskRunner
from tagtool.store.bulk_writes import BulkResult, Group, write_groups

if TYPE_CHECKING:
    from tagtool.gui.session import Session

log = logging.getLogger(__name__)

#: Seconds the window spends learning of changed sentences per turn of the event loop (about 1 ms each) …
SLICE_SECONDS = 0.012
#: … and the fewest sentences per turn, however slow.
MIN_SLICE = 2


class EditsHeld(TagtoolError):
    """An edit asked for while a bulk write holds the session's edits (says why; try again in a moment)."""


class BulkWrite(QObject):
    """One bulk job at a time for a session (module doc).

    Signals
    -------
    message(str)
        What to show in the status bar: progress, the outcome.
    """

    message = Signal(str)

    def __init__(self, session: Session):
        super().__init__(session)
        self.session = session
        self._runner = TaskRunner(self)
        self._was_active = False

    @property
    def busy(self) -> bool:
        return self.session.held is not None

    def hold(self, why: str) -> None:
        """Hold the session's edits and its undo stack (``why``: what the refusals say)."""
        session = self.session
        if session.held is None:
            self._was_active = session.undo_stack.isActive()
            if self._was_active:
                session.undo_stack.setActive(False)
        session.held = why

    def release(self, message: str | None = None) -> None:
        """Let the edits go again; ``message`` for the status bar."""
        self.session.held = None
        if self._was_active and not self.session.project.closed:
            self.session.undo_stack.setActive(True)
        if message:
            self.message.emit(message)

    def run(
        self,
        work: Callable[[Any], Any],
        done: Callable[[Any], None],
        failed: Callable[[str], None],
        what: str,
    ) -> None:
        """``work(state)`` in the worker (edits held by the caller); ``done(result)`` or ``failed(message)`` after,
        on the GUI thread.  ``what`` names the work in the progress messages."""

        def wire(task) -> None:
            task.signals.progress.connect(lambda fraction, text: self.message.emit(f"{what}: {text}"))
            task.signals.returned.connect(lambda result: self._alive() and done(result))
            task.signals.errored.connect(lambda text, _tb: self._alive() and failed(text))
            task.signals.cancelled.connect(lambda: self._alive() and failed("cancelled"))

        self.message.emit(f"{what}…")
        self._runner.start(work, wire=wire)

    def _alive(self) -> bool:
        return not self.session.project.closed

    def apply(self, result: BulkResult, then: Callable[[], None], what: str) -> None:
        """Tell the session's listeners of ``result``'s sentences, a slice per turn (:data:`SLICE_SECONDS`), then
        ``then()``."""
        pending = list(result.after.items())
        total = len(pending)

        def step() -> None:
            if not self._alive():
                return
            began, done = time.perf_counter(), 0
            while done < len(pending) and (done < MIN_SLICE or time.perf_counter() - began < SLICE_SECONDS):
                sid, after = pending[done]
                notify(self.session, sid, result.before[sid], after)
                done += 1
            del pending[:done]
            if pending:
                self.message.emit(f"{what}: showing {total - len(pending):,} of {total:,} sentences")
                QTimer.singleShot(0, self, step)
            else:
                then()

        step()

    def shutdown(self) -> None:
        """Wait for a write in progress (the project closes; what it commits stays in the file)."""
        self._runner.shutdown()


def start_write(
    session: Session,
    groups: Mapping[int, Sequence[Group]],
    kind: str,
    ref: int | None,
    sentence: int | None,
    only_unlabeled: bool,
    what: str,
    done: Callable[[BulkResult], str],
    failed: Callable[[], None] | None = None,
) -> None:
    """Write ``groups`` and one action of ``kind`` (``ref``: the action an undo or redo reverses;
    ``sentence``: the action's) in the worker (:func:`tagtool.store.bulk_writes.write_groups`), then tell the
    window in slices and let the edits go with ``done(result)``'s message (``done`` pushes the undo step).

    Edits are held meanwhile (held already by a caller that found the work in the worker).  A refusal or an
    error writes nothing: it is reported (``saveFailed``), the action's time is left to the next one, and
    ``failed()`` runs.
    """
    bulk, project, clock = session.bulk, session.project, session.clock
    if not bulk.busy:
        bulk.hold(f"{what} is running")
    last = clock.last
    action = clock.action(kind, 0, ref)
    clock.advance(action)  # a skip logged while it runs is not charged the same time

    def fail(message: str) -> None:
        if clock.last == action.ended:
            clock.last = last
        bulk.release(f"{what}: nothing was saved.")
        session.saveFailed.emit(session._not_saved(TagtoolError(message)))
        if failed is not None:
            failed()

    path = project.live_file
    if project.readonly or path is None:
        fail(str(ProjectError(f"{project.path} is open read-only; it cannot be changed")))
        return
    labels, annotator = project.labels, session.annotator

    def work(state) -> BulkResult:
        def progress(done: int, total: int) -> None:
            state.progress(done / total, f"writing {done:,} of {total:,} sentences")

        return write_groups(path, labels, groups, annotator, action, sentence, only_unlabeled, progress)

    def written(result: BulkResult) -> None:
        if result.action is None:
            if clock.last == action.ended:
                clock.last = last
            bulk.release(done(result))
            return
        if sentence == session.current_id:
            session._opened = True  # it took the reading time: no ``open`` in this visit
        session.actionLogged.emit(kind)
        bulk.apply(result, lambda: bulk.release(done(result)), what)

    bulk.run(work, written, fail, what)


def notify(session: Session, sid: int, before: Mapping[int, frozenset], after: Mapping[int, frozenset]) -> None:
    """One sentence's tokens changed in the file (``before`` → ``after``): the session and its listeners follow."""
    if sid == session.current_id:
        session.annotations = changed(session.annotations, after)
    session.cache.set_annotations(sid, lambda annotations: changed(annotations, after))
    session.annotationsReplaced.emit(sid, dict(before), dict(after))
    session.annotationsChanged.emit(sid, dict(after))


def changed(annotations: tuple[frozenset, ...], changes: Mapping[int, frozenset]) -> tuple[frozenset, ...]:
    """``annotations`` with ``changes`` applied."""
    anns = list(annotations)
    for t, ann in changes.items():
        anns[t] = ann
    return tuple(anns)

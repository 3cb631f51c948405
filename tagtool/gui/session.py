"""The labeling session: the open project, the current sentence and the undo stack.

The one source of truth the widgets bind to (glue's pattern): the sentence
list, the editor and the status bar read from it and listen to its signals;
edits go through :meth:`Session.edit`, which writes them to the project at
once (one transaction) and pushes one undo command
(:class:`~tagtool.gui.edit_command.EditCommand`).  Undo and redo write the
previous or next annotations back through the project, so the file always
holds what the screen shows.

The session also keeps every sentence in memory once a training run asked
for them, kept up to date by each edit (:mod:`tagtool.gui.session_cache`,
read by a worker thread in a big project).

Every edit, undo and redo is also an *action* of the project's action log
(:mod:`tagtool.store.actions`), timed by :attr:`Session.clock` and written in
the edit's own transaction; leaving a sentence one worked on with tokens
still unlabeled logs a ``skip`` action (its own transaction: it changes no
annotation).  An undo or redo is logged with ``ref`` naming the action it
reverses.  The first label, candidate set, accepted suggestion or clearing
of a visit to a sentence is logged after an ``open`` action holding the
time it took to get there and read it (same transaction).

Review flags and skips (the session's ``edits`` part) and split or merged tokens
are edits too: saved at once and undone through the same stack
(:mod:`tagtool.gui.sentence_edits`).  While Label all occurrences (or its
undo) writes many sentences in a worker (``bulk``, :mod:`tagtool.gui.bulk_write`),
edits are held: refused with :attr:`Session.held` as the reason.  A split or merge is the one edit that
changes a sentence's tokens: the session replaces its cached copy whole.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from tagtool.core.annotation import annotation_status, make_annotation
from tagtool.core.corpus import Sentence
from tagtool.errors import TagtoolError
from tagtool.gui.adjudication import Adjudication
from tagtool.gui.bulk_write import BulkWrite, EditsHeld
from tagtool.gui.counts import ProjectCounts
from tagtool.gui.edit_command import EditCommand
from tagtool.gui.sentence_edits import SentenceEdits
from tagtool.gui.session_cache import SentenceCache
from tagtool.gui.style import LabelStyle
from tagtool.services.annotation_costs import ActionClock, action_tokens, infer_kind
from tagtool.store.actions import OPENING, Action
from tagtool.store.project import Project
from tagtool.store.retokenize import RetokenizeError

log = logging.getLogger(__name__)
T = TypeVar("T")


class Session(QObject):
    """An open project being labeled.

    Its parts: ``edits`` (flags, skips, split and merged tokens:
    :class:`~tagtool.gui.sentence_edits.SentenceEdits`), ``team`` (annotators' answers and
    resolutions: :class:`~tagtool.gui.adjudication.Adjudication`), ``cache`` (the training
    sentences: :class:`~tagtool.gui.session_cache.SentenceCache`).

    Signals
    -------
    sentenceChanged(int)
        Another sentence became current (its id).
    annotationsChanged(int, object)
        A sentence's annotations changed: its id, and ``{token: annotation}``
        (empty after a bulk change: an import, a label rename).
    annotationsReplaced(int, object, object)
        Emitted just before ``annotationsChanged`` for an edit, undo or
        redo: the id, ``{token: old annotation}``, ``{token: new annotation}``
        (for counts kept up to date without re-reading the project).
    labelsChanged()
        Label names, colours or shortcuts changed.
    sentencesReady()
        A background read of the training sentences is in
        (``cache.read_sentences()``).
    saveFailed(str)
        An edit, undo or redo was not saved (the project refused it: a
        read-only file, a full disk); the message says why. The screen
        still shows what the file holds.
    actionLogged(str)
        An action was written to the project's action log (its kind).
    reviewChanged(int)
        A sentence was flagged, unflagged, skipped or un-skipped (its id).
    tokensChanged(int, int)
        A sentence's tokens were split or merged (its id, the token to
        focus); ``annotationsChanged(id, {})`` follows.

    Attributes
    ----------
    clock : ActionClock
        Times the actions (replace its ``now`` to drive it in tests).
    annotator : str
        Recorded with every edit and action.
    held : str or None
        Why edits wait (a bulk write runs: ``bulk``, :class:`~tagtool.gui.bulk_write.BulkWrite`);
        None when they do not.
    """

    sentenceChanged = Signal(int)
    annotationsChanged = Signal(int, object)
    annotationsReplaced = Signal(int, object, object)
    labelsChanged = Signal()
    sentencesReady = Signal()
    saveFailed = Signal(str)
    reviewChanged = Signal(int)
    tokensChanged = Signal(int, int)
    actionLogged = Signal(str)

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.undo_stack = QUndoStack(self)
        self.style = LabelStyle(project.label_set.label_infos())
        self._order = project.sentence_ids()
        self._position = {sid: i for i, sid in enumerate(self._order)}
        self.current_id: int | None = None
        #: Sentence ids, most informative first (docs/design.md#guidance), once a model gave them.
        self.queue: list[int] = []
        self.sentence: Sentence | None = None
        self.annotations: tuple[frozenset, ...] = ()
        order, position, ready = self._order, self._position, self.sentencesReady  # the parts (class doc)
        self.cache = SentenceCache(self, project, order, position, self._annotations_of, ready)
        self.edits, self.team = SentenceEdits(self), Adjudication(self)
        self.annotator = "user"
        self.clock = ActionClock()
        self._acted_here = False  # an action in the current sentence since it was shown
        self._opened = False  # a logged action of any kind in the current sentence since it was shown
        self.held: str | None = None  # why edits wait (a bulk write runs), else None
        self.bulk = BulkWrite(self)
        self.annotationsChanged.connect(self.cache.note_edit)
        if self._order:
            self.go_to(self._order[0])
        #: Sentences by status and tokens by kind, kept up to date per edit (read once).
        self.counts = ProjectCounts(self)

    # ------------------------------------------------------------------
    # navigation (document order over the whole project)

    @property
    def n_sentences(self) -> int:
        return len(self._order)

    @property
    def sentence_ids(self) -> Sequence[int]:
        """Every sentence id in document order (the session's own list: do not change it)."""
        return self._order

    def index_of(self, sentence_id: int) -> int:
        """0-based position of a sentence in document order."""
        return self._position[sentence_id]

    def go_to(self, sentence_id: int) -> None:
        """Make ``sentence_id`` the current sentence."""
        if sentence_id == self.current_id and self.sentence is not None:
            return
        self.leave_current()
        self._opened = False
        self.sentence = self.project.sentence(sentence_id)
        self.annotations = self.sentence.annotations
        self.current_id = sentence_id
        self.sentenceChanged.emit(sentence_id)

    def step(self, delta: int) -> bool:
        """Go ``delta`` sentences forward (or back); False at either end."""
        if self.current_id is None:
            return False
        target = self._position[self.current_id] + delta
        if not 0 <= target < len(self._order):
            return False
        self.go_to(self._order[target])
        return True

    def next_unfinished(self) -> bool:
        """Go to the most informative sentence that is not fully labeled and not skipped.

        With a model's :attr:`queue` (:func:`tagtool.services.guidance.queue`), its
        first sentence other than the current one that is still not fully
        labeled; without, the next one in document order, wrapping around.
        Skipped sentences are passed over (also those skipped since the
        queue was made). False when all are labeled or skipped.
        """
        if self.current_id is None:
            return False
        skipped = self.edits.skipped
        for sid in self.queue:
            if (
                sid != self.current_id
                and sid not in skipped
                and annotation_status(self.project.annotations(sid)) != "full"
            ):
                self.go_to(sid)
                return True
        target = self.project.listing.next_sentence(self.current_id, status="open")
        if target is None:
            return False
        self.go_to(target)
        return True

    # ------------------------------------------------------------------
    # edits

    def edit(self, changes: Mapping[int, frozenset], text: str, kind: str | None = None) -> bool:
        """Apply changes to the current sentence: saved now, one undo step, one logged action.

        ``kind`` is the action's kind in the log (:mod:`tagtool.store.actions`):
        the editor names ``candidate`` (a toggle) and ``accept`` (Enter,
        Space); otherwise it follows from the result (:func:`infer_kind`).
        Returns False (and changes nothing) when no token would change.
        Raises :class:`~tagtool.errors.TagtoolError` when the project refuses
        (read-only file, disk full) or edits are :attr:`held`; nothing is then changed.
        """
        if self.current_id is None:
            return False
        if self.held:
            raise EditsHeld(f"{self.held}; try again in a moment")
        labels = self.project.labels
        after = {t: make_annotation(a, labels) for t, a in changes.items()}
        before = {t: self.annotations[t] for t in after}
        after = {t: a for t, a in after.items() if a != before[t]}
        if not after:
            return False
        before = {t: before[t] for t in after}
        try:
            action_id = self._write(self.current_id, after, kind or infer_kind(after))
        except TagtoolError as e:
            if self.project.labels != labels:
                self.refuse_stale_label(e)
            else:
                self.saveFailed.emit(self._not_saved(e))
            raise
        self.undo_stack.push(EditCommand(self, self.current_id, before, after, text, action_id))
        return True

    def refuse_stale_label(self, error: Exception) -> None:
        """An edit named a label that another program removed or renamed.

        Shows the project's current labels (older undo steps may name dead
        labels, so the stack is cleared) and says why nothing was saved.
        """
        self.labels_edited(annotations_changed=True)
        self.saveFailed.emit(
            f"{error}\n\nThe label set was changed by another program since it was shown; "
            "the current labels are shown now and nothing was saved."
        )

    def _write_reporting(
        self, sentence_id: int, changes: Mapping[int, frozenset], kind: str | None = None, ref: int | None = None
    ) -> bool:
        """:meth:`_write`, with a refusal reported by ``saveFailed``; False then."""
        if self.held:
            self.saveFailed.emit(f"{self.held}; try again in a moment.")
            return False
        try:
            self._write(sentence_id, changes, kind, ref)
        except TagtoolError as e:
            log.warning("undo/redo not saved: %s", e)
            self.saveFailed.emit(self._not_saved(e))
            return False
        return True

    def _not_saved(self, error: Exception) -> str:
        """What to tell the user about an edit the project refused."""
        if self.project.readonly:
            why = "This project is open read-only"
            if self.project.newer_schema:
                why += " because a newer tagtool wrote it"
            elif self.project.readonly_reason:
                why += f" because {self.project.readonly_reason}"
            return f"{why}: edits cannot be saved.\n\n{error}"
        return (
            f"{error}\n\nThe annotations were left as they are in the file. "
            "Try again once the file can be written (free some disk space, or make it writable)."
        )

    def _write(
        self, sentence_id: int, changes: Mapping[int, frozenset], kind: str | None = None, ref: int | None = None
    ) -> int | None:
        """Write ``changes`` (and, with ``kind``, their action in the same transaction); the action's id."""
        before = self._annotations_of(sentence_id)
        if sentence_id != self.current_id:
            self.leave_current()  # before the undo's action, so the skip is charged its own time
        action_id = None
        here = sentence_id == self.current_id
        if kind is None:
            self.project.set_annotations(sentence_id, dict(changes), self.annotator)
        else:
            action_id = self._write_action(sentence_id, changes, kind, ref, opens=here and not self._opened)
            self._opened = self._opened or here
        if sentence_id != self.current_id:
            self.go_to(sentence_id)  # undo shows the sentence it changes
        else:
            self.annotations = _changed(self.annotations, changes)
        self._acted_here = True
        self.cache.set_annotations(sentence_id, lambda annotations: _changed(annotations, changes))
        self.annotationsReplaced.emit(sentence_id, {t: before[t] for t in changes}, dict(changes))
        self.annotationsChanged.emit(sentence_id, dict(changes))
        if kind is not None:
            self.actionLogged.emit(kind)
        return action_id

    def _write_action(
        self, sentence_id: int, changes: Mapping[int, frozenset], kind: str, ref: int | None, opens: bool
    ) -> int | None:
        """Write ``changes`` with their action; with ``opens``, the visit's ``open`` before it."""
        n_tokens = action_tokens(kind, changes)
        if opens and kind in OPENING:
            opened, action = self.clock.opening(kind, n_tokens, len(self.annotations))
        else:
            opened, action = None, self.clock.action(kind, n_tokens, ref)
        action_id = self.project.apply_action(sentence_id, dict(changes), action, self.annotator, opened=opened)
        self.clock.advance(action)
        if opened is not None:
            self.actionLogged.emit("open")
        return action_id

    def leave_current(self) -> None:
        """Log the current sentence's still unlabeled tokens as skipped, if one worked on it.

        A refusal (a read-only file, a full disk) is only logged: leaving a
        sentence must not fail, and the edits themselves were saved.
        """
        if not self._acted_here or self.current_id is None:
            return
        self._acted_here = False
        unlabeled = sum(1 for a in self.annotations if not a)
        if not unlabeled:
            return
        action = self.clock.action("skip", unlabeled)
        try:
            self.project.log_action(action, self.current_id, self.annotator)
        except TagtoolError as e:
            log.warning("the skipped tokens of sentence %s were not logged: %s", self.current_id, e)
            return
        self.clock.advance(action)
        self.actionLogged.emit("skip")

    def action_for(self, kind: str, n_tokens: int, ref: int | None) -> Action | None:
        """The action to log with a part's write (None for the undo or redo of an unlogged one)."""
        if kind in ("undo", "redo") and ref is None:
            return None
        return self.clock.action(kind, n_tokens, ref if kind in ("undo", "redo") else None)

    def logged(self, action: Action | None) -> None:
        """A part's write of ``action`` succeeded: the clock moves on, the statistics hear of it."""
        if action is not None:
            self.clock.advance(action)
            self._opened = True  # a flag or a split took the reading time: no ``open`` in this visit
            self.actionLogged.emit(action.kind)

    def saving(self, write: Callable[[], T]) -> T:
        """``write()``, a refusal of the file reported by ``saveFailed`` and raised again (an impossible
        split or merge, :class:`RetokenizeError`, raised without the report: the file is fine)."""
        if self.held:
            self.saveFailed.emit(f"{self.held}; try again in a moment.")
            raise EditsHeld(self.held)
        try:
            return write()
        except RetokenizeError:
            raise
        except TagtoolError as e:
            self.saveFailed.emit(self._not_saved(e))
            raise

    def _annotations_of(self, sentence_id: int) -> tuple[frozenset, ...]:
        if sentence_id == self.current_id:
            return self.annotations
        cached = self.cache.annotations(sentence_id)
        return cached if cached is not None else self.project.annotations(sentence_id)

    def shutdown(self) -> None:
        """Stop a background read and drop the deferred actions (the project closes)."""
        self.bulk.shutdown()
        self.counts.shutdown()
        self.cache.stop_reading()

    # ------------------------------------------------------------------
    # labels and bulk changes

    def labels_edited(self, annotations_changed: bool) -> None:
        """Re-read labels after the Labels dialog; renames and removals
        rewrite stored annotations, which makes older undo steps invalid."""
        self.style = LabelStyle(self.project.label_set.label_infos())
        if annotations_changed:
            self.undo_stack.clear()
            self.reload()
        self.labelsChanged.emit()

    def reload(self) -> None:
        """Re-read the current sentence (after an import or a label change)."""
        wanted = self.cache.reset()
        self.edits.reread()
        if wanted:
            self.cache.read_sentences()
        if self.current_id is not None:
            sid, self.current_id = self.current_id, None
            self.go_to(sid)
            self.annotationsChanged.emit(sid, {})


def _changed(annotations: tuple[frozenset, ...], changes: Mapping[int, frozenset]) -> tuple[frozenset, ...]:
    anns = list(annotations)
    for t, ann in changes.items():
        anns[t] = ann
    return tuple(anns)

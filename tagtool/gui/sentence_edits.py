"""Edits of a whole sentence: flag it for review, skip it, split or merge its tokens.

Each is also an action of the project's action log (``review``,
``retokenize``, and ``undo``/``redo`` naming them: :mod:`tagtool.store.actions`),
timed by the session's clock and written in the edit's own transaction.

:class:`SentenceEdits` is part of :class:`~tagtool.gui.session.Session`: each
operation is saved at once (one transaction of the project,
:mod:`tagtool.store.review`, :mod:`tagtool.store.retokenize`) and pushed
as one step of the session's undo stack, beside the label edits.  Undo
writes the state before back through the project, so the file always holds
what the screen shows; a refused undo or redo (a full or read-only disk)
is reported and the stack stepped back, as for label edits
(:class:`~tagtool.gui.session.EditCommand`, :class:`WrittenCommand`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QTimer
from PySide6.QtGui import QUndoCommand

from tagtool.errors import TagtoolError
from tagtool.store.actions import Action
from tagtool.store.retokenize import Retokenized, RetokenizeError
from tagtool.store.review import NOTHING, Review


class WrittenCommand(QUndoCommand):
    """An undo step whose first redo was done before it was pushed.

    ``write(state, kind)`` saves one side (``"before"`` or ``"after"``) with
    its ``undo`` or ``redo`` action logged, raising
    :class:`~tagtool.errors.TagtoolError` when the project refuses; after a
    refusal the stack steps back in the next turn of the event loop with
    nothing written, because the file never changed.
    """

    def __init__(self, session, text: str, write: Callable[[str, str], None]):
        super().__init__(text)
        self.session, self.write = session, write
        self._skip = True

    def redo(self) -> None:
        self._run("after", "redo", self.session.undo_stack.undo)

    def undo(self) -> None:
        self._run("before", "undo", self.session.undo_stack.redo)

    def _run(self, side: str, kind: str, step_back) -> None:
        if self._skip:
            self._skip = False
            return
        try:
            self.write(side, kind)
        except TagtoolError as e:
            # a sentence retokenized by another program since: the file is fine, the step is not
            self.session.saveFailed.emit(str(e) if isinstance(e, RetokenizeError) else self.session._not_saved(e))
            self._skip = True
            QTimer.singleShot(0, self.session, step_back)


def review_command(session, sentence_id: int, before: Review, after: Review, text: str,
                   action_id: int | None) -> WrittenCommand:
    """A sentence flagged, unflagged, skipped or un-skipped."""
    states = {"before": before, "after": after}
    return WrittenCommand(session, text, lambda side, kind: session._write_review(
        sentence_id, states[side], kind, action_id))


def retokenize_command(session, sentence_id: int, at: int, done: Retokenized, text: str) -> WrittenCommand:
    """A token split in two or merged with the next; undo puts the sentence back exactly."""
    states = {"before": (done.before, done.after), "after": (done.after, done.before)}

    def write(side: str, kind: str) -> None:
        state, expected = states[side]
        session._write_tokens(sentence_id, at, kind, len(state.tokens) - len(expected.tokens), done.action_id,
                              lambda action: session.project.review.restore_tokens(
                                  sentence_id, state, at, expected=expected, action=action))

    return WrittenCommand(session, text, write)


class SentenceEdits:
    """Flags, skips, split and merged tokens of the session's sentences (mixed into Session).

    Each public method edits the current sentence, returns False when
    there is nothing to do, and raises :class:`~tagtool.errors.TagtoolError`
    (after ``saveFailed``) when the project refuses.
    """

    # ------------------------------------------------------------------
    # navigation

    def next_flagged(self) -> bool:
        """Go to the next sentence flagged for review in document order (wrapping); False if none other."""
        if self.current_id is None:
            return False
        target = self.project.next_sentence(self.current_id, status="flagged")
        if target is None:
            return False
        self.go_to(target)
        return True

    # ------------------------------------------------------------------
    # review flags and skips

    @property
    def skipped(self) -> set[int]:
        """Ids of the skipped sentences: out of the queue and of training."""
        return {sid for sid, r in self.reviews.items() if r.skipped}

    def review(self, sentence_id: int | None = None) -> Review:
        """A sentence's flag, comment and skip (the current sentence's by default)."""
        sid = self.current_id if sentence_id is None else sentence_id
        return self.reviews.get(sid, NOTHING)

    def queueable(self, status: Mapping[int, str]) -> dict[int, str]:
        """``status`` without the skipped sentences: what :func:`tagtool.services.guidance.queue` may order."""
        skipped = self.skipped
        return dict(status) if not skipped else {sid: st for sid, st in status.items() if sid not in skipped}

    def set_review(self, review: Review, text: str) -> bool:
        """Give the current sentence ``review``: saved now, one undo step."""
        sid = self.current_id
        if sid is None or review == self.review(sid):
            return False
        before = self.review(sid)
        action_id = self._saving(lambda: self._write_review(sid, review, "review"))
        self.undo_stack.push(review_command(self, sid, before, review, text, action_id))
        return True

    def flag(self, comment: str) -> bool:
        """Flag the current sentence for review with ``comment`` (a new comment for a flagged one)."""
        old = self.review()
        return self.set_review(Review(True, comment, old.skipped), "Flag for review")

    def unflag(self) -> bool:
        old = self.review()
        return self.set_review(Review(False, "", old.skipped), "Remove review flag")

    def set_skipped(self, skipped: bool) -> bool:
        """Skip the current sentence (it leaves the queue and training), or put it back."""
        old = self.review()
        return self.set_review(Review(old.flagged, old.comment, skipped), "Skip sentence" if skipped else "Un-skip sentence")

    def _write_review(self, sentence_id: int, review: Review, kind: str, ref: int | None = None) -> int | None:
        """Store a review with its action (raises TagtoolError when refused), show it, tell the widgets.

        ``kind``: ``review``, or ``undo``/``redo`` of the action ``ref``
        (not logged when that action is unknown: a step from before the log).
        """
        if sentence_id != self.current_id:
            self._leave_current()  # before the undo's action, so a skip is charged its own time
        n_tokens = self.project.sentence_summaries_by_id([sentence_id])[0].n_tokens
        action = self._action(kind, n_tokens, ref)
        action_id = self.project.review.set(sentence_id, review, self.annotator, action)
        self._logged(action)
        if review.empty:
            self.reviews.pop(sentence_id, None)
        else:
            self.reviews[sentence_id] = review
        if sentence_id != self.current_id:
            self.go_to(sentence_id)  # undo shows the sentence it changes
        self.reviewChanged.emit(sentence_id)
        return action_id

    # ------------------------------------------------------------------
    # split and merged tokens

    def split_token(self, token: int, offset: int) -> bool:
        """Split the current sentence's ``token`` before its character ``offset``; one undo step."""
        sid = self.current_id
        if sid is None:
            return False
        done = self._saving(lambda: self._write_tokens(
            sid, token, "retokenize", 1, None,
            lambda action: self.project.review.split_token(sid, token, offset, self.annotator, action)))
        self.undo_stack.push(retokenize_command(self, sid, token, done, f"Split token {token + 1}"))
        return True

    def merge_tokens(self, token: int) -> bool:
        """Merge the current sentence's ``token`` with the next one; one undo step."""
        sid = self.current_id
        if sid is None:
            return False
        done = self._saving(lambda: self._write_tokens(
            sid, token, "retokenize", -1, None,
            lambda action: self.project.review.merge_tokens(sid, token, self.annotator, action)))
        self.undo_stack.push(retokenize_command(self, sid, token, done, f"Merge tokens {token + 1}–{token + 2}"))
        return True

    def _write_tokens(self, sentence_id: int, at: int, kind: str, grown: int, ref: int | None,
                      write: Callable[[Action | None], object]):
        """``write(action)`` a split, merge or its undo or redo, then show it; what ``write`` returned.

        Raises :class:`~tagtool.errors.TagtoolError` when the project refuses.
        """
        if sentence_id != self.current_id:
            self._leave_current()
        action = self._action(kind, 2 if grown > 0 else 1, ref)
        result = write(action)
        self._logged(action)
        self._tokens_written(sentence_id, at)
        return result

    def _tokens_written(self, sentence_id: int, focus: int) -> None:
        """A sentence's tokens changed in the project: re-read it, update the caches, tell the widgets."""
        if sentence_id != self.current_id:
            self.go_to(sentence_id)  # undo shows the sentence it changes
        sentence = self.project.sentence(sentence_id)
        self.sentence, self.annotations = sentence, sentence.annotations
        if self._sentences is not None:
            self._sentences[self._position[sentence_id]] = sentence
        if self._read is not None:
            self._retokenized_during_read.add(sentence_id)
        self.tokensChanged.emit(sentence_id, focus)
        self.annotationsChanged.emit(sentence_id, {})

    def _action(self, kind: str, n_tokens: int, ref: int | None) -> Action | None:
        """The action to log with a write (None for the undo or redo of an unlogged one)."""
        if kind in ("undo", "redo") and ref is None:
            return None
        return self.clock.action(kind, n_tokens, ref if kind in ("undo", "redo") else None)

    def _logged(self, action: Action | None) -> None:
        """The write of ``action`` succeeded: the clock moves on, the statistics hear of it."""
        if action is not None:
            self.clock.advance(action)
            self._opened = True  # a flag or a split took the reading time: no ``open`` in this visit
            self.actionLogged.emit(action.kind)

    def _saving(self, write: Callable):
        """``write()``, with a refusal of the file reported by ``saveFailed`` and raised again.

        An impossible split or merge (:class:`RetokenizeError`) is raised
        without the report: nothing was wrong with the file.
        """
        try:
            return write()
        except RetokenizeError:
            raise
        except TagtoolError as e:
            self.saveFailed.emit(self._not_saved(e))
            raise

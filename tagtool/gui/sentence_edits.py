"""Edits of a whole sentence: flag it for review, skip it, split or merge its tokens.

Each is also an action of the project's action log (``review``,
``retokenize``, and ``undo``/``redo`` naming them: :mod:`tagtool.store.actions`),
timed by the session's clock and written in the edit's own transaction.

:class:`SentenceEdits` is the ``edits`` part of :class:`~tagtool.gui.session.Session`: each
operation is saved at once (one transaction of the project,
:mod:`tagtool.store.review`, :mod:`tagtool.store.retokenize`) and pushed
as one step of the session's undo stack, beside the label edits.  Undo
writes the state before back through the project, so the file always holds
what the screen shows; a refused undo or redo (a full or read-only disk)
is reported and the stack stepped back, as for label edits
(:class:`~tagtool.gui.edit_command.EditCommand`, :class:`WrittenCommand`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QUndoCommand

from tagtool.errors import TagtoolError
from tagtool.store.actions import Action
from tagtool.store.retokenize import Retokenized, RetokenizeError
from tagtool.store.review import NOTHING, Review

if TYPE_CHECKING:
    from tagtool.gui.session import Session


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


def review_command(
    edits: SentenceEdits, sentence_id: int, before: Review, after: Review, text: str, action_id: int | None
) -> WrittenCommand:
    """A sentence flagged, unflagged, skipped or un-skipped."""
    states = {"before": before, "after": after}
    return WrittenCommand(
        edits.session, text, lambda side, kind: edits._write_review(sentence_id, states[side], kind, action_id)
    )


def retokenize_command(edits: SentenceEdits, sentence_id: int, at: int, done: Retokenized, text: str) -> WrittenCommand:
    """A token split in two or merged with the next; undo puts the sentence back exactly."""
    states = {"before": (done.before, done.after), "after": (done.after, done.before)}

    def write(side: str, kind: str) -> None:
        state, expected = states[side]
        edits._write_tokens(
            sentence_id,
            at,
            kind,
            len(state.tokens) - len(expected.tokens),
            done.action_id,
            lambda action: edits.session.project.review.restore_tokens(
                sentence_id, state, at, expected=expected, action=action
            ),
        )

    return WrittenCommand(edits.session, text, write)


class SentenceEdits:
    """Flags, skips, split and merged tokens of the session's sentences (the session's ``edits`` part).

    Each public method edits the current sentence, returns False when
    there is nothing to do, and raises :class:`~tagtool.errors.TagtoolError`
    (after ``saveFailed``) when the project refuses.

    Parameters
    ----------
    session : Session
        The current sentence, the undo stack, the clock and the signals the edits go through.
    """

    def __init__(self, session: Session):
        self.session = session
        #: ``{sentence id: Review}`` of the flagged and skipped sentences (a few rows, read once).
        self.reviews: dict[int, Review] = session.project.review.all()

    def reread(self) -> None:
        """Read the reviews again (after a bulk change: an import)."""
        self.reviews = self.session.project.review.all()

    # ------------------------------------------------------------------
    # navigation

    def next_flagged(self) -> bool:
        """Go to the next sentence flagged for review in document order (wrapping); False if none other."""
        if self.session.current_id is None:
            return False
        target = self.session.project.listing.next_sentence(self.session.current_id, status="flagged")
        if target is None:
            return False
        self.session.go_to(target)
        return True

    # ------------------------------------------------------------------
    # review flags and skips

    @property
    def skipped(self) -> set[int]:
        """Ids of the skipped sentences: out of the queue and of training."""
        return {sid for sid, r in self.reviews.items() if r.skipped}

    def review(self, sentence_id: int | None = None) -> Review:
        """A sentence's flag, comment and skip (the current sentence's by default)."""
        sid = self.session.current_id if sentence_id is None else sentence_id
        return self.reviews.get(sid, NOTHING)

    def queueable(self, status: Mapping[int, str]) -> dict[int, str]:
        """``status`` without the skipped sentences: what :func:`tagtool.services.guidance.queue` may order."""
        skipped = self.skipped
        return dict(status) if not skipped else {sid: st for sid, st in status.items() if sid not in skipped}

    def set_review(self, review: Review, text: str) -> bool:
        """Give the current sentence ``review``: saved now, one undo step."""
        sid = self.session.current_id
        if sid is None or review == self.review(sid):
            return False
        before = self.review(sid)
        action_id = self.session.saving(lambda: self._write_review(sid, review, "review"))
        self.session.undo_stack.push(review_command(self, sid, before, review, text, action_id))
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
        return self.set_review(
            Review(old.flagged, old.comment, skipped), "Skip sentence" if skipped else "Un-skip sentence"
        )

    def _write_review(self, sentence_id: int, review: Review, kind: str, ref: int | None = None) -> int | None:
        """Store a review with its action (raises TagtoolError when refused), show it, tell the widgets.

        ``kind``: ``review``, or ``undo``/``redo`` of the action ``ref``
        (not logged when that action is unknown: a step from before the log).
        """
        if sentence_id != self.session.current_id:
            self.session.leave_current()  # before the undo's action, so a skip is charged its own time
        n_tokens = self.session.project.listing.sentence_summaries_by_id([sentence_id])[0].n_tokens
        action = self.session.action_for(kind, n_tokens, ref)
        action_id = self.session.project.review.set(sentence_id, review, self.session.annotator, action)
        self.session.logged(action)
        if review.empty:
            self.reviews.pop(sentence_id, None)
        else:
            self.reviews[sentence_id] = review
        if sentence_id != self.session.current_id:
            self.session.go_to(sentence_id)  # undo shows the sentence it changes
        self.session.reviewChanged.emit(sentence_id)
        return action_id

    # ------------------------------------------------------------------
    # split and merged tokens

    def split_token(self, token: int, offset: int) -> bool:
        """Split the current sentence's ``token`` before its character ``offset``; one undo step."""
        sid = self.session.current_id
        if sid is None:
            return False
        done = self.session.saving(
            lambda: self._write_tokens(
                sid,
                token,
                "retokenize",
                1,
                None,
                lambda action: self.session.project.review.split_token(
                    sid, token, offset, self.session.annotator, action
                ),
            )
        )
        self.session.undo_stack.push(retokenize_command(self, sid, token, done, f"Split token {token + 1}"))
        return True

    def merge_tokens(self, token: int) -> bool:
        """Merge the current sentence's ``token`` with the next one; one undo step."""
        sid = self.session.current_id
        if sid is None:
            return False
        done = self.session.saving(
            lambda: self._write_tokens(
                sid,
                token,
                "retokenize",
                -1,
                None,
                lambda action: self.session.project.review.merge_tokens(sid, token, self.session.annotator, action),
            )
        )
        self.session.undo_stack.push(
            retokenize_command(self, sid, token, done, f"Merge tokens {token + 1}–{token + 2}")
        )
        return True

    def _write_tokens(
        self,
        sentence_id: int,
        at: int,
        kind: str,
        grown: int,
        ref: int | None,
        write: Callable[[Action | None], object],
    ):
        """``write(action)`` a split, merge or its undo or redo, then show it; what ``write`` returned.

        Raises :class:`~tagtool.errors.TagtoolError` when the project refuses.
        """
        if sentence_id != self.session.current_id:
            self.session.leave_current()
        action = self.session.action_for(kind, 2 if grown > 0 else 1, ref)
        result = write(action)
        self.session.logged(action)
        self._tokens_written(sentence_id, at)
        return result

    def _tokens_written(self, sentence_id: int, focus: int) -> None:
        """A sentence's tokens changed in the project: re-read it, update the caches, tell the widgets."""
        if sentence_id != self.session.current_id:
            self.session.go_to(sentence_id)  # undo shows the sentence it changes
        sentence = self.session.project.sentence(sentence_id)
        self.session.sentence, self.session.annotations = sentence, sentence.annotations
        self.session.cache.retokenized(sentence_id, sentence)
        self.session.tokensChanged.emit(sentence_id, focus)
        self.session.annotationsChanged.emit(sentence_id, {})

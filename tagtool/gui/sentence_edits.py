"""Edits of a whole sentence: flag it for review, skip it, split or merge its tokens.

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
from tagtool.store.retokenize import RetokenizeError, TokenState
from tagtool.store.review import NOTHING, Review


class WrittenCommand(QUndoCommand):
    """An undo step whose first redo was done before it was pushed.

    ``write_before()`` and ``write_after()`` save one side each (raising
    :class:`~tagtool.errors.TagtoolError` when the project refuses); after a
    refusal the stack steps back in the next turn of the event loop with
    nothing written, because the file never changed.
    """

    def __init__(self, session, text: str, write_before: Callable[[], None], write_after: Callable[[], None]):
        super().__init__(text)
        self.session = session
        self.write_before, self.write_after = write_before, write_after
        self._skip = True

    def redo(self) -> None:
        self._run(self.write_after, self.session.undo_stack.undo)

    def undo(self) -> None:
        self._run(self.write_before, self.session.undo_stack.redo)

    def _run(self, write: Callable[[], None], step_back) -> None:
        if self._skip:
            self._skip = False
            return
        try:
            write()
        except TagtoolError as e:
            self.session.saveFailed.emit(self.session._not_saved(e))
            self._skip = True
            QTimer.singleShot(0, self.session, step_back)


def review_command(session, sentence_id: int, before: Review, after: Review, text: str) -> WrittenCommand:
    """A sentence flagged, unflagged, skipped or un-skipped."""
    return WrittenCommand(session, text, lambda: session._write_review(sentence_id, before),
                          lambda: session._write_review(sentence_id, after))


def retokenize_command(session, sentence_id: int, at: int, before: TokenState, after: TokenState,
                       text: str) -> WrittenCommand:
    """A token split in two or merged with the next; undo puts the sentence back exactly."""
    def put(state: TokenState, expected: TokenState) -> None:
        session.project.restore_tokens(sentence_id, state, at, expected=expected)
        session._tokens_written(sentence_id, at)

    return WrittenCommand(session, text, lambda: put(before, after), lambda: put(after, before))


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
        """``status`` without the skipped sentences: what :func:`tagtool.guidance.queue` may order."""
        skipped = self.skipped
        return dict(status) if not skipped else {sid: st for sid, st in status.items() if sid not in skipped}

    def set_review(self, review: Review, text: str) -> bool:
        """Give the current sentence ``review``: saved now, one undo step."""
        sid = self.current_id
        if sid is None or review == self.review(sid):
            return False
        before = self.review(sid)
        self._saving(lambda: self._write_review(sid, review))
        self.undo_stack.push(review_command(self, sid, before, review, text))
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

    def _write_review(self, sentence_id: int, review: Review) -> None:
        """Store a review (raises TagtoolError when refused), show it, tell the widgets."""
        self.project.set_review(sentence_id, review)
        if review.empty:
            self.reviews.pop(sentence_id, None)
        else:
            self.reviews[sentence_id] = review
        if sentence_id != self.current_id:
            self.go_to(sentence_id)  # undo shows the sentence it changes
        self.reviewChanged.emit(sentence_id)

    # ------------------------------------------------------------------
    # split and merged tokens

    def split_token(self, token: int, offset: int) -> bool:
        """Split the current sentence's ``token`` before its character ``offset``; one undo step."""
        sid = self.current_id
        if sid is None:
            return False
        before, after = self._saving(lambda: self.project.split_token(sid, token, offset))
        self._tokens_written(sid, token)
        self.undo_stack.push(retokenize_command(self, sid, token, before, after, f"Split token {token + 1}"))
        return True

    def merge_tokens(self, token: int) -> bool:
        """Merge the current sentence's ``token`` with the next one; one undo step."""
        sid = self.current_id
        if sid is None:
            return False
        before, after = self._saving(lambda: self.project.merge_tokens(sid, token))
        self._tokens_written(sid, token)
        self.undo_stack.push(retokenize_command(self, sid, token, before, after, f"Merge tokens {token + 1}–{token + 2}"))
        return True

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

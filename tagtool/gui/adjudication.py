"""Adjudication in the session: resolve a token where annotators disagree, undoably.

Where a token has several annotators' answers (``tagtool merge``, a Label
Studio import), its training label is the candidate set of their answers
until an adjudicator resolves it (:mod:`tagtool.store.team`): picks one
label (a full label) or keeps the set.  :class:`Adjudication` is the ``team`` part of
:class:`~tagtool.gui.session.Session` (as
:class:`~tagtool.gui.sentence_edits.SentenceEdits` is its ``edits``): each resolution is
saved at once with its ``adjudicate`` action (:mod:`tagtool.store.actions`),
recorded as by the session's annotator (the preferences' name), and pushed
as one step of the undo stack; undo puts back the token's resolution and
training label as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tagtool.core.annotation import make_annotation
from tagtool.gui.sentence_edits import WrittenCommand
from tagtool.store.team import Resolution

if TYPE_CHECKING:
    from tagtool.gui.session import Session


class Adjudication:
    """Answers, resolutions and resolving of the current sentence's tokens (the session's ``team`` part).

    Parameters
    ----------
    session : Session
        The current sentence, the undo stack, the clock and the signals the resolutions go through.
    """

    def __init__(self, session: Session):
        self.session = session

    def answers(self, sentence_id: int | None = None) -> tuple[dict[str, frozenset], ...]:
        """Each token's answers ``{annotator: labels}`` (the current sentence's by default)."""
        return self.session.project.team.answers(self.session.current_id if sentence_id is None else sentence_id)

    def resolutions(self, sentence_id: int | None = None) -> dict[int, Resolution]:
        """``{token: Resolution}`` of the resolved tokens (the current sentence's by default)."""
        return self.session.project.team.resolutions(self.session.current_id if sentence_id is None else sentence_id)

    def resolve(self, token: int, labels) -> bool:
        """Resolve the current sentence's ``token`` with ``labels`` (one label, or a set kept); one undo step.

        False when it is already resolved so; raises
        :class:`~tagtool.errors.TagtoolError` (after ``saveFailed``) when the project refuses.
        """
        sid = self.session.current_id
        if sid is None:
            return False
        labels = make_annotation(labels, self.session.project.labels)
        old = self.resolutions(sid).get(token)
        if old is not None and old.labels == labels:
            return False
        before = (old.labels if old else None, self.session.annotations[token])
        sides = {"after": (labels, None), "before": before}
        action_id = self.session.saving(lambda: self._write_resolution(sid, token, labels, None, "adjudicate"))
        text = "Resolve token {} as {}".format(token + 1, "|".join(sorted(labels)))
        self.session.undo_stack.push(self._resolution_command(sid, token, sides, action_id, text))
        return True

    def unresolve(self, token: int) -> bool:
        """Take the current sentence's ``token``'s resolution back (its answers make its label again); one undo step."""
        sid = self.session.current_id
        old = None if sid is None else self.resolutions(sid).get(token)
        if old is None:
            return False
        sides = {"after": (None, None), "before": (old.labels, None)}
        action_id = self.session.saving(lambda: self._write_resolution(sid, token, None, None, "adjudicate"))
        self.session.undo_stack.push(
            self._resolution_command(sid, token, sides, action_id, f"Unresolve token {token + 1}")
        )
        return True

    def _resolution_command(self, sid: int, token: int, sides: dict, action_id: int | None, text: str):
        def write(side: str, kind: str) -> None:
            resolution, restore = sides[side]
            self._write_resolution(sid, token, resolution, restore, kind, action_id)

        return WrittenCommand(self.session, text, write)

    def _write_resolution(self, sid: int, token: int, resolution, restore, kind: str, ref: int | None = None):
        """Resolve (``resolution``) or unresolve (None; the label ``restore``, else its answers')
        with the action logged; then show it.  The action's id."""
        if sid != self.session.current_id:
            self.session.leave_current()
        before = self.session.project.annotations(sid)[token]
        action = self.session.action_for(kind, 1, ref)
        if resolution is not None:
            action_id = self.session.project.team.resolve_token(sid, token, resolution, self.session.annotator, action)
        else:
            action_id = self.session.project.team.unresolve_token(sid, token, self.session.annotator, restore, action)
        self.session.logged(action)
        self._label_written(sid, token, before, self.session.project.annotations(sid)[token])
        return action_id

    def _label_written(self, sid: int, token: int, before: frozenset, after: frozenset) -> None:
        """A token's training label changed in the project: update the caches, tell the widgets."""
        if sid != self.session.current_id:
            self.session.go_to(sid)  # undo shows the sentence it changes
        else:
            self.session.annotations = (
                *self.session.annotations[:token],
                after,
                *self.session.annotations[token + 1 :],
            )
        self.session.cache.set_annotations(sid, lambda labels: (*labels[:token], after, *labels[token + 1 :]))
        self.session.annotationsReplaced.emit(sid, {token: before}, {token: after})
        self.session.annotationsChanged.emit(sid, {token: after})

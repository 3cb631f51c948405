"""Adjudication in the session: resolve a token where annotators disagree, undoably.

Where a token has several annotators' answers (``tagtool merge``, a Label
Studio import), its training label is the candidate set of their answers
until an adjudicator resolves it (:mod:`tagtool.store.team`): picks one
label (a full label) or keeps the set.  :class:`Adjudication` is part of
:class:`~tagtool.gui.session.Session` (as
:class:`~tagtool.gui.sentence_edits.SentenceEdits` is): each resolution is
saved at once with its ``adjudicate`` action (:mod:`tagtool.store.actions`),
recorded as by the session's annotator (the preferences' name), and pushed
as one step of the undo stack; undo puts back the token's resolution and
training label as they were.
"""

from __future__ import annotations

from dataclasses import replace

from tagtool.core.annotation import make_annotation
from tagtool.gui.sentence_edits import WrittenCommand
from tagtool.store.team import Resolution


class Adjudication:
    """Answers, resolutions and resolving of the current sentence's tokens (mixed into Session)."""

    def answers(self, sentence_id: int | None = None) -> tuple[dict[str, frozenset], ...]:
        """Each token's answers ``{annotator: labels}`` (the current sentence's by default)."""
        return self.project.team.answers(self.current_id if sentence_id is None else sentence_id)

    def resolutions(self, sentence_id: int | None = None) -> dict[int, Resolution]:
        """``{token: Resolution}`` of the resolved tokens (the current sentence's by default)."""
        return self.project.team.resolutions(self.current_id if sentence_id is None else sentence_id)

    def resolve(self, token: int, labels) -> bool:
        """Resolve the current sentence's ``token`` with ``labels`` (one label, or a set kept); one undo step.

        False when it is already resolved so; raises
        :class:`~tagtool.errors.TagtoolError` (after ``saveFailed``) when the project refuses.
        """
        sid = self.current_id
        if sid is None:
            return False
        labels = make_annotation(labels, self.project.labels)
        old = self.resolutions(sid).get(token)
        if old is not None and old.labels == labels:
            return False
        before = (old.labels if old else None, self.annotations[token])
        sides = {"after": (labels, None), "before": before}
        action_id = self._saving(lambda: self._write_resolution(sid, token, labels, None, "adjudicate"))
        text = "Resolve token {} as {}".format(token + 1, "|".join(sorted(labels)))
        self.undo_stack.push(self._resolution_command(sid, token, sides, action_id, text))
        return True

    def unresolve(self, token: int) -> bool:
        """Take the current sentence's ``token``'s resolution back (its answers make its label again); one undo step."""
        sid = self.current_id
        old = None if sid is None else self.resolutions(sid).get(token)
        if old is None:
            return False
        sides = {"after": (None, None), "before": (old.labels, None)}
        action_id = self._saving(lambda: self._write_resolution(sid, token, None, None, "adjudicate"))
        self.undo_stack.push(self._resolution_command(sid, token, sides, action_id, f"Unresolve token {token + 1}"))
        return True

    def _resolution_command(self, sid: int, token: int, sides: dict, action_id: int | None, text: str):
        def write(side: str, kind: str) -> None:
            resolution, restore = sides[side]
            self._write_resolution(sid, token, resolution, restore, kind, action_id)

        return WrittenCommand(self, text, write)

    def _write_resolution(self, sid: int, token: int, resolution, restore, kind: str, ref: int | None = None):
        """Resolve (``resolution``) or unresolve (None; the label ``restore``, else its answers')
        with the action logged; then show it.  The action's id."""
        if sid != self.current_id:
            self._leave_current()
        before = self.project.annotations(sid)[token]
        action = self._action(kind, 1, ref)
        if resolution is not None:
            action_id = self.project.team.resolve_token(sid, token, resolution, self.annotator, action)
        else:
            action_id = self.project.team.unresolve_token(sid, token, self.annotator, restore, action)
        self._logged(action)
        self._label_written(sid, token, before, self.project.annotations(sid)[token])
        return action_id

    def _label_written(self, sid: int, token: int, before: frozenset, after: frozenset) -> None:
        """A token's training label changed in the project: update the caches, tell the widgets."""
        if sid != self.current_id:
            self.go_to(sid)  # undo shows the sentence it changes
        else:
            self.annotations = (*self.annotations[:token], after, *self.annotations[token + 1:])
        if self._sentences is not None:
            i = self._position[sid]
            sentence = self._sentences[i]
            labels = (*sentence.annotations[:token], after, *sentence.annotations[token + 1:])
            self._sentences[i] = replace(sentence, annotations=labels)
        self.annotationsReplaced.emit(sid, {token: before}, {token: after})
        self.annotationsChanged.emit(sid, {token: after})

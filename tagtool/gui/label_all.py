"""Label all occurrences: the focused span's string labeled wherever it recurs, as one undo step.

Edit › Label all occurrences (its key in :mod:`tagtool.gui.keys`, also in the
editor's context menu) takes the span at the focused token:

* a span the person labeled (in span schemes the chunk holding the token,
  :func:`tagtool.services.match_index.person_spans`; otherwise the token
  itself), with its labels;
* else the suggestion on the token (a string match's or the model's: the
  suggested span holding it, :func:`tagtool.gui.edits.suggested_span`), with
  the suggested labels, the focused occurrence included.

Every recurrence of the span's tokens in the project (the case rule of
:mod:`tagtool.services.string_matches`: exact, a sentence's first word also
with its initial lowercased) whose tokens are all unlabeled gets those labels
(:meth:`tagtool.services.match_index.MatchIndex.occurrences`); occurrences
touching a labeled token are left alone.

The work runs off the GUI thread (:mod:`tagtool.gui.bulk_write`): the
occurrences are found in a worker; above :data:`CONFIRM_SENTENCES` sentences
the user is asked first; then every sentence is written in one transaction,
with one ``label_all`` action in the action log (:mod:`tagtool.store.actions`),
and pushed as one undo step (:class:`BulkEditCommand`), so one undo reverts
them all (logged as an ``undo`` of that action, so the costs leave it out).
The status bar shows the progress, then how many occurrences in how many
sentences; the window stays on the open sentence and responsive, and edits
wait until it is done.  Undo and redo of a Label all run the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QUndoCommand

from tagtool.core.annotation import make_annotation
from tagtool.core.corpus import Sentence
from tagtool.gui import edits
from tagtool.gui.bulk_write import start_write
from tagtool.services.match_index import MatchIndex, person_spans
from tagtool.services.string_matches import _forms
from tagtool.store.bulk_writes import BulkResult, Changes

if TYPE_CHECKING:
    from tagtool.gui.session import Session

#: Above this many sentences Label all occurrences asks first (a string as common as a function word is rarely
#: meant; its time grows with the sentences it changes: benchmarks/results/string_match_index.md).
CONFIRM_SENTENCES = 200


def focused_span(editor) -> tuple[int, int, list[str]] | None:
    """``(start, end, labels)`` of the labeled span or the suggestion at the editor's focus (module doc)."""
    tokens, anns, t = editor.tokens, editor.annotations, editor.focus
    if not tokens:
        return None
    if len(anns[t]) == 1:
        if editor.session.project.labels.is_span_scheme:
            for _kind, start, end in person_spans(Sentence(tokens, anns)):
                if start <= t < end:
                    return start, end, [next(iter(anns[u])) for u in range(start, end)]
        return t, t + 1, [next(iter(anns[t]))]
    suggestions = [
        None if anns[u] or editor.hints.get(u) is None else editor.hints.get(u).suggestion for u in range(len(tokens))
    ]
    span = edits.suggested_span(suggestions, t)
    if not span:
        return None
    return span[0], span[-1] + 1, [str(suggestions[u]) for u in span]


def label_all(editor, index: MatchIndex | None, confirm: Callable[[str], bool] | None = None) -> str | None:
    """Start labeling every open recurrence of the focused span's string (module doc).

    What to tell the user now when there is nothing to start; None once it
    started (the session's ``bulk.message`` tells the rest).  ``confirm(question)``
    is asked first when more than :data:`CONFIRM_SENTENCES` sentences would
    change; False: nothing.
    """
    if index is None:
        return "Label all occurrences: the project's strings are still being indexed; try again in a moment."
    session = editor.session
    if session.held:
        return f"Label all occurrences: {session.held}; try again in a moment."
    span = focused_span(editor)
    if span is None:
        return "Label all occurrences: put the focus on a labeled span or a suggestion first."
    start, end, names = span
    tokens = editor.tokens
    text, shown = " ".join(tokens[start:end]), " ".join(names)
    keys = [(first, *tokens[start + 1 : end]) for first in _forms(tokens, start)]
    labels = session.project.labels
    label_sets = [make_annotation([name], labels) for name in names]
    order = tuple(session.sentence_ids)
    sentence = session.current_id
    what = f"Label all occurrences of “{text}”"
    session.bulk.hold(f"{what} is running")

    def find(_state) -> dict[int, list[dict[int, frozenset]]]:
        return {
            order[i]: [{s + k: a for k, a in enumerate(label_sets)} for s in starts]
            for i, starts in index.occurrences(keys).items()
        }

    def found(groups: dict[int, list[dict[int, frozenset]]]) -> None:
        if not groups:
            session.bulk.release(f"No unlabeled occurrence of “{text}” is left.")
            return
        n = sum(len(g) for g in groups.values())
        question = f"Label {n} occurrences of “{text}” as {shown} in {len(groups)} sentences?"
        if len(groups) > CONFIRM_SENTENCES and confirm is not None and not confirm(question):
            session.bulk.release("Label all occurrences: nothing changed.")
            return
        start_write(
            session,
            groups,
            "label_all",
            None,
            sentence,
            True,
            what,
            lambda r: _labeled(session, r, text, names, sentence),
        )

    session.bulk.run(find, found, lambda message: session.bulk.release(f"{what}: not done ({message})."), what)
    return None


def _labeled(session: Session, result: BulkResult, text: str, names: list[str], sentence: int | None) -> str:
    """Push the undo step of a written Label all; the status bar's message."""
    if result.action_id is None:
        return f"No unlabeled occurrence of “{text}” is left."
    n, shown = result.n_tokens // len(names), " ".join(names)
    step = f"Label all {n} occurrences of “{text}” {shown}"
    session.undo_stack.push(BulkEditCommand(session, result.before, result.after, step, result.action_id, sentence))
    where = "1 sentence" if len(result.after) == 1 else f"{len(result.after)} sentences"
    occurrences = "1 occurrence" if n == 1 else f"{n} occurrences"
    return f"Labeled {occurrences} of “{text}” {shown} in {where} (one undo step)."


class BulkEditCommand(QUndoCommand):
    """One undo step over several sentences' annotations (its first redo was done before the push).

    Undo and redo write in a worker (:func:`tagtool.gui.bulk_write.start_write`), logged as an
    ``undo`` or ``redo`` of the action ``action_id``.  A refused undo or redo is reported and the
    stack stepped back in the next turn, as :class:`~tagtool.gui.edit_command.EditCommand` does.
    """

    def __init__(
        self, session: Session, before: Changes, after: Changes, text: str, action_id: int, sentence: int | None
    ):
        super().__init__(text)
        self.session, self.before, self.after = session, before, after
        self.action_id, self.sentence = action_id, sentence  # the action an undo or redo names, and its sentence
        self._skip = True

    def redo(self) -> None:
        self._apply(self.after, self.session.undo_stack.undo, "redo")

    def undo(self) -> None:
        self._apply(self.before, self.session.undo_stack.redo, "undo")

    def _apply(self, changes: Changes, step_back, kind: str) -> None:
        if self._skip:
            self._skip = False
            return
        session = self.session
        what = f"{'Undo' if kind == 'undo' else 'Redo'} {self.text()}"

        def failed() -> None:
            self._skip = True
            QTimer.singleShot(0, session, step_back)

        if session.held:
            session.saveFailed.emit(f"{session.held}; try again in a moment.")
            failed()
            return
        groups = {sid: [c] for sid, c in changes.items()}
        start_write(
            session, groups, kind, self.action_id, self.sentence, False, what, lambda r: _redone(r, what), failed
        )


def _redone(result: BulkResult, what: str) -> str:
    where = "1 sentence" if len(result.after) == 1 else f"{len(result.after)} sentences"
    return f"{what}: done in {where}."

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
touching a labeled token are left alone.  All the sentences are written in
one transaction and pushed as one undo step (:class:`BulkEditCommand`), so
one undo reverts them all; the window stays on the open sentence.  The
status bar says how many occurrences in how many sentences.  Above
:data:`CONFIRM_SENTENCES` sentences it asks first, and shows the wait
cursor while it writes (a few seconds for a thousand sentences).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QUndoCommand
from PySide6.QtWidgets import QApplication

from tagtool.core.annotation import make_annotation
from tagtool.core.corpus import Sentence
from tagtool.errors import TagtoolError
from tagtool.gui import edits
from tagtool.services.match_index import MatchIndex, person_spans
from tagtool.services.string_matches import _forms
from tagtool.store import writes

if TYPE_CHECKING:
    from tagtool.gui.session import Session

Changes = Mapping[int, Mapping[int, frozenset]]

#: Above this many sentences Label all occurrences asks first (its time grows with the sentences it
#: changes: benchmarks/results/string_match_index.md).
CONFIRM_SENTENCES = 200


@contextmanager
def busy(on: bool) -> Iterator[None]:
    """The wait cursor over a long write (``on``)."""
    if on:
        QApplication.setOverrideCursor(Qt.WaitCursor)
    try:
        yield
    finally:
        if on:
            QApplication.restoreOverrideCursor()


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


def label_all(editor, index: MatchIndex | None, confirm: Callable[[str], bool] | None = None) -> str:
    """Label every open recurrence of the focused span's string (module doc); what to tell the user.

    ``confirm(question)`` is asked first when more than :data:`CONFIRM_SENTENCES` sentences would change
    (a few seconds of work, and a string as common as a function word is rarely meant); False: nothing.
    """
    if index is None:
        return "Label all occurrences: the project's strings are still being indexed; try again in a moment."
    span = focused_span(editor)
    if span is None:
        return "Label all occurrences: put the focus on a labeled span or a suggestion first."
    start, end, labels = span
    tokens = editor.tokens
    text = " ".join(tokens[start:end])
    keys = [(first, *tokens[start + 1 : end]) for first in _forms(tokens, start)]
    session = editor.session
    order = session.sentence_ids
    changes = {
        order[i]: {s + k: frozenset([label]) for s in starts for k, label in enumerate(labels)}
        for i, starts in index.occurrences(keys).items()
    }
    if not changes:
        return f"No unlabeled occurrence of “{text}” is left."
    n = sum(len(c) for c in changes.values()) // len(labels)
    shown = " ".join(labels)
    if len(changes) > CONFIRM_SENTENCES and confirm is not None:
        if not confirm(f"Label {n} occurrences of “{text}” as {shown} in {len(changes)} sentences?"):
            return "Label all occurrences: nothing changed."
    try:
        with busy(len(changes) > CONFIRM_SENTENCES):
            edit_many(session, changes, f"Label all {n} occurrences of “{text}” {shown}")
    except TagtoolError:
        return f"Label all occurrences of “{text}”: not saved."
    where = "1 sentence" if len(changes) == 1 else f"{len(changes)} sentences"
    occurrences = "1 occurrence" if n == 1 else f"{n} occurrences"
    return f"Labeled {occurrences} of “{text}” {shown} in {where} (one undo step)."


def edit_many(session: Session, changes: Changes, text: str) -> None:
    """Write ``{sentence: {token: annotation}}`` in one transaction and push it as one undo step.

    Raises :class:`~tagtool.errors.TagtoolError` (reported by ``saveFailed``) when the project refuses.
    """
    labels = session.project.labels
    after = {sid: {t: make_annotation(a, labels) for t, a in c.items()} for sid, c in changes.items()}
    before = {}
    for sid, c in after.items():
        old = session._annotations_of(sid)
        before[sid] = {t: old[t] for t in c}
    try:
        write_many(session, after)
    except TagtoolError as e:
        session.saveFailed.emit(session._not_saved(e))
        raise
    session.undo_stack.push(BulkEditCommand(session, before, after, text))


def write_many(session: Session, changes: Changes) -> None:
    """Write the annotations of several sentences in one transaction, then tell the session's listeners.

    The open sentence stays open (unlike an undo of a one-sentence edit, which shows its sentence).
    """
    project = session.project
    olds = {sid: session._annotations_of(sid) for sid in changes}
    with project.db.write() as conn:
        labels = project.labels
        for sid, c in changes.items():
            writes.apply(conn, project.path, labels, sid, dict(c), session.annotator)
    for sid, c in changes.items():
        old = olds[sid]
        if sid == session.current_id:
            session.annotations = _changed(session.annotations, c)
        session.cache.set_annotations(sid, lambda annotations, c=c: _changed(annotations, c))
        session.annotationsReplaced.emit(sid, {t: old[t] for t in c}, dict(c))
        session.annotationsChanged.emit(sid, dict(c))


class BulkEditCommand(QUndoCommand):
    """One undo step over several sentences' annotations (its first redo was done before the push).

    A refused undo or redo is reported and the stack stepped back in the next turn, as
    :class:`~tagtool.gui.edit_command.EditCommand` does.
    """

    def __init__(self, session: Session, before: Changes, after: Changes, text: str):
        super().__init__(text)
        self.session, self.before, self.after = session, before, after
        self._skip = True

    def redo(self) -> None:
        self._apply(self.after, self.session.undo_stack.undo)

    def undo(self) -> None:
        self._apply(self.before, self.session.undo_stack.redo)

    def _apply(self, changes: Changes, step_back) -> None:
        if self._skip:
            self._skip = False
            return
        try:
            write_many(self.session, changes)
        except TagtoolError as e:
            self.session.saveFailed.emit(self.session._not_saved(e))
            self._skip = True
            QTimer.singleShot(0, self.session, step_back)


def _changed(annotations: tuple[frozenset, ...], changes: Mapping[int, frozenset]) -> tuple[frozenset, ...]:
    anns = list(annotations)
    for t, ann in changes.items():
        anns[t] = ann
    return tuple(anns)

"""The labeling session: the open project, the current sentence and the undo stack.

The one source of truth the widgets bind to (glue's pattern): the sentence
list, the editor and the status bar read from it and listen to its signals;
edits go through :meth:`Session.edit`, which writes them to the project at
once (one transaction) and pushes one undo command.  Undo and redo write the
previous or next annotations back through the project, so the file always
holds what the screen shows.

The session also keeps every sentence in memory once a training run asked
for them (:meth:`Session.training_sentences`): tokens never change in a
project, so each edit only replaces the edited sentence's annotations and
starting a run costs a tuple copy, not a read of the whole project.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from tagtool.core.annotation import annotation_status, make_annotation
from tagtool.core.corpus import Sentence
from tagtool.gui.style import LabelStyle
from tagtool.store.project import Project

log = logging.getLogger(__name__)


class EditCommand(QUndoCommand):
    """One edit of one sentence's annotations (any number of tokens)."""

    def __init__(self, session: Session, sentence_id: int, before: dict, after: dict, text: str):
        super().__init__(text)
        self.session, self.sentence_id = session, sentence_id
        self.before, self.after = before, after
        self._applied = True  # Session.edit wrote ``after`` before pushing

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.session._write(self.sentence_id, self.after)

    def undo(self) -> None:
        self.session._write(self.sentence_id, self.before)


class Session(QObject):
    """An open project being labeled.

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
    """

    sentenceChanged = Signal(int)
    annotationsChanged = Signal(int, object)
    annotationsReplaced = Signal(int, object, object)
    labelsChanged = Signal()

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.undo_stack = QUndoStack(self)
        self.style = LabelStyle(project.label_infos())
        self._order = project.sentence_ids()
        self._position = {sid: i for i, sid in enumerate(self._order)}
        self.current_id: int | None = None
        #: Sentence ids, most informative first (DESIGN §6), once a model gave them.
        self.queue: list[int] = []
        self.sentence: Sentence | None = None
        self.annotations: tuple[frozenset, ...] = ()
        self._sentences: list[Sentence] | None = None  # document order, built on first use
        if self._order:
            self.go_to(self._order[0])

    # ------------------------------------------------------------------
    # navigation (document order over the whole project)

    @property
    def n_sentences(self) -> int:
        return len(self._order)

    def index_of(self, sentence_id: int) -> int:
        """0-based position of a sentence in document order."""
        return self._position[sentence_id]

    def go_to(self, sentence_id: int) -> None:
        """Make ``sentence_id`` the current sentence."""
        if sentence_id == self.current_id and self.sentence is not None:
            return
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
        """Go to the most informative sentence that is not fully labeled.

        With a model's :attr:`queue` (:func:`tagtool.guidance.queue`), its
        first sentence other than the current one that is still not fully
        labeled; without, the next one in document order, wrapping around.
        False when all are labeled.
        """
        if self.current_id is None:
            return False
        for sid in self.queue:
            if sid != self.current_id and annotation_status(self.project.annotations(sid)) != "full":
                self.go_to(sid)
                return True
        here = self._position[self.current_id]
        page, offset = 2000, 0
        first = None
        while True:
            rows = self.project.sentence_summaries(status="incomplete", offset=offset, limit=page)
            for row in rows:
                if row.id == self.current_id:
                    continue
                if first is None:
                    first = row.id
                if self._position[row.id] > here:
                    self.go_to(row.id)
                    return True
            if len(rows) < page:
                break
            offset += page
        if first is None:
            return False
        self.go_to(first)
        return True

    # ------------------------------------------------------------------
    # edits

    def edit(self, changes: Mapping[int, frozenset], text: str) -> bool:
        """Apply changes to the current sentence: saved now, one undo step.

        Returns False (and changes nothing) when no token would change.
        Raises :class:`~tagtool.errors.TagtoolError` when the project refuses
        (read-only file, disk full); nothing is then changed.
        """
        if self.current_id is None:
            return False
        labels = self.project.labels
        after = {t: make_annotation(a, labels) for t, a in changes.items()}
        before = {t: self.annotations[t] for t in after}
        after = {t: a for t, a in after.items() if a != before[t]}
        if not after:
            return False
        before = {t: before[t] for t in after}
        self._write(self.current_id, after)
        self.undo_stack.push(EditCommand(self, self.current_id, before, after, text))
        return True

    def _write(self, sentence_id: int, changes: Mapping[int, frozenset]) -> None:
        before = self._annotations_of(sentence_id)
        self.project.set_annotations(sentence_id, dict(changes))
        if sentence_id != self.current_id:
            self.go_to(sentence_id)  # undo shows the sentence it changes
        else:
            self.annotations = _changed(self.annotations, changes)
        if self._sentences is not None:
            i = self._position[sentence_id]
            sentence = self._sentences[i]
            self._sentences[i] = replace(sentence, annotations=_changed(sentence.annotations, changes))
        self.annotationsReplaced.emit(sentence_id, {t: before[t] for t in changes}, dict(changes))
        self.annotationsChanged.emit(sentence_id, dict(changes))

    def _annotations_of(self, sentence_id: int) -> tuple[frozenset, ...]:
        if sentence_id == self.current_id:
            return self.annotations
        if self._sentences is not None:
            return self._sentences[self._position[sentence_id]].annotations
        return self.project.annotations(sentence_id)

    # ------------------------------------------------------------------
    # training snapshots

    def training_sentences(self) -> tuple[tuple[int, ...], tuple[Sentence, ...]]:
        """Ids and sentences (with their current annotations) in document order.

        The first call reads the project; later ones copy the cached list,
        which every edit, undo and redo keeps up to date.  Sentences are
        immutable, so the tuples are a snapshot a worker thread can use.
        """
        if self._sentences is None:
            sentences = list(self.project.corpus())
            if len(sentences) != len(self._order):
                raise RuntimeError("project changed while it was read")
            self._sentences = sentences
        return tuple(self._order), tuple(self._sentences)

    # ------------------------------------------------------------------
    # labels and bulk changes

    def labels_edited(self, annotations_changed: bool) -> None:
        """Re-read labels after the Labels dialog; renames and removals
        rewrite stored annotations, which makes older undo steps invalid."""
        self.style = LabelStyle(self.project.label_infos())
        if annotations_changed:
            self.undo_stack.clear()
            self.reload()
        self.labelsChanged.emit()

    def reload(self) -> None:
        """Re-read the current sentence (after an import or a label change)."""
        self._sentences = None
        if self.current_id is not None:
            sid, self.current_id = self.current_id, None
            self.go_to(sid)
            self.annotationsChanged.emit(sid, {})


def _changed(annotations: tuple[frozenset, ...], changes: Mapping[int, frozenset]) -> tuple[frozenset, ...]:
    anns = list(annotations)
    for t, ann in changes.items():
        anns[t] = ann
    return tuple(anns)

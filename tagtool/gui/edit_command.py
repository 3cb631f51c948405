"""The undo step of a label edit: one sentence's annotations, any number of tokens.

:meth:`~tagtool.gui.session.Session.edit` pushes one per edit.  Undo and redo
write the annotations before or after back through the session
(:meth:`~tagtool.gui.session.Session._write_reporting`), so the file always
holds what the screen shows; a refused write is reported and the stack stepped
back (:class:`EditCommand`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer
from PySide6.QtGui import QUndoCommand

if TYPE_CHECKING:
    from tagtool.gui.session import Session


class EditCommand(QUndoCommand):
    """One edit of one sentence's annotations (any number of tokens).

    When the project refuses an undo or a redo (a full or read-only disk),
    the file, the screen and the stack must keep agreeing: the session
    reports the failure and steps the stack back in the next turn of the
    event loop (QUndoStack cannot be called from inside ``undo``), and that
    step writes nothing (``_skip``), because the file never changed. The
    step stays on the stack, so Undo or Redo can be tried again.
    """

    def __init__(
        self, session: Session, sentence_id: int, before: dict, after: dict, text: str, action_id: int | None = None
    ):
        super().__init__(text)
        self.session, self.sentence_id = session, sentence_id
        self.before, self.after = before, after
        self.action_id = action_id  # the logged action an undo or redo names
        self._skip = True  # Session.edit wrote ``after`` before pushing

    def redo(self) -> None:
        self._apply(self.after, step_back=self.session.undo_stack.undo, kind="redo")

    def undo(self) -> None:
        self._apply(self.before, step_back=self.session.undo_stack.redo, kind="undo")

    def _apply(self, changes: dict, step_back, kind: str) -> None:
        if self._skip:
            self._skip = False
            return
        logged = kind if self.action_id is not None else None
        if not self.session._write_reporting(self.sentence_id, changes, logged, self.action_id):
            self._skip = True
            QTimer.singleShot(0, self.session, step_back)

"""The sentence editor's mouse: click, drag and Shift+click select; a click on a suggestion accepts it.

As in INCEpTION, doccano, Label Studio and brat, a span is selected over the
text itself:

* press on a token and release on another (a drag): the tokens between,
  both included, are selected (the press is the anchor, the release the
  focused token), so a label key, a click in the label palette
  (:mod:`tagtool.gui.label_palette`) or the context menu labels the span;
* Shift+click extends the selection from its anchor to the clicked token;
* a click (press and release on one token, no modifier) on the faded
  suggestion in an unlabeled token's lower band accepts the model's
  suggested span holding it (:func:`tagtool.gui.edits.suggested_span`:
  ``B-X I-X I-X`` together, ``O`` one token), as Space does for a
  selection; where a token question is torn between two labels
  (``A | B``), or a string match's evidence conflicts
  (:mod:`tagtool.gui.match_hints`), the part clicked is the label given;
* a click elsewhere on a span question (:mod:`tagtool.gui.span_plan`)
  selects the whole span, as Tab does;
* a right click keeps the selection it falls in and opens the context
  menu (:mod:`tagtool.gui.editor_menu`).

The pointer turns into a hand over a suggestion that a click accepts.
:class:`MouseSelection` is a part of :class:`tagtool.gui.editor.TokenEditor`.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QScrollArea

from tagtool.gui import edits
from tagtool.gui.chips import GAP_Y, _shown_suggestion, suggested_names

_MODIFIERS = Qt.ShiftModifier | Qt.ControlModifier | Qt.AltModifier


class MouseSelection:
    """Press, drag and release on the chips (mixed into the editor, which gives ``_rects``, ``hints``, …)."""

    _press: int | None = None  # the token a left press fell on, while the button is down
    _dragged = False  # the pointer left the pressed token since

    def token_at(self, pos) -> int | None:
        """The chip under ``pos`` (with a 2 px margin), None between chips."""
        for t, rect in enumerate(self._rects):
            if rect.adjusted(-2, -2, 2, 2).contains(pos):
                return t
        return None

    def token_near(self, pos) -> int | None:
        """The chip under ``pos``, else the nearest one of its row (a drag that passes between chips or
        beyond a row's end), the first above the first row, the last below the last."""
        t = self.token_at(pos)
        if t is not None or not self._rects:
            return t
        row = [
            (max(r.left() - pos.x(), 0.0, pos.x() - r.right()), t)
            for t, r in enumerate(self._rects)
            if r.top() - GAP_Y / 2 <= pos.y() <= r.bottom() + GAP_Y / 2
        ]
        if row:
            return min(row)[1]
        if pos.y() < self._rects[0].top():
            return 0
        return len(self._rects) - 1 if pos.y() > self._rects[-1].bottom() else None

    def suggestion_at(self, pos) -> int | None:
        """The unlabeled token whose shown suggestion (the chip's lower band) is under ``pos``."""
        t = self.token_at(pos)
        if t is None or self.annotations[t] or not _shown_suggestion(self.hints.get(t)):
            return None
        return t if pos.y() >= self._rects[t].top() + self._painter().token_band else None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.setFocus()
        self._press, self._dragged = None, False
        t = self.token_at(event.position())
        if t is None:
            return
        extend = bool(event.modifiers() & Qt.ShiftModifier)
        if event.button() == Qt.RightButton:
            if t not in self.selection():  # a right click in the selection keeps it for the context menu
                self.set_focus(t, extend=extend)
            return
        if event.button() == Qt.LeftButton:
            self.set_focus(t, extend=extend)
            self._press = t

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = event.position()
        if self._press is None or not event.buttons() & Qt.LeftButton:
            self.setCursor(Qt.PointingHandCursor if self.suggestion_at(pos) is not None else Qt.ArrowCursor)
            return
        t = self.token_near(pos)
        if t is not None and t != self.focus:
            self.set_focus(t, extend=True)  # the anchor stays where the press was
            self._dragged = True
            self._reveal(t)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._press = self._press, None
        if pressed is None or self._dragged or event.button() != Qt.LeftButton or event.modifiers() & _MODIFIERS:
            return
        pos = event.position()
        if self.suggestion_at(pos) == pressed:
            self.accept_clicked(pressed, pos)
        elif self.hints.question_span(pressed) is not None:
            self.select_question(pressed)  # a span question: selected whole, as Tab selects it

    def accept_clicked(self, t: int, pos: QPointF) -> bool:
        """Accept the suggestion clicked at token ``t``: its suggested span, or the torn question's half."""
        hint = self.hints.get(t)
        names = suggested_names(hint)
        if len(names) > 1:  # a torn question's pair, or a string match's candidate set: the part clicked
            rect = self._rects[t]
            part = int((pos.x() - rect.left()) / max(rect.width(), 1.0) * len(names))
            label = names[max(0, min(len(names) - 1, part))]
            kind = "accept" if label == hint.suggestion else None
            if not self._edit({t: frozenset([label])}, f"Label token {t + 1} {label}", kind):
                return False
            self._move_on(t)
            return True
        suggestions = [
            None if self.annotations[u] or self.hints.get(u) is None else self.hints.get(u).suggestion
            for u in range(len(self.tokens))
        ]
        return self.accept_suggestions(edits.suggested_span(suggestions, t))

    def contextMenuEvent(self, event) -> None:
        if self.token_at(event.pos()) is None:
            return
        menu = self.build_menu()
        menu.exec(event.globalPos())

    def _reveal(self, t: int) -> None:
        """Scroll the dragged-to chip into view when the editor sits in a scroll area."""
        area = self.parentWidget().parentWidget() if self.parentWidget() is not None else None
        if isinstance(area, QScrollArea) and t < len(self._rects):
            centre = self._rects[t].center()
            area.ensureVisible(int(centre.x()), int(centre.y()), 0, int(self._rects[t].height()))

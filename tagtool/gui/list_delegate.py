"""Painting the sentence list's cells: one Python call per cell.

Qt's default delegate asks the model for some eight roles of every cell it
paints (display, decoration, font, alignment, foreground, background, check
state…), each a call from C++ into Python's ``data()``: about 1,100 calls
per repaint of the list's 30 rows on screen.  Each call takes the GIL; while
a worker thread runs Python (scoring, feature extraction, learning word
representations) each may wait for it up to the switch interval, so a
repaint beside a thread running Python took several times as long
(benchmarks/results/big_project.md, “Where the stalls were”).
:class:`SentenceRowDelegate` paints a cell from the model's
:meth:`~tagtool.gui.sentence_list.SentenceListModel.cell` in one call: the
row's background and selection by the style, the flag, the text (elided on
the right, in the status colour for the Status column).  ``data()`` stays
for everything else (tooltips, the tests, accessibility).
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QStyle, QStyledItemDelegate

#: Space between a cell's edge (or its icon) and its text, as the default delegate leaves.
MARGIN = 4
# Qt's enum members looked up once: each lookup through the enum class is a Python call.
_PANEL = QStyle.PE_PanelItemViewItem
_SELECTED, _ACTIVE = QStyle.State_Selected, QStyle.State_Active
_GROUPS = (QPalette.Inactive, QPalette.Active)
_HIGHLIGHTED_TEXT, _TEXT = QPalette.HighlightedText, QPalette.Text
_ELIDE = Qt.ElideRight


class SentenceRowDelegate(QStyledItemDelegate):
    """Paints the cells of a :class:`~tagtool.gui.sentence_list.SentenceListModel` without ``data()``."""

    def paint(self, painter, option, index) -> None:
        model = index.model()
        cell = model.cell(index.row(), index.column())
        widget = option.widget
        style = widget.style() if widget is not None else None
        if style is not None:
            style.drawPrimitive(_PANEL, option, painter, widget)
        if cell is None:
            return
        text, alignment, color, icon = cell
        rect = QRect(option.rect).adjusted(MARGIN, 0, -MARGIN, 0)
        painter.save()
        if icon is not None:
            size = icon.height()
            painter.drawPixmap(rect.left(), rect.top() + (rect.height() - size) // 2, icon)
            rect.setLeft(rect.left() + size + MARGIN)
        state = option.state
        group = _GROUPS[bool(state & _ACTIVE)]
        if state & _SELECTED:
            painter.setPen(option.palette.color(group, _HIGHLIGHTED_TEXT))
        elif color is not None:
            painter.setPen(color)
        else:
            painter.setPen(option.palette.color(group, _TEXT))
        painter.setFont(option.font)
        painter.drawText(rect, alignment, option.fontMetrics.elidedText(text, _ELIDE, rect.width()))
        painter.restore()

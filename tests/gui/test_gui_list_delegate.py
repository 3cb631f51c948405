"""The sentence list paints its cells through SentenceRowDelegate (one call per
cell, ``SentenceListModel.cell``): what it paints is what ``data()`` says."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor

from tagtool.gui.list_delegate import SentenceRowDelegate
from tagtool.gui.sentence_list import COLUMNS


def test_cells_are_what_data_says(window, qtbot):
    panel, session = window.list_panel, window.session
    model = panel.model
    ids = session.sentence_ids
    session.go_to(ids[2])
    session.edits.flag("look at this")
    session.go_to(ids[5])
    model.set_scores({sid: 0.25 * (i % 4) for i, sid in enumerate(ids)})
    assert isinstance(panel.table.itemDelegate(), SentenceRowDelegate)
    for row in range(8):
        for column in range(len(COLUMNS)):
            index = model.index(row, column)
            text, alignment, color, icon = model.cell(row, column)
            shown = index.data(Qt.DisplayRole)
            assert text == ("" if shown is None else str(shown))
            assert int(alignment) == int(index.data(Qt.TextAlignmentRole) or (Qt.AlignLeft | Qt.AlignVCenter))
            if column == 1:
                assert QColor(color) == index.data(Qt.ForegroundRole)
                assert icon.cacheKey() == index.data(Qt.DecorationRole).cacheKey()
            else:
                assert color is None and icon is None
    assert model.cell(model.rowCount(), 0) is None


def test_the_selected_row_is_painted_in_the_highlight(window, qtbot):
    panel, session = window.list_panel, window.session
    session.go_to(session.sentence_ids[1])
    qtbot.wait(20)
    table = panel.table
    image = table.viewport().grab().toImage()
    rect = table.visualRect(panel.model.index(1, 2))
    highlight = table.palette().color(table.palette().ColorGroup.Active, table.palette().ColorRole.Highlight)
    inactive = table.palette().color(table.palette().ColorGroup.Inactive, table.palette().ColorRole.Highlight)
    corner = QColor(image.pixel(rect.topLeft() + QPoint(1, 1)))
    assert corner in (highlight, inactive)
    other = table.visualRect(panel.model.index(3, 2))
    assert QColor(image.pixel(other.topLeft() + QPoint(1, 1))) not in (highlight, inactive)

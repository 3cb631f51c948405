"""The window's layout: the editor's share of the width, the list's columns at 1024×700, docks that can be
hidden, and size, place and docks remembered between runs."""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QScrollArea

from tagtool.gui.main_window import MainWindow


def _shown(qtbot, settings, path, size=None) -> MainWindow:
    window = MainWindow(settings)
    qtbot.addWidget(window)
    if size is not None:
        window.resize(*size)
    assert window.open_project(path)
    window.model_loop.auto = False
    window.show()
    qtbot.waitExposed(window)
    return window


def test_the_editor_gets_the_largest_share_at_the_default_size(qtbot, settings, chunk_project):
    window = _shown(qtbot, settings, chunk_project)
    assert (window.width(), window.height()) == (1200, 720)
    editor = window.editor_panel.width()
    assert editor > window.list_panel.width()
    assert editor > window.model_dock.width()
    assert editor >= 0.4 * window.width()  # was 266 of 1200 px


def test_at_1024_by_700_the_list_keeps_its_columns_and_the_model_panel_its_controls(qtbot, settings, chunk_project):
    window = _shown(qtbot, settings, chunk_project, (1024, 700))
    table = window.list_panel.table
    viewport = table.viewport().width()
    for column in (3, 4):  # Info, Sentence
        assert not table.isColumnHidden(column)
        left = table.columnViewportPosition(column)
        assert 0 <= left and left + 50 <= viewport, f"column {column} is out of view"
    # Every control of the model panel is inside its dock's width (no sideways scrolling).
    areas = window.model_panel.findChildren(QScrollArea)
    qtbot.waitUntil(lambda: all(area.horizontalScrollBar().maximum() == 0 for area in areas))
    for button in (window.model_panel.train_button, window.model_panel.cancel_button):
        right = button.mapTo(window, button.rect().topRight()).x()
        assert right <= window.width()
    assert window.editor_panel.width() > 300


def test_side_panels_hide_together_and_come_back(qtbot, settings, chunk_project):
    window = _shown(qtbot, settings, chunk_project)
    before = window.editor_panel.width()
    window.stats_dock.hide()  # a dock the person closed stays closed when the panels come back
    window.side_panels_action.trigger()
    qtbot.waitUntil(lambda: window.editor_panel.width() > before + 150)
    assert not window.model_dock.isVisible() and not window.legend_dock.isVisible()
    window.side_panels_action.trigger()
    qtbot.waitUntil(lambda: window.model_dock.isVisible())
    assert window.legend_dock.isVisible() and not window.stats_dock.isVisible()


def test_size_place_docks_and_divider_are_remembered(qtbot, tmp_path, chunk_project):
    settings = QSettings(str(tmp_path / "remember.ini"), QSettings.IniFormat)
    window = _shown(qtbot, settings, chunk_project)
    window.resize(760, 560)  # inside the offscreen screen (800×600)
    window.model_dock.hide()
    window.splitter.setSizes([300, 200])
    qtbot.wait(50)
    list_width = window.list_panel.width()
    window.close()

    again = _shown(qtbot, QSettings(str(tmp_path / "remember.ini"), QSettings.IniFormat), chunk_project)
    assert (again.width(), again.height()) == (760, 560)
    assert not again.model_dock.isVisible() and again.legend_dock.isVisible()
    assert abs(again.list_panel.width() - list_width) <= 2
    assert again.dockWidgetArea(again.model_dock) == Qt.RightDockWidgetArea

"""The Statistics dock's first appearance in short turns: pyqtgraph imported in a thread, the plots built a
piece per turn of the event loop, and the first click on its tab not repainting the list and the editor."""

from __future__ import annotations

import sys
import threading

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QTabBar

from tagtool.gui import learning_plot
from tagtool.gui.learning_plot import AXES, BackgroundImport, pyqtgraph_import
from tests.gui.helpers import statistics_shown


def _store_cv_model(project) -> None:
    project.stored.add_model(
        "perceptron", {}, {"f1": 0.5, "token_accuracy": 0.9, "labeled_tokens": 80, "cv_folds": 2}, b"-"
    )


def test_the_plots_are_built_a_piece_per_turn_of_the_event_loop(window, qtbot):
    importer = pyqtgraph_import()
    qtbot.waitUntil(importer.request, timeout=30_000)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    curve = panel.curve
    assert curve.points and not curve.plots and not curve.settled, "nothing of pyqtgraph in the refresh's turn"
    assert curve.placeholders[0].isVisible() and not curve.notes[0].isVisible()
    built, turns = [], 0
    while not curve.settled and turns < 200:
        QApplication.processEvents()  # one turn: the posted events pending when it started
        turns += 1
        built.append(len(curve.plots))
    assert curve.settled, "the build ends"
    assert all(b - a <= 1 for a, b in zip([0] + built, built)), f"one plot widget per turn at most: {built}"
    assert turns >= 3 * len(AXES), f"a view and axes, the plot item, the widget: each in a turn ({turns} turns)"
    assert curve.plots[0].isVisible() and not curve.placeholders[0].isVisible()
    assert [i.name() for i in curve.plots[0].getPlotItem().listDataItems() if i.name()] == ["perceptron"]


def test_the_build_waits_for_the_import_and_a_closed_project_drops_it(window, qtbot, monkeypatch):
    importer = BackgroundImport("pyqtgraph")
    importer._thread = threading.Thread(target=lambda: None)  # "under way": request() starts nothing
    monkeypatch.setattr(learning_plot, "_PYQTGRAPH", importer)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    qtbot.wait(50)
    assert not panel.curve.plots and panel.curve.placeholders[0].isVisible(), "waiting for the import"
    window.close_project()
    panel.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    importer.done = True
    importer.ready.emit()  # to a deleted panel: nothing runs (an exception would fail the test)
    qtbot.wait(50)


def test_the_build_goes_on_when_the_import_ends(window, qtbot, monkeypatch):
    importer = BackgroundImport("pyqtgraph")
    importer._thread = threading.Thread(target=lambda: None)
    monkeypatch.setattr(learning_plot, "_PYQTGRAPH", importer)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    qtbot.wait(50)
    assert not panel.curve.plots
    importer.done = True
    importer.ready.emit()
    qtbot.waitUntil(lambda: panel.curve.settled, timeout=30_000)
    assert len(panel.curve.plots) == len(AXES) and panel.curve.plots[0].isVisible()


def test_a_project_closed_while_the_plots_are_built(window, qtbot):
    qtbot.waitUntil(pyqtgraph_import().request, timeout=30_000)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    QApplication.processEvents()
    QApplication.processEvents()
    curve = panel.curve
    assert not curve.settled
    window.close_project()
    qtbot.waitUntil(lambda: curve.settled, timeout=30_000)  # on a panel no dock shows: harmless
    assert window.session is None and window.stats_panel is None


def test_background_import_runs_the_import_on_another_thread(tmp_path, qtbot, monkeypatch):
    (tmp_path / "tagtool_bg_import_probe.py").write_text("import threading\nTHREAD = threading.current_thread().name\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tagtool_bg_import_probe", raising=False)
    importer = BackgroundImport("tagtool_bg_import_probe")
    with qtbot.waitSignal(importer.ready, timeout=30_000):
        assert not importer.request()
    assert importer.request() and importer.done
    assert sys.modules["tagtool_bg_import_probe"].THREAD == "import tagtool_bg_import_probe"
    assert BackgroundImport("tagtool_bg_import_probe").request(), "imported before: usable at once"


class _Paints(QObject):
    def __init__(self, widgets):
        super().__init__()
        self.painted = set()
        for w in widgets:
            w.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint:
            self.painted.add(obj)
        return False


def test_the_first_click_on_the_statistics_tab_repaints_neither_list_nor_editor(window, qtbot):
    qtbot.wait(100)
    bar = next(b for b in window.findChildren(QTabBar) if "Statistics" in [b.tabText(i) for i in range(b.count())])
    paints = _Paints([window.editor, window.list_panel.table.viewport()])
    bar.setCurrentIndex([bar.tabText(i) for i in range(bar.count())].index("Statistics"))
    qtbot.waitUntil(lambda: window.stats_panel.on_screen())
    qtbot.wait(100)
    assert window.stats_panel in [w for w in window.stats_dock.findChildren(type(window.stats_panel))]
    assert not paints.painted, "the central widget was raised (and painted) with the opening"


def test_the_same_points_again_draw_nothing(window, qtbot, monkeypatch):
    qtbot.waitUntil(pyqtgraph_import().request, timeout=30_000)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.curve.settled, timeout=30_000)
    drawn = []
    monkeypatch.setattr(panel.curve, "_draw", lambda: drawn.append(1))
    panel.refresh()  # a refresh after an edit: the models are the same
    assert drawn == []
    _store_cv_model(window.session.project)
    panel.refresh()
    assert drawn == [1] and len(panel.curve.points) == 2


def test_the_plots_show_only_their_left_and_bottom_axes(window, qtbot):
    qtbot.waitUntil(pyqtgraph_import().request, timeout=30_000)
    panel = statistics_shown(window)
    _store_cv_model(window.session.project)
    panel.refresh()
    qtbot.waitUntil(lambda: panel.curve.settled, timeout=30_000)
    item = panel.curve.plots[0].getPlotItem()
    assert [name for name in ("left", "bottom", "top", "right") if item.getAxis(name).isVisible()] == ["left", "bottom"]

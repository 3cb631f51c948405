"""The statistics dock: annotation speed by action kind and the learning curve, one series per learner."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QPalette, QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from tagtool.gui.hints import SentenceHints, TokenHint
from tagtool.gui.style import dark_palette, light_palette
from tagtool.services.annotation_costs import ActionClock
from tests.gui.helpers import go_unlabeled, key_of, statistics_shown

START = 1_700_000_000.0


class FakeTime:
    def __init__(self):
        self.t = START

    def __call__(self) -> float:
        return self.t


def _drawn(panel, qtbot):
    """Refresh ``panel`` and wait for its learning curve's plots (built over several turns)."""
    panel.refresh()
    qtbot.waitUntil(lambda: panel.curve.settled, timeout=30_000)


def _store_model(project, learner, f1, tokens, created):
    model_id = project.stored.add_model(learner, {}, {"f1": f1, "token_accuracy": 0.9, "labeled_tokens": tokens}, b"-")
    project._db.execute("UPDATE models SET created = ? WHERE id = ?", (created, model_id))
    return model_id


def test_the_dock_shows_tokens_per_minute_by_action_kind(window, qtbot, monkeypatch):
    panel = statistics_shown(window)
    panel.refresh()
    assert panel.speed.items == [] and "No annotation action logged yet" in panel.speed_note.text()
    now = FakeTime()
    window.session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    sid = window.session.current_id
    for t in range(3):  # 3 full labels, 4 s each: 15 tokens per minute (the first's 4 s
        # go to opening the sentence: 2 labels in 8 s)
        now.t += 4.0
        editor.set_focus(t)
        QTest.keyClick(editor, key_of(window, "O"))
    editor.set_hints(SentenceHints(sid, {t: TokenHint(suggestion="O") for t in range(3, 9)}))
    now.t += 3.0  # 6 suggestions in 3 s: 120 per minute
    QTest.keyClick(editor, Qt.Key_Return)
    now.t += 300.0  # idle: counts as 60 s for the skipped rest
    QTest.keyClick(editor, Qt.Key_N)
    panel.refresh()
    rows = {name: (value, note) for name, value, _, note in panel.speed.items}
    assert list(rows) == ["full label", "accepted suggestion", "skipped token", "opened sentence"]
    assert rows["full label"][0] == pytest.approx(15.0) and "4.0 s/token" in rows["full label"][1]
    assert rows["accepted suggestion"][0] == pytest.approx(120.0)
    skipped = len(window.session.project.sentence(sid).tokens) - 9
    assert rows["skipped token"][0] == pytest.approx(skipped)  # skipped tokens in one (capped) minute
    assert rows["skipped token"][1].endswith(f"{skipped} in 1.0 min")
    assert rows["opened sentence"][0] == pytest.approx(15.0) and "4.0 s each" in rows["opened sentence"][1]
    # the open, 3 full labels, an acceptance and the skip: 4 + 0 + 8 + 3 + 60 s
    assert panel.speed_note.text().startswith("6 actions in 1.2 annotation minutes")
    last = panel.actions()[-1].id
    now.t += 2.0
    QTest.keyClick(editor, key_of(window, "O"))  # only the new rows (an open and its label) are read
    calls = []
    real = window.session.project.actions
    monkeypatch.setattr(window.session.project, "actions", lambda **kw: calls.append(kw) or real(**kw))
    panel.refresh()
    assert calls == [{"after_id": last}] and len(panel._actions) == 8 and panel._actions[-1].kind == "full"


def test_the_learning_curve_has_one_named_series_per_learner_against_tokens_and_minutes(window, qtbot):
    panel = statistics_shown(window)
    project = window.session.project
    panel.refresh()
    assert panel.curve.points == [] and not panel.curve.plots, "pyqtgraph waits for the first model"
    assert panel.curve.notes[0].isVisible() and "cross-validation" in panel.curve.notes[0].text()
    now = FakeTime()
    window.session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    for t in range(4):  # 4 actions of 30 s: 2 annotation minutes
        now.t += 30.0
        editor.set_focus(t)
        QTest.keyClick(editor, key_of(window, "O"))
    _store_model(project, "perceptron", 0.40, 100, START + 61.0)
    _store_model(project, "cosvm", 0.45, 100, START + 61.0)
    _store_model(project, "perceptron", 0.55, 200, START + 200.0)
    project.stored.add_model("perceptron", {}, {"labeled_tokens": 250}, b"-")  # no CV: not on the curve
    _drawn(panel, qtbot)
    curve = panel.curve
    assert [(p.learner, p.labeled_tokens, p.minutes) for p in curve.points] == [
        ("perceptron", 100, 1.0),
        ("cosvm", 100, 1.0),
        ("perceptron", 200, 2.0),
    ]
    assert len(curve.plots) == 2 and all(p.isVisible() for p in curve.plots)
    for plot, axis in zip(curve.plots, ("labeled tokens", "annotation minutes")):
        item = plot.getPlotItem()
        assert [label.text for _, label in item.legend.items] == ["perceptron", "cosvm"]
        lines = [i for i in item.listDataItems() if i.name()]
        assert [line.name() for line in lines] == ["perceptron", "cosvm"]
        assert [list(line.yData) for line in lines] == [pytest.approx([40.0, 55.0]), pytest.approx([45.0])]
        assert axis in item.getAxis("bottom").labelText and "F1" in item.getAxis("left").labelText
    xs = [list(i.xData) for i in curve.plots[1].getPlotItem().listDataItems() if i.name()]
    assert xs == [[1.0, 2.0], [1.0]]
    assert not panel.grab().isNull()
    # a wheel over a plot is left to the dock (it scrolls), not taken to zoom
    view = curve.plots[0].viewport()
    shown = curve.plots[0].getPlotItem().viewRange()
    at = QPointF(view.width() / 2, view.height() / 2)
    wheel = QWheelEvent(
        at, view.mapToGlobal(at), QPoint(), QPoint(0, -120), Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False
    )
    QApplication.sendEvent(view, wheel)
    assert not wheel.isAccepted() and curve.plots[0].getPlotItem().viewRange() == shown


def test_models_older_than_the_log_say_why_they_have_no_minutes(window, qtbot):
    panel = statistics_shown(window)
    _store_model(window.session.project, "crf", 0.5, 80, START)
    _drawn(panel, qtbot)
    assert panel.curve.plots[0].isVisible() and not panel.curve.plots[1].isVisible()
    assert panel.curve.notes[1].isVisible() and "No annotation time logged" in panel.curve.notes[1].text()


@pytest.mark.parametrize("palette, dark", [(light_palette, False), (dark_palette, True)])
def test_the_plots_follow_the_theme(window, qtbot, palette, dark):
    from tagtool.gui.learning_plot import DARK_COLORS, LIGHT_COLORS

    panel = statistics_shown(window)
    _store_model(window.session.project, "crf", 0.5, 80, START)
    _drawn(panel, qtbot)
    panel.curve.setPalette(palette())
    plot = panel.curve.plots[0]
    base = palette().color(QPalette.Base)
    assert plot.backgroundBrush().color() == base
    line = next(i for i in plot.getPlotItem().listDataItems() if i.name())
    assert line.opts["pen"].color().name() == (DARK_COLORS if dark else LIGHT_COLORS)[0]
    text = palette().color(QPalette.WindowText)
    assert plot.getPlotItem().getAxis("left").textPen().color() == text

"""The queue ranks with the project's measured costs (read in a worker); Go › Queue strategy says which."""

from __future__ import annotations

from PySide6.QtTest import QTest

from tagtool.services.annotation_costs import MIN_TOKENS, ActionClock
from tagtool.services.queue_costs import DEFAULT
from tests.gui.helpers import go_unlabeled, key_of


class FakeTime:
    def __init__(self):
        self.t = 1_700_000_000.0

    def __call__(self) -> float:
        return self.t


def _label_visits(window, n: int) -> None:
    """``n`` sentences opened in 9 s each, then 3 labels 2 s apart: 2 s per label, 7 s to open a sentence."""
    session = window.session
    now = FakeTime()
    session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    for _ in range(n):
        for t in range(3):
            now.t += 9.0 if t == 0 else 2.0
            editor.set_focus(t)
            QTest.keyClick(editor, key_of(window, "O"))
        session.next_unfinished()


def test_the_queue_takes_the_measured_costs_and_the_menu_says_which(window, qtbot):
    loop, menu = window.model_loop, window.queue_menu
    loop.auto = False
    assert menu.measured_costs_action.isChecked(), "on by default"
    qtbot.waitUntil(lambda: not loop.costs_watch.runner.busy)
    assert loop.questions.costs.measured == () and menu.costs_action.text().startswith("Default annotation costs")
    assert "no annotation action logged yet" in menu.costs_action.text()

    _label_visits(window, MIN_TOKENS)
    loop.costs_watch.refresh()  # a run's start does it (Ctrl+T), without training here
    qtbot.waitUntil(lambda: loop.questions.costs.measured != (), timeout=10_000)
    costs = loop.questions.costs
    assert costs.sentence == 3.5 and costs.observations == MIN_TOKENS and costs.full == 1.0
    assert (
        menu.costs_action.text().startswith("Measured annotation costs")
        and "opening a sentence 3.5" in menu.costs_action.text()
    )

    menu.measured_costs_action.trigger()  # off: the defaults, kept in the settings
    assert loop.questions.costs == DEFAULT and not window.settings.measured_costs
    assert menu.costs_action.text() == "Default annotation costs"
    menu.measured_costs_action.trigger()  # on again: measured again, in the worker
    qtbot.waitUntil(lambda: loop.questions.costs.sentence == 3.5, timeout=10_000)
    assert window.settings.measured_costs


def test_a_run_starting_measures_the_costs_again(window, qtbot):
    loop = window.model_loop
    loop.auto = False
    qtbot.waitUntil(lambda: not loop.costs_watch.runner.busy)
    started = []
    real = loop.costs_watch.refresh
    loop.costs_watch.refresh = lambda: started.append(1) or real()
    loop.started.emit("hmm")
    assert started == [1]


def test_costs_arriving_after_the_project_closed_are_dropped(window, qtbot):
    loop = window.model_loop
    watch = loop.costs_watch
    qtbot.waitUntil(lambda: not watch.runner.busy)
    number = watch._reads
    window.close_project()
    watch._arrived.emit(number, DEFAULT)  # as a read finishing meanwhile would
    qtbot.wait(50)
    assert window.model_loop is None and not watch.measured

"""The status bar's mode switch shows the mode the project's own data propose, and why."""

from __future__ import annotations

from pathlib import Path

from tagtool.core import Corpus
from tagtool.services import mode_advice
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

DATA = Path(__file__).resolve().parents[1] / "data"
TIMEOUT = 120_000


def test_a_new_project_shows_the_suites_proposal_and_its_reason(window, qtbot):
    button = window.queue_menu.mode_button
    qtbot.waitUntil(lambda: "3 fully labeled" in button.toolTip(), timeout=TIMEOUT)
    # chunks are spans: the suite's choice is token questions, said in the tooltip but not pressed
    # in the button before the project has measured its own (the cold start reviews whole sentences)
    assert button.text() == "Mode: whole sentences"
    assert "Proposed — Token questions: 3 fully labeled sentences are too few" in button.toolTip()
    assert "token questions cost less than reviewing whole sentences on named entities" in button.toolTip()


def test_a_labeled_project_gets_a_measured_proposal_after_training(open_window, qtbot, tmp_path):
    gold = read_corpus(DATA / "conll2000_train_head.txt")
    path = tmp_path / "labeled.tagproj"
    Project.create(path, Corpus.from_sentences(list(gold), labels=gold.labels)).close()
    window = open_window(path)
    window.model_panel.folds.setValue(0)
    watch = window.queue_menu.advice_watch
    with qtbot.waitSignal(watch.advised, timeout=TIMEOUT) as arrived:
        window.model_panel.select_learner("perceptron", {"max_iter": 2})
        window.model_panel.train_button.click()
    advice = arrived.args[0]
    assert advice.measured and advice.sentences == 100 and watch.measured_on == 100
    button = window.queue_menu.mode_button
    assert "simulated on 100 of your fully labeled sentences" in button.toolTip()
    assert ("proposed: token questions" in button.text()) == (advice.mode == "tokens")
    # no new measurement until the labeled sentences have grown by half
    window.model_panel.train_button.click()
    qtbot.waitUntil(lambda: not window.model_loop.busy, timeout=TIMEOUT)
    qtbot.wait(200)
    assert not watch.runner.busy and watch.measured_on == 100


def test_a_proposal_other_than_the_mode_in_use_is_shown_on_the_switch(window):
    menu = window.queue_menu
    advice = mode_advice.ModeAdvice("tokens", "Token questions: measured.", 80, {"review": 0.3, "tokens": 0.1})
    menu.advice_watch.advice = advice
    menu._advised(advice)
    assert menu.mode_button.text() == "Mode: whole sentences · proposed: token questions"
    assert "Token questions: measured." in window.statusBar().currentMessage()
    menu.set_asking(True)
    assert menu.mode_button.text() == "Mode: token questions"

"""A big project's guidance in the window: the first page is in use before the rest, a newer model replaces
the older scoring, a changed queue choice is planned in a worker (small chunks stand in for a big project)."""

from __future__ import annotations

import threading

import pytest

from tagtool.gui import questions as questions_module
from tagtool.gui import scoring
from tagtool.services import chunked_guidance
from tests.gui.helpers import go_unlabeled

TIMEOUT = 60_000


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(chunked_guidance, "FIRST", 10)
    monkeypatch.setattr(chunked_guidance, "CHUNK", 20)
    monkeypatch.setattr(scoring, "UPDATE_SECONDS", 0.0)


def uses(loop) -> list:
    """Every result the loop takes in, in order."""
    taken, use = [], loop._use

    def logged(result, *args, **kwargs):
        taken.append(result)
        use(result, *args, **kwargs)

    loop._use = logged
    return taken


def start(window):
    panel = window.model_panel
    panel.select_learner("mv-perceptron", {"max_iter": 2})
    panel.folds.setValue(0)
    assert window.model_loop.train()


def test_the_first_page_is_in_use_before_the_rest_is_scored(window, qtbot, small_chunks):
    loop, session = window.model_loop, window.session
    go_unlabeled(window)
    taken = uses(loop)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        start(window)
    assert not taken[0].complete and taken[-1].complete and len({id(r.tagger) for r in taken}) == 1
    current = session.current_id
    assert current in taken[0].guidance, "the current sentence is on the first page"
    assert len(taken[0].guidance) == 10 and len(taken[-1].guidance) == session.n_sentences
    assert session.queue == loop.questions.plan.queue and loop.questions.plan.complete
    assert window.editor.hints.tokens, "hints of the current sentence"


def test_a_newer_model_stops_the_older_scoring(window, qtbot, small_chunks, monkeypatch):
    loop = window.model_loop
    taken = uses(loop)
    gate, calls = threading.Event(), []
    score = chunked_guidance.score_chunk

    def held(tagger, sentences, snapshot=None):  # the first run's second chunk waits for the second run
        calls.append(tagger)
        if len(calls) == 2:
            gate.wait(30)
        return score(tagger, sentences, snapshot)

    monkeypatch.setattr(chunked_guidance, "score_chunk", held)
    start(window)
    qtbot.waitUntil(lambda: bool(taken), timeout=TIMEOUT)
    first = taken[0].tagger
    assert not taken[0].complete and loop.tagger is first
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        assert loop.train()
        gate.set()
    assert loop.tagger is not first and loop.result.complete
    older = [r for r in taken if r.tagger is first]
    assert older and not any(r.complete for r in older), "the older model's scoring stopped unfinished"
    assert calls.count(first) < len(chunked_guidance.chunk_rows([True] * window.session.n_sentences))


def test_a_changed_choice_is_planned_in_a_worker(window, qtbot, small_chunks, monkeypatch):
    loop, session = window.model_loop, window.session
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        start(window)
    monkeypatch.setattr(questions_module, "SYNC_PLAN_TOKENS", 0)
    before = loop.questions.plan
    with qtbot.waitSignal(loop.queueChanged, timeout=TIMEOUT) as changed:
        window.queue_menu.strategy_actions["uncertainty"].trigger()
        assert loop.questions.plan is before, "the old plan serves until the new one is made"
    qtbot.waitUntil(lambda: loop.questions.plan is not before, timeout=TIMEOUT)
    plan = loop.questions.plan
    assert changed.signal_triggered and plan.strategy.name == "uncertainty" and session.queue == plan.queue
    assert window.list_panel.model.scores == plan.scores


def test_a_paced_worker_waits_for_the_gui_threads_turn(qtbot):
    """TaskState.pause in a paced runner's worker returns once the GUI thread has run its events; on the GUI
    thread, and once the runner is waited for, it does not wait."""
    import time

    from tagtool.gui import sentence_reader
    from tagtool.gui.worker import TaskRunner

    runner = TaskRunner(paced=True)
    turns = []

    def work(state):
        for _ in range(3):
            time.sleep(sentence_reader.READ_SLICE * 2)
            state.pause()  # returns after the GUI thread's turn
            turns.append(time.perf_counter())
        return len(turns)

    task = runner.start(work)
    task.state.pause()  # the GUI thread itself: no wait
    with qtbot.waitSignal(task.signals.returned, timeout=10_000) as done:
        pass
    assert done.args == [3]
    # waiting for the runner frees its tasks from pausing (no turn would come while the GUI thread waits)
    second = runner.start(work)
    assert runner.wait(10_000) and second.state.pacer._free

"""The app's J queue and Tab pass over near-duplicates of the sentences labeled since the model, as the simulator."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.services import strategies
from tagtool.services.simulate.config import Costs, SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tests.gui.helpers import DATA_DIR
from tests.gui.test_gui_scripted_session import LEARNER, PARAMS, STEPS, _allowed, _scorer
from tools.scripted_annotator import ScriptedAnnotator

#: Sentences of the slice, each twice in the project (the copy upper-cased: a near-duplicate).
N_TWINS = 20


@pytest.fixture(scope="module")
def twins():
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    first = list(gold.sentences[2:22])
    upper = [Sentence(tuple(t.upper() for t in s.tokens), s.annotations) for s in first]
    return (
        Corpus.from_sentences(first + upper, labels=gold.labels),
        Corpus.from_sentences(gold.sentences[60:], labels=gold.labels),
    )


@pytest.fixture
def twins_project(tmp_path, twins, settings):
    settings.setValue("skip_near_duplicates", True)  # Go › Queue strategy › Pass over near-duplicates (off by default)
    pool, _ = twins
    path = tmp_path / "twins.tagproj"
    Project.create(path, Corpus.from_sentences([s.unlabeled() for s in pool], labels=pool.labels), name="t").close()
    return path


def _twin(ids, sid):
    i = ids.index(sid)
    return ids[(i + N_TWINS) % (2 * N_TWINS)]


def _label(window, sid) -> None:
    session = window.session
    session.go_to(sid)
    session.edit({t: frozenset({"O"}) for t in range(len(session.annotations))}, "label")


@pytest.mark.parametrize("mode", ["tokens", "review"])
def test_the_scripted_session_passes_over_what_the_simulator_passes_over(
    open_window, twins_project, twins, mode, monkeypatch
):
    # the margin learners' former threshold: at it this small project's queue meets its near-duplicates
    monkeypatch.setitem(strategies.DEFAULT_THRESHOLD, False, 0.7)
    pool, test = twins
    window = open_window(twins_project)
    ids = list(window.session.sentence_ids)
    gold = {sid: [next(iter(a)) for a in s.annotations] for sid, s in zip(ids, pool)}
    annotator = ScriptedAnnotator(window, gold, Costs(), mode, "gain", skip_near_duplicates=True)
    annotator.prepare(LEARNER, PARAMS)
    assert window.model_loop.queue.duplicates.on and len(window.model_loop.queue.duplicates.groups.members) == 19
    points = annotator.run(**STEPS, score=_scorer(test))
    config = SimulationConfig(
        learner=LEARNER,
        params=PARAMS,
        strategy="gain",
        mode=mode,
        max_unlabeled=len(pool),
        full_data_f1=1.0,
        skip_near_duplicates=True,
        **STEPS,
    )
    sim = Simulation(config, pool, test)
    result = sim.run()
    assert len(points) == len(result.curve) >= 2
    assert np.array_equal(_allowed(window.session.project, ids, sim.pool.labels.names), sim.oracle.allowed)
    assert [p.cost for p in points] == pytest.approx([p.cost for p in result.curve], abs=1e-9)
    assert [p.f1 for p in points] == pytest.approx([p.f1 for p in result.curve], abs=1e-12)
    off = Simulation(SimulationConfig(**{**config.__dict__, "skip_near_duplicates": False}), pool, test)
    off.run()
    assert not np.array_equal(off.oracle.allowed, sim.oracle.allowed), "the rule changed what was shown"


def test_j_passes_over_a_near_duplicate_until_the_next_model(open_window, twins_project, qtbot):
    window = open_window(twins_project)
    session, loop = window.session, window.model_loop
    window.queue_menu.strategy_actions["random"].trigger()
    ids = list(session.sentence_ids)
    first = session.queue[0]
    twin = _twin(ids, first)
    assert twin in session.queue
    _label(window, first)
    assert twin not in session.queue and twin in loop.queue.duplicates.passed()
    for _ in range(N_TWINS - 3):  # J opens none of the sentences passed over (while others are left)
        QTest.keyClick(window.editor, Qt.Key_J)
        assert session.current_id != twin and session.current_id not in loop.queue.duplicates.passed()
        _label(window, session.current_id)
    # a model trained on them: the twins are back in the queue, and the next model decides
    loop.cv_folds = 0
    with qtbot.waitSignal(loop.finished, timeout=120_000):
        loop.train()
    assert loop.result is not None and not loop.queue.duplicates.passed()
    assert twin in session.queue


def test_the_switch_turns_the_rule_off(open_window, twins_project, settings):
    window = open_window(twins_project)
    session = window.session
    window.queue_menu.strategy_actions["random"].trigger()
    first = session.queue[0]
    twin = _twin(list(session.sentence_ids), first)
    assert window.queue_menu.near_duplicates_action.isChecked()
    window.queue_menu.near_duplicates_action.trigger()  # off
    assert settings.value("skip_near_duplicates") in (False, "false")
    _label(window, first)
    assert twin in session.queue
    window.queue_menu.near_duplicates_action.trigger()  # on again: the queue passes over it at once
    assert twin not in session.queue


def test_the_rule_is_off_by_default(open_window, tmp_path, twins):
    pool, _ = twins
    path = tmp_path / "default.tagproj"
    Project.create(path, Corpus.from_sentences([s.unlabeled() for s in pool], labels=pool.labels), name="d").close()
    window = open_window(path)
    assert not window.queue_menu.near_duplicates_action.isChecked() and not window.model_loop.queue.duplicates.on
    window.queue_menu.strategy_actions["random"].trigger()
    first = window.session.queue[0]
    _label(window, first)
    assert _twin(list(window.session.sentence_ids), first) in window.session.queue


def test_sentences_labeled_while_a_model_trains_stay_passed_over_after_it(open_window, twins_project):
    window = open_window(twins_project)
    session, watch = window.session, window.model_loop.queue.duplicates
    ids = list(session.sentence_ids)
    a, b = ids[0], ids[1]
    _label(window, a)
    watch.run_started()  # the run took its sentences: a is in its model, b will not be
    _label(window, b)
    assert watch.passed() >= {_twin(ids, a), _twin(ids, b)}
    watch.follow(object())  # its model arrives
    assert _twin(ids, a) not in watch.passed() and _twin(ids, b) in watch.passed()


def test_a_big_project_groups_in_a_worker(open_window, twins_project, qtbot, monkeypatch):
    from tagtool.gui import near_duplicate_watch

    monkeypatch.setattr(near_duplicate_watch, "BACKGROUND_GROUP_MIN", 10)  # the twins' 40 sentences count as big
    calls = []
    monkeypatch.setattr(
        near_duplicate_watch.TaskRunner, "start", _recording(near_duplicate_watch.TaskRunner.start, calls)
    )
    window = open_window(twins_project)
    watch = window.model_loop.queue.duplicates
    qtbot.waitUntil(lambda: len(watch.groups.members) == 19, timeout=30_000)
    assert any(function is near_duplicate_watch._group for function in calls)


def _recording(start, calls):
    def recorded(self, function, *args, **kw):
        calls.append(function)
        return start(self, function, *args, **kw)

    return recorded

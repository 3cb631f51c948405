"""A scripted session: an oracle annotator drives the window by keys and spends what ``tagtool simulate`` spends.

Does the app deliver the savings ``tagtool simulate`` measured?  The full comparison
is ``benchmarks/app_vs_simulate.py``.  Here a few dozen sentences of the
CoNLL-2002 Spanish slice, two or three steps.
"""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.core import Corpus
from tagtool.core.chunks import F1Scorer
from tagtool.services import strategies
from tagtool.services.annotation_costs import logged_cost, logged_tokens
from tagtool.services.simulate.config import Costs, SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tests.gui.helpers import DATA_DIR
from tools.scripted_annotator import ScriptedAnnotator

#: Sentences of the project (the rest of the 100-sentence slice is the test set).
N_PROJECT = 40
LEARNER, PARAMS = "mv-perceptron", {"max_iter": 3}
STEPS = dict(step=60.0, growth=1.5, budget=200.0)


@pytest.fixture(scope="module")
def ner():
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    pool = Corpus.from_sentences(gold.sentences[:N_PROJECT], labels=gold.labels)
    test = Corpus.from_sentences(gold.sentences[60:], labels=gold.labels)
    return pool, test


@pytest.fixture
def ner_project(tmp_path, ner):
    pool, _ = ner
    path = tmp_path / "ner.tagproj"
    Project.create(path, Corpus.from_sentences([s.unlabeled() for s in pool], labels=pool.labels), name="ner").close()
    return path


def _scorer(test: Corpus):
    sentences = [s.unlabeled() for s in test]
    names = [next(iter(a)) for s in test for a in s.annotations]

    def score(tagger) -> float:
        snapshot, predicted = tagger.predict(sentences)
        gold = np.array([tagger.labels.index(n) for n in names])
        return F1Scorer(tagger.labels, gold, snapshot.offsets).f1(predicted)

    return score


def _allowed(project: Project, ids, names) -> np.ndarray:
    """The project's annotations as the simulator's allowed mask (an empty annotation allows every label)."""
    rows = []
    for sid in ids:
        for ann in project.annotations(sid):
            rows.append([not ann or name in ann for name in names])
    return np.array(rows, dtype=bool)


@pytest.mark.parametrize(
    "mode, questions, matches",
    [
        ("tokens", "tokens", False),
        ("tokens", "spans", False),
        ("review", "tokens", False),
        ("tokens", "tokens", True),
        ("review", "tokens", True),
    ],
)
def test_the_keys_make_the_simulated_decisions_and_the_log_costs_what_the_simulator_charged(
    open_window, ner_project, ner, mode, questions, matches, folds=0
):
    pool, test = ner
    window = open_window(ner_project)
    ids = window.session.sentence_ids
    gold = {sid: [next(iter(a)) for a in s.annotations] for sid, s in zip(ids, pool)}
    annotator = ScriptedAnnotator(
        window, gold, Costs(), mode, "gain", spans=questions == "spans", string_matches=matches
    )
    annotator.prepare(LEARNER, PARAMS, folds)
    assert window.model_loop.questions.asking == (mode == "tokens") and not window.model_loop.auto
    assert window.model_loop.questions.spans == (questions == "spans")
    points = annotator.run(**STEPS, score=_scorer(test))

    sim = Simulation(
        SimulationConfig(
            learner=LEARNER,
            params=PARAMS,
            strategy="gain",
            mode=mode,
            seed=0,
            max_unlabeled=len(pool),
            full_data_f1=1.0,
            questions=questions,
            cv_folds=folds,
            string_matches=matches,
            **STEPS,
        ),
        pool,
        test,
    )
    result = sim.run()
    plan = window.model_loop.questions.plan
    assert plan.threshold == pytest.approx(sim.threshold(False), abs=1e-12)  # the same threshold, the same state
    assert plan.calibration.cold == sim.calibration.cold == (folds > 0 and result.curve[-1].cold)
    assert len(points) == len(result.curve) >= 2
    # the same decisions, sentence by sentence and token by token
    project = window.session.project
    assert np.array_equal(_allowed(project, ids, sim.pool.labels.names), sim.oracle.allowed)
    # the same cost at every step's end, counted from the action log, and the same models
    assert [p.cost for p in points] == pytest.approx([p.cost for p in result.curve], abs=1e-9)
    assert [p.f1 for p in points] == pytest.approx([p.f1 for p in result.curve], abs=1e-12)
    records = project.actions()
    assert logged_cost(records, Costs()) == pytest.approx(sim.oracle.spent, abs=1e-9)
    tokens = logged_tokens(records)
    last = result.curve[-1]
    assert tokens["full"] + tokens["accept"] == last.tokens_labeled == points[-1].tokens_labeled
    assert tokens["accept"] == last.accepted and tokens["candidate"] == 0
    if mode == "tokens":
        assert tokens["skip"] > 0, "confident tokens were read and left unlabeled"
        assert tokens["accept"] > 0, "Space accepted the questions whose suggestion was right"
        assert project.listing.annotation_counts()["none"] > 0
    else:
        assert tokens["accept"] > 0 and tokens["skip"] == 0, "Enter accepted the right suggestions"
    # keys did it: one key press at least per labeling action, and nothing was written but by the editor
    actions = [r for r in records if r.kind in ("full", "accept")]
    assert annotator.keys >= len(actions) > 0
    assert {r.kind for r in records} <= {"full", "accept", "skip", "open"}
    # each sentence worked on was opened once per visit, and the queue ranked with the simulator's costs
    assert sum(r.kind == "open" for r in records) >= len({r.sentence_id for r in actions})
    assert window.model_loop.questions.costs.measured == ()
    if questions == "spans":  # a span question of several tokens was answered by one key (a label's or Space)
        assert any(r.kind in ("full", "accept") and r.n_tokens > 1 for r in records)
    if matches:  # string matches were shown first, and some of them were right
        assert 0 < result.curve[-1].string_matched_right <= result.curve[-1].string_matched


def test_random_order_before_any_model_follows_the_seed_in_the_settings(settings, open_window, ner_project):
    settings.setValue("queue_seed", 5)
    window = open_window(ner_project)
    session = window.session
    window.queue_menu.strategy_actions["random"].trigger()
    ids = session.sentence_ids
    order = [ids[i] for i in strategies.tie_order(strategies.get("random"), len(ids), 5)]
    assert session.queue == order != list(ids)
    assert order != [ids[i] for i in strategies.tie_order(strategies.get("random"), len(ids), 0)]
    QTest.keyClick(window.editor, Qt.Key_J)
    assert session.current_id == next(s for s in order if s != ids[0])
    # a guided strategy has nothing to rank with before a model: J goes on in document order
    window.queue_menu.strategy_actions["gain"].trigger()
    assert session.queue == []
    here = session.index_of(session.current_id)
    QTest.keyClick(window.editor, Qt.Key_J)
    assert session.index_of(session.current_id) == here + 1


def test_with_cross_validation_the_app_sets_its_threshold_and_cold_start_as_the_simulator(
    open_window, ner_project, ner, monkeypatch
):
    """Cold at first, then warm (the level lowered so that both happen in three steps), in both."""
    from tagtool.services import question_threshold

    monkeypatch.setattr(question_threshold, "COLD_F1", 0.05)
    monkeypatch.setattr(question_threshold, "MIN_HELD_OUT", 20)
    test_the_keys_make_the_simulated_decisions_and_the_log_costs_what_the_simulator_charged(
        open_window, ner_project, ner, "tokens", "tokens", False, folds=3
    )

"""The question threshold a project sets itself from its cross-validation, and the cold-start rule."""

from __future__ import annotations

import numpy as np
import pytest

from tagtool.core import Corpus
from tagtool.services import question_threshold as qt
from tagtool.services import strategies
from tagtool.services.crossval import cross_validate, fold_trainer, plan_folds
from tagtool.services.pipeline import train_tagger
from tagtool.services.question_threshold import NO_RULE, Calibration, HeldOut, held_out, self_set_threshold
from tagtool.services.strategies import DEFAULT_THRESHOLD, Evidence
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR

GAIN = strategies.get("gain")


def test_the_threshold_is_the_largest_value_below_which_the_model_is_wrong_at_most_at_the_rate():
    q = np.array([0.1, 0.2, 0.2, 0.3, 0.5, 0.6, 0.8, 0.9])
    wrong = np.array([0, 0, 0, 0, 1, 0, 1, 1], dtype=bool)
    # below 0.5: 4 tokens, none wrong; below 0.6: 1 of 5 wrong (20 %); below 0.8: 1 of 6 (16.7 %)
    assert self_set_threshold(q, wrong, miss_rate=0.0, minimum=1) == 0.5
    assert self_set_threshold(q, wrong, miss_rate=0.2, minimum=1) == 0.8
    assert self_set_threshold(q, wrong, miss_rate=1 / 6, minimum=1) == 0.8
    assert self_set_threshold(q, wrong, miss_rate=0.19, minimum=1) == 0.8  # the largest, not the first crossing
    assert self_set_threshold(q, wrong, miss_rate=0.15, minimum=1) == 0.5
    # below 0.9: 2 of 7 wrong (28.6 %), below 1: 3 of 8
    assert self_set_threshold(q, wrong, miss_rate=0.3, minimum=1) == 0.9
    assert self_set_threshold(q, wrong, miss_rate=0.375, minimum=1) == 1.0
    # the first token wrong: nothing below the smallest question is the empty set, which meets any rate
    assert self_set_threshold(np.array([0.3, 0.4]), np.array([True, True]), miss_rate=0.0, minimum=1) == 0.3


def test_too_few_held_out_tokens_fall_back_to_the_kind_s_constant():
    q, wrong = np.linspace(0, 0.9, 10), np.zeros(10, dtype=bool)
    assert self_set_threshold(q, wrong, minimum=11) is None
    assert self_set_threshold(q, wrong, minimum=10) == 1.0
    assert self_set_threshold(q[:0], wrong[:0], minimum=0) is None
    held = HeldOut(Evidence(q), wrong)
    few = Calibration(held_out=held, warm=True)
    assert qt.MIN_HELD_OUT > 10
    assert few.threshold(GAIN, False) == DEFAULT_THRESHOLD[False]
    assert few.threshold(GAIN, True) == DEFAULT_THRESHOLD[True]
    assert Calibration(held_out=held, given=0.25).threshold(GAIN, False) == 0.25  # the user's overrides


def test_the_project_s_threshold_reads_the_strategy_s_question(monkeypatch):
    monkeypatch.setattr(qt, "MIN_HELD_OUT", 4)
    monkeypatch.setattr(qt, "MISS_RATE", 0.0)
    u = np.array([0.05, 0.1, 0.15, 0.2, 0.25])
    disagree = np.array([False, False, True, False, False])
    wrong = np.array([False, False, True, False, True])
    calibration = Calibration(held_out=HeldOut(Evidence(u, disagree), wrong), warm=True)
    # uncertainty alone: wrong at 0.15 → 0.15; gain's question is 1 where the views disagree → 0.25
    assert calibration.threshold(strategies.get("uncertainty"), False) == 0.15
    assert calibration.threshold(GAIN, False) == 0.25
    assert calibration.source(GAIN, False) == (0.25, 5)
    assert "from 5 held-out tokens" in calibration.describe(GAIN, False)


def test_cold_until_the_cross_validated_f1_reaches_the_level_then_warm_for_good():
    c = Calibration()
    assert c.cold
    c = c.after_cv({"cv": "needs 2 fully labeled sentences, has 1"}, None)  # too few: cold
    assert c.cold and c.f1 is None
    c = c.after_cv({"f1": qt.COLD_F1 - 0.01}, None)
    assert c.cold
    c = c.after_cv({"f1": qt.COLD_F1}, None)
    assert not c.cold and c.warm
    for f1 in (0.0, qt.COLD_F1 / 2):
        c = c.after_cv({"f1": f1}, None)
        assert not c.cold  # never back
    c = c.after_cv({"cv": "not possible"}, None)
    assert not c.cold
    assert "cold start: whole sentences reviewed" in Calibration().describe(GAIN, False)


def test_without_cross_validation_there_is_no_rule():
    c = Calibration().after_cv(None, None)
    assert not c.cold and not c.checked
    assert c.threshold(GAIN, False) == DEFAULT_THRESHOLD[False]
    assert not NO_RULE.cold and "cross-validation is off" in NO_RULE.describe(GAIN, False)


@pytest.fixture(scope="module")
def tiny():
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    return Corpus.from_sentences(gold.sentences[:30], labels=gold.labels)


def test_the_cross_validation_returns_each_held_out_token_s_question_as_a_direct_computation_gives(tiny):
    sentences = list(tiny)
    tagger = train_tagger(tiny, "mv-perceptron", seed=0)
    train = fold_trainer("mv-perceptron", {}, tagger, seed=0)
    out = cross_validate(sentences, tiny.labels, train, 3, seed=0, questions=True)
    held = out.pop("held_out")
    assert held.n_tokens == out["cv_tokens"] == sum(len(s) for s in sentences)
    parts = []
    for fold in plan_folds(sentences, 3):
        rest = Corpus.from_sentences([s for i, s in enumerate(sentences) if i not in set(fold)], labels=tiny.labels)
        model = train(rest, None, None)
        shown = [sentences[i] for i in fold]
        parts.append(held_out(model, shown, model.tag(shown)))
        q = parts[-1].evidence.uncertainty
        assert ((0 <= q) & (q <= 1)).all()
    direct = HeldOut.join(parts)
    np.testing.assert_allclose(held.evidence.uncertainty, direct.evidence.uncertainty)
    np.testing.assert_array_equal(held.wrong, direct.wrong)
    accuracy = 1 - held.wrong.mean()
    assert accuracy == pytest.approx(out["token_accuracy"], abs=1e-4)
    assert "held_out" not in cross_validate(sentences, tiny.labels, train, 3, seed=0)


def _simulation(tiny, mode="tokens", **kw):
    from tagtool.services.simulate.config import SimulationConfig
    from tagtool.services.simulate.loop import Simulation

    config = SimulationConfig(
        learner="mv-perceptron",
        params={"max_iter": 3},
        strategy="gain",
        mode=mode,
        step=60.0,
        growth=1.5,
        budget=300.0,
        full_data_f1=1.0,
        max_unlabeled=30,
        cv_folds=3,
        **kw,
    )
    return Simulation(config, tiny, tiny)


@pytest.mark.parametrize("cold_tokens", ["review", "full"])
def test_the_simulation_shows_whole_sentences_while_cold(tiny, monkeypatch, cold_tokens):
    monkeypatch.setattr(qt, "COLD_F1", 1.01)  # never warm
    monkeypatch.setattr(qt, "COLD_ORDER", "random")
    monkeypatch.setattr(qt, "COLD_TOKENS", cold_tokens)
    sim = _simulation(tiny)
    result = sim.run()
    assert len(result.curve) >= 2 and all(p.cold for p in result.curve)
    assert all(p.cv_seconds > 0 for p in result.curve)
    status = sim.oracle.sentence_status()
    assert set(status.tolist()) <= {0, 2}, "every sentence shown was labeled whole"
    labeled = set(np.flatnonzero(status == 2).tolist())
    assert labeled == set(sim.order.tolist()[: len(labeled)]), "in the random tie order"
    accepted = result.curve[-1].accepted
    assert accepted > 0 if cold_tokens == "review" else accepted == 0, "reviewed: right suggestions accepted"


def test_the_simulation_turns_warm_once_and_asks_with_the_project_s_threshold(tiny, monkeypatch):
    monkeypatch.setattr(qt, "MIN_HELD_OUT", 50)
    sim = _simulation(tiny)
    seen = []
    real = sim.calibration.after_cv

    def spy(self, metrics, held):
        seen.append((metrics or {}).get("f1"))
        return real.__func__(self, metrics, held)

    monkeypatch.setattr(Calibration, "after_cv", spy)
    monkeypatch.setattr(qt, "COLD_F1", 0.0)  # warm at the first cross-validation with an F1
    result = sim.run()
    f1s = [p.cold for p in result.curve]
    assert f1s[-1] is False and f1s == sorted(f1s, reverse=True), "cold, then warm for good"
    assert sim.calibration.held_out is not None and sim.calibration.held_out.n_tokens >= 50
    rule = self_set_threshold(
        np.asarray(GAIN.question(sim.calibration.held_out.evidence)), sim.calibration.held_out.wrong
    )
    expected = min(rule, strategies.DEFAULT_THRESHOLD[False])  # never above the kind's constant
    assert result.curve[-1].threshold == pytest.approx(expected)
    assert sim.threshold(False) == pytest.approx(expected)
    assert seen and None not in seen[-1:]


def test_a_given_threshold_overrides_the_project_s(tiny):
    sim = _simulation(tiny, threshold=0.35)
    assert sim.threshold(False) == 0.35
    sim.calibration = sim.calibration.after_cv({"f1": 0.9}, None)
    assert sim.threshold(False) == 0.35 and not sim.calibration.cold


def test_simulate_takes_threshold_auto_or_a_number_and_the_app_s_folds():
    from tagtool.cli.parser import build_parser

    parser = build_parser()
    base = ["simulate", "--data", "d", "--test", "t", "--strategy", "gain"]
    args = parser.parse_args(base)
    assert args.threshold is None and args.cv_folds is None  # auto; the config's default folds: the app's
    assert parser.parse_args([*base, "--threshold", "auto"]).threshold is None
    args = parser.parse_args([*base, "--threshold", "0.4", "--cv-folds", "0"])
    assert args.threshold == 0.4 and args.cv_folds == 0
    from tagtool.gui.model_loop import CV_FOLDS
    from tagtool.services.simulate.config import SimulationConfig

    assert SimulationConfig(learner="mv-perceptron").cv_folds == CV_FOLDS


def test_the_project_s_threshold_is_never_above_the_kind_s_constant(monkeypatch):
    monkeypatch.setattr(qt, "MIN_HELD_OUT", 4)
    u = np.array([0.1, 0.5, 0.8, 0.9, 0.95])
    calibration = Calibration(held_out=HeldOut(Evidence(u), np.zeros(5, dtype=bool)), warm=True)
    assert qt.self_set_threshold(u, np.zeros(5, dtype=bool), minimum=4) == 1.0  # never wrong: the rule asks nothing
    assert calibration.threshold(strategies.get("uncertainty"), False) == strategies.DEFAULT_THRESHOLD[False]
    assert calibration.threshold(strategies.get("uncertainty"), True) == strategies.DEFAULT_THRESHOLD[True]
    assert "the model kind's default: the 5 held-out tokens allowed a higher" in calibration.describe(GAIN, False)

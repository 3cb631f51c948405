"""The app's queue plans with the threshold the project set itself and with its cold start (no window)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tagtool.gui.questions import Questions, build_plan, plan_in_worker
from tagtool.gui.training import TrainingInputs, run_training
from tagtool.services import question_threshold as qt
from tagtool.services import strategies
from tagtool.services.guidance import Analysis
from tagtool.services.question_threshold import NO_RULE, Calibration, HeldOut
from tagtool.services.strategies import DEFAULT_THRESHOLD, Evidence, Tokens
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR
from tests.run_states import QuietRun

GAIN = strategies.get("gain")


def _analysis() -> Analysis:
    """Two open sentences: one token with question 0.28; six tokens, two at 0.22, the rest sure."""
    offsets = np.array([0, 1, 7])
    q = np.array([0.28, 0.22, 0.22, 0.0, 0.0, 0.0, 0.0])
    allowed = np.ones((7, 3), dtype=bool)
    zeros = np.zeros(7, dtype=np.int64)
    return Analysis(
        Evidence(q), Tokens.from_allowed(allowed, offsets), False, zeros, zeros + 1, np.zeros(7), ("O", "B-NP", "I-NP")
    )


def _held(monkeypatch) -> Calibration:
    """A project whose held-out tokens put its threshold at 0.2 (wrong from 0.2 up)."""
    monkeypatch.setattr(qt, "MIN_HELD_OUT", 4)
    monkeypatch.setattr(qt, "MISS_RATE", 0.0)
    u = np.array([0.05, 0.1, 0.15, 0.2, 0.8])
    return Calibration(held_out=HeldOut(Evidence(u), u >= 0.2), f1=0.6, warm=True)


def test_the_plan_asks_with_the_project_s_threshold_not_the_kind_s_constant(monkeypatch):
    calibration = _held(monkeypatch)
    plan = build_plan((10, 11), _analysis(), {}, GAIN, "tokens", calibration=calibration)
    assert plan.threshold == 0.2 != DEFAULT_THRESHOLD[False]
    assert plan.asked.tolist() == [True, True, True, False, False, False, False]
    before = build_plan((10, 11), _analysis(), {}, GAIN, "tokens")  # no rule: the kind's 0.3, nothing asked
    assert before.threshold == DEFAULT_THRESHOLD[False] and not before.asked.any()
    questions = Questions("gain", True, 0)
    questions.update((10, 11), _analysis(), {}, "perceptron", False, ready=plan)
    assert questions.calibration is calibration and questions.plan is plan
    assert questions.set(asking=True).threshold == 0.2, "a new plan of the same model keeps the threshold"
    assert "threshold 0.20 from 5 held-out tokens" in calibration.describe(GAIN, False)
    # review shows every suggestion: its ranking keeps the kind's constant (OWN_IN_REVIEW)
    assert questions.set(asking=False).threshold == DEFAULT_THRESHOLD[False]
    assert calibration.describe(GAIN, False, asking=False).startswith("review ranks with the model kind's")
    monkeypatch.setattr(qt, "OWN_IN_REVIEW", True)
    assert questions.set(asking=False).threshold == 0.2


def test_cold_the_queue_is_the_random_order_and_every_token_is_asked(monkeypatch):
    monkeypatch.setattr(qt, "COLD_ORDER", "random")
    cold = Calibration(f1=0.1)
    plan = build_plan((10, 11), _analysis(), {}, GAIN, "tokens", seed=3, calibration=cold)
    assert plan.asked.tolist() == [True] * 7 and plan.scores == {}
    order = strategies.tie_order(GAIN, 2, 3).tolist()
    assert plan.queue == [(10, 11)[i] for i in order]
    worker = plan_in_worker(Questions("gain", True, 3, calibration=cold).choice(), (10, 11), _analysis(), {}, "p", None)
    assert worker.calibration is cold and worker.queue == plan.queue
    assert NO_RULE.threshold(GAIN, False) == DEFAULT_THRESHOLD[False]


@pytest.fixture(scope="module")
def inputs():
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    sentences = tuple(s if i < 30 else s.unlabeled() for i, s in enumerate(gold.sentences[:50]))
    return TrainingInputs(tuple(range(50)), sentences, gold.labels, cv_folds=3)


def test_a_training_run_plans_again_with_its_cross_validation_s_threshold(inputs, monkeypatch):
    monkeypatch.setattr(qt, "MIN_HELD_OUT", 50)
    questions = Questions("gain", True, 0, calibration=Calibration())
    result = run_training(inputs, "mv-perceptron", {"max_iter": 3}, None, QuietRun(), queue=questions.choice)
    calibration = result.plan.calibration
    assert calibration is not questions.calibration and calibration.held_out is not None
    assert calibration.held_out.n_tokens == result.metrics["cv_tokens"]
    assert calibration.f1 == result.metrics["f1"]
    assert calibration.cold == (result.metrics["f1"] < qt.COLD_F1)
    expected = calibration.threshold(GAIN, result.tagger.model.probabilistic)
    assert result.plan.threshold == expected
    assert result.metrics["questions"] == calibration.describe(GAIN, result.tagger.model.probabilistic, True)
    assert "held_out" not in result.metrics
    json.dumps(result.metrics)  # stored with the model
    questions.update(result.plan.ids, result.analysis, result.status, "mv-perceptron", False, ready=result.plan)
    assert questions.calibration is calibration and questions.plan is result.plan


def test_a_run_without_folds_plans_without_the_rule(inputs):
    from dataclasses import replace

    questions = Questions("gain", True, 0, calibration=Calibration())
    result = run_training(
        replace(inputs, cv_folds=0), "mv-perceptron", {"max_iter": 3}, None, QuietRun(), queue=questions.choice
    )
    assert not result.plan.calibration.cold and not result.plan.calibration.checked
    assert result.plan.threshold == DEFAULT_THRESHOLD[result.tagger.model.probabilistic]
    assert "questions" not in result.metrics


def test_cold_with_the_strategy_s_order_only_the_questions_change(monkeypatch):
    monkeypatch.setattr(qt, "COLD_ORDER", "strategy")
    cold = Calibration(f1=0.1)
    plan = build_plan((10, 11), _analysis(), {}, GAIN, "tokens", seed=3, calibration=cold)
    warm = build_plan((10, 11), _analysis(), {}, GAIN, "tokens", seed=3)
    assert plan.asked.all() and plan.scores == warm.scores and plan.queue == warm.queue

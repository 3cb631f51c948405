"""The app's queue ranks with the project's measured annotation costs once its log has enough (no Qt)."""

from __future__ import annotations

import numpy as np
import pytest

from tagtool.gui.questions import Questions, build_plan, plan_in_worker
from tagtool.services import strategies
from tagtool.services.annotation_costs import MIN_TOKENS
from tagtool.services.guidance import Analysis
from tagtool.services.queue_costs import DEFAULT, QueueCosts, from_log
from tagtool.services.strategies import Evidence, Tokens
from tagtool.store.record_types import ActionRecord


def visits_log(n: int, open_seconds: float) -> list[ActionRecord]:
    """``n`` visits: ``open_seconds`` to open, a first label (1 token), then 2 labels in 4 s (2 s per label)."""
    rows, i, t = [], 1, 0.0
    for sid in range(n):
        rows += [
            ActionRecord(i, "open", sid, 6, t, t + open_seconds, open_seconds, "user", None),
            ActionRecord(i + 1, "full", sid, 1, t + open_seconds, t + open_seconds, 0.0, "user", None),
            ActionRecord(i + 2, "full", sid, 2, t + open_seconds, t + open_seconds + 4, 4.0, "user", None),
        ]
        i, t = i + 3, t + open_seconds + 4
    return rows


def test_the_measured_costs_replace_the_defaults_only_with_enough_observations():
    measured = from_log(visits_log(MIN_TOKENS, 9.0))  # 9 s − 2 s for the first label: 7 s, 3.5 full labels
    assert (measured.full, measured.sentence, measured.observations) == (1.0, 3.5, MIN_TOKENS)
    assert measured.measured == ("full", "sentence")
    assert (measured.partial, measured.skip, measured.accept) == (DEFAULT.partial, DEFAULT.skip, None), "too few"
    text = measured.describe()
    assert text.startswith("Measured annotation costs") and "opening a sentence 3.5" in text
    assert f"measured on {MIN_TOKENS}" in text and "skipped token 0.1*" in text
    fewer = from_log(visits_log(MIN_TOKENS - 1, 9.0))
    assert fewer.sentence == strategies.SENTENCE_COST and fewer.measured == ("full",)
    assert from_log([]) == QueueCosts(why="no annotation action logged yet")
    few_labels = from_log(visits_log(5, 9.0))  # 10 labels timed: nothing can be measured
    assert few_labels.measured == () and "fewer than 20 full labels" in few_labels.describe()
    assert DEFAULT.describe() == "Default annotation costs"


def _analysis() -> Analysis:
    """Two open sentences: one token the model asks about; six tokens, two asked."""
    offsets = np.array([0, 1, 7])
    q = np.array([0.9, 0.9, 0.9, 0.0, 0.0, 0.0, 0.0])
    allowed = np.ones((7, 3), dtype=bool)
    zeros = np.zeros(7, dtype=np.int64)
    return Analysis(
        Evidence(q), Tokens.from_allowed(allowed, offsets), False, zeros, zeros + 1, np.zeros(7), ("O", "B-NP", "I-NP")
    )


@pytest.mark.parametrize("open_seconds, head", [(2.0, 10), (9.0, 11)])
def test_the_queue_ranks_with_the_measured_cost_of_opening_a_sentence(open_seconds, head):
    """Opening a sentence measured at nothing (2 s, the first label's own 2 s): the one-token sentence's
    question is the better buy; at 3.5 full labels, the longer sentence's two questions are."""
    costs = from_log(visits_log(MIN_TOKENS, open_seconds))
    assert costs.sentence == pytest.approx(0.0 if open_seconds == 2.0 else 3.5)
    gain = strategies.get("gain")
    plan = build_plan((10, 11), _analysis(), {}, gain, "review", costs=costs)
    assert plan.queue[0] == head and plan.costs is costs
    assert plan.scores[10] == pytest.approx(0.9 / (costs.sentence + 1.0))
    assert plan.scores[11] == pytest.approx(1.8 / (costs.sentence + 2.0 + 4 * 0.1))
    # what the app's worker calls with the queue choice (Questions.choice) makes the same plan
    choice = Questions("gain", False, 0, costs).choice()
    worker = plan_in_worker(choice, (10, 11), _analysis(), {}, "perceptron", model=None)
    assert worker.queue == plan.queue and worker.costs == costs
    defaults = build_plan((10, 11), _analysis(), {}, gain, "review")
    assert defaults.queue[0] == 11 and defaults.costs == DEFAULT, "the defaults rank with 1.4 per sentence"


def test_a_ready_plan_of_other_costs_is_not_taken():
    costs = from_log(visits_log(MIN_TOKENS, 2.0))
    ready = plan_in_worker(("gain", False, 0, DEFAULT), (10, 11), _analysis(), {}, "perceptron", model=None)
    questions = Questions("gain", False, 0, costs)
    plan = questions.update((10, 11), _analysis(), {}, "perceptron", False, ready=ready)
    assert plan is not ready and plan.costs == costs and plan.queue[0] == 10

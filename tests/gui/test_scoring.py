"""A new model's guidance in the worker: the first page first, the rest after, a newer model stops it (no Qt)."""

from __future__ import annotations

import numpy as np
import pytest

from tagtool.core import Corpus
from tagtool.errors import Cancelled
from tagtool.gui import scoring
from tagtool.gui.questions import build_plan
from tagtool.gui.training import TrainingInputs, TrainingResult
from tagtool.learn import make_learner
from tagtool.services import chunked_guidance, guidance, strategies
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR


class State:
    """A worker's state that logs what happens, in order."""

    def __init__(self, events: list, stop_after_ready: int | None = None):
        self.events, self.ready, self.stop_after_ready = events, [], stop_after_ready

    def progress(self, fraction, message=""):
        pass

    def should_stop(self):
        return self.stop_after_ready is not None and len(self.ready) >= self.stop_after_ready

    def model_ready(self, result):
        self.ready.append(result)
        self.events.append(("ready", result.complete, frozenset(result.guidance)))


@pytest.fixture(scope="module")
def setup():
    gold = read_corpus(DATA_DIR / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    sentences = tuple(s if i % 10 == 0 else s.unlabeled() for i, s in enumerate(gold.sentences[:80]))
    tagger = train_tagger(
        Corpus.from_sentences(gold.sentences[:20], labels=gold.labels), make_learner("mv-perceptron", max_iter=2)
    )
    return TrainingInputs(tuple(range(1000, 1080)), sentences, gold.labels), tagger


@pytest.fixture
def events(monkeypatch):
    """Small chunks, an update after every chunk, and each chunk scored logged."""
    log = []
    monkeypatch.setattr(chunked_guidance, "FIRST", 10)
    monkeypatch.setattr(chunked_guidance, "CHUNK", 15)
    monkeypatch.setattr(scoring, "UPDATE_SECONDS", 0.0)
    score = chunked_guidance.score_chunk

    def logged(tagger, sentences, snapshot=None):
        log.append(("chunk", len(sentences) if snapshot is None else snapshot.n_sentences))
        return score(tagger, sentences, snapshot)

    monkeypatch.setattr(chunked_guidance, "score_chunk", logged)
    return log


def _run(setup, state, priority, choice=("gain", False)):
    inputs, tagger = setup

    def make_result(view, analysis, plan):
        return TrainingResult(tagger, tagger.learner, {}, view, inputs.status, {}, analysis=analysis, plan=plan)

    return scoring.score_guidance(tagger, inputs, state, make_result, lambda: choice, priority)


def test_the_first_page_is_handed_over_before_the_rest_is_scored(setup, events):
    inputs, tagger = setup
    wanted = (1033, 1071, 1005)
    state = State(events)
    result = _run(setup, state, scoring.Priority(first=wanted))
    assert events[0] == ("chunk", 10) and events[1][0] == "ready", "first chunk, then at once the first page"
    _, complete, scored = events[1]
    assert not complete and set(wanted) <= scored and len(scored) == 10
    assert events[2][0] == "chunk" and events[-1][:2] == ("ready", True), "then the rest, the complete one last"
    assert state.ready[-1] is result and result.complete and len(result.guidance) == 80
    first = state.ready[0]
    assert not first.plan.complete and set(first.plan.scores) == scored
    open_scored = {sid for sid in scored if inputs.status[sid] != "full"}
    assert set(first.plan.queue[: len(open_scored)]) == open_scored, "J goes to the scored sentences first"
    # the final queue is the whole-at-once analysis's
    _, whole = guidance.analyse_all(tagger, inputs.sentences)
    plan = build_plan(inputs.ids, whole, inputs.status, strategies.get("gain"), "review")
    assert result.plan.queue == plan.queue and result.plan.scores == plan.scores


def test_the_rest_follows_the_previous_queue(setup, events):
    inputs, _ = setup
    previous = [1079, 1078, 1077] + [sid for sid in inputs.ids if sid < 1077]
    _run(setup, State(events), scoring.Priority(first=previous[:10], order=previous))
    updates = [scored for kind, _, scored in (e for e in events if e[0] == "ready")]
    second = updates[1] - updates[0]
    expected = [sid for sid in previous if sid not in updates[0]][:15]
    assert second == set(expected)


def test_a_newer_model_stops_the_scoring(setup, events):
    state = State(events, stop_after_ready=1)  # a newer run asks to stop once the first page is out
    with pytest.raises(Cancelled):
        _run(setup, state, scoring.Priority())
    assert [e[0] for e in events] == ["chunk", "ready"] and not state.ready[0].complete


def test_the_plan_follows_the_choice_made_while_scoring(setup, events):
    inputs, tagger = setup
    choices = iter([("gain", False), ("uncertainty", True)] + [("uncertainty", True)] * 10)
    state = State(events)

    def make_result(view, analysis, plan):
        return TrainingResult(tagger, tagger.learner, {}, view, inputs.status, {}, analysis=analysis, plan=plan)

    scoring.score_guidance(tagger, inputs, state, make_result, lambda: next(choices), scoring.Priority())
    assert state.ready[0].plan.strategy.name == "gain" and state.ready[0].plan.mode == "review"
    assert state.ready[-1].plan.strategy.name == "uncertainty" and state.ready[-1].plan.mode == "tokens"
    assert np.isnan([state.ready[0].plan.scores.get(sid, np.nan) for sid in inputs.ids]).sum() == 70


def test_a_retrain_scores_from_its_training_snapshot(setup, monkeypatch):
    """run_training slices the fit's snapshot instead of extracting the features again: the same guidance."""
    from tagtool.gui.training import run_training

    inputs, _ = setup
    monkeypatch.setattr(chunked_guidance, "FIRST", 10)
    monkeypatch.setattr(chunked_guidance, "CHUNK", 15)

    def no_features(*_args, **_kwargs):
        raise AssertionError("features extracted again")

    monkeypatch.setattr(chunked_guidance, "build_snapshot", no_features)
    state = State([])
    result = run_training(inputs, "mv-perceptron", {"max_iter": 2}, None, state, queue=("gain", False))
    monkeypatch.undo()
    per_sentence, whole = guidance.analyse_all(result.tagger, inputs.sentences)
    assert [result.guidance[sid] for sid in inputs.ids] == per_sentence
    assert np.array_equal(result.analysis.evidence.uncertainty, whole.evidence.uncertainty)
    assert np.array_equal(result.analysis.evidence.disagree, whole.evidence.disagree)
    assert not state.ready[0].complete and result.complete

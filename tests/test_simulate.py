"""The simulated annotator (``tagtool simulate``): oracle, costs, strategies, modes, curve, CLI."""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib

import numpy as np
import pytest

from tagtool.cli.main import main
from tagtool.cli.simulating import SIMULATE_MODES, SIMULATE_STRATEGIES
from tagtool.core import Corpus
from tagtool.core.chunks import F1Scorer
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import evaluate
from tagtool.learn.base import Learner
from tagtool.services import guidance
from tagtool.services.simulate.config import STRATEGIES, Costs, SimulationConfig, SimulationError
from tagtool.services.simulate.loop import Simulation, simulate
from tagtool.services.simulate.oracle import Oracle
from tagtool.services.simulate.questions import Questions
from tagtool.services.simulate.results import CurvePoint, SimulationResult, cost_to_reach
from tagtool.services.strategies import MODES
from tagtool.services.uncertainty import (
    candidate_uncertainty,
    contention_mask,
    informativeness,
    pair_uncertainty,
    sentence_informativeness,
    strongest_other,
)
from tagtool.store.formats import read_corpus

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"
#: A fast learner for each strategy (disagreement needs two views, confidence WD-PSL).
LEARNER_FOR = {
    "sequential": ("perceptron", {"max_iter": 2}),
    "random": ("perceptron", {"max_iter": 2}),
    "uncertainty": ("crf", {"max_iter": 15}),
    "disagreement": ("mv-perceptron", {"max_iter": 2}),
    "confidence": ("wdpsl", {"max_iter": 2, "max_rounds": 5}),
    "combined": ("mv-perceptron", {"max_iter": 2}),
    "gain": ("crf", {"max_iter": 15}),
}


@pytest.fixture(scope="module")
def corpora():
    gold = read_corpus(DATA)
    data = Corpus.from_sentences(gold.sentences[:60], labels=gold.labels)
    test = Corpus.from_sentences(gold.sentences[60:], labels=gold.labels)
    return data, test


def _config(strategy, mode, **kw):
    learner, params = LEARNER_FOR[strategy]
    base = dict(
        learner=learner,
        params=params,
        strategy=strategy,
        mode=mode,
        step=150,
        growth=1.5,
        budget=700,
        full_data_f1=0.8,
        max_unlabeled=10,
        cv_folds=0,  # the mechanics of the modes; the cross-validated threshold and cold start: test_question_threshold
    )
    base.update(kw)
    return SimulationConfig(**base)


def test_cli_names_match_the_core():
    assert SIMULATE_STRATEGIES == STRATEGIES and SIMULATE_MODES == MODES


# ---------------------------------------------------------------------------
# every strategy × mode


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_and_mode_runs_with_a_monotone_curve(corpora, strategy, mode):
    data, test = corpora
    sim = Simulation(_config(strategy, mode), *corpora)
    result = sim.run()
    curve = result.curve
    assert len(curve) >= 2
    costs = [p.cost for p in curve]
    assert all(b > a for a, b in zip(costs, costs[1:]))
    labeled = [p.tokens_labeled for p in curve]
    assert all(b >= a for a, b in zip(labeled, labeled[1:]))
    assert all(0.0 <= p.f1 <= 1.0 and p.train_seconds >= 0 for p in curve)
    # the last sentence of a step may overshoot the budget by less than one sentence
    assert costs[-1] < 700 + max(len(s) for s in data)
    assert curve[-1].cost == pytest.approx(sim.oracle.spent, abs=1e-6)
    sizes = sim.oracle.allowed.sum(axis=1)
    labels = sim.pool.data.n_labels
    if mode in ("full", "review"):
        # whole sentences: every token of a shown sentence has its gold label
        status = sim.oracle.sentence_status()
        assert set(np.unique(status)) <= {0, 2}
        assert np.array_equal(sim.oracle.allowed[sizes == 1].argmax(axis=1), sim.oracle.gold[sizes == 1])
    if mode == "full":
        assert curve[-1].tokens_labeled == curve[-1].cost and curve[-1].accepted == 0
    else:
        assert set(np.unique(sizes)) <= {1, 2, labels}
    if mode != "partial":
        assert curve[-1].candidate_sets == 0 and set(np.unique(sizes)) <= {1, labels}


def test_partial_mode_candidate_sets_hold_gold_and_one_other(corpora):
    sim = Simulation(_config("uncertainty", "partial", close=0.3, threshold=0.05), *corpora)
    result = sim.run()
    allowed, gold = sim.oracle.allowed, sim.oracle.gold
    sizes = allowed.sum(axis=1)
    assert (sizes == 2).sum() == result.curve[-1].candidate_sets > 0
    assert allowed[np.arange(len(gold)), gold].all()  # gold is always allowed
    labeled = sizes < allowed.shape[1]
    assert result.curve[-1].tokens_labeled == labeled.sum()


def test_first_step_labels_whole_sentences_in_random_or_file_order(corpora):
    data, _ = corpora
    lengths = [len(s) for s in data]
    seq = Simulation(_config("sequential", "tokens", budget=1), *corpora)
    seq.run()
    assert seq.oracle.spent == lengths[0]  # one sentence, fully labeled, in file order
    rnd = Simulation(_config("uncertainty", "partial", budget=1, seed=3), *corpora)
    rnd.run()
    first = int(rnd.order[0])
    assert rnd.oracle.spent == lengths[first] and rnd.oracle.sentence_status()[first] == 2
    assert sorted(rnd.order.tolist()) == list(range(len(data)))


# ---------------------------------------------------------------------------
# cost accounting


def test_oracle_costs_match_the_cost_model_by_hand():
    # two sentences of 4 and 3 tokens, 3 labels; gold 0 1 2 0 | 1 1 0
    gold = np.array([0, 1, 2, 0, 1, 1, 0])
    oracle = Oracle(gold, np.array([0, 4, 7]), 3, Costs(full=1.0, partial=0.5, skip=0.1))
    # sentence 0: label tokens 0 and 2, candidate set on token 1 (with label 0), skip token 3
    cost = oracle.annotate(0, np.array([True, True, True, False]), np.array([-1, 0, -1, -1]))
    assert cost == pytest.approx(1 + 0.5 + 1 + 0.1)
    assert oracle.allowed[:4].tolist() == [
        [True, False, False],
        [True, True, False],
        [False, False, True],
        [True, True, True],
    ]
    # shown again: tokens already annotated cost nothing, the skipped one gets its label
    assert oracle.annotate(0, np.ones(4, bool)) == pytest.approx(1.0)
    assert oracle.allowed[1].tolist() == [True, True, False]  # a candidate set is not asked again
    # sentence 1 fully labeled
    assert oracle.annotate(1, np.ones(3, bool)) == pytest.approx(3.0)
    assert oracle.spent == pytest.approx(2.6 + 1 + 3)
    assert oracle.tokens_labeled == 7 and oracle.candidate_sets == 1
    assert oracle.sentence_status().tolist() == [1, 2]
    with pytest.raises(ValueError, match="other than gold"):
        Oracle(gold, np.array([0, 4, 7]), 3, Costs()).annotate(0, np.ones(4, bool), np.array([0, -1, -1, -1]))


def test_oracle_review_costs_a_correction_per_wrong_suggestion_and_a_read_per_accepted_one():
    gold = np.array([0, 1, 2, 0, 1, 1, 0])
    oracle = Oracle(gold, np.array([0, 4, 7]), 3, Costs(full=1.0, partial=0.5, skip=0.1))
    # suggestions 0 2 2 0: tokens 0, 2, 3 right (accepted), token 1 corrected
    accepted = np.array([0, 2, 2, 0]) == gold[:4]
    assert oracle.annotate(0, np.ones(4, bool), accepted=accepted) == pytest.approx(1 + 3 * 0.1)
    assert oracle.allowed[:4].argmax(axis=1).tolist() == [0, 1, 2, 0] and oracle.allowed[:4].sum() == 4
    assert oracle.accepted == 3 and oracle.tokens_labeled == 4 and oracle.sentence_status().tolist() == [2, 0]


def test_review_mode_pays_full_only_where_the_shown_suggestion_was_wrong(corpora, monkeypatch):
    """A review step's cost is ``full`` × wrong suggestions + ``skip`` × right ones, from the model's own Viterbi."""
    data, _ = corpora
    sim = Simulation(_config("uncertainty", "review", step=150.0, growth=1.0, string_matches=False), *corpora)
    shown = []
    annotate = Oracle.annotate

    def recording(self, i, ask, candidates=None, accepted=None):
        before = self.unlabeled(i).copy()
        cost = annotate(self, i, ask, candidates, accepted)
        shown.append((i, before, None if accepted is None else np.asarray(accepted).copy(), cost))
        return cost

    monkeypatch.setattr(Oracle, "annotate", recording)
    model = None
    for _ in range(2):
        status = sim.oracle.sentence_status()
        questions = sim.questions(model, status)
        shown.clear()
        sim.annotate_step(questions, status, 150.0)
        if model is not None:
            snap = dataclasses.replace(sim.pool.data, allowed=np.ones_like(sim.oracle.allowed))
            predicted = model.predict(snap, constrained=True)
            assert shown
            for i, before, accepted, cost in shown:
                rows = sim.oracle.rows(i)
                right = (predicted[rows] == sim.oracle.gold[rows]) & before
                assert accepted is not None and np.array_equal(accepted & before, right)
                assert cost == pytest.approx(int((before & ~right).sum()) + 0.1 * int(right.sum()))
            accepted_total = sum(int(a.sum()) for _, _, a, _ in shown)
            opened = sum(int(b.sum()) for _, b, _, _ in shown)
            assert 0 < accepted_total < opened, "some suggestions right, some corrected"
        model, _ = sim.train(model, None)


def test_a_step_asks_only_uncertain_tokens_and_pays_for_reading_the_rest(corpora):
    data, _ = corpora
    sim = Simulation(
        _config("uncertainty", "partial", threshold=0.5, close=0.8, costs=Costs(full=2.0, partial=0.75, skip=0.25)),
        *corpora,
    )
    n_tokens, n_labels = sim.pool.data.n_tokens, sim.pool.data.n_labels
    # a hand-made model view: only sentence 2 has questions, on its tokens 0 and 1;
    # the model is torn between gold and label g+1 on token 0, sure on token 1
    offsets = sim.pool.data.offsets
    start = int(offsets[2])
    q = np.zeros(n_tokens)
    q[start] = q[start + 1] = 0.9
    scores = np.full((n_tokens, n_labels), -10.0)
    gold = sim.oracle.gold
    scores[np.arange(n_tokens), gold] = 0.0
    other = (gold[start] + 1) % n_labels
    scores[start, other] = -0.01
    questions = Questions(q, {2: 0.9}, scores, 1.0, False)
    status = sim.oracle.sentence_status()
    length = len(data.sentences[2])
    first_cost = 0.75 + 2.0 + 0.25 * (length - 2)
    assert sim.annotate_step(questions, status, step=first_cost - 0.01) == 1
    # no other sentence had a question: none was shown, nothing else paid
    assert sim.oracle.spent == pytest.approx(first_cost)
    assert sim.oracle.allowed[start].sum() == 2 and sim.oracle.allowed[start, [gold[start], other]].all()
    assert sim.oracle.allowed[start + 1].sum() == 1
    assert sim.oracle.allowed[start + 2 : int(offsets[3])].all()
    assert sim.fallback_from is None and sim.oracle.sentence_status()[2] == 1


def test_a_step_without_questions_goes_on_with_whole_sentences(corpora):
    data, _ = corpora
    sim = Simulation(_config("uncertainty", "tokens", threshold=0.5), *corpora)
    n_tokens = sim.pool.data.n_tokens
    questions = Questions(np.zeros(n_tokens), {}, None, 1.0, False)  # a model sure of everything
    status = sim.oracle.sentence_status()
    shown = sim.annotate_step(questions, status, step=50.0)
    order = sim.queue(status, questions)  # no scores: the strategy's tie order
    lengths = [len(data.sentences[i]) for i in order]
    n = int(np.searchsorted(np.cumsum(lengths), 50.0)) + 1  # whole sentences until 50 is spent
    assert shown == n and sim.oracle.spent == sum(lengths[:n])
    assert (sim.oracle.sentence_status()[order[:n]] == 2).all()
    assert sim.fallback_from == 0.0 and "went on with whole sentences" in sim.notes[-1]


def test_until_95_stops_at_the_first_point_reaching_the_target(corpora):
    result = simulate(_config("random", "full", full_data_f1=0.5, until_95=True, budget=2000), *corpora)
    assert result.cost_to_95 == result.curve[-1].cost
    assert all(p.f1 < 0.475 for p in result.curve[:-1])


# ---------------------------------------------------------------------------
# cost_to_95, warm start, unlabeled cap, scorer


def test_cost_to_95_is_the_first_cost_reaching_95_percent():
    curve = [
        CurvePoint(100, 100, 0.5, 0.1),
        CurvePoint(250, 250, 0.94, 0.1),
        CurvePoint(400, 400, 0.9, 0.1),
        CurvePoint(600, 600, 0.951, 0.1),
    ]
    assert cost_to_reach(curve, 0.9) == 250
    assert cost_to_reach(curve, 0.95) == 600
    assert cost_to_reach(curve, 0.96) is None
    result = SimulationResult("crf", "random", "full", 1.0, curve, Costs(), 1000)
    assert result.cost_to_95 == 600
    result.full_data_f1 = 0.98  # 95 % = 0.931
    assert result.cost_to_95 == 250
    result.full_data_f1 = 1.01  # 95 % = 0.9595
    assert result.cost_to_95 is None and result.to_dict()["cost_to_95"] is None


def test_every_step_after_the_first_is_warm_started_from_the_previous_model(corpora, monkeypatch):
    calls = []
    original = Learner.fit

    def recording_fit(self, snapshot, **kw):
        model = original(self, snapshot, **kw)
        calls.append((kw.get("warm_start"), model))
        return model

    monkeypatch.setattr(Learner, "fit", recording_fit)
    result = simulate(_config("random", "full"), *corpora)
    assert len(calls) == len(result.curve) >= 3  # full_data_f1 given: no full-data training
    assert calls[0][0] is None
    for (warm, _), (_, previous) in zip(calls[1:], calls[:-1]):
        assert warm is previous
    assert [p.warm_start for p in result.curve] == [False] + [True] * (len(calls) - 1)


def test_full_data_f1_trains_on_every_sentence_fully_labeled(corpora, monkeypatch):
    seen = []
    original = Learner.fit

    def recording_fit(self, snapshot, **kw):
        seen.append(snapshot)
        return original(self, snapshot, **kw)

    monkeypatch.setattr(Learner, "fit", recording_fit)
    sim = Simulation(_config("random", "full", full_data_f1=None, budget=100), *corpora)
    result = sim.run()
    full = seen[0]
    assert full.n_sentences == len(corpora[0]) and (full.allowed.sum(axis=1) == 1).all()
    assert 0.0 < result.full_data_f1 <= 1.0


def test_unlabeled_sentences_are_capped_and_only_for_learners_that_use_them(corpora):
    semi = Simulation(_config("disagreement", "full", max_unlabeled=7), *corpora)
    status = np.zeros(len(corpora[0]), dtype=np.int8)
    status[[3, 5]] = 2
    ids = semi.training_ids(status)
    assert {3, 5} <= set(ids.tolist()) and len(ids) == 9
    assert ids.tolist() == sorted(ids.tolist()), "document order, as the app trains"
    free = [int(i) for i in ids if i not in (3, 5)]
    # a fixed sample: the same unlabeled sentences while they stay unlabeled
    status[free[0]] = 1
    again = semi.training_ids(status)
    assert set(again) >= set(ids)
    supervised = Simulation(_config("sequential", "full", max_unlabeled=7), *corpora)
    assert supervised.training_ids(status).tolist() == sorted([3, 5, free[0]])
    # at least the data's size: every sentence, as the app gives the learner its whole project
    everything = Simulation(_config("disagreement", "full", max_unlabeled=len(corpora[0])), *corpora)
    assert everything.training_ids(status).tolist() == list(range(len(corpora[0])))


def test_the_order_is_the_registrys_tie_order_and_the_views_are_the_trainings(corpora):
    from tagtool.services import strategies
    from tagtool.services.pipeline import train_tagger

    sim = Simulation(_config("combined", "tokens", seed=3), *corpora)
    assert sim.order.tolist() == strategies.tie_order(strategies.get("combined"), len(corpora[0]), 3).tolist()
    # the default features of mv-perceptron stack two template sets: one view each, as training splits them
    learner, params = LEARNER_FOR["combined"]
    tagger = train_tagger(corpora[0], learner, seed=3)
    assert tagger.view_split.kind == "feature-sets"
    assert np.array_equal(sim.pool.data.feature_view, tagger.model.feature_view)


def test_fast_scorer_matches_evaluate(corpora):
    _, test = corpora
    labels = test.labels
    sentences = list(test)
    gold = np.array([labels.index(next(iter(a))) for s in sentences for a in s.annotations])
    offsets = np.concatenate(([0], np.cumsum([len(s) for s in sentences])))
    scorer = F1Scorer(labels, gold, offsets)
    names = np.asarray(labels.names, dtype=object)
    as_lists = lambda y: [list(names[y[a:b]]) for a, b in zip(offsets[:-1], offsets[1:])]  # noqa: E731
    rng = np.random.default_rng(0)
    for noise in (0.0, 0.1, 0.5, 1.0):
        pred = np.where(rng.random(len(gold)) < noise, rng.integers(0, len(labels), len(gold)), gold)
        assert scorer.f1(pred) == pytest.approx(evaluate(as_lists(gold), as_lists(pred), labels).f1, abs=1e-12)
    pos = LabelSet(["NN", "VB", "DT"])
    plain = F1Scorer(pos, np.array([0, 1, 2, 0]), np.array([0, 2, 4]))
    assert plain.f1(np.array([0, 1, 1, 0])) == 0.75  # token accuracy for non-span labels


# ---------------------------------------------------------------------------
# errors, JSON, plot


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"learner": "perceptron", "strategy": "disagreement"}, "two-view"),
        ({"learner": "crf", "strategy": "confidence"}, "wdpsl"),
        ({"strategy": "greedy"}, "unknown strategy"),
        ({"mode": "half"}, "unknown mode"),
        ({"step": 0}, "--step"),
        ({"threshold": 1.5}, "--threshold"),
        ({"cv_folds": -1}, "--cv-folds"),
        ({"costs": Costs(full=1, partial=-1, skip=0.1)}, "cost of partial"),
    ],
)
def test_bad_settings_are_named(corpora, kw, message):
    config = SimulationConfig(**{"learner": "perceptron", **kw})
    with pytest.raises(SimulationError, match=message):
        Simulation(config, *corpora)


def test_data_without_gold_is_refused(corpora):
    data, test = corpora
    unlabeled = Corpus.from_sentences([s.unlabeled() for s in data], labels=data.labels)
    with pytest.raises(SimulationError, match="^train.txt: no fully labeled sentence"):
        Simulation(_config("random", "full"), unlabeled, test, names=("train.txt", "test.txt"))


def _cli_files(tmp_path, corpora):
    from tagtool.store.formats import write_corpus

    paths = []
    for name, corpus in zip(("data.txt", "test.txt"), corpora):
        path = tmp_path / name
        write_corpus(corpus, path, format="conll")
        paths.append(str(path))
    return paths


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--learner", "perceptron", "--strategy", "disagreement"],
            "strategy disagreement needs a two-view learner (cosvm, mv-perceptron); perceptron has one view",
        ),
        (["--learner", "svm", "--strategy", "confidence"], "strategy confidence needs WD-PSL"),
        (["--learner", "perceptron", "--strategy", "random", "--cost-skip", "-1"], "cost of skip"),
    ],
)
def test_cli_bad_arguments_are_one_error_line(tmp_path, corpora, capsys, argv, message):
    data, test = _cli_files(tmp_path, corpora)
    code = main(["simulate", "--data", data, "--test", test, *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1
    assert err[0].startswith("tagtool: error: ") and message in err[0]


def test_cli_review_prints_the_accepted_suggestions(tmp_path, corpora, capsys):
    data, test = _cli_files(tmp_path, corpora)
    out = tmp_path / "curve.json"
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--set",
            "max_iter=2",
            "--strategy",
            "combined",
            "--mode",
            "review",
            "--string-matches",
            "off",
            "--step",
            "200",
            "--budget",
            "700",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "skipped or accepted token 0.1" in printed and " accepted " in printed.splitlines()[2]
    curve = json.loads(out.read_text())["curve"]
    assert curve[0]["accepted"] == 0 and curve[-1]["accepted"] > 0, "the first step has no suggestions to accept"
    last = printed.splitlines()[2 + len(curve)].split()
    assert int(last[2]) == curve[-1]["accepted"]


def test_cli_json_has_its_schema(tmp_path, corpora, capsys):
    data, test = _cli_files(tmp_path, corpora)
    out = tmp_path / "curve.json"
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--set",
            "max_iter=2",
            "--strategy",
            "uncertainty",
            "--mode",
            "tokens",
            "--step",
            "200",
            "--budget",
            "700",
            "--cost-skip",
            "0.2",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "skipped token 0.2" in printed and "full-data F1" in printed
    result = json.loads(out.read_text())
    assert {"learner", "strategy", "mode", "full_data_f1", "cost_to_95", "curve"} <= set(result)
    assert (result["learner"], result["strategy"], result["mode"]) == ("perceptron", "uncertainty", "tokens")
    assert result["scale"] == "percent" and 1.0 < result["full_data_f1"] <= 100.0
    assert result["costs"] == {"full": 1.0, "partial": 0.5, "skip": 0.2}
    assert result["cost_to_95"] is None or isinstance(result["cost_to_95"], float)
    assert len(result["curve"]) >= 2
    for point in result["curve"]:
        assert {"cost", "tokens_labeled", "f1", "train_seconds"} <= set(point)
        assert isinstance(point["tokens_labeled"], int)
    target = 0.95 * result["full_data_f1"]
    reached = [p["cost"] for p in result["curve"] if p["f1"] >= target]
    assert result["cost_to_95"] == (reached[0] if reached else None)


def test_cli_full_data_f1_skips_the_full_training_and_plot_writes_a_png(tmp_path, corpora, capsys):
    pytest.importorskip("matplotlib")
    data, test = _cli_files(tmp_path, corpora)
    out, png = tmp_path / "c.json", tmp_path / "c.png"
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "hmm",
            "--strategy",
            "random",
            "--step",
            "300",
            "--budget",
            "600",
            "--full-data-f1",
            "50",
            "--json",
            str(out),
            "--plot",
            str(png),
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    assert result["full_data_f1"] == 50.0 and result["scale"] == "percent"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_plot_without_matplotlib_is_a_clear_error_before_any_work(tmp_path, corpora, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.split(".")[0] == "matplotlib":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    data, test = _cli_files(tmp_path, corpora)
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "hmm",
            "--strategy",
            "random",
            "--plot",
            str(tmp_path / "x.png"),
            "--json",
            str(tmp_path / "x.json"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err == ["tagtool: error: --plot needs matplotlib: pip install 'tagtool[plot]'"]
    assert not (tmp_path / "x.json").exists()


# ---------------------------------------------------------------------------
# guidance helpers used by the simulation


def test_sentence_informativeness_is_informativeness_per_sentence():
    rng = np.random.default_rng(1)
    offsets = np.array([0, 3, 4, 9])
    u = rng.random(9)
    allowed = rng.random((9, 4)) < 0.6
    allowed[np.arange(9), rng.integers(0, 4, 9)] = True
    allowed[5] = True
    disagree = rng.random(9) < 0.3
    batch = sentence_informativeness(u, allowed, offsets, disagree)
    for i in range(3):
        rows = slice(offsets[i], offsets[i + 1])
        assert batch[i] == pytest.approx(informativeness(u[rows], allowed[rows], disagree[rows]))


def test_pair_uncertainty_strongest_other_and_contention():
    probs = np.array([[0.5, 0.5, 0.0], [0.9, 0.1, 0.0], [0.2, 0.0, 0.8]])
    other = strongest_other(probs, np.array([0, 0, 0]))
    assert other.tolist() == [1, 1, 2]
    u = pair_uncertainty(probs, np.array([0, 0, 0]), other, probabilistic=True)
    h = -(0.9 * math.log2(0.9) + 0.1 * math.log2(0.1))
    assert u == pytest.approx([1.0, h, -(0.2 * math.log2(0.2) + 0.8 * math.log2(0.8))])
    scores = np.array([[0.0, -1.0, -5.0], [0.0, -3.0, -3.0]])
    m = pair_uncertainty(scores, np.array([0, 1]), np.array([1, 2]), probabilistic=False, scale=2.0)
    assert m == pytest.approx([math.exp(-0.5), 1.0])
    allowed = np.array([[True, True, True], [True, False, True]])
    narrowed = contention_mask(scores, allowed, k=2)
    assert narrowed.tolist() == [[True, True, False], [True, False, True]]  # labeled rows stay as they are
    conf = np.array([[0.6, 0.4, 0.0], [0.5, 0.0, 0.5]])
    assert candidate_uncertainty(conf, narrowed) == pytest.approx([0.8, 1.0])
    assert candidate_uncertainty(np.array([[1.0, 0.0, 0.0]]), np.array([[True, False, False]])) == [0.0]


def test_guided_steps_follow_the_apps_queue(corpora, monkeypatch):
    calls = []
    original = guidance.queue

    def spy(scores, status):
        order = original(scores, status)
        calls.append((dict(scores), order))
        return order

    monkeypatch.setattr(guidance, "queue", spy)
    sim = Simulation(_config("uncertainty", "full"), *corpora)
    status = sim.oracle.sentence_status()
    sim.annotate_step(sim.questions(None, status), status, 150.0)
    assert calls[-1][0] == {}  # the first step has no model: the tie order only
    assert calls[-1][1] == [int(i) for i in sim.order]
    model, _ = sim.train(None, None)
    before = sim.oracle.sentence_status()
    questions = sim.questions(model, before)
    sim.annotate_step(questions, before, 200.0)
    scores, order = calls[-1]
    assert scores == questions.sentence_scores and len(scores) == (before < 2).sum()
    tie = {int(i): k for k, i in enumerate(sim.order)}
    assert order == sorted(scores, key=lambda i: (-scores[i], tie[i]))
    # the step labeled the head of the queue, whole sentences, in that order
    after = sim.oracle.sentence_status()
    shown = [i for i in order if after[i] == 2]
    assert shown and shown == order[: len(shown)]


def test_json_scale_round_trip_and_old_fraction_records():
    # One scale (percent) in every --json; older records, without "scale", hold fractions.
    from tagtool.services.simulate.config import Costs
    from tagtool.services.simulate.results import CurvePoint, SimulationResult

    point = CurvePoint(cost=10.0, tokens_labeled=10, f1=0.5, train_seconds=0.1)
    result = SimulationResult("hmm", "random", "full", 0.8, [point], Costs(), 100, [])
    record = result.to_dict()
    assert (record["full_data_f1"], record["curve"][0]["f1"]) == (80.0, 50.0)
    again = SimulationResult.from_dict(record)
    assert (again.full_data_f1, again.curve[0].f1) == (0.8, 0.5)
    old = dict(record, full_data_f1=0.8, curve=[dict(record["curve"][0], f1=0.5)])
    del old["scale"]
    assert SimulationResult.from_dict(old).full_data_f1 == 0.8


def test_cli_full_data_f1_is_in_percent(tmp_path, corpora, capsys):
    data, test = _cli_files(tmp_path, corpora)
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "hmm",
            "--strategy",
            "random",
            "--step",
            "300",
            "--budget",
            "300",
            "--full-data-f1",
            "150",
        ]
    )
    assert code == 1 and "percent" in capsys.readouterr().err


def test_a_step_target_is_reached_at_its_cost_whatever_the_float_sum():
    from tagtool.services.simulate.config import reached

    spent = sum([0.1] * 10)  # ten skipped tokens: 0.9999999999999999
    assert spent < 1.0 and reached(spent, 1.0)
    assert not reached(0.9, 1.0) and reached(1.1, 1.0)

"""The queue strategies' registry (tagtool.services.strategies): one list, its questions and scores."""

from __future__ import annotations

import ast
import math
import pathlib

import numpy as np
import pytest

import tagtool
from tagtool.services import guidance, strategies
from tagtool.services.strategies import Evidence, Showing, Tokens
from tagtool.services.uncertainty import sentence_informativeness

PACKAGE = pathlib.Path(tagtool.__file__).parent
DATA = pathlib.Path(__file__).parent / "data"


# ---------------------------------------------------------------------------
# one list


def _simulate_parser_choices():
    import argparse

    from tagtool.cli.parser import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    simulate = sub.choices["simulate"]
    return {a.dest: a for a in simulate._actions}


def test_the_cli_and_the_simulator_take_the_registry_s_names():
    from tagtool.services.simulate import config as simulate

    actions = _simulate_parser_choices()
    assert tuple(actions["strategy"].choices) == strategies.names() == simulate.STRATEGIES
    assert tuple(actions["mode"].choices) == strategies.MODES == simulate.MODES
    for name in strategies.names():  # every strategy is explained in --help
        assert f"{name}: {strategies.get(name).description}" in actions["strategy"].help


def _string_collections(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            yield [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        elif isinstance(node, ast.Dict):
            yield [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]


def test_no_other_list_of_strategy_names_in_the_source_tree():
    """Strategy names appear together (a tuple, a dict, an ``in (...)`` test) only in the registry."""
    names = set(strategies.names())
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "strategies.py":
            continue
        for strings in _string_collections(ast.parse(path.read_text(encoding="utf-8"))):
            found = names.intersection(strings)
            if len(found) >= 2:
                offenders.append(f"{path.relative_to(PACKAGE.parent)}: {sorted(found)}")
    assert not offenders, offenders


def test_the_guard_finds_a_copied_list():
    """The scan above is not vacuous: a copied tuple, an ``in`` test or a dict is caught."""
    copied = ast.parse(
        'NAMES = ("random", "combined")\nif s in ("uncertainty", "gain"): pass\n'
        'COLOURS = {"sequential": 1, "confidence": 2}\n'
    )
    found = [frozenset(strategies.names()).intersection(s) for s in _string_collections(copied)]
    assert {f for f in found if len(f) >= 2} == {
        frozenset({"random", "combined"}),
        frozenset({"uncertainty", "gain"}),
        frozenset({"sequential", "confidence"}),
    }


def test_get_and_availability():
    assert strategies.get("gain").guided and not strategies.get("random").guided
    assert strategies.get("sequential").file_order and not strategies.get("random").file_order
    with pytest.raises(KeyError, match="known: sequential"):
        strategies.get("greedy")
    disagreement, confidence = strategies.get("disagreement"), strategies.get("confidence")
    assert "two-view" in strategies.unavailable(disagreement, "crf", two_view=False)
    assert strategies.unavailable(disagreement, "mv-perceptron", two_view=True) is None
    assert "wdpsl" in strategies.unavailable(confidence, "crf", two_view=False)
    assert strategies.unavailable(confidence, "wdpsl", two_view=False) is None
    assert strategies.DEFAULT_STRATEGY in strategies.REGISTRY
    assert strategies.default_threshold(True) == 0.3 and strategies.default_threshold(False) == 0.3


# ---------------------------------------------------------------------------
# questions


def test_questions_read_the_evidence_each_strategy_uses():
    u = np.array([0.2, 0.9, 0.4])
    disagree = np.array([True, False, False])
    contention = np.array([0.1, 0.3, 0.8])
    views, wdpsl, plain = Evidence(u, disagree=disagree), Evidence(u, contention=contention), Evidence(u)
    assert strategies.get("uncertainty").question(views).tolist() == u.tolist()
    assert strategies.get("disagreement").question(views).tolist() == [1.0, 0.0, 0.0]
    assert strategies.get("confidence").question(wdpsl).tolist() == contention.tolist()
    for name in ("combined", "gain"):
        question = strategies.get(name).question
        assert question(views).tolist() == [1.0, 0.9, 0.4]  # 1 where the views disagree
        assert question(wdpsl).tolist() == [0.2, 0.9, 0.8]  # the larger of the two
        assert question(plain).tolist() == u.tolist()
    assert Evidence(u, disagree, contention).rows(slice(1, 3)).disagree.tolist() == [False, False]


# ---------------------------------------------------------------------------
# scores


def _tokens(allowed, offsets):
    return Tokens.from_allowed(np.asarray(allowed, dtype=bool), np.asarray(offsets))


def test_mean_question_is_the_informativeness_of_design_6():
    rng = np.random.default_rng(3)
    offsets = np.array([0, 3, 4, 9])
    q = rng.random(9)
    allowed = rng.random((9, 4)) < 0.6
    allowed[np.arange(9), rng.integers(0, 4, 9)] = True
    allowed[5] = True
    got = strategies.mean_question(q, _tokens(allowed, offsets), Showing())
    assert got.tolist() == sentence_informativeness(q, allowed, offsets).tolist()


def test_questions_per_cost_by_hand():
    # sentence 0: three unlabeled tokens, q .9 .2 .8; sentence 1: one labeled, one unlabeled at .5
    q = np.array([0.9, 0.2, 0.8, 0.0, 0.5])
    allowed = np.ones((5, 3), dtype=bool)
    allowed[3] = [True, False, False]
    tokens = _tokens(allowed, [0, 3, 5])
    full = strategies.questions_per_cost(q, tokens, Showing("full"))
    assert full == pytest.approx([1.9 / 3, 0.5 / 1])
    tokens_mode = strategies.questions_per_cost(q, tokens, Showing("tokens", threshold=0.7, skip=0.1))
    assert tokens_mode == pytest.approx([1.7 / 2.1, 0.0])  # .9 and .8 asked at 1, .2 read at .1


def test_gain_per_cost_by_hand():
    q = np.array([0.9, 0.2, 0.8, 0.0, 0.5])
    allowed = np.ones((5, 3), dtype=bool)
    allowed[3] = [True, False, False]
    tokens = _tokens(allowed, [0, 3, 5])
    s = 1.4
    got = strategies.gain_per_cost(q, tokens, Showing("tokens", threshold=0.7, sentence=s))
    assert got == pytest.approx([1.7 / (2.1 + s), 0.0])
    review = strategies.gain_per_cost(q, tokens, Showing("review", threshold=0.7, sentence=s))
    assert review.tolist() == got.tolist()  # the asked tokens are corrected, the rest read and accepted
    assert strategies.gain_per_cost(q, tokens, Showing("full", sentence=s)) == pytest.approx(
        [1.9 / (3 + s), 0.5 / (1 + s)]
    )
    # without a sentence cost and in full mode it is combined's score
    q2 = np.array([0.3, 0.6, 0.1])
    t2 = _tokens(np.ones((3, 2), dtype=bool), [0, 2, 3])
    assert strategies.gain_per_cost(q2, t2, Showing("full", sentence=0.0)) == pytest.approx(
        strategies.questions_per_cost(q2, t2, Showing("full"))
    )


def _headline_and_long_sentence():
    """Sentence 0: "Energy", one uncertain token; sentence 1: 20 tokens, 5 of them uncertain."""
    q = np.concatenate([[0.9], np.where(np.arange(20) % 4 == 0, 0.9, 0.1)])
    allowed = np.ones((21, 9), dtype=bool)
    return q, _tokens(allowed, [0, 1, 21])


@pytest.mark.parametrize("mode", ["tokens", "review"])
def test_the_default_strategy_does_not_put_one_token_sentences_first(mode):
    """J once went to "Energy" and "Commodities :" first: a mean over tokens (or a
    per-token cost alone) rates one uncertain token as high as a sentence can score."""
    q, tokens = _headline_and_long_sentence()
    showing = Showing(mode, threshold=0.7)
    default = strategies.get(strategies.DEFAULT_STRATEGY)
    evidence = Evidence(q)
    ranked = default.score(default.question(evidence), tokens, showing)
    assert ranked[1] > ranked[0], "the 20-token sentence with 5 questions comes first"
    queue = guidance.queue(dict(enumerate(ranked.tolist())), {0: "none", 1: "none"})
    assert queue == [1, 0]
    # the scores J once used put the headline first
    mean = strategies.mean_question(q, tokens, showing)
    per_cost = strategies.questions_per_cost(q, tokens, showing)
    assert mean[0] > mean[1] and per_cost[0] > per_cost[1]


def test_a_long_sentence_of_confident_tokens_does_not_win_by_length():
    """The sentence cost shares out over questions, not tokens: 40 confident tokens score low."""
    q = np.concatenate([[0.9], np.full(40, 0.05)])
    tokens = _tokens(np.ones((41, 5), dtype=bool), [0, 1, 41])
    for mode in ("tokens", "review", "full"):
        ranked = strategies.gain_per_cost(q, tokens, Showing(mode, threshold=0.7))
        assert ranked[0] > ranked[1], mode


def test_empty_input_scores_nothing():
    empty = Tokens(np.array([0]), np.zeros(0), np.zeros(0, dtype=bool))
    for entry in strategies.REGISTRY.values():
        if entry.guided:
            assert len(entry.score(np.zeros(0), empty, Showing())) == 0


# ---------------------------------------------------------------------------
# analyse_all: the app's flat arrays


def test_analyse_all_arrays_match_the_per_sentence_guidance():
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(DATA / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    train = Corpus.from_sentences(gold.sentences[:20], labels=gold.labels)
    tagger = train_tagger(train, make_learner("mv-perceptron", max_iter=3), unlabeled=gold.sentences[20:40])
    test = [s.unlabeled() for s in gold.sentences[40:50]]
    test[1] = gold.sentences[41]  # fully labeled: no token missing information
    out, analysis = guidance.analyse_all(tagger, test)
    assert out == guidance.analyse(tagger, test)
    offsets = analysis.tokens.offsets
    assert offsets.tolist() == np.concatenate([[0], np.cumsum([len(s) for s in test])]).tolist()
    u = np.concatenate([g.uncertainty for g in out])
    assert analysis.evidence.uncertainty.tolist() == pytest.approx(u.tolist())
    disagree = np.concatenate([[a != b for a, b in zip(*g.views)] for g in out])
    assert analysis.evidence.disagree.tolist() == disagree.tolist() and analysis.evidence.contention is None
    rows = slice(offsets[1], offsets[2])
    assert not analysis.tokens.unlabeled[rows].any() and (analysis.tokens.missing[rows] == 0).all()
    assert analysis.tokens.unlabeled[: offsets[1]].all()
    # the informativeness of each sentence is the mean-question score with the app's question
    q = strategies.combined_question(analysis.evidence)
    assert strategies.mean_question(q, analysis.tokens, Showing()).tolist() == pytest.approx([g.score for g in out])
    # torn: the pair uncertainty between the best label and the strongest other one
    assert (analysis.best != analysis.runner_up).all()
    assert ((0 <= analysis.torn) & (analysis.torn <= 1)).all()
    labels = tagger.labels
    snapshot_scores = tagger.model.score_tokens(_snapshot(tagger, test))
    assert analysis.best.tolist() == np.argmax(snapshot_scores, axis=1).tolist()
    margins = np.sort(snapshot_scores, axis=1)
    # margin-based: exp(-(s1 - s2) / median margin) is the token uncertainty itself
    assert analysis.torn == pytest.approx(analysis.evidence.uncertainty)
    assert all(math.isfinite(x) for x in margins[:, -1]) and analysis.labels == tuple(labels.names)


def _snapshot(tagger, sentences):
    from tagtool.core.snapshot import build_snapshot

    return build_snapshot(sentences, tagger.labels, tagger.extractor, tagger.model.feature_view)


def test_the_tie_order_is_fixed_by_the_seed_and_shared_by_the_guided_strategies():
    assert strategies.tie_order(strategies.get("sequential"), 5, seed=3).tolist() == [0, 1, 2, 3, 4]
    order = strategies.tie_order(strategies.get("random"), 50, seed=0)
    assert sorted(order.tolist()) == list(range(50)) and order.tolist() != list(range(50))
    assert np.array_equal(order, strategies.tie_order(strategies.get("random"), 50, seed=0))
    assert np.array_equal(order, strategies.tie_order(strategies.get("gain"), 50, seed=0)), "ties go by it"
    assert not np.array_equal(order, strategies.tie_order(strategies.get("random"), 50, seed=1))
    # the simulation's first random stream: what tagtool simulate --seed drew before the registry had it
    child = np.random.SeedSequence(7).spawn(2)[0]
    assert np.array_equal(
        strategies.tie_order(strategies.get("random"), 30, 7), np.random.default_rng(child).permutation(30)
    )

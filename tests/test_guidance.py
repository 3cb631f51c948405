"""Guidance without Qt: uncertainty, informativeness, the queue, and analyse()."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tagtool.services import guidance
from tagtool.services.uncertainty import (
    entropy_uncertainty,
    informativeness,
    margin_scale,
    margin_uncertainty,
    margins,
    token_uncertainty,
)

DATA = Path(__file__).parent / "data"


def test_entropy_uncertainty_is_normalised_entropy():
    p = np.array([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.0, 0.0]])
    u = entropy_uncertainty(p)
    assert u == pytest.approx([0.0, 1.0, math.log(2) / math.log(4)])


def test_margin_uncertainty_one_for_ties_and_falls_with_the_margin():
    scores = np.array([[0.0, 0.0, -5.0], [0.0, -1.0, -3.0], [0.0, -4.0, -9.0]])
    assert margins(scores) == pytest.approx([0.0, 1.0, 4.0])
    u = margin_uncertainty(scores)
    assert u[0] == 1.0 and 1.0 > u[1] > u[2] > 0.0
    # the scale is the median positive margin: invariant to the weights' scale
    assert margin_uncertainty(10 * scores) == pytest.approx(u)
    assert margin_uncertainty(scores, scale=1.0)[1] == pytest.approx(math.exp(-1))


def test_token_uncertainty_dispatches_on_the_model_kind():
    p = np.array([[0.5, 0.5]])
    assert token_uncertainty(p, probabilistic=True) == pytest.approx([1.0])
    assert token_uncertainty(np.array([[0.0, -2.0]]), probabilistic=False, scale=2.0) == pytest.approx([math.exp(-1)])


def test_informativeness_weighs_missing_information_and_disagreement():
    allowed = np.array([[True, True, True, True], [True, False, False, False], [True, True, False, False]])
    u = np.array([0.8, 0.9, 0.4])
    partial_missing = math.log(2) / math.log(4)
    expected = (0.8 + 0.0 + partial_missing * 0.4) / 3
    assert informativeness(u, allowed) == pytest.approx(expected)
    disagree = np.array([False, True, True])
    assert informativeness(u, allowed, disagree) == pytest.approx((0.8 + partial_missing) / 3)
    full = np.eye(4, dtype=bool)[:2]
    assert informativeness(np.ones(2), full) == 0.0


def test_queue_orders_unfinished_by_score_then_document_order():
    status = {10: "full", 11: "none", 12: "partial", 13: "none", 14: "none"}
    scores = {10: 0.9, 11: 0.2, 12: 0.5, 13: 0.5}
    assert guidance.queue(scores, status) == [12, 13, 11, 14]
    assert guidance.queue({}, status) == [11, 12, 13, 14]
    assert guidance.queue(scores, {10: "full"}) == []


def test_analyse_matches_the_tagger():
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(DATA / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    train = Corpus.from_sentences(gold.sentences[:20], labels=gold.labels)
    tagger = train_tagger(train, make_learner("mv-perceptron", max_iter=3), unlabeled=gold.sentences[20:40])
    test = [s.unlabeled() for s in gold.sentences[40:50]]
    # a partial annotation constrains the suggestion to the candidates
    first = test[0]
    candidates = frozenset({"B-VP", "I-VP"})
    test[0] = first.with_annotations([candidates] + [()] * (len(first) - 1))
    out = guidance.analyse(tagger, test)
    assert len(out) == len(test)
    plain = tagger.tag(test)
    views = tagger.disagreement(test)
    for g, s, _, (v0, v1) in zip(out, test, plain, views):
        assert len(g.suggestions) == len(s) == len(g.uncertainty)
        assert all(0.0 <= u <= 1.0 for u in g.uncertainty)
        assert g.views == (tuple(v0), tuple(v1))
        assert 0.0 <= g.score <= 1.0
    assert out[0].suggestions[0] in candidates
    assert list(out[1].suggestions) == plain[1]  # unconstrained where nothing is annotated
    assert out[1].confidences is None


def test_the_margin_scale_is_the_open_sentences_own():
    """Fully labeled sentences (training data, fitted with large margins) leave an open token's uncertainty."""
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(DATA / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    labeled = gold.sentences[:20]
    tagger = train_tagger(Corpus.from_sentences(labeled, labels=gold.labels), make_learner("perceptron", max_iter=5))
    open_ = [s.unlabeled() for s in gold.sentences[40:50]]
    _, alone = guidance.analyse_all(tagger, open_)
    _, mixed = guidance.analyse_all(tagger, open_ + list(labeled))
    n = len(alone.evidence.uncertainty)
    assert np.allclose(mixed.evidence.uncertainty[:n], alone.evidence.uncertainty)
    # which is the margin uncertainty with the median margin of the open tokens
    scores = np.concatenate(tagger.score_tokens(open_))
    assert np.allclose(alone.evidence.uncertainty, margin_uncertainty(scores))
    # the labeled sentences' own margins are larger: with them in the median every open token would look surer
    every = np.concatenate(tagger.score_tokens(open_ + list(labeled)))
    assert margin_scale(margins(every)) > margin_scale(margins(scores))
    # only fully labeled sentences: their own median
    _, done = guidance.analyse_all(tagger, list(labeled))
    assert np.allclose(done.evidence.uncertainty, margin_uncertainty(every[n:]))

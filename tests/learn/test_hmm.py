"""The generative HMM: every fitted parameter against hand-computed counts."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.learn import NothingToLearnError, get_learner
from tagtool.learn.hmm import HMM
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"
LABELS = ("A", "B", "C")


def tiny_snapshot(with_partial=True):
    """Three labeled sentences (A B B | C A | A) over 4 feature columns, plus a partial one.

    Token features: s1 = {0,1} {1} {2}; s2 = {2} {0}; s3 = {1,2}; column 3 is
    never seen.  Starts: A A C → A:2 C:1; ends: B A A → A:2 B:1 (different
    from the starts on purpose).
    """
    gold = [0, 1, 1, 2, 0, 0]
    feats = [[0, 1], [1], [2], [2], [0], [1, 2]]
    offsets = [0, 3, 5, 6]
    allowed = np.eye(3, dtype=bool)[gold]
    if with_partial:  # a partially labeled sentence the HMM must leave out
        feats += [[3], [3]]
        offsets.append(8)
        allowed = np.vstack([allowed, [[True, True, False], [True, True, True]]])
    return Snapshot(
        labels=LABELS,
        offsets=np.array(offsets),
        feat_indptr=np.concatenate(([0], np.cumsum([len(f) for f in feats]))),
        feat_indices=np.concatenate(feats),
        allowed=allowed,
        feature_view=np.zeros(4, dtype=np.int8),
        sentence_ids=np.arange(len(offsets) - 1),
    )


def test_registry_offers_hmm():
    assert get_learner("hmm") is HMM
    assert HMM().get_params() == {"smoothing": 1.0, "transition_smoothing": 1.0}


def test_start_transition_and_stop_probabilities_match_hand_counts():
    lam = 0.5
    model = HMM(smoothing=1.0, transition_smoothing=lam).fit(tiny_snapshot())
    # starts: A 2, B 0, C 1 over 3 sentences
    np.testing.assert_allclose(np.exp(model.start[0]), np.array([2 + lam, lam, 1 + lam]) / (3 + 3 * lam))
    # from A: A->B once, STOP twice (s2 and s3 end in A); from B: B->B, STOP; from C: C->A
    outgoing = {  # counts of next label A, B, C, STOP
        0: [0, 1, 0, 2],
        1: [0, 1, 0, 1],
        2: [1, 0, 0, 0],
    }
    for a, counts in outgoing.items():
        probs = (np.array(counts) + lam) / (sum(counts) + 4 * lam)
        np.testing.assert_allclose(np.exp(model.trans[0, a]), probs[:3])
        np.testing.assert_allclose(np.exp(model.end[0, a]), probs[3])


def test_stop_probabilities_come_from_sentence_ends_not_starts():
    model = HMM(transition_smoothing=1e-9).fit(tiny_snapshot())
    # C starts a sentence but ends none; B ends one but starts none.
    assert np.exp(model.end[0, 2]) < 1e-8
    np.testing.assert_allclose(np.exp(model.end[0, 1]), 0.5, rtol=1e-6)
    np.testing.assert_allclose(np.exp(model.end[0, 0]), 2 / 3, rtol=1e-6)


def test_emission_probabilities_match_hand_counts():
    lam = 0.25
    model = HMM(smoothing=lam).fit(tiny_snapshot())
    counts = np.array(  # rows: features 0..3, columns: A, B, C
        [[2, 0, 0], [2, 1, 0], [1, 1, 1], [0, 0, 0]]
    )
    expected = (counts + lam) / (counts.sum(axis=0) + 4 * lam)
    np.testing.assert_allclose(np.exp(model.weights), expected)


def test_parameters_are_distributions():
    model = HMM(smoothing=0.3, transition_smoothing=2.0).fit(tiny_snapshot())
    np.testing.assert_allclose(np.exp(model.start[0]).sum(), 1.0)
    np.testing.assert_allclose(np.exp(model.trans[0]).sum(axis=1) + np.exp(model.end[0]), 1.0)
    np.testing.assert_allclose(np.exp(model.weights).sum(axis=0), 1.0)


def test_chain_score_is_the_joint_log_probability():
    snap = tiny_snapshot(with_partial=False)
    model = HMM().fit(snap)
    emit, trans, start, end = model.chain_scores(snap)
    rows = snap.sentence_slice(0)
    x = [snap.token_features(t) for t in range(rows.start, rows.stop)]
    total = 0.0
    for y in itertools.product(range(3), repeat=len(x)):
        log_p = start[y[0]] + end[y[-1]] + sum(trans[a, b] for a, b in zip(y, y[1:]))
        log_p += sum(model.weights[f, label].sum() for f, label in zip(x, y))
        total += np.exp(log_p)
        path_score = start[y[0]] + end[y[-1]] + sum(trans[a, b] for a, b in zip(y, y[1:]))
        path_score += sum(emit[rows][t, label] for t, label in enumerate(y))
        assert path_score == pytest.approx(log_p)
    assert 0 < total < 1  # a probability of x (other bags of features share the rest)


def test_partial_sentences_are_left_out_with_a_note():
    model = HMM().fit(tiny_snapshot())
    assert any("partially labeled" in note for note in model.info["notes"])
    assert model.info["sentences"] == {"full": 3, "partial": 1, "none": 0}
    only_partial = tiny_snapshot().subset([3])
    with pytest.raises(NothingToLearnError):
        HMM().fit(only_partial)


@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan")])
def test_bad_smoothing_is_refused(bad):
    with pytest.raises(ValueError, match="smoothing"):
        HMM(smoothing=bad).fit(tiny_snapshot())
    with pytest.raises(ValueError, match="transition_smoothing"):
        HMM(transition_smoothing=bad).fit(tiny_snapshot())


def test_marginals_are_posteriors_and_tagging_beats_the_majority_label():
    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    sentences = list(corpus)
    fx = FeatureExtractor(min_count=1).fit(sentences[:70])
    snap = build_snapshot(sentences, corpus.labels, fx, ViewSplit("odd-even"))
    train, test = snap.subset(np.arange(70)), snap.subset(np.arange(70, len(sentences)))
    model = HMM().fit(train)
    gold = np.argmax(test.allowed, axis=1)
    accuracy = np.mean(model.predict(test) == gold)
    majority = np.mean(gold == np.bincount(gold).argmax())
    assert accuracy > majority + 0.3
    marginals = model.score_tokens(test)
    np.testing.assert_allclose(marginals.sum(axis=1), 1.0)

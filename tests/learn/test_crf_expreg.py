"""Expectation regularisation of label proportions (tagtool.learn.crf_expreg) in the CRF objective.

Oracles: the term's value against path enumeration, its gradient against
central finite differences with and without the entropy term, the objective
unchanged at weight 0, and a tiny case where entropy alone collapses to the
majority label while the regularised objective keeps the proportions.
"""

import itertools

import numpy as np
import pytest
from test_crf_objective import assert_gradient, brute_force_objective, make_snapshot

from tagtool.core.snapshot import Snapshot
from tagtool.learn.chain import emission_scores
from tagtool.learn.crf import ER_PER_SENTENCE, EntropyCRF
from tagtool.learn.crf_expreg import labeled_proportions, parse_target, reward_gradient
from tagtool.learn.crf_objective import CRFObjective, parameter_count, unpack
from tagtool.learn.lbfgs import lbfgs
from tagtool.learn.progress import TrainingMonitor


def brute_force_proportions(snapshot, theta):
    """``p̂_θ`` over the unlabeled tokens by enumerating every path."""
    n_labels = snapshot.n_labels
    p = unpack(theta, snapshot.n_features, n_labels)
    emit_all = emission_scores(snapshot, p.weights)
    totals, n_tokens = np.zeros(n_labels), 0
    for i in np.flatnonzero(snapshot.sentence_status() == 0):
        emit = emit_all[snapshot.sentence_slice(i)]
        paths = np.array(list(itertools.product(range(n_labels), repeat=len(emit))))
        scores = emit[np.arange(len(emit)), paths].sum(axis=1) + p.start[paths[:, 0]] + p.end[paths[:, -1]]
        scores += p.trans[paths[:, :-1], paths[:, 1:]].sum(axis=1)
        probs = np.exp(scores - np.logaddexp.reduce(scores))
        for t in range(len(emit)):
            totals += np.bincount(paths[:, t], weights=probs, minlength=n_labels)
        n_tokens += len(emit)
    return totals / n_tokens


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("gamma", [0.0, 0.6])
def test_value_equals_brute_force(seed, gamma):
    rng = np.random.default_rng(seed)
    snapshot = make_snapshot(rng, ["full", "none", "partial", "none", "none"], n_labels=3)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    objective = CRFObjective(snapshot, c2=0.3, gamma=gamma, er_weight=1.7)
    value = objective.value(theta)
    target = objective.er_target
    proportions = brute_force_proportions(snapshot, theta)
    np.testing.assert_allclose(objective.proportions, proportions, rtol=1e-10)
    kl = float(np.sum(target * np.log(target / proportions)))
    assert value == pytest.approx(brute_force_objective(snapshot, theta, 0.3, gamma) + 1.7 * kl, rel=1e-9)


@pytest.mark.parametrize("gamma", [0.0, 0.9])
@pytest.mark.parametrize("er_weight", [0.0, 2.5])
@pytest.mark.parametrize("seed", [0])
def test_gradient_matches_finite_differences(gamma, er_weight, seed):
    rng = np.random.default_rng(100 + seed)
    snapshot = make_snapshot(rng, ["full", "none", "partial", "none", "none", "full"], n_labels=3, n_features=5)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    for max_range in (500.0, 0.0):
        objective = CRFObjective(snapshot, c2=0.2, gamma=gamma, er_weight=er_weight, max_range=max_range)
        assert_gradient(objective, theta, np.arange(len(theta)))


def test_given_target_gradient_and_only_unlabeled_sentences():
    rng = np.random.default_rng(5)
    snapshot = make_snapshot(rng, ["none"] * 4, n_labels=3, n_features=5)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    target = parse_target(["L0=0.5", "L1=0.3", "L2=0.2"], snapshot.labels)
    objective = CRFObjective(snapshot, c2=0.1, gamma=0.4, er_weight=3.0, er_target=target)
    assert_gradient(objective, theta, np.arange(len(theta)))


def test_reward_gradient_of_one_sentence_by_enumeration():
    rng = np.random.default_rng(3)
    n_tokens, n_labels = 4, 3
    emit, trans = rng.normal(size=(n_tokens, n_labels)), rng.normal(size=(n_labels, n_labels))
    reward = rng.normal(size=n_labels)
    paths = np.array(list(itertools.product(range(n_labels), repeat=n_tokens)))

    def expected_reward(emit, trans):
        scores = emit[np.arange(n_tokens), paths].sum(axis=1) + trans[paths[:, :-1], paths[:, 1:]].sum(axis=1)
        probs = np.exp(scores - np.logaddexp.reduce(scores))
        return float(probs @ reward[paths].sum(axis=1)), probs

    value, probs = expected_reward(emit, trans)
    marginals = np.stack([np.bincount(paths[:, t], probs, n_labels) for t in range(n_tokens)])
    pairs = np.zeros((n_tokens - 1, n_labels, n_labels))
    for t in range(1, n_tokens):
        np.add.at(pairs[t - 1], (paths[:, t - 1], paths[:, t]), probs)
    got, d_emit, d_trans = reward_gradient(marginals, pairs, reward)
    assert got == pytest.approx(value, rel=1e-12)
    eps = 1e-6
    for (t, b), _ in np.ndenumerate(emit):
        step = np.zeros_like(emit)
        step[t, b] = eps
        numeric = (expected_reward(emit + step, trans)[0] - expected_reward(emit - step, trans)[0]) / (2 * eps)
        assert d_emit[t, b] == pytest.approx(numeric, abs=1e-8)
    for (a, b), _ in np.ndenumerate(trans):
        step = np.zeros_like(trans)
        step[a, b] = eps
        numeric = (expected_reward(emit, trans + step)[0] - expected_reward(emit, trans - step)[0]) / (2 * eps)
        assert d_trans[a, b] == pytest.approx(numeric, abs=1e-8)


@pytest.mark.parametrize("gamma", [0.0, 0.8])
def test_weight_zero_leaves_the_objective_unchanged(gamma):
    rng = np.random.default_rng(11)
    snapshot = make_snapshot(rng, ["full", "partial", "none"] * 3, n_labels=3)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    old_value, old_grad = CRFObjective(snapshot, c2=0.3, gamma=gamma)(theta)
    value, grad = CRFObjective(snapshot, c2=0.3, gamma=gamma, er_weight=0.0)(theta)
    assert value == old_value
    np.testing.assert_array_equal(grad, old_grad)


def test_labeled_proportions_are_add_one_smoothed():
    snapshot = _synthetic(n_unlabeled=1)
    kinds = snapshot.sentence_status()
    # labeled tokens: 6 of label 0 and 2 of label 1, plus one each
    np.testing.assert_allclose(labeled_proportions(snapshot, kinds), [7 / 10, 3 / 10])


def test_parse_target_refuses_unknown_or_missing_labels():
    with pytest.raises(ValueError):
        parse_target(["A=0.5"], ("A", "B"))
    with pytest.raises(ValueError):
        parse_target(["A=0.5", "C=0.5"], ("A", "B"))


def _synthetic(n_unlabeled):
    """A feature shared by every token, a cue of label 1, and two features unseen in labels.

    Labeled: 8 tokens, 2 of label 1 carrying the cue feature 1.  Unlabeled
    tokens carry feature 0 and one of the unseen features 2 (7 in 10 tokens)
    or 3, so a labeling with the target's proportions exists; starting from
    the supervised model, which calls them all 0, the entropy term makes that
    sure, while the label proportions pull the feature-3 tokens to label 1.
    """
    labeled_feats = [[0], [0, 1], [0], [0], [0, 1], [0], [0], [0]]
    labeled_gold = [0, 1, 0, 0, 1, 0, 0, 0]
    unseen = [[0, 3] if k % 10 in (2, 5, 8) else [0, 2] for k in range(2 * n_unlabeled)]
    feats = labeled_feats + unseen
    lengths = [4, 4] + [2] * n_unlabeled
    allowed = np.ones((len(feats), 2), dtype=bool)
    allowed[:8] = np.eye(2, dtype=bool)[labeled_gold]
    per_token = [len(f) for f in feats]
    return Snapshot(
        labels=("O", "X"),
        offsets=np.concatenate(([0], np.cumsum(lengths))),
        feat_indptr=np.concatenate(([0], np.cumsum(per_token))),
        feat_indices=np.concatenate([np.array(f) for f in feats]),
        allowed=allowed,
        feature_view=np.zeros(4, dtype=np.int8),
        sentence_ids=np.arange(len(lengths)),
    )


def _train(snapshot, er_weight):
    supervised = CRFObjective(snapshot, c2=0.05, gamma=0.0)
    theta, _ = lbfgs(supervised, np.zeros(supervised.size), 100, 1e-9, TrainingMonitor(), (0.0, 0.5), "s")
    objective = CRFObjective(snapshot, c2=0.05, gamma=5.0, er_weight=er_weight)
    theta, _ = lbfgs(objective, theta, 200, 1e-10, TrainingMonitor(), (0.5, 1.0), "e")
    return brute_force_proportions(snapshot, theta)


def test_expectation_regularisation_keeps_proportions_where_entropy_collapses():
    snapshot = _synthetic(n_unlabeled=5)
    target = labeled_proportions(snapshot, snapshot.sentence_status())
    entropy_only = _train(snapshot, 0.0)
    regularised = _train(snapshot, 20.0)
    assert entropy_only[1] < 0.05  # collapsed to the majority label
    assert abs(regularised[1] - target[1]) < abs(entropy_only[1] - target[1]) / 2


def test_entropy_crf_learner_records_the_term():
    snapshot = _synthetic(n_unlabeled=5)
    model = EntropyCRF(gamma=5.0, c2=0.05, balance=None, guard=False, er_weight=20.0, n_jobs=1).fit(snapshot)
    er = model.info["optimiser"]["entropy"]["er"]
    np.testing.assert_allclose(er["target"], [0.7, 0.3])
    assert er["proportions"][1] > 0.1
    given = EntropyCRF(guard=False, er_weight=1.0, er_target=["O=0.6", "X=0.4"], n_jobs=1).fit(snapshot)
    np.testing.assert_allclose(given.info["optimiser"]["entropy"]["er"]["target"], [0.6, 0.4])
    off = EntropyCRF(guard=False, er_weight=0.0, n_jobs=1).fit(snapshot)
    assert "er" not in off.info["optimiser"]["entropy"]
    default = EntropyCRF(guard=False, n_jobs=1)
    labeled = int((snapshot.sentence_status() > 0).sum())
    assert labeled > 0 and default.effective_er_weight(snapshot) == ER_PER_SENTENCE * labeled
    assert default.fit(snapshot).info["optimiser"]["entropy"]["er"]["weight"] == ER_PER_SENTENCE * labeled

"""The CRF objective of docs/design.md#entropy-regularised-crf and its gradient (tagtool.learn.crf).

Oracle: enumerate every label sequence of tiny sentences and compute
log-likelihoods, marginal likelihoods and entropies from the path scores
directly (no dynamic programming), then check the numba objective against
it to 1e-9 and its gradient against central finite differences.
"""

import itertools

import numpy as np
import pytest

from tagtool.core.snapshot import Snapshot
from tagtool.decode import entropy_and_gradient, forward_backward
from tagtool.learn.chain import emission_scores
from tagtool.learn.crf_objective import CRFObjective, parameter_count, unpack

KINDS = ("full", "partial", "none")


def make_snapshot(rng, kinds, n_labels=3, n_features=6, max_len=4, feats_per_token=3):
    """Random sentences of the given kinds (random features, random allowed sets)."""
    lengths = rng.integers(1, max_len + 1, len(kinds))
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    n_tokens = offsets[-1]
    per_token = rng.integers(1, feats_per_token + 1, n_tokens)
    indices = np.concatenate([rng.choice(n_features, k, replace=False) for k in per_token])
    gold = rng.integers(0, n_labels, n_tokens)
    allowed = np.ones((n_tokens, n_labels), dtype=bool)
    for i, kind in enumerate(kinds):
        tokens = np.arange(offsets[i], offsets[i + 1])
        if kind == "full":
            allowed[tokens] = np.eye(n_labels, dtype=bool)[gold[tokens]]
        elif kind == "partial":
            allowed[tokens] = rng.random((len(tokens), n_labels)) < 0.5
            allowed[tokens, gold[tokens]] = True
            allowed[tokens[0]] = np.arange(n_labels) != (gold[tokens[0]] + 1) % n_labels  # a real candidate set
    return Snapshot(
        labels=tuple(f"L{j}" for j in range(n_labels)),
        offsets=offsets,
        feat_indptr=np.concatenate(([0], np.cumsum(per_token))),
        feat_indices=indices,
        allowed=allowed,
        feature_view=np.zeros(n_features, dtype=np.int8),
        sentence_ids=np.arange(len(kinds)),
    )


def brute_force_objective(snapshot, theta, c2, gamma):
    """``-J(θ)`` by enumerating all ``L^T`` paths of every sentence."""
    n_labels = snapshot.n_labels
    p = unpack(theta, snapshot.n_features, n_labels)
    emit_all = emission_scores(snapshot, p.weights)
    status = snapshot.sentence_status()
    total = c2 * float(theta @ theta)
    for i in range(snapshot.n_sentences):
        rows = snapshot.sentence_slice(i)
        emit = emit_all[rows]
        n_tokens = len(emit)
        paths = np.array(list(itertools.product(range(n_labels), repeat=n_tokens)))
        scores = emit[np.arange(n_tokens), paths].sum(axis=1) + p.start[paths[:, 0]] + p.end[paths[:, -1]]
        scores += p.trans[paths[:, :-1], paths[:, 1:]].sum(axis=1)
        log_z = np.logaddexp.reduce(scores)
        inside = snapshot.allowed[rows][np.arange(n_tokens), paths].all(axis=1)
        if status[i] == 2:
            total -= scores[inside][0] - log_z
        elif status[i] == 1:
            total -= np.logaddexp.reduce(scores[inside]) - log_z
        elif gamma:
            probs = np.exp(scores - log_z)
            total += gamma * -(probs * (scores - log_z)).sum()
    return total


def central_differences(objective, theta, coords, eps=1e-5):
    out = np.empty(len(coords))
    for n, j in enumerate(coords):
        step = np.zeros_like(theta)
        step[j] = eps
        out[n] = (objective.value(theta + step) - objective.value(theta - step)) / (2 * eps)
    return out


def assert_gradient(objective, theta, coords, rtol=1e-6):
    _, grad = objective(theta)
    numeric = central_differences(objective, theta, coords)
    np.testing.assert_allclose(grad[coords], numeric, rtol=rtol, atol=rtol * max(1.0, np.abs(numeric).max()))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("gamma", [0.0, 0.7])
@pytest.mark.parametrize("max_range", [500.0, 0.0])  # the scaled kernels, and the log-space path
def test_objective_equals_brute_force(seed, gamma, max_range):
    rng = np.random.default_rng(seed)
    kinds = list(rng.choice(KINDS, 7)) + list(KINDS)
    snapshot = make_snapshot(rng, kinds, n_labels=int(rng.integers(2, 5)))
    theta = rng.normal(scale=1.5, size=parameter_count(snapshot.n_features, snapshot.n_labels))
    objective = CRFObjective(snapshot, c2=0.3, gamma=gamma, max_range=max_range)
    value = objective.value(theta)
    expected = brute_force_objective(snapshot, theta, 0.3, gamma)
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_large_scores_take_the_log_space_path_and_stay_exact():
    rng = np.random.default_rng(7)
    snapshot = make_snapshot(rng, ["full", "partial", "none"] * 2, n_labels=3)
    theta = rng.normal(scale=150.0, size=parameter_count(snapshot.n_features, snapshot.n_labels))
    for gamma in (0.0, 0.5):
        objective = CRFObjective(snapshot, c2=0.0, gamma=gamma)
        value = objective.value(theta)
        assert objective.n_log_space > 0
        assert value == pytest.approx(brute_force_objective(snapshot, theta, 0.0, gamma), rel=1e-9, abs=1e-7)


@pytest.mark.parametrize(
    "kinds, gamma",
    [
        (["full"] * 4, 0.0),  # crf, labeled likelihood
        (["partial"] * 4, 0.0),  # the partial marginal likelihood alone
        (["none"] * 4, 1.3),  # the entropy term alone
        (["full", "partial", "none", "full", "partial", "none"], 0.0),  # crf (unlabeled ignored)
        (["full", "partial", "none", "full", "partial", "none"], 0.8),  # entropy-crf
    ],
)
def test_gradient_every_coordinate_on_a_tiny_problem(kinds, gamma):
    rng = np.random.default_rng(len(kinds) + int(10 * gamma))
    snapshot = make_snapshot(rng, kinds, n_labels=3, n_features=5)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    for max_range in (500.0, 0.0):
        objective = CRFObjective(snapshot, c2=0.2, gamma=gamma, max_range=max_range)
        assert_gradient(objective, theta, np.arange(len(theta)))


@pytest.mark.parametrize("gamma", [0.0, 2.0])
def test_gradient_sampled_coordinates_on_longer_sentences(gamma):
    rng = np.random.default_rng(11)
    kinds = list(rng.choice(KINDS, 30))
    snapshot = make_snapshot(rng, kinds, n_labels=5, n_features=40, max_len=15, feats_per_token=6)
    theta = rng.normal(scale=0.7, size=parameter_count(snapshot.n_features, snapshot.n_labels))
    objective = CRFObjective(snapshot, c2=0.5, gamma=gamma)
    n_w = snapshot.n_features * snapshot.n_labels
    coords = np.concatenate([rng.choice(n_w, 30, replace=False), np.arange(n_w, len(theta))])
    assert_gradient(objective, theta, coords)


def test_scaled_kernels_agree_with_the_log_space_decoders_on_long_sentences():
    rng = np.random.default_rng(3)
    kinds = ["full", "partial", "none"] * 5
    snapshot = make_snapshot(rng, kinds, n_labels=6, n_features=30, max_len=60, feats_per_token=8)
    theta = rng.normal(scale=3.0, size=parameter_count(snapshot.n_features, snapshot.n_labels))
    fast = CRFObjective(snapshot, c2=0.1, gamma=0.9)
    slow = CRFObjective(snapshot, c2=0.1, gamma=0.9, max_range=0.0)
    value_fast, grad_fast = fast(theta)
    value_slow, grad_slow = slow(theta)
    assert fast.n_log_space == 0 and slow.n_log_space == snapshot.n_sentences
    assert value_fast == pytest.approx(value_slow, rel=1e-10)
    np.testing.assert_allclose(grad_fast, grad_slow, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(fast.totals, slow.totals, rtol=1e-10)


def test_totals_split_the_objective_by_kind():
    rng = np.random.default_rng(5)
    snapshot = make_snapshot(rng, ["full", "partial", "none"] * 3, n_labels=4, max_len=8)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    objective = CRFObjective(snapshot, c2=0.0, gamma=2.0)
    objective(theta)
    p = unpack(theta, snapshot.n_features, snapshot.n_labels)
    emit = emission_scores(snapshot, p.weights)
    entropy = nll_partial = 0.0
    for i, status in enumerate(snapshot.sentence_status()):
        rows = snapshot.sentence_slice(i)
        chain = (emit[rows], p.trans, p.start, p.end)
        if status == 0:
            entropy += entropy_and_gradient(*chain).entropy
        elif status == 1:
            nll_partial += forward_backward(*chain).log_z - forward_backward(*chain, snapshot.allowed[rows]).log_z
    assert objective.totals[2] == pytest.approx(entropy, rel=1e-10)
    assert objective.totals[1] == pytest.approx(nll_partial, rel=1e-10)


def test_threads_and_chunks_do_not_change_the_result():
    rng = np.random.default_rng(9)
    kinds = list(rng.choice(KINDS, 40))
    snapshot = make_snapshot(rng, kinds, n_labels=4, n_features=20, max_len=10)
    theta = rng.normal(size=parameter_count(snapshot.n_features, snapshot.n_labels))
    value, grad = CRFObjective(snapshot, c2=0.1, gamma=0.5)(theta)
    for n_jobs, chunk_tokens in ((2, 17), (1, 5), (3, 1)):
        other_value, other_grad = CRFObjective(snapshot, c2=0.1, gamma=0.5, n_jobs=n_jobs, chunk_tokens=chunk_tokens)(
            theta
        )
        assert other_value == pytest.approx(value, rel=1e-12)
        np.testing.assert_allclose(other_grad, grad, rtol=1e-10, atol=1e-12)


def test_negative_weights_are_refused():
    snapshot = make_snapshot(np.random.default_rng(0), ["full"])
    with pytest.raises(ValueError, match="non-negative"):
        CRFObjective(snapshot, c2=-1.0)

"""Entropy and its gradient against brute force and finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import (
    MASK_KINDS,
    SHAPES,
    entropy_of_scores,
    enumerate_paths,
    feature_counts,
    instances,
    make_chain,
    make_mask,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.decode import EntropyResult, entropy_and_gradient, forward_backward, reference


def _flat_gradient(result: EntropyResult) -> np.ndarray:
    parts = (result.d_emit, result.d_trans, result.d_start, result.d_end)
    return np.concatenate([g.ravel() for g in parts])


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_entropy_matches_bruteforce(n_tokens, n_labels, mask_kind):
    for _, chain, allowed in instances(n_tokens, n_labels, mask_kind):
        enum = enumerate_paths(*chain, allowed)
        result = entropy_and_gradient(*chain, allowed)
        assert result.entropy == pytest.approx(enum.entropy, rel=1e-9, abs=1e-9)
        assert result.expected_score == pytest.approx(enum.expected_score, rel=1e-12, abs=1e-9)
        assert result.log_z == pytest.approx(enum.log_z, rel=1e-12, abs=1e-9)
        d_emit, d_trans, d_start, d_end = enum.entropy_gradient()
        np.testing.assert_allclose(result.d_emit, d_emit, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(result.d_trans, d_trans, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(result.d_start, d_start, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(result.d_end, d_end, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("mask_kind", ["none", "random"])
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_entropy_gradient_matches_central_differences(n_tokens, n_labels, mask_kind):
    # Every emission, transition, start and end score: perturb it by ±h in the
    # brute-force entropy (through the feature counts, S = Φ θ) and compare.
    step = 1e-5
    for seed in (0, 1):
        rng = np.random.default_rng([seed, n_tokens, n_labels])
        chain = make_chain(rng, n_tokens, n_labels, scale=2.0)
        allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
        enum = enumerate_paths(*chain, allowed)
        counts = feature_counts(enum.paths, n_labels)
        theta = np.concatenate([c.ravel() for c in chain])
        np.testing.assert_allclose(counts @ theta, enum.scores, rtol=0, atol=1e-12)
        entropy_at = lambda params: entropy_of_scores(counts @ params)  # noqa: E731
        numeric = np.array(
            [entropy_at(theta + step * e) - entropy_at(theta - step * e) for e in np.eye(theta.size)]
        ) / (2 * step)
        analytic = _flat_gradient(entropy_and_gradient(*chain, allowed))
        np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_entropy_gradient_is_cov_of_features_and_score():
    # The same brute-force gradient written as a matrix product, -Φᵀ p (S - E S).
    rng = np.random.default_rng(21)
    chain = make_chain(rng, 5, 4, scale=3.0)
    enum = enumerate_paths(*chain)
    centred = enum.probs * (enum.scores - enum.expected_score)
    expected = -feature_counts(enum.paths, 4).T @ centred
    np.testing.assert_allclose(_flat_gradient(entropy_and_gradient(*chain)), expected, rtol=1e-9, atol=1e-12)


def test_entropy_bounds_and_degenerate_cases():
    rng = np.random.default_rng(22)
    n_tokens, n_labels = 5, 4
    emit, trans, start, end = make_chain(rng, n_tokens, n_labels)
    zeros = entropy_and_gradient(np.zeros_like(emit), np.zeros_like(trans), np.zeros(4), np.zeros(4))
    assert zeros.entropy == pytest.approx(n_tokens * np.log(n_labels), rel=1e-13)  # uniform
    assert np.abs(_flat_gradient(zeros)).max() < 1e-13  # uniform is a maximum
    result = entropy_and_gradient(emit, trans, start, end)
    assert 0 < result.entropy < n_tokens * np.log(n_labels)
    one_path = make_mask(rng, n_tokens, n_labels, "single_path")
    pinned = entropy_and_gradient(emit, trans, start, end, one_path)
    assert abs(pinned.entropy) < 1e-12
    assert np.abs(_flat_gradient(pinned)).max() < 1e-12


def test_entropy_agrees_with_forward_backward():
    rng = np.random.default_rng(23)
    chain = make_chain(rng, 12, 6, scale=2.0)
    allowed = make_mask(rng, 12, 6, "random")
    result = entropy_and_gradient(*chain, allowed)
    assert result.log_z == pytest.approx(forward_backward(*chain, allowed).log_z, rel=1e-13)
    assert result.entropy == pytest.approx(result.log_z - result.expected_score, rel=1e-13)
    assert (result.d_emit[~allowed] == 0).all()


@pytest.mark.parametrize("scale", [1e3, 1e5])
def test_entropy_stable_for_large_scores(scale):
    rng = np.random.default_rng(24)
    chain = make_chain(rng, 40, 5, scale)
    result = entropy_and_gradient(*chain)
    assert np.isfinite(_flat_gradient(result)).all()
    assert -1e-9 < result.entropy < 40 * np.log(5)


@settings(max_examples=40, deadline=None)
@given(
    n_tokens=st.integers(1, 30),
    n_labels=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
    scale=st.sampled_from([1.0, 1e3]),
)
def test_entropy_kernel_equals_numpy_reference(n_tokens, n_labels, seed, mask_kind, scale):
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, scale)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    result = entropy_and_gradient(*chain, allowed)
    ref = reference.entropy_and_gradient(*chain, allowed)
    tol = 1e-12 * scale * n_tokens
    assert result.entropy == pytest.approx(ref.entropy, rel=1e-9, abs=tol)
    assert result.expected_score == pytest.approx(ref.expected_score, rel=1e-12, abs=tol)
    assert result.log_z == pytest.approx(ref.log_z, rel=1e-12, abs=tol)
    np.testing.assert_allclose(_flat_gradient(result), _flat_gradient(ref), rtol=1e-8, atol=tol)

"""Forward-backward and log partition against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import MASK_KINDS, SHAPES, enumerate_paths, instances, make_chain, make_mask, path_score
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.decode import ForwardBackwardResult, forward_backward, log_partition, reference, viterbi


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_forward_backward_matches_bruteforce(n_tokens, n_labels, mask_kind):
    for _, chain, allowed in instances(n_tokens, n_labels, mask_kind):
        enum = enumerate_paths(*chain, allowed)
        result = forward_backward(*chain, allowed)
        assert isinstance(result, ForwardBackwardResult)
        assert result.log_z == pytest.approx(enum.log_z, rel=1e-12, abs=1e-9)
        assert log_partition(*chain, allowed) == pytest.approx(enum.log_z, rel=1e-12, abs=1e-9)
        assert result.marginals.shape == (n_tokens, n_labels)
        assert result.pair_marginals.shape == (n_tokens - 1, n_labels, n_labels)
        np.testing.assert_allclose(result.marginals, enum.marginals(), rtol=0, atol=1e-10)
        np.testing.assert_allclose(result.pair_marginals, enum.pair_marginals(), rtol=0, atol=1e-10)
        if allowed is not None:
            assert (result.marginals[~allowed] == 0).all()


@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_constrained_log_z_is_restricted_sum(n_tokens, n_labels):
    rng = np.random.default_rng(n_tokens * 7 + n_labels)
    chain = make_chain(rng, n_tokens, n_labels, scale=2.0)
    allowed = make_mask(rng, n_tokens, n_labels, "random")
    full = enumerate_paths(*chain)
    inside = allowed[np.arange(n_tokens), full.paths].all(axis=1)
    expected = np.log(np.exp(full.scores[inside]).sum())
    assert log_partition(*chain, allowed) == pytest.approx(expected, rel=1e-12)
    assert log_partition(*chain, allowed) <= log_partition(*chain) + 1e-12


def test_single_path_mask_log_z_is_the_path_score():
    rng = np.random.default_rng(1)
    chain = make_chain(rng, 5, 4, scale=500.0)
    allowed = make_mask(rng, 5, 4, "single_path")
    result = forward_backward(*chain, allowed)
    assert result.log_z == pytest.approx(path_score(allowed.argmax(axis=1), *chain), rel=1e-13)
    np.testing.assert_allclose(result.marginals, allowed.astype(float), rtol=0, atol=1e-12)


@pytest.mark.parametrize("scale", [1.0, 1e3, 1e5])
def test_forward_backward_stable_for_large_scores(scale):
    n_tokens, n_labels = 40, 5
    rng = np.random.default_rng(12)
    chain = make_chain(rng, n_tokens, n_labels, scale)
    allowed = make_mask(rng, n_tokens, n_labels, "random")
    for mask in (None, allowed):
        result = forward_backward(*chain, mask)
        _, best = viterbi(*chain, mask)
        assert np.isfinite(result.log_z)
        # max <= log-sum-exp <= max + log(number of paths)
        assert best - 1e-9 * scale <= result.log_z <= best + n_tokens * np.log(n_labels) + 1e-9 * scale
        np.testing.assert_allclose(result.marginals.sum(axis=1), 1.0, atol=1e-9)
        pairs = result.pair_marginals
        np.testing.assert_allclose(pairs.sum(axis=1), result.marginals[1:], atol=1e-9)
        np.testing.assert_allclose(pairs.sum(axis=2), result.marginals[:-1], atol=1e-9)


def test_log_z_shifts_with_constant_scores():
    # Adding c to every start score multiplies each path weight by e^c.
    rng = np.random.default_rng(13)
    emit, trans, start, end = make_chain(rng, 6, 3)
    assert log_partition(emit, trans, start + 2.5, end) == pytest.approx(
        log_partition(emit, trans, start, end) + 2.5, rel=1e-13
    )


@settings(max_examples=40, deadline=None)
@given(
    n_tokens=st.integers(1, 30),
    n_labels=st.integers(1, 9),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
    scale=st.sampled_from([1.0, 1e3]),
)
def test_forward_backward_kernel_equals_numpy_reference(n_tokens, n_labels, seed, mask_kind, scale):
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, scale)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    result = forward_backward(*chain, allowed)
    ref = reference.forward_backward(*chain, allowed)
    assert result.log_z == pytest.approx(ref.log_z, rel=1e-13, abs=1e-12)
    ref_log_z = reference.log_partition(*chain, allowed)
    assert log_partition(*chain, allowed) == pytest.approx(ref_log_z, rel=1e-13, abs=1e-12)
    np.testing.assert_allclose(result.marginals, ref.marginals, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(result.pair_marginals, ref.pair_marginals, rtol=1e-9, atol=1e-12)

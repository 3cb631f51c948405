"""k-best (list) Viterbi against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import MASK_KINDS, SHAPES, enumerate_paths, instances, make_chain, make_mask, path_score
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.decode import kbest_viterbi, reference, viterbi


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_kbest_matches_bruteforce(n_tokens, n_labels, mask_kind):
    for _, chain, allowed in instances(n_tokens, n_labels, mask_kind):
        enum = enumerate_paths(*chain, allowed)
        n_paths = len(enum.scores)
        order = np.argsort(-enum.scores, kind="stable")
        for k in sorted({1, 2, 3, n_paths, n_paths + 3}):
            paths, scores = kbest_viterbi(*chain, k, allowed)
            expected = min(k, n_paths)
            assert paths.shape == (expected, n_tokens) and paths.dtype == np.int64
            assert scores.shape == (expected,)
            np.testing.assert_array_equal(paths, enum.paths[order[:expected]])
            np.testing.assert_allclose(scores, enum.scores[order[:expected]], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize(("n_tokens", "n_labels"), [(1, 1), (1, 4), (3, 1), (5, 3)])
def test_kbest_single_path_mask_gives_one_path(n_tokens, n_labels):
    rng = np.random.default_rng(2)
    chain = make_chain(rng, n_tokens, n_labels)
    allowed = make_mask(rng, n_tokens, n_labels, "single_path")
    paths, scores = kbest_viterbi(*chain, 5, allowed)
    np.testing.assert_array_equal(paths, allowed.argmax(axis=1)[None, :])
    assert scores[0] == pytest.approx(path_score(paths[0], *chain))


def test_kbest_second_best_is_best_other_path():
    rng = np.random.default_rng(8)
    chain = make_chain(rng, 5, 4)
    enum = enumerate_paths(*chain)
    best_path, _ = viterbi(*chain)
    others = ~(enum.paths == best_path).all(axis=1)
    paths, scores = kbest_viterbi(*chain, 2)
    np.testing.assert_array_equal(paths[0], best_path)
    np.testing.assert_array_equal(paths[1], enum.paths[others][enum.scores[others].argmax()])
    assert scores[1] == pytest.approx(enum.scores[others].max())


@settings(max_examples=150, deadline=None)
@given(
    n_tokens=st.integers(1, 5),
    n_labels=st.integers(1, 4),
    k=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
)
def test_kbest_with_ties(n_tokens, n_labels, k, seed, mask_kind):
    # Whole-number scores tie often; the paths must still be distinct, allowed,
    # scored correctly, and their scores the exact top k.
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, integer=True)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    enum = enumerate_paths(*chain, allowed)
    paths, scores = kbest_viterbi(*chain, k, allowed)
    np.testing.assert_array_equal(scores, np.sort(enum.scores)[::-1][:k])
    assert len({tuple(p) for p in paths}) == len(paths)
    if allowed is not None:
        assert allowed[np.arange(n_tokens), paths].all()
    assert [path_score(p, *chain) for p in paths] == list(scores)
    np.testing.assert_array_equal(paths[0], viterbi(*chain, allowed)[0])


def test_kbest_long_sentence_caps_at_k():
    rng = np.random.default_rng(9)
    chain = make_chain(rng, 60, 5)
    paths, scores = kbest_viterbi(*chain, 25)
    assert paths.shape == (25, 60)
    assert (np.diff(scores) <= 0).all()
    assert len({tuple(p) for p in paths}) == 25
    np.testing.assert_allclose(scores, [path_score(p, *chain) for p in paths], rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    n_tokens=st.integers(1, 30),
    n_labels=st.integers(1, 9),
    k=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
    scale=st.sampled_from([1.0, 1e3]),
)
def test_kbest_kernel_equals_numpy_reference(n_tokens, n_labels, k, seed, mask_kind, scale):
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, scale)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    paths, scores = kbest_viterbi(*chain, k, allowed)
    ref_paths, ref_scores = reference.kbest_viterbi(*chain, k, allowed)
    np.testing.assert_array_equal(paths, ref_paths)
    np.testing.assert_array_equal(scores, ref_scores)

"""Viterbi, batched Viterbi and loss-augmented Viterbi against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import (
    MASK_KINDS,
    SHAPES,
    WIDE_SHAPES,
    enumerate_paths,
    hamming,
    instances,
    make_chain,
    make_mask,
    path_score,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.decode import loss_augmented_viterbi, reference, viterbi, viterbi_batch
from tagtool.decode._viterbi import _WIDE_LABELS


def _approx(value):
    return pytest.approx(value, rel=1e-12, abs=1e-9)


def test_wide_shapes_take_the_vectorised_step():
    assert all(n_labels >= _WIDE_LABELS for _, n_labels in WIDE_SHAPES)
    assert all(n_labels < _WIDE_LABELS for _, n_labels in SHAPES)


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES + WIDE_SHAPES)
def test_viterbi_matches_bruteforce(n_tokens, n_labels, mask_kind):
    for _, chain, allowed in instances(n_tokens, n_labels, mask_kind):
        best_path, best_score = enumerate_paths(*chain, allowed).best()
        path, score = viterbi(*chain, allowed=allowed)
        assert path.dtype == np.int64 and path.shape == (n_tokens,)
        np.testing.assert_array_equal(path, best_path)
        assert score == _approx(best_score)
        assert score == _approx(path_score(path, *chain))


@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_viterbi_single_path_mask_returns_that_path(n_tokens, n_labels):
    rng = np.random.default_rng(7)
    chain = make_chain(rng, n_tokens, n_labels, scale=3.0)
    allowed = make_mask(rng, n_tokens, n_labels, "single_path")
    path, score = viterbi(*chain, allowed=allowed)
    np.testing.assert_array_equal(path, allowed.argmax(axis=1))
    assert score == _approx(path_score(path, *chain))


@settings(max_examples=150, deadline=None)
@given(
    shape=st.sampled_from(SHAPES + WIDE_SHAPES),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
)
def test_viterbi_breaks_ties_towards_lowest_labels(shape, seed, mask_kind):
    # Small whole-number scores make exact ties common and sums exact.
    n_tokens, n_labels = shape
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, integer=True)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    enum = enumerate_paths(*chain, allowed)
    path, score = viterbi(*chain, allowed=allowed)
    assert score == enum.scores.max()
    np.testing.assert_array_equal(path, enum.viterbi_tie_winner())


def test_viterbi_all_zero_scores_gives_label_zero():
    n_labels = 4
    zeros = np.zeros(n_labels)
    path, score = viterbi(np.zeros((6, n_labels)), np.zeros((n_labels, n_labels)), zeros, zeros)
    np.testing.assert_array_equal(path, np.zeros(6, dtype=np.int64))
    assert score == 0.0


def test_viterbi_follows_strong_transitions():
    # A textbook case: emissions prefer label 0 everywhere, but 0 -> 0 is heavily
    # penalised, so the best path alternates.
    emit = np.array([[1.0, 0.0]] * 5)
    trans = np.array([[-5.0, 0.0], [0.0, 0.0]])
    path, score = viterbi(emit, trans, np.zeros(2), np.zeros(2))
    np.testing.assert_array_equal(path, [0, 1, 0, 1, 0])
    assert score == 3.0


def _stack(rng, lengths, n_labels, mask_kind, scale=1.0):
    chains, masks = [], []
    _, trans, start, end = make_chain(rng, 1, n_labels, scale)
    for n_tokens in lengths:
        chains.append(rng.uniform(-scale, scale, (n_tokens, n_labels)))
        mask = make_mask(rng, n_tokens, n_labels, mask_kind)
        masks.append(np.ones((n_tokens, n_labels), bool) if mask is None else mask)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return chains, masks, offsets, (trans, start, end)


@settings(max_examples=60, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 12), min_size=1, max_size=15),
    n_labels=st.sampled_from([1, 2, 3, 5, 9, 16, 20]),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
    scale=st.sampled_from([1.0, 500.0]),
)
def test_viterbi_batch_equals_per_sentence(lengths, n_labels, seed, mask_kind, scale):
    rng = np.random.default_rng(seed)
    chains, masks, offsets, (trans, start, end) = _stack(rng, lengths, n_labels, mask_kind, scale)
    allowed = None if mask_kind == "none" else np.vstack(masks)
    paths, scores = viterbi_batch(np.vstack(chains), offsets, trans, start, end, allowed)
    assert paths.dtype == np.int64 and paths.shape == (offsets[-1],)
    assert scores.shape == (len(lengths),)
    for i, emit in enumerate(chains):
        path, score = viterbi(emit, trans, start, end, masks[i])
        np.testing.assert_array_equal(paths[offsets[i] : offsets[i + 1]], path)
        assert scores[i] == score  # same kernel code, so bit for bit


def test_viterbi_batch_without_sentences():
    paths, scores = viterbi_batch(np.zeros((0, 3)), [0], np.zeros((3, 3)), np.zeros(3), np.zeros(3))
    assert paths.shape == (0,) and scores.shape == (0,)


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_loss_augmented_matches_bruteforce(n_tokens, n_labels, mask_kind):
    for scale, chain, allowed in instances(n_tokens, n_labels, mask_kind, seeds=(0, 1)):
        rng = np.random.default_rng(n_tokens * 10 + n_labels)
        target = rng.integers(0, n_labels, n_tokens)
        enum = enumerate_paths(*chain, allowed)
        for weight in (1.0, 0.3 * scale, rng.uniform(0, 2 * scale, n_tokens)):
            augmented = enum.scores + hamming(enum.paths, target, weight)
            path, score = loss_augmented_viterbi(*chain, target, weight, allowed)
            np.testing.assert_array_equal(path, enum.paths[np.argmax(augmented)])
            assert score == _approx(augmented.max())


def test_loss_augmented_with_zero_weight_is_viterbi():
    rng = np.random.default_rng(3)
    chain = make_chain(rng, 7, 4)
    target = rng.integers(0, 4, 7)
    path, score = loss_augmented_viterbi(*chain, target, 0.0)
    expected_path, expected_score = viterbi(*chain)
    np.testing.assert_array_equal(path, expected_path)
    assert score == expected_score


def test_loss_augmented_large_weight_avoids_target_everywhere():
    rng = np.random.default_rng(4)
    chain = make_chain(rng, 6, 3)
    target = rng.integers(0, 3, 6)
    path, _ = loss_augmented_viterbi(*chain, target, loss_weight=1e3)
    assert (path != target).all()


def test_loss_augmented_respects_mask_even_against_loss():
    # The mask pins every token to its target label; the loss cannot pull it away.
    rng = np.random.default_rng(5)
    chain = make_chain(rng, 5, 3)
    target = rng.integers(0, 3, 5)
    allowed = np.eye(3, dtype=bool)[target]
    path, score = loss_augmented_viterbi(*chain, target, 100.0, allowed)
    np.testing.assert_array_equal(path, target)
    assert score == _approx(path_score(target, *chain))


@settings(max_examples=60, deadline=None)
@given(
    n_tokens=st.integers(1, 30),
    n_labels=st.integers(1, 24),
    seed=st.integers(0, 2**32 - 1),
    mask_kind=st.sampled_from(MASK_KINDS),
    scale=st.sampled_from([1.0, 1e3]),
)
def test_viterbi_kernels_equal_numpy_reference(n_tokens, n_labels, seed, mask_kind, scale):
    rng = np.random.default_rng(seed)
    chain = make_chain(rng, n_tokens, n_labels, scale)
    allowed = make_mask(rng, n_tokens, n_labels, mask_kind)
    path, score = viterbi(*chain, allowed)
    ref_path, ref_score = reference.viterbi(*chain, allowed)
    np.testing.assert_array_equal(path, ref_path)
    assert score == ref_score

    target = rng.integers(0, n_labels, n_tokens)
    weights = rng.uniform(0, scale, n_tokens)
    path, score = loss_augmented_viterbi(*chain, target, weights, allowed)
    ref_path, ref_score = reference.loss_augmented_viterbi(*chain, target, weights, allowed)
    np.testing.assert_array_equal(path, ref_path)
    assert score == ref_score


def test_viterbi_batch_kernel_equals_numpy_reference():
    rng = np.random.default_rng(11)
    lengths = rng.integers(1, 25, 40)
    for n_labels in (7, 23):
        chains, masks, offsets, scores_ = _stack(rng, lengths, n_labels, "random")
        emit, allowed = np.vstack(chains), np.vstack(masks)
        paths, scores = viterbi_batch(emit, offsets, *scores_, allowed)
        ref_paths, ref_scores = reference.viterbi_batch(emit, offsets, *scores_, allowed)
        np.testing.assert_array_equal(paths, ref_paths)
        np.testing.assert_array_equal(scores, ref_scores)

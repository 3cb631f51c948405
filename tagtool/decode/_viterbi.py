"""Viterbi kernels: single sentence, stacked sentences, loss-augmented, max-marginals.

Private: the public wrappers in :mod:`tagtool.decode.max_product` validate and convert
every argument first, so these loops may assume C-contiguous float64 scores,
a bool mask with at least one True per row, and finite values.  Masked states
carry ``-inf``; since all scores are finite, every allowed state is reachable.

The learners' training kernels call the loops here rather than keeping their
own: :func:`span_wide` (one sentence's best path inside a mask) and
:func:`max_product_tables` (the max-marginals' two passes);
:mod:`tagtool.decode._jit` keys the cache so that they see edits made here.

Ties are broken towards the lowest label index, both for the last label and
for every back-pointer, by scanning labels upwards and replacing the running
best only on a strict improvement.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit

# From this many labels on, the step that loops over the previous label
# outermost is faster: its inner loop over the current label is a branch-free
# select that vectorises (2-3x at L = 45).  Below it the vector loop is too
# short to pay, and the scalar step with the current label outermost wins.
# Both perform the same floating-point operations, so they agree bit for bit.
_WIDE_LABELS = 16


@_njit
def _backtrack(delta, end, bp, lo, hi, path):
    """Pick the best last label, follow the back-pointers into ``path[lo:hi]``; returns the score."""
    best = -np.inf
    last = 0
    for b in range(delta.shape[0]):
        cand = delta[b] + end[b]
        if cand > best:
            best = cand
            last = b
    path[hi - 1] = last
    for t in range(hi - 1, lo, -1):
        path[t - 1] = bp[t - lo, path[t]]
    return best


@_njit
def span_narrow(emit, trans_t, start, end, allowed, lo, hi, delta, prev, bp, path):
    """Viterbi over rows ``lo:hi``, current label outermost; ``trans_t = trans.T``."""
    n_labels = emit.shape[1]
    for b in range(n_labels):
        delta[b] = start[b] + emit[lo, b] if allowed[lo, b] else -np.inf
    for t in range(lo + 1, hi):
        for b in range(n_labels):  # a loop, not ``prev[:] = delta``: see :func:`span_wide`
            prev[b] = delta[b]
        for b in range(n_labels):
            if not allowed[t, b]:
                delta[b] = -np.inf
                continue
            best = -np.inf
            arg = 0
            for a in range(n_labels):
                cand = prev[a] + trans_t[b, a]
                if cand > best:
                    best = cand
                    arg = a
            delta[b] = best + emit[t, b]
            bp[t - lo, b] = arg
    return _backtrack(delta, end, bp, lo, hi, path)


@_njit
def span_wide(emit, trans, start, end, allowed, lo, hi, delta, prev, bp, path):
    """Viterbi over rows ``lo:hi``, previous label outermost (vectorised inner loop)."""
    n_labels = emit.shape[1]
    for b in range(n_labels):
        delta[b] = start[b] + emit[lo, b] if allowed[lo, b] else -np.inf
    for t in range(lo + 1, hi):
        # A loop, not ``prev[:] = delta``: numba compiles an array-to-array slice assignment with a
        # shape check whose error message needs its string formatting compiled too, seconds of a
        # first start for a copy whose shapes always agree.
        for b in range(n_labels):
            prev[b] = delta[b]
        row = t - lo
        for b in range(n_labels):
            delta[b] = prev[0] + trans[0, b]
            bp[row, b] = 0
        for a in range(1, n_labels):
            pa = prev[a]
            if pa == -np.inf:
                continue
            for b in range(n_labels):
                cand = pa + trans[a, b]
                better = cand > delta[b]
                delta[b] = cand if better else delta[b]
                bp[row, b] = a if better else bp[row, b]
        for b in range(n_labels):
            delta[b] = delta[b] + emit[t, b] if allowed[t, b] else -np.inf
    return _backtrack(delta, end, bp, lo, hi, path)


@_njit
def _viterbi_kernel(emit, trans, start, end, allowed, path):
    """Best path of one sentence into ``path``; returns its score."""
    n_tokens, n_labels = emit.shape
    delta = np.empty(n_labels)
    prev = np.empty(n_labels)
    bp = np.zeros((n_tokens, n_labels), dtype=np.int64)
    if n_labels >= _WIDE_LABELS:
        return span_wide(emit, trans, start, end, allowed, 0, n_tokens, delta, prev, bp, path)
    trans_t = np.ascontiguousarray(trans.T)
    return span_narrow(emit, trans_t, start, end, allowed, 0, n_tokens, delta, prev, bp, path)


@_njit
def _viterbi_batch_kernel(emit, offsets, trans, start, end, allowed, paths, scores):
    """Best paths of the sentences ``emit[offsets[i]:offsets[i+1]]``, in one call."""
    n_labels = emit.shape[1]
    n_sent = offsets.shape[0] - 1
    longest = 0
    for i in range(n_sent):
        longest = max(longest, offsets[i + 1] - offsets[i])
    trans_t = np.ascontiguousarray(trans.T)
    delta = np.empty(n_labels)
    prev = np.empty(n_labels)
    bp = np.zeros((longest, n_labels), dtype=np.int64)
    wide = n_labels >= _WIDE_LABELS
    for i in range(n_sent):
        lo, hi = offsets[i], offsets[i + 1]
        if wide:
            scores[i] = span_wide(emit, trans, start, end, allowed, lo, hi, delta, prev, bp, paths)
        else:
            scores[i] = span_narrow(emit, trans_t, start, end, allowed, lo, hi, delta, prev, bp, paths)


@_njit
def _loss_augmented_kernel(emit, trans, start, end, allowed, target, weights, path):
    """Best path under ``score + sum_t weights[t] * [y_t != target[t]]``.

    Hamming loss decomposes over tokens, so it is folded into a copy of the
    emissions: every label but the target gains that token's weight.
    """
    n_tokens, n_labels = emit.shape
    augmented = np.empty((n_tokens, n_labels))
    for t in range(n_tokens):
        for b in range(n_labels):
            augmented[t, b] = emit[t, b] + weights[t]
        augmented[t, target[t]] = emit[t, target[t]]
    return _viterbi_kernel(augmented, trans, start, end, allowed, path)


@_njit
def max_product_tables(emit, n_tokens, trans, start, end, allowed, fwd, bwd):
    """Max-product passes over ``emit[:n_tokens]`` inside ``allowed[:n_tokens]``.

    ``fwd[t, b]`` = best score of a prefix ending in ``y_t = b``, its emission
    included; ``bwd[t, b]`` = best score of the suffix after ``t`` given
    ``y_t = b``; ``-inf`` where masked.  Their sum is the max-marginal.
    """
    n_labels = emit.shape[1]
    for b in range(n_labels):
        fwd[0, b] = start[b] + emit[0, b] if allowed[0, b] else -np.inf
        bwd[n_tokens - 1, b] = end[b] if allowed[n_tokens - 1, b] else -np.inf
    for t in range(1, n_tokens):
        for b in range(n_labels):
            best = -np.inf
            if allowed[t, b]:
                for a in range(n_labels):
                    cand = fwd[t - 1, a] + trans[a, b]
                    if cand > best:
                        best = cand
                best += emit[t, b]
            fwd[t, b] = best
    for t in range(n_tokens - 2, -1, -1):
        for a in range(n_labels):
            best = -np.inf
            if allowed[t, a]:
                for b in range(n_labels):
                    cand = trans[a, b] + emit[t + 1, b] + bwd[t + 1, b]
                    if cand > best:
                        best = cand
            bwd[t, a] = best


@_njit
def _max_marginals_kernel(emit, trans, start, end, allowed, out):
    """``out[t, b]`` = best score of a path with ``y_t = b`` (-inf where masked)."""
    n_tokens, n_labels = emit.shape
    fwd = np.empty((n_tokens, n_labels))
    bwd = np.empty((n_tokens, n_labels))
    max_product_tables(emit, n_tokens, trans, start, end, allowed, fwd, bwd)
    for t in range(n_tokens):
        for b in range(n_labels):
            out[t, b] = fwd[t, b] + bwd[t, b]

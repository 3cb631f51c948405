"""The per-token weight sum and a path's score, the chain kernels every learner shares.

A token's emission score for label ``b`` is the sum of ``weights[k, b]``
over its features ``k`` (of one view, or all of them).  Every learner's
training kernels (perceptron, structural SVMs, WD-PSL; CRF can point at it
too) and :func:`tagtool.learn.chain.emission_scores` call
:func:`sentence_emission`; :mod:`tagtool.decode._jit` keys the cache so
that a kernel calling it sees its edits.  The sums run over the features in
CSR order, the order :func:`tagtool.decode.vectorised.emission_sums`
follows, so both agree bit for bit.

Importing this module imports numba; :func:`tagtool.learn.chain.emission_scores`
imports it only when it runs it (see :mod:`tagtool.decode.vectorised`).
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit


@_njit
def sentence_emission(indptr, indices, feature_view, view, lo, hi, weights, out):
    """``out[t − lo] = Σ_{k ∈ feats^view(x_t)} weights[k]`` for tokens ``lo:hi`` (all features if ``view < 0``).

    ``indptr``, ``indices`` are the tokens' CSR feature lists,
    ``feature_view[k]`` the view of feature ``k`` (not read when ``view <
    0``, so any integer array will do there).
    """
    n_labels = weights.shape[1]
    for t in range(lo, hi):
        row = t - lo
        for b in range(n_labels):
            out[row, b] = 0.0
        for j in range(indptr[t], indptr[t + 1]):
            k = indices[j]
            if view < 0 or feature_view[k] == view:
                for b in range(n_labels):
                    out[row, b] += weights[k, b]


@_njit
def path_score(emit, trans, start, end, path):
    """``S(y) = start[y_1] + Σ_t emit[t, y_t] + Σ_t trans[y_{t−1}, y_t] + end[y_T]``, the score of ``path``."""
    n_tokens = path.shape[0]
    total = start[path[0]] + end[path[n_tokens - 1]]
    for t in range(n_tokens):
        total += emit[t, path[t]]
    for t in range(1, n_tokens):
        total += trans[path[t - 1], path[t]]
    return total


@_njit
def _emission_kernel(indptr, indices, weights, feature_view, view, out):
    """``out[t]`` = summed weight rows of every token ``t``'s features (of ``view`` if >= 0)."""
    # np.int64(0), not the literal 0, on which numba would specialise sentence_emission a second time.
    sentence_emission(indptr, indices, feature_view, view, np.int64(0), len(indptr) - 1, weights, out)

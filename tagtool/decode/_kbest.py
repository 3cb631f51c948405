"""List-Viterbi kernel: the k best distinct paths.

Every (token, label) keeps its k best partial hypotheses, sorted by score,
each with a back-pointer to (previous label, rank there).  Hypotheses that do
not exist (fewer than k feasible prefixes) hold ``-inf``; all real scores are
finite, so ``-inf`` is an unambiguous "empty" marker.  Distinct back-pointers
give distinct prefixes, so the paths returned are distinct by construction.

Equal scores are ordered by (previous label, rank) ascending: candidates are
scanned in that order and a newcomer never overtakes an equal incumbent.  The
rank-0 hypothesis therefore coincides with :func:`tagtool.decode.viterbi`'s path.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit


@_njit
def _merge(hyp, t, add, out_t, out_b, bp_state, bp_rank):
    """Top k of the sorted lists ``hyp[t, a, :] + add[a]`` into ``hyp[out_t, out_b, :]``.

    Insertion into a descending list of length k, with back-pointers
    alongside.  A list is left at its first entry that does not enter: the
    rest of it is no better.  Whole arrays and indices are passed rather than
    row views, which cost more to create than a short merge.
    """
    n_labels, k = hyp.shape[1], hyp.shape[2]
    hyp[out_t, out_b, :] = -np.inf
    for a in range(n_labels):
        for r in range(k):
            cand = hyp[t, a, r] + add[a]
            if not cand > hyp[out_t, out_b, k - 1]:
                break  # also ends the list at its first missing (-inf) entry
            j = k - 1
            while j > 0 and hyp[out_t, out_b, j - 1] < cand:
                hyp[out_t, out_b, j] = hyp[out_t, out_b, j - 1]
                bp_state[out_t, out_b, j] = bp_state[out_t, out_b, j - 1]
                bp_rank[out_t, out_b, j] = bp_rank[out_t, out_b, j - 1]
                j -= 1
            hyp[out_t, out_b, j] = cand
            bp_state[out_t, out_b, j] = a
            bp_rank[out_t, out_b, j] = r


@_njit
def _kbest_kernel(emit, trans, start, end, allowed, k, paths, path_scores):
    """Fill ``paths[k, T]`` and ``path_scores[k]`` with the k best paths.

    The caller sets k to at most the number of feasible paths, so every row
    of the output is a real path.  Row ``T`` of the tables, one past the last
    token, holds the final merge with the end scores (in its label 0).
    """
    n_tokens, n_labels = emit.shape
    hyp = np.full((n_tokens + 1, n_labels, k), -np.inf)
    bp_state = np.zeros((n_tokens + 1, n_labels, k), dtype=np.int64)
    bp_rank = np.zeros((n_tokens + 1, n_labels, k), dtype=np.int64)
    trans_t = np.ascontiguousarray(trans.T)
    for b in range(n_labels):
        if allowed[0, b]:
            hyp[0, b, 0] = start[b] + emit[0, b]
    for t in range(1, n_tokens):
        for b in range(n_labels):
            if allowed[t, b]:
                _merge(hyp, t - 1, trans_t[b], t, b, bp_state, bp_rank)
                for r in range(k):
                    hyp[t, b, r] += emit[t, b]
    _merge(hyp, n_tokens - 1, end, n_tokens, 0, bp_state, bp_rank)
    for i in range(k):
        path_scores[i] = hyp[n_tokens, 0, i]
        b = bp_state[n_tokens, 0, i]
        r = bp_rank[n_tokens, 0, i]
        paths[i, n_tokens - 1] = b
        for t in range(n_tokens - 1, 0, -1):
            b, r = bp_state[t, b, r], bp_rank[t, b, r]
            paths[i, t - 1] = b

"""Numba kernel of the expectation regularisation gradient (:mod:`tagtool.learn.crf_expreg`).

The recursions and their reference (Mann & McCallum 2007) are described there.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import kernel

_fast = kernel(fastmath={"reassoc", "contract"})


@_fast
def reward_sentence(marginals, pairs, reward, tiny, d_emit, d_trans):
    """``E[R]``; fills ``d_emit`` (T, L) and adds to ``d_trans`` (L, L) the gradient of ``E[R]``."""
    n_tokens, n_labels = marginals.shape
    prefix = np.zeros((n_tokens, n_labels))
    suffix = np.zeros((n_tokens, n_labels))
    for t in range(1, n_tokens):
        for b in range(n_labels):
            acc = 0.0
            for a in range(n_labels):
                acc += (prefix[t - 1, a] + reward[a]) * pairs[t - 1, a, b]
            prefix[t, b] = acc / max(marginals[t, b], tiny)
    for t in range(n_tokens - 2, -1, -1):
        for a in range(n_labels):
            acc = 0.0
            for b in range(n_labels):
                acc += pairs[t, a, b] * (suffix[t + 1, b] + reward[b])
            suffix[t, a] = acc / max(marginals[t, a], tiny)
    expected = 0.0
    for t in range(n_tokens):
        for b in range(n_labels):
            expected += marginals[t, b] * reward[b]
    for t in range(n_tokens):
        for b in range(n_labels):
            d_emit[t, b] = marginals[t, b] * (prefix[t, b] + reward[b] + suffix[t, b] - expected)
    for t in range(1, n_tokens):
        for a in range(n_labels):
            left = prefix[t - 1, a] + reward[a] - expected
            for b in range(n_labels):
                d_trans[a, b] += pairs[t - 1, a, b] * (left + reward[b] + suffix[t, b])
    return expected

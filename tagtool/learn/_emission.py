"""The emission kernel of :mod:`tagtool.learn.chain`, in a module of its own.

Importing it imports numba; :func:`tagtool.learn.chain.emission_scores`
imports it only when it runs it (see :mod:`tagtool.decode.vectorised`).
"""

from __future__ import annotations

from tagtool.decode._jit import _njit


@_njit
def _emission_kernel(indptr, indices, weights, feature_view, view, out):
    """``out[t] += weights[k]`` for every feature ``k`` of token ``t`` (of ``view`` if >= 0), in order."""
    n_labels = weights.shape[1]
    for t in range(len(indptr) - 1):
        for j in range(indptr[t], indptr[t + 1]):
            k = indices[j]
            if view < 0 or feature_view[k] == view:
                for b in range(n_labels):
                    out[t, b] += weights[k, b]

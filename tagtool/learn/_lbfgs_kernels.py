"""Numba kernels of L-BFGS (:mod:`tagtool.learn.lbfgs`): the vector operations over ``θ``.

A CRF's ``θ`` has about a million entries and an iteration makes some
thirty passes over vectors of that size, so these are kernels rather than
numpy expressions: no temporaries, no threaded BLAS.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import kernel

# Sums of products: letting LLVM reassociate them vectorises the loops (as in _crf_kernels).
_fast = kernel(fastmath={"reassoc", "contract"})


@_fast
def dot(a, b):
    """``a · b`` of two 1-D float64 arrays, on this thread.

    numpy's ``@`` goes to a threaded BLAS that, on a shared machine, spends
    several times the work spinning; L-BFGS takes a dozen of these per
    iteration over a million entries.
    """
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@_fast
def axpy(a, x, y):
    """``y += a * x`` in place, without the temporary numpy would allocate."""
    for i in range(x.shape[0]):
        y[i] += a * x[i]


@_fast
def store_pair(x_new, x, g_new, g, s, y):
    """``s = x_new - x``, ``y = g_new - g`` into float32 rows; returns ``(s·y, y·y)`` of the stored values.

    One pass instead of two subtractions and two dot products.
    """
    sy = 0.0
    yy = 0.0
    for i in range(x.shape[0]):
        si = np.float32(x_new[i] - x[i])
        yi = np.float32(g_new[i] - g[i])
        s[i] = si
        y[i] = yi
        sy += np.float64(si) * np.float64(yi)
        yy += np.float64(yi) * np.float64(yi)
    return sy, yy


@_fast
def two_loop(g, s, y, rho, yy, order, out):
    """``out = -H g``: the two-loop recursion over the pairs ``order`` (rows of ``s``, ``y``; oldest first).

    Nocedal & Wright (2006), Alg. 7.4, with ``H0 = (s·y / y·y) I`` of the
    newest pair.  Each pass over ``out`` applies one update and computes
    the dot product the next update needs, so the recursion makes ``2m + 2``
    passes instead of ``4m + 3``.
    """
    n, m = g.shape[0], order.shape[0]
    alpha = np.empty(m)
    if m == 0:
        for i in range(n):
            out[i] = -g[i]
        return
    # first loop, newest to oldest: alpha_k = rho_k s_k·q; q -= alpha_k y_k
    r = order[m - 1]
    d = 0.0
    for i in range(n):
        out[i] = g[i]
        d += np.float64(s[r, i]) * g[i]
    for k in range(m - 1, -1, -1):
        r = order[k]
        a = rho[r] * d
        alpha[k] = a
        d = 0.0
        if k > 0:
            nxt = order[k - 1]
            for i in range(n):
                out[i] -= a * np.float64(y[r, i])
                d += np.float64(s[nxt, i]) * out[i]
        else:
            for i in range(n):
                out[i] -= a * np.float64(y[r, i])
    # scaling by H0, with the first dot product of the second loop
    newest = order[m - 1]
    h0 = 1.0 / (rho[newest] * yy[newest])
    r = order[0]
    d = 0.0
    for i in range(n):
        out[i] *= h0
        d += np.float64(y[r, i]) * out[i]
    # second loop, oldest to newest: beta_k = rho_k y_k·r; r += (alpha_k - beta_k) s_k; then negate
    for k in range(m):
        r = order[k]
        c = alpha[k] - rho[r] * d
        d = 0.0
        if k < m - 1:
            nxt = order[k + 1]
            for i in range(n):
                out[i] += c * np.float64(s[r, i])
                d += np.float64(y[nxt, i]) * out[i]
        else:
            for i in range(n):
                out[i] = -(out[i] + c * np.float64(s[r, i]))

"""numba kernels of WD-PSL's restricted dual: one block QP per piece, one pass over the pieces per call.

Working sets.  Piece ``i``'s Eq. 18 entries (multipliers ``α``) are
``ws_a[i, :ws_n[i]]``, ``ws_c[i, :ws_n[i]]`` with multipliers
``ws_lam[i, :ws_n[i]]``; its Eq. 20 entries (multipliers ``β``) are the
candidates ``j`` of the piece with ``beta_in[j]``, multiplier ``beta[j]``.
A block lists the α entries first, then the β entries in candidate order.

Vectors.  An α entry is ``F − f(a, c)`` (Eq. 18), a β entry ``f(a, c)``
(Eq. 20), with ``f`` and ``F`` as in :mod:`tagtool.learn.piecewise._block_gram_kernels`,
which builds a block's Gram matrix from them in closed form.

A block is assembled (:func:`~tagtool.learn.piecewise._block_gram_kernels.assemble_block`), solved
exactly (:func:`solve_block`) and applied to ``ω`` (:func:`_apply`);
:func:`block_pass` does that for every piece whose KKT conditions fail.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 17–21.
.. [2] J. Platt. Sequential minimal optimization. 1998 (the pairwise steps).
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.learn.piecewise._block_gram_kernels import _assemble, _block_size, _block_workspace


@_njit
def block_kkt(m, g, lam, ub, is_alpha, c1n):
    """Largest violation of a block's KKT conditions (thresholds as the Python check)."""
    worst = 0.0
    total = 0.0
    gmin = np.inf
    for k in range(m):
        if is_alpha[k]:
            total += lam[k]
            gmin = min(gmin, g[k])
            continue
        at_lo = lam[k] <= 1e-7 * max(ub[k], 1e-300)
        at_hi = lam[k] >= ub[k] * (1 - 1e-7)
        if at_lo:
            worst = max(worst, -g[k])
        elif at_hi:
            worst = max(worst, g[k])
        else:
            worst = max(worst, abs(g[k]))
    if gmin < np.inf:
        mu = max(0.0, -gmin) if total >= c1n * (1 - 1e-7) else 0.0
        for k in range(m):
            if is_alpha[k]:
                worst = max(worst, -(g[k] + mu))
                if lam[k] > 1e-7 * c1n:
                    worst = max(worst, abs(g[k] + mu))
    return worst


@_njit
def solve_block(m, K, g, lam, ub, is_alpha, c1n, tol, max_iter):
    """Exact solver of one block QP, in place: ``min ½λᵀKλ + qᵀλ`` (``g = Kλ + q``).

    Constraints ``β ∈ [0, ub]`` each, ``α ≥ 0`` with ``Σ α ≤ c1n``.  The
    two constraint groups are separable, so alternating exact minimisation
    over them converges to the block optimum: each β in closed form
    (``clip(β − g/K_ββ, 0, ub)``), the α group by pairwise (SMO) steps on
    the simplex ``{α, slack}`` as :func:`tagtool.learn.structsvm._dual_kernels.smo`
    (Platt 1998): move mass from the steepest-ascent positive coordinate to
    the steepest-descent one, exactly along their line.  Stops when
    :func:`block_kkt` is below ``tol``.  Returns the iterations used.
    """
    n_alpha = 0
    for k in range(m):
        n_alpha += is_alpha[k]
    for it in range(max_iter):
        for k in range(m):
            if is_alpha[k] or K[k, k] <= 0.0:
                continue
            new = min(max(lam[k] - g[k] / K[k, k], 0.0), ub[k])
            step = new - lam[k]
            if step != 0.0:
                for p in range(m):
                    g[p] += step * K[p, k]
                lam[k] = new
        for _ in range(2 * n_alpha + 1):
            slack = c1n
            for k in range(m):
                if is_alpha[k]:
                    slack -= lam[k]
            # a slack of rounding size is none: moving such crumbs would stall the pairwise steps
            slack = slack if slack > 1e-12 * c1n else 0.0
            i = -1  # receives mass; -1 = the slack (gradient 0)
            gi = 0.0
            j = -1  # gives mass; -1 = the slack when it is positive
            gj = 0.0 if slack > 0.0 else -np.inf
            for k in range(m):
                if not is_alpha[k]:
                    continue
                if g[k] < gi:
                    i = k
                    gi = g[k]
                if lam[k] > 0.0 and g[k] > gj:
                    j = k
                    gj = g[k]
            if gj - gi <= 0.1 * tol or i == j:
                break
            kii = K[i, i] if i >= 0 else 0.0
            kjj = K[j, j] if j >= 0 else 0.0
            kij = K[i, j] if (i >= 0 and j >= 0) else 0.0
            curv = kii + kjj - 2.0 * kij
            avail = lam[j] if j >= 0 else slack
            step = avail if curv <= 1e-14 else min((gj - gi) / curv, avail)
            if i >= 0:
                lam[i] += step
                for p in range(m):
                    g[p] += step * K[p, i]
            if j >= 0:
                lam[j] = lam[j] - step if step < avail else 0.0
                for p in range(m):
                    g[p] -= step * K[p, j]
        if block_kkt(m, g, lam, ub, is_alpha, c1n) <= tol:
            return it + 1
    return max_iter


@_njit
def _apply(
    i,
    delta,
    m,
    ea,
    ec,
    is_alpha,
    W,
    T,
    bvec,
    bf,
    feat_indptr,
    feat_indices,
    left,
    allowed,
    cand_ptr,
    cand_a,
    cand_c,
    d1,
    d2,
):
    """``ω += Σ_k δ_k z_k`` for piece ``i``'s block (``z`` as in :func:`._block_gram_kernels._assemble`)."""
    t = left[i]
    L = W.shape[1]
    A1 = allowed[t]
    A2 = allowed[t + 1]
    k1 = 0.0
    k2 = 0.0
    for y in range(L):
        k1 += A1[y]
        k2 += A2[y]
    s = float(cand_ptr[i + 1] - cand_ptr[i])
    d1[:] = 0.0
    d2[:] = 0.0
    d_alpha = 0.0
    d_bias = 0.0
    for k in range(m):
        if delta[k] == 0.0:
            continue
        sign = 1.0
        if is_alpha[k]:
            d_alpha += delta[k]
            sign = -1.0
        else:
            d_bias += delta[k]
        d1[ea[k]] += sign * delta[k]
        d2[ec[k]] += sign * delta[k]
        T[ea[k], ec[k]] += sign * delta[k]
    if d_alpha != 0.0:
        for y in range(L):
            if A1[y]:
                d1[y] += d_alpha * k2
            if A2[y]:
                d2[y] += d_alpha * k1
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            T[cand_a[j], cand_c[j]] += d_alpha
    bvec[0] += bf * (d_alpha * (s - 1.0) + d_bias)
    for p in range(feat_indptr[t], feat_indptr[t + 1]):
        for y in range(L):
            W[feat_indices[p], y] += d1[y]
    for p in range(feat_indptr[t + 1], feat_indptr[t + 2]):
        for y in range(L):
            W[feat_indices[p], y] += d2[y]


@_njit
def block_pass(
    lo,
    hi,
    W,
    T,
    bvec,
    use_bias,
    feat_indptr,
    feat_indices,
    left,
    allowed,
    cand_ptr,
    cand_a,
    cand_c,
    n1,
    n2,
    n12,
    conf,
    c1n,
    c2n,
    ws_n,
    ws_a,
    ws_c,
    ws_lam,
    beta,
    beta_in,
    tol,
    max_iter,
):
    """One block-coordinate pass over pieces ``lo:hi`` of the restricted dual.

    Every block whose KKT violation exceeds ``tol`` is solved exactly
    (:func:`solve_block`, to ``tol / 10``) with the other blocks fixed, and
    ``ω = (W, T, b)`` is updated.  Returns the number of blocks changed.
    """
    L = W.shape[1]
    bf = 1.0 if use_bias else 0.0
    u = np.zeros((2, L))
    d1 = np.zeros(L)
    d2 = np.zeros(L)
    cap = ws_a.shape[1]
    size = cap + 4
    ea, ec, cj, is_alpha, lam, old, r, ub, g, K = _block_workspace(size)
    changed = 0
    for i in range(lo, hi):
        m = _block_size(i, cand_ptr, ws_n, beta_in)
        if m == 0:
            continue
        if m > size:
            size = 2 * m
            ea, ec, cj, is_alpha, lam, old, r, ub, g, K = _block_workspace(size)
        bias = bvec[0] * bf
        _assemble(
            i,
            W,
            T,
            bias,
            bf,
            feat_indptr,
            feat_indices,
            left,
            allowed,
            cand_ptr,
            cand_a,
            cand_c,
            n1,
            n2,
            n12,
            conf,
            c1n,
            c2n,
            ws_n,
            ws_a,
            ws_c,
            ws_lam,
            beta,
            beta_in,
            u,
            ea,
            ec,
            cj,
            is_alpha,
            lam,
            r,
            ub,
            g,
            K,
        )
        if block_kkt(m, g, lam, ub, is_alpha, c1n) <= tol:
            continue
        old[:m] = lam[:m]
        solve_block(m, K, g, lam, ub, is_alpha, c1n, 0.1 * tol, max_iter)
        for k in range(m):
            old[k] = lam[k] - old[k]
        _apply(
            i,
            old,
            m,
            ea,
            ec,
            is_alpha,
            W,
            T,
            bvec,
            bf,
            feat_indptr,
            feat_indices,
            left,
            allowed,
            cand_ptr,
            cand_a,
            cand_c,
            d1,
            d2,
        )
        for k in range(m):
            if is_alpha[k]:
                ws_lam[i, k] = lam[k]
            else:
                beta[cj[k]] = lam[k]
        changed += 1
    return changed

"""numba kernels that assemble WD-PSL's block QP of one piece: its entries, bounds, gradient and Gram matrix.

Working sets.  Piece ``i``'s Eq. 18 entries (multipliers ``α``) are
``ws_a[i, :ws_n[i]]``, ``ws_c[i, :ws_n[i]]`` with multipliers
``ws_lam[i, :ws_n[i]]``; its Eq. 20 entries (multipliers ``β``) are the
candidates ``j`` of the piece with ``beta_in[j]``, multiplier ``beta[j]``.
A block lists the α entries first, then the β entries in candidate order.

Vectors.  With ``f(a, c) = φ1 ⊗ e_a + φ2 ⊗ e_c + e_(a,c) + e_bias`` and
``F = Σ_{y ∈ C} f(y)`` (Eq. 9), an α entry is ``F − f(a, c)`` (Eq. 18) and
a β entry is ``f(a, c)`` (Eq. 20).  Their inner products follow in closed
form from ``n1 = |φ1|²``, ``n2 = |φ2|²``, ``n12 = ⟨φ1, φ2⟩`` and the
allowed sets, so a block's Gram matrix costs O(m²), not O(m² · L²)
(:func:`_assemble`).  Solving the block and the pass over the pieces are
:mod:`tagtool.learn.piecewise._block_kernels`.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 9, 17–21.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.learn._emission import sentence_emission


@_njit
def _pair_dot(a, c, a2, c2, n1, n2, n12, bf):
    """``⟨f(a, c), f(a2, c2)⟩`` (``bf`` = 1 with the bias feature, else 0)."""
    v = bf
    if a == a2:
        v += n1
    if c == c2:
        v += n2
    if a == c2:
        v += n12
    if c == a2:
        v += n12
    if a == a2 and c == c2:
        v += 1.0
    return v


@_njit
def _sum_dot(a, c, A1, A2, k1, k2, s, n1, n2, n12, bf):
    """``⟨F, f(a, c)⟩`` with ``F = Σ_{(a', c') ∈ A1 × A2} f(a', c')``."""
    v = bf * s
    if A1[a]:
        v += n1 * k2
    if A2[c]:
        v += n2 * k1
    if A1[c]:
        v += n12 * k2
    if A2[a]:
        v += n12 * k1
    if A1[a] and A2[c]:
        v += 1.0
    return v


@_njit
def _block_size(i, cand_ptr, ws_n, beta_in):
    m = ws_n[i]
    for j in range(cand_ptr[i], cand_ptr[i + 1]):
        if beta_in[j]:
            m += 1
    return m


@_njit
def _assemble(
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
):
    """Fill piece ``i``'s block: entries, multipliers, targets ``r``, bounds, gradient and Gram matrix.

    ``g = K λ − r`` evaluated through the explicit ``ω`` (``⟨z, ω⟩ − r``),
    the gradient of the min-form restricted dual ``½‖ω‖² − Σ r λ``.
    Returns the block size ``m``.
    """
    t = left[i]
    A1 = allowed[t]
    A2 = allowed[t + 1]
    # the two tokens' emission scores (all features: no views here, so no feature_view array)
    sentence_emission(feat_indptr, feat_indices, feat_indices, -1, t, t + 2, W, u)
    u1 = u[0]
    u2 = u[1]
    k1 = 0.0
    k2 = 0.0
    k12 = 0.0
    for y in range(W.shape[1]):
        k1 += A1[y]
        k2 += A2[y]
        k12 += A1[y] and A2[y]
    lo = cand_ptr[i]
    hi = cand_ptr[i + 1]
    s = float(hi - lo)
    total = 0.0
    for j in range(lo, hi):
        total += u1[cand_a[j]] + u2[cand_c[j]] + T[cand_a[j], cand_c[j]] + bias
    m = 0
    for k in range(ws_n[i]):
        a = ws_a[i, k]
        c = ws_c[i, k]
        ea[m] = a
        ec[m] = c
        cj[m] = -1
        is_alpha[m] = True
        lam[m] = ws_lam[i, k]
        r[m] = 0.0 if (A1[a] and A2[c]) else s
        ub[m] = c1n
        g[m] = total - (u1[a] + u2[c] + T[a, c] + bias) - r[m]
        m += 1
    for j in range(lo, hi):
        if not beta_in[j]:
            continue
        a = cand_a[j]
        c = cand_c[j]
        ea[m] = a
        ec[m] = c
        cj[m] = j
        is_alpha[m] = False
        lam[m] = beta[j]
        r[m] = 1.0
        ub[m] = c2n * conf[j]
        g[m] = u1[a] + u2[c] + T[a, c] + bias - 1.0
        m += 1
    ff_all = n1[i] * k1 * k2 * k2 + n2[i] * k2 * k1 * k1 + 2.0 * n12[i] * k12 * k1 * k2 + s + bf * s * s
    for p in range(m):
        fp = _sum_dot(ea[p], ec[p], A1, A2, k1, k2, s, n1[i], n2[i], n12[i], bf)
        for q in range(p, m):
            fq = _sum_dot(ea[q], ec[q], A1, A2, k1, k2, s, n1[i], n2[i], n12[i], bf)
            pq = _pair_dot(ea[p], ec[p], ea[q], ec[q], n1[i], n2[i], n12[i], bf)
            if is_alpha[p] and is_alpha[q]:
                v = ff_all - fp - fq + pq
            elif is_alpha[p]:
                v = fq - pq
            elif is_alpha[q]:
                v = fp - pq
            else:
                v = pq
            K[p, q] = v
            K[q, p] = v
    return m


@_njit
def _block_workspace(size):
    """Zeroed arrays for one block of up to ``size`` dual variables.

    ``(a, c, cand, is_alpha, λ, λ_old, r, ub, g, K)``: the outputs' piece labels
    and candidate indices, the β index, which are α, the values, their previous
    values, the linear term, the upper bounds, the gradient and the Gram matrix.
    """
    return (
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        np.zeros(size, np.int64),
        np.zeros(size, np.bool_),
        np.zeros(size),
        np.zeros(size),
        np.zeros(size),
        np.zeros(size),
        np.zeros(size),
        np.zeros((size, size)),
    )


@_njit
def assemble_block(
    i,
    W,
    T,
    bias,
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
):
    """Piece ``i``'s block as :func:`._block_kernels.block_pass` sees it: ``(K, g, λ, r, ub, is_alpha, a, c, cand)``."""
    m = _block_size(i, cand_ptr, ws_n, beta_in)
    L = W.shape[1]
    ea, ec, cj, is_alpha, lam, _, r, ub, g, K = _block_workspace(m)
    bf = 1.0 if use_bias else 0.0
    _assemble(
        i,
        W,
        T,
        bias * bf,
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
        np.zeros((2, L)),
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
    return K, g, lam, r, ub, is_alpha, ea, ec, cj

"""numba kernels of WD-PSL: piece energies, most violated outputs, Eq. 22.

A *piece* is a pair of adjacent tokens ``(t − 1, t)`` of one sentence (one
transition factor, DESIGN §5.4).  With token emission scores ``u`` (the
shared state weights summed over a token's features), transition scores
``T`` and the bias ``b``, the energy of the pair output ``(a, c)`` is

    E(a, c) = u[t − 1, a] + u[t, c] + T[a, c] + b.

The piece's candidate outputs ``A_{t−1} × A_t`` are stored as CSR rows
(``cand_ptr``, ``cand_a``, ``cand_c``).  Every kernel here works one piece
at a time and holds only loops; :mod:`tagtool.learn.wdpsl` validates the
arrays and calls them.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 3, 9, 13, 18, 20, 22.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.learn._emission import sentence_emission


@_njit
def piece_energies(emit, trans, bias, left, cand_ptr, cand_a, cand_c, out):
    """``out[j]`` = energy of candidate ``j`` (Eq. 3 on a two-token piece)."""
    for i in range(len(left)):
        t = left[i]
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            a = cand_a[j]
            c = cand_c[j]
            out[j] = emit[t, a] + emit[t + 1, c] + trans[a, c] + bias


@_njit
def most_violated(emit, trans, bias, left, allowed, cand_ptr, cand_a, cand_c, out_a, out_c, out_slack):
    """Per piece the output maximising the margin-rescaled violation of Eq. 18.

    ``Δ(y'') + E(y'') − E(C)`` over all ``L²`` pair outputs, with
    ``E(C) = Σ_{y ∈ C} E(y)`` (Eq. 9) and ``Δ = |C|`` outside the candidates,
    0 inside (Eq. 13).  ``out_slack[i]`` receives ``max(0, best)``, the
    exact ``ξ_i`` of the piece for the current weights.
    """
    n_labels = emit.shape[1]
    for i in range(len(left)):
        t = left[i]
        s = cand_ptr[i + 1] - cand_ptr[i]
        total = 0.0
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            total += emit[t, cand_a[j]] + emit[t + 1, cand_c[j]] + trans[cand_a[j], cand_c[j]] + bias
        best = -np.inf
        best_a = 0
        best_c = 0
        for a in range(n_labels):
            for c in range(n_labels):
                loss = 0.0 if (allowed[t, a] and allowed[t + 1, c]) else float(s)
                value = loss + emit[t, a] + emit[t + 1, c] + trans[a, c] + bias - total
                if value > best:
                    best = value
                    best_a = a
                    best_c = c
        out_a[i] = best_a
        out_c[i] = best_c
        out_slack[i] = max(best, 0.0)


@_njit
def eq22_confidences(energies, cand_ptr, out):
    """Eq. 22 per piece: ``(E_j − min E) / (max E − min E)`` over its candidates.

    A piece whose candidates all have the same energy (one candidate, or a
    tie) has no ranking to give; its candidates get ``1 / s`` (the paper's
    uniform initialisation, §IV-B).
    """
    for i in range(len(cand_ptr) - 1):
        lo = np.inf
        hi = -np.inf
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            lo = min(lo, energies[j])
            hi = max(hi, energies[j])
        s = cand_ptr[i + 1] - cand_ptr[i]
        span = hi - lo
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            if span > 1e-12 * max(1.0, abs(hi)):
                out[j] = (energies[j] - lo) / span
            else:
                out[j] = 1.0 / s


@_njit
def shared_features(feat_indptr, feat_indices, left, n_features, out):
    """``out[i]`` = number of features the two tokens of piece ``i`` share.

    The state weights are shared by both positions of a piece, so the inner
    product of two piece feature vectors has a cross term ``⟨φ_{t−1}, φ_t⟩``.
    """
    mark = np.zeros(n_features, dtype=np.bool_)
    for i in range(len(left)):
        t = left[i]
        for j in range(feat_indptr[t], feat_indptr[t + 1]):
            mark[feat_indices[j]] = True
        count = 0
        for j in range(feat_indptr[t + 1], feat_indptr[t + 2]):
            if mark[feat_indices[j]]:
                count += 1
        out[i] = count
        for j in range(feat_indptr[t], feat_indptr[t + 1]):
            mark[feat_indices[j]] = False


@_njit
def candidate_violations(energies, cand_ptr, conf, margin, out):
    """``out[j]`` = ``P_j · max(0, 1 − E_j)``: the weighted slack of Eq. 20 (0 when ``P_j = 0``)."""
    for j in range(len(energies)):
        out[j] = conf[j] * max(0.0, margin - energies[j])


@_njit
def token_confidence_mass(conf, cand_ptr, cand_a, cand_c, left, n_tokens, n_labels, out):
    """Sum the pieces' candidate confidences onto each token and label.

    ``out[t, y]`` = Σ over pieces containing ``t`` of the ``P`` of the
    candidates that give ``t`` the label ``y`` (DESIGN §5.4, the UI's
    per-token confidence before normalisation).
    """
    for i in range(len(left)):
        t = left[i]
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            out[t, cand_a[j]] += conf[j]
            out[t + 1, cand_c[j]] += conf[j]


# ----------------------------------------------------------------------
# the restricted dual in numba: working sets, block QPs, one pass per call
#
# Working sets.  Piece ``i``'s Eq. 18 entries (multipliers ``α``) are
# ``ws_a[i, :ws_n[i]]``, ``ws_c[i, :ws_n[i]]`` with multipliers
# ``ws_lam[i, :ws_n[i]]``; its Eq. 20 entries (multipliers ``β``) are the
# candidates ``j`` of the piece with ``beta_in[j]``, multiplier ``beta[j]``.
# A block lists the α entries first, then the β entries in candidate order.
#
# Vectors.  With ``f(a, c) = φ1 ⊗ e_a + φ2 ⊗ e_c + e_(a,c) + e_bias`` and
# ``F = Σ_{y ∈ C} f(y)`` (Eq. 9), an α entry is ``F − f(a, c)`` (Eq. 18) and
# a β entry is ``f(a, c)`` (Eq. 20).  Their inner products follow in closed
# form from ``n1 = |φ1|²``, ``n2 = |φ2|²``, ``n12 = ⟨φ1, φ2⟩`` and the
# allowed sets, so a block's Gram matrix costs O(m²), not O(m² · L²).


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
def _assemble(i, W, T, bias, bf, feat_indptr, feat_indices, left, allowed, cand_ptr, cand_a, cand_c,
              n1, n2, n12, conf, c1n, c2n, ws_n, ws_a, ws_c, ws_lam, beta, beta_in,
              u, ea, ec, cj, is_alpha, lam, r, ub, g, K):
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
    ff_all = (n1[i] * k1 * k2 * k2 + n2[i] * k2 * k1 * k1 + 2.0 * n12[i] * k12 * k1 * k2 + s + bf * s * s)
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
def _apply(i, delta, m, ea, ec, is_alpha, W, T, bvec, bf, feat_indptr, feat_indices, left, allowed,
           cand_ptr, cand_a, cand_c, d1, d2):
    """``ω += Σ_k δ_k z_k`` for piece ``i``'s block (``z`` as in :func:`_assemble`)."""
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
def _block_workspace(size):
    """Zeroed arrays for one block of up to ``size`` dual variables.

    ``(a, c, cand, is_alpha, λ, λ_old, r, ub, g, K)``: the outputs' piece labels
    and candidate indices, the β index, which are α, the values, their previous
    values, the linear term, the upper bounds, the gradient and the Gram matrix.
    """
    return (np.zeros(size, np.int64), np.zeros(size, np.int64), np.zeros(size, np.int64),
            np.zeros(size, np.bool_), np.zeros(size), np.zeros(size), np.zeros(size), np.zeros(size),
            np.zeros(size), np.zeros((size, size)))


@_njit
def block_pass(lo, hi, W, T, bvec, use_bias, feat_indptr, feat_indices, left, allowed, cand_ptr, cand_a, cand_c,
               n1, n2, n12, conf, c1n, c2n, ws_n, ws_a, ws_c, ws_lam, beta, beta_in, tol, max_iter):
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
        _assemble(i, W, T, bias, bf, feat_indptr, feat_indices, left, allowed, cand_ptr, cand_a, cand_c,
                  n1, n2, n12, conf, c1n, c2n, ws_n, ws_a, ws_c, ws_lam, beta, beta_in,
                  u, ea, ec, cj, is_alpha, lam, r, ub, g, K)
        if block_kkt(m, g, lam, ub, is_alpha, c1n) <= tol:
            continue
        old[:m] = lam[:m]
        solve_block(m, K, g, lam, ub, is_alpha, c1n, 0.1 * tol, max_iter)
        for k in range(m):
            old[k] = lam[k] - old[k]
        _apply(i, old, m, ea, ec, is_alpha, W, T, bvec, bf, feat_indptr, feat_indices, left, allowed,
               cand_ptr, cand_a, cand_c, d1, d2)
        for k in range(m):
            if is_alpha[k]:
                ws_lam[i, k] = lam[k]
            else:
                beta[cj[k]] = lam[k]
        changed += 1
    return changed


@_njit
def assemble_block(i, W, T, bias, use_bias, feat_indptr, feat_indices, left, allowed, cand_ptr, cand_a, cand_c,
                   n1, n2, n12, conf, c1n, c2n, ws_n, ws_a, ws_c, ws_lam, beta, beta_in):
    """Piece ``i``'s block as :func:`block_pass` sees it: ``(K, g, λ, r, ub, is_alpha, a, c, cand)``."""
    m = _block_size(i, cand_ptr, ws_n, beta_in)
    L = W.shape[1]
    ea, ec, cj, is_alpha, lam, _, r, ub, g, K = _block_workspace(m)
    bf = 1.0 if use_bias else 0.0
    _assemble(i, W, T, bias * bf, bf, feat_indptr, feat_indices, left, allowed, cand_ptr, cand_a, cand_c,
              n1, n2, n12, conf, c1n, c2n, ws_n, ws_a, ws_c, ws_lam, beta, beta_in,
              np.zeros((2, L)), ea, ec, cj, is_alpha, lam, r, ub, g, K)
    return K, g, lam, r, ub, is_alpha, ea, ec, cj


@_njit
def add_violators(emit, T, bias, left, allowed, cand_ptr, cand_a, cand_c, conf, epsilon,
                  ws_n, ws_a, ws_c, ws_lam, ws_idle, beta_in, beta_idle):
    """Add each piece's most violated Eq. 18 output and its violated Eq. 20 candidates.

    The Eq. 18 output joins when its violation exceeds the piece's
    working-set slack ``ξ_i`` (the largest violation among its entries, or
    0) by ``epsilon`` (Joachims et al. 2009, n-slack); a candidate joins when
    ``E < 1 − epsilon`` and its confidence is positive.  The caller
    guarantees a free slot per piece.  Returns the number of entries added.
    """
    L = emit.shape[1]
    added = 0
    for i in range(len(left)):
        t = left[i]
        lo = cand_ptr[i]
        hi = cand_ptr[i + 1]
        s = float(hi - lo)
        total = 0.0
        for j in range(lo, hi):
            total += emit[t, cand_a[j]] + emit[t + 1, cand_c[j]] + T[cand_a[j], cand_c[j]] + bias
        best = -np.inf
        best_a = 0
        best_c = 0
        for a in range(L):
            for c in range(L):
                loss = 0.0 if (allowed[t, a] and allowed[t + 1, c]) else s
                value = loss + emit[t, a] + emit[t + 1, c] + T[a, c] + bias - total
                if value > best:
                    best = value
                    best_a = a
                    best_c = c
        xi_ws = 0.0
        present = False
        for k in range(ws_n[i]):
            a = ws_a[i, k]
            c = ws_c[i, k]
            loss = 0.0 if (allowed[t, a] and allowed[t + 1, c]) else s
            xi_ws = max(xi_ws, loss + emit[t, a] + emit[t + 1, c] + T[a, c] + bias - total)
            present = present or (a == best_a and c == best_c)
        if max(best, 0.0) > xi_ws + epsilon and not present:
            k = ws_n[i]
            ws_a[i, k] = best_a
            ws_c[i, k] = best_c
            ws_lam[i, k] = 0.0
            ws_idle[i, k] = 0
            ws_n[i] = k + 1
            added += 1
        for j in range(lo, hi):
            if beta_in[j] or conf[j] <= 0.0:
                continue
            if emit[t, cand_a[j]] + emit[t + 1, cand_c[j]] + T[cand_a[j], cand_c[j]] + bias < 1.0 - epsilon:
                beta_in[j] = True
                beta_idle[j] = 0
                added += 1
    return added


@_njit
def drop_inactive(after, ws_n, ws_a, ws_c, ws_lam, ws_idle, beta, beta_in, beta_idle):
    """Drop working-set entries whose multiplier has been 0 for more than ``after`` rounds.

    A zero multiplier contributes nothing to ``ω``, so dropping it leaves
    the restricted optimum unchanged; if its constraint becomes violated
    again, the cutting plane adds it back.  Returns the number dropped.
    """
    dropped = 0
    for i in range(len(ws_n)):
        keep = 0
        for k in range(ws_n[i]):
            idle = ws_idle[i, k] + 1 if ws_lam[i, k] == 0.0 else 0
            if idle > after:
                dropped += 1
                continue
            ws_a[i, keep] = ws_a[i, k]
            ws_c[i, keep] = ws_c[i, k]
            ws_lam[i, keep] = ws_lam[i, k]
            ws_idle[i, keep] = idle
            keep += 1
        ws_n[i] = keep
    for j in range(len(beta)):
        if not beta_in[j]:
            continue
        beta_idle[j] = beta_idle[j] + 1 if beta[j] == 0.0 else 0
        if beta_idle[j] > after:
            beta_in[j] = False
            dropped += 1
    return dropped


@_njit
def clip_betas(W, T, bvec, use_bias, feat_indptr, feat_indices, left, cand_ptr, cand_a, cand_c, conf, c2n,
               beta, beta_in):
    """Clip every β to its box ``C2 P / n`` after ``P`` changed (Eq. 22), updating ``ω``."""
    bf = 1.0 if use_bias else 0.0
    for i in range(len(left)):
        t = left[i]
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            if not beta_in[j]:
                continue
            upper = c2n * conf[j]
            if beta[j] <= upper:
                continue
            d = upper - beta[j]
            beta[j] = upper
            a = cand_a[j]
            c = cand_c[j]
            for p in range(feat_indptr[t], feat_indptr[t + 1]):
                W[feat_indices[p], a] += d
            for p in range(feat_indptr[t + 1], feat_indptr[t + 2]):
                W[feat_indices[p], c] += d
            T[a, c] += d
            bvec[0] += bf * d


@_njit
def top_k_rows(indptr, indices, data, row0, n_pieces, k, noise, fill, out):
    """Each row's ``k`` largest entries of a sparse similarity block, the diagonal excluded.

    Row ``r`` of the block is piece ``row0 + r``.  Ties are broken by
    ``noise`` (per entry, ≪ any similarity gap).  Pieces absent from the row
    have similarity 0 and rank below every positive entry, among themselves
    at random: a row with fewer than ``k`` positive entries is completed
    from ``fill[r]`` (random pieces), skipping the piece itself and pieces
    already taken (then, if ``fill`` runs out, the next pieces in order).
    """
    n_rows = len(indptr) - 1
    best_v = np.empty(k)
    best_i = np.empty(k, np.int64)
    for r in range(n_rows):
        self_id = row0 + r
        taken = 0
        worst = 0  # slot of the smallest kept value once k are kept
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if j == self_id or data[p] <= 0.0:
                continue
            v = data[p] + noise[p]
            if taken < k:
                best_v[taken] = v
                best_i[taken] = j
                taken += 1
                if taken == k:
                    for z in range(k):
                        if best_v[z] < best_v[worst]:
                            worst = z
            elif v > best_v[worst]:
                best_v[worst] = v
                best_i[worst] = j
                for z in range(k):
                    if best_v[z] < best_v[worst]:
                        worst = z
        # most similar first
        order = np.argsort(-best_v[:taken])
        for q in range(taken):
            out[r, q] = best_i[order[q]]
        q = 0
        nxt = self_id
        while taken < k:
            if q < fill.shape[1]:
                cand = fill[r, q]
                q += 1
            else:
                nxt = (nxt + 1) % n_pieces
                cand = nxt
            if cand == self_id:
                continue
            dup = False
            for z in range(taken):
                if out[r, z] == cand:
                    dup = True
                    break
            if not dup:
                out[r, taken] = cand
                taken += 1

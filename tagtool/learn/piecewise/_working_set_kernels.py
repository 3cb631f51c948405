"""numba kernels of WD-PSL's working sets: entries join when violated, leave when idle, β boxes follow ``P``.

Piece ``i``'s Eq. 18 entries (multipliers ``α``) are ``ws_a[i, :ws_n[i]]``,
``ws_c[i, :ws_n[i]]`` with multipliers ``ws_lam[i, :ws_n[i]]``; its Eq. 20
entries (multipliers ``β``) are the candidates ``j`` of the piece with
``beta_in[j]``, multiplier ``beta[j]`` (the layout of
:mod:`tagtool.learn.piecewise._block_kernels`).

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 18, 20, 22.
.. [2] T. Joachims, T. Finley, C.-N. J. Yu. Cutting-plane training of
   structural SVMs. Machine Learning 77, 2009 (n-slack algorithm).
"""

from __future__ import annotations

from tagtool.decode._jit import _njit
from tagtool.learn.piecewise._piece_kernels import piece_violation


@_njit
def add_violators(
    emit,
    T,
    bias,
    left,
    allowed,
    cand_ptr,
    cand_a,
    cand_c,
    conf,
    epsilon,
    ws_n,
    ws_a,
    ws_c,
    ws_lam,
    ws_idle,
    beta_in,
    beta_idle,
):
    """Add each piece's most violated Eq. 18 output and its violated Eq. 20 candidates.

    The Eq. 18 output joins when its violation exceeds the piece's
    working-set slack ``ξ_i`` (the largest violation among its entries, or
    0) by ``epsilon`` (Joachims et al. 2009, n-slack); a candidate joins when
    ``E < 1 − epsilon`` and its confidence is positive.  The caller
    guarantees a free slot per piece.  Returns the number of entries added.
    """
    added = 0
    for i in range(len(left)):
        t = left[i]
        lo = cand_ptr[i]
        hi = cand_ptr[i + 1]
        s = float(hi - lo)
        best, best_a, best_c, total = piece_violation(emit, T, bias, t, allowed, lo, hi, cand_a, cand_c)
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
def clip_betas(
    W, T, bvec, use_bias, feat_indptr, feat_indices, left, cand_ptr, cand_a, cand_c, conf, c2n, beta, beta_in
):
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

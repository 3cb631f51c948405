"""numba kernels of WD-PSL's pieces: energies, most violated outputs, Eq. 22, nearest pieces.

A *piece* is a pair of adjacent tokens ``(t − 1, t)`` of one sentence (one
transition factor, docs/design.md#wd-psl).  With token emission scores ``u`` (the
shared state weights summed over a token's features), transition scores
``T`` and the bias ``b``, the energy of the pair output ``(a, c)`` is

    E(a, c) = u[t − 1, a] + u[t, c] + T[a, c] + b.

The piece's candidate outputs ``A_{t−1} × A_t`` are stored as CSR rows
(``cand_ptr``, ``cand_a``, ``cand_c``).  Every kernel here works one piece
at a time and holds only loops; :mod:`tagtool.learn.piecewise.pieces` and
:mod:`tagtool.learn.piecewise.dual` prepare the arrays and call them.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 3, 9, 13, 18, 20, 22.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit


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
def piece_violation(emit, trans, bias, t, allowed, lo, hi, cand_a, cand_c):
    """The pair output of the piece at ``t`` maximising the margin-rescaled violation of Eq. 18.

    ``Δ(y'') + E(y'') − E(C)`` over all ``L²`` pair outputs, with ``E(C) =
    Σ_{y ∈ C} E(y)`` over the candidates ``lo:hi`` (Eq. 9) and ``Δ = |C|``
    outside the candidates, 0 inside (Eq. 13).  Returns ``(violation, a, c,
    E(C))``.
    """
    n_labels = emit.shape[1]
    s = float(hi - lo)
    total = 0.0
    for j in range(lo, hi):
        total += emit[t, cand_a[j]] + emit[t + 1, cand_c[j]] + trans[cand_a[j], cand_c[j]] + bias
    best = -np.inf
    best_a = 0
    best_c = 0
    for a in range(n_labels):
        for c in range(n_labels):
            loss = 0.0 if (allowed[t, a] and allowed[t + 1, c]) else s
            value = loss + emit[t, a] + emit[t + 1, c] + trans[a, c] + bias - total
            if value > best:
                best = value
                best_a = a
                best_c = c
    return best, best_a, best_c, total


@_njit
def most_violated(emit, trans, bias, left, allowed, cand_ptr, cand_a, cand_c, out_a, out_c, out_slack):
    """Per piece the output maximising the violation of Eq. 18 (:func:`piece_violation`).

    ``out_slack[i]`` receives ``max(0, best)``, the exact ``ξ_i`` of the
    piece for the current weights.
    """
    for i in range(len(left)):
        best, a, c, _ = piece_violation(
            emit, trans, bias, left[i], allowed, cand_ptr[i], cand_ptr[i + 1], cand_a, cand_c
        )
        out_a[i] = a
        out_c[i] = c
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
    candidates that give ``t`` the label ``y`` (docs/design.md#wd-psl, the UI's
    per-token confidence before normalisation).
    """
    for i in range(len(left)):
        t = left[i]
        for j in range(cand_ptr[i], cand_ptr[i + 1]):
            out[t, cand_a[j]] += conf[j]
            out[t + 1, cand_c[j]] += conf[j]


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

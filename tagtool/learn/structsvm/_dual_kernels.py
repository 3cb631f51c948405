"""numba kernels of the structural SVMs' per-example dual: the SMO solver and one working-set round.

:func:`round_update` is one cutting-plane round of one example (add the
most violating output if it violates, re-solve, prune) in one call;
:func:`resolve` re-optimises the example's ``α`` by :func:`solve_dual`,
the sub-QP of :mod:`tagtool.learn.structsvm.subqp` solved by :func:`smo`,
and moves ``w`` through the joint-feature kernels of
:mod:`tagtool.learn.structsvm._joint_kernels`.

References
----------
.. [1] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6, 2005, Alg. 1.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Table 2 (working sets per example).
.. [3] J. Platt. Sequential minimal optimization. 1998 (the pairwise solver).
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.learn._emission import path_score
from tagtool.learn.structsvm._joint_kernels import apply_path, gram_entry

#: Solution codes of :func:`round_update`.
NOT_ADDED = 0
ADDED = 1
FULL = 2  # the working set has no free row: grow it and call again


@_njit
def smo(P, q, a, cost, boxed, alpha, tol, max_iter):
    """Exact solver of ``min ½αᵀPα + qᵀα``, ``α ≥ 0`` (and ``aᵀα ≤ cost`` if ``boxed``).

    With the box, ``β = a ∘ α`` plus a slack ``β_0 = cost − Σβ`` lie on a
    simplex, and pairs of coordinates move along ``e_i − e_j`` (SMO, Platt
    1998): ``i`` the steepest descent, ``j`` the steepest ascent among
    positive ones; stop when their gradients differ by less than ``tol``
    (the KKT conditions).  Without the box, cyclic coordinate descent with
    clipping at 0.  ``alpha`` holds a feasible start and the result.
    """
    m = q.shape[0]
    if not boxed:
        grad = P @ alpha + q
        for _ in range(max_iter):
            worst = 0.0
            for j in range(m):
                # the projected gradient before the move measures optimality
                pg = grad[j] if alpha[j] > 0.0 else min(grad[j], 0.0)
                worst = max(worst, abs(pg))
                new = max(alpha[j] - grad[j] / P[j, j], 0.0)
                step = new - alpha[j]
                if step != 0.0:
                    for r in range(m):
                        grad[r] += step * P[r, j]
                    alpha[j] = new
            if worst < tol:
                break
        return
    n = m + 1  # coordinate m is the slack
    Q = np.zeros((n, n))
    g = np.zeros(n)
    beta = np.zeros(n)
    for r in range(m):
        beta[r] = a[r] * alpha[r]
        g[r] = q[r] / a[r]
        for c in range(m):
            Q[r, c] = P[r, c] / (a[r] * a[c])
    beta[m] = max(cost - beta[:m].sum(), 0.0)
    g += Q @ beta
    for _ in range(max_iter):
        i = 0
        for r in range(1, n):
            if g[r] < g[i]:
                i = r
        j = -1
        for r in range(n):
            if beta[r] > 0.0 and (j < 0 or g[r] > g[j]):
                j = r
        if j < 0 or g[j] - g[i] < tol:
            break
        curv = Q[i, i] + Q[j, j] - 2.0 * Q[i, j]
        t = beta[j] if curv <= 0.0 else min((g[j] - g[i]) / curv, beta[j])
        beta[i] += t
        beta[j] -= t
        if beta[j] < 0.0:
            beta[j] = 0.0
        for r in range(n):
            g[r] += t * (Q[r, i] - Q[r, j])
    for r in range(m):
        alpha[r] = beta[r] / a[r]


@_njit
def solve_dual(gram, margins, losses, cost, norm, slack_rescaled, alpha, tol, max_iter):
    """The sub-QP of one example by :func:`smo`, in place on ``alpha``.

    The sub-QP is :func:`tagtool.learn.structsvm.subqp.subproblem`'s table.
    """
    m = margins.shape[0]
    P = np.empty((m, m))
    q = np.empty(m)
    a = np.ones(m)
    for j in range(m):
        q[j] = margins[j] - (1.0 if slack_rescaled else losses[j])
        if slack_rescaled and norm == 1:
            a[j] = 1.0 / losses[j]
    for j in range(m):
        for k in range(m):
            P[j, k] = gram[j, k]
            if norm == 2:
                rj = np.sqrt(losses[j]) if slack_rescaled else 1.0
                rk = np.sqrt(losses[k]) if slack_rescaled else 1.0
                P[j, k] += 1.0 / (rj * rk * cost)
        P[j, j] += 1e-12  # δΦ of one sentence can be linearly dependent
    for j in range(m):
        alpha[j] = max(alpha[j], 0.0)
    if norm == 1:
        total = 0.0
        for j in range(m):
            total += a[j] * alpha[j]
        if total > cost:
            for j in range(m):
                alpha[j] *= cost / total
    scale = 1.0
    for j in range(m):
        scale = max(scale, abs(q[j]))
    smo(P, q, a, cost, norm == 1, alpha, tol * scale, max_iter)


@_njit
def round_update(
    delta,
    trans,
    start,
    end,
    emit,
    K,
    y,
    paths,
    alpha,
    losses,
    gram,
    m,
    candidate,
    cand_loss,
    cost,
    norm,
    slack_rescaled,
    epsilon,
    alpha_tol,
    smo_tol,
    smo_iter,
):
    """One cutting-plane round of one example: add ``candidate`` if it violates, re-solve, prune.

    ``candidate`` is the most violating output the caller found (loss
    ``cand_loss > 0``).  It joins the working set (rows ``:m`` of ``paths``,
    ``alpha``, ``losses``, ``gram``) if its violation ``H`` exceeds the
    current slack ``ξ = max(0, max_j H_j)`` by more than ``epsilon`` and it
    is not there yet (Tsochantaridis et al. 2005, Alg. 1; Brefeld et al.
    2005, Table 2).  Then the example's ``α`` are re-optimised with the
    others fixed, outputs whose ``α`` fell to 0 leave, and ``w`` and
    ``emit`` move by ``Σ Δα δΦ``.

    Returns
    -------
    (m, code, kept, change) : new size, :data:`ADDED` / :data:`NOT_ADDED` /
    :data:`FULL`, whether the candidate is in the set afterwards, and
    ``max |Δα|``.
    """
    target_score = path_score(emit, trans, start, end, y)
    margin = target_score - path_score(emit, trans, start, end, candidate)
    h = cand_loss - margin if not slack_rescaled else cand_loss ** (1.0 / norm) * (1.0 - margin)
    slack = 0.0
    n = y.shape[0]
    for j in range(m):
        mj = target_score - path_score(emit, trans, start, end, paths[j])
        hj = losses[j] - mj if not slack_rescaled else losses[j] ** (1.0 / norm) * (1.0 - mj)
        slack = max(slack, hj)
        same = True
        for t in range(n):
            if paths[j, t] != candidate[t]:
                same = False
                break
        if same:
            return m, NOT_ADDED, False, 0.0
    if h <= slack + epsilon or cost <= 0.0:
        return m, NOT_ADDED, False, 0.0
    if m == paths.shape[0]:
        return m, FULL, False, 0.0
    paths[m] = candidate
    losses[m] = cand_loss
    alpha[m] = 0.0
    for j in range(m):
        g = gram_entry(K, y, paths[j], candidate)
        gram[j, m] = g
        gram[m, j] = g
    gram[m, m] = gram_entry(K, y, candidate, candidate)
    m += 1
    change, m, kept_row = resolve(
        delta,
        trans,
        start,
        end,
        emit,
        K,
        y,
        paths,
        alpha,
        losses,
        gram,
        m,
        cost,
        norm,
        slack_rescaled,
        alpha_tol,
        smo_tol,
        smo_iter,
        m - 1,
    )
    return m, ADDED, kept_row >= 0, change


@_njit
def resolve(
    delta,
    trans,
    start,
    end,
    emit,
    K,
    y,
    paths,
    alpha,
    losses,
    gram,
    m,
    cost,
    norm,
    slack_rescaled,
    alpha_tol,
    smo_tol,
    smo_iter,
    watch,
):
    """Re-optimise the ``m`` outputs' ``α`` (others fixed), apply, drop zeros.

    Returns ``(max |Δα|, new m, new row of output `watch` or −1 if dropped)``.
    """
    margins = np.empty(m)
    target_score = path_score(emit, trans, start, end, y)
    for j in range(m):
        own = 0.0
        for k in range(m):
            own += gram[j, k] * alpha[k]
        margins[j] = target_score - path_score(emit, trans, start, end, paths[j]) - own
    new = alpha[:m].copy()
    solve_dual(gram[:m, :m], margins, losses[:m], cost, norm, slack_rescaled, new, smo_tol, smo_iter)
    floor = alpha_tol * max(cost, 1.0)
    change = 0.0
    for j in range(m):
        if new[j] <= floor:
            new[j] = 0.0  # so that w stays exactly w_0 + Σ α δΦ over the kept outputs
        d = new[j] - alpha[j]
        if d != 0.0:
            apply_path(delta, trans, start, end, emit, K, y, paths[j], d)
            change = max(change, abs(d))
        alpha[j] = new[j]
    n_keep, moved = compact(paths, alpha, losses, gram, m, watch)
    return change, n_keep, moved


@_njit
def compact(paths, alpha, losses, gram, m, watch):
    """Drop rows with ``α = 0``; returns ``(new m, new row of `watch` or −1)``."""
    keep = np.empty(m, dtype=np.int64)
    n_keep = 0
    for j in range(m):
        if alpha[j] > 0.0:
            keep[n_keep] = j
            n_keep += 1
    moved = -1
    for r in range(n_keep):
        j = keep[r]
        if j == watch:
            moved = r
        if j != r:
            paths[r] = paths[j]
            alpha[r] = alpha[j]
            losses[r] = losses[j]
    for r in range(n_keep):
        for c in range(n_keep):
            gram[r, c] = gram[keep[r], keep[c]]
    return n_keep, moved

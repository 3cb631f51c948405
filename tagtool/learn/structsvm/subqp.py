"""The dual QP of one example of the structural SVMs, and its solvers.

For sentence ``i`` the variables ``α_{i,ȳ}``, ``ȳ ∈ S_i``, are re-optimised
with all other ``α`` fixed (Tsochantaridis et al. 2005; Brefeld et al. 2005,
Table 2; Brefeld & Scheffer 2006, §4.3).  :func:`subproblem` writes that
sub-QP for both norms, both rescalings and any loss; :func:`solve_subproblem`
solves it with cvxopt (:func:`tagtool.learn.qp.solve_qp`), the exact pairwise
solver :func:`tagtool.learn.structsvm._dual_kernels.smo`, or in closed form
for one variable.  :class:`SVMSettings` holds the choices they take.

The dual sub-problem of example ``i`` (cost ``c_i``, Gram ``K_{jk} =
⟨δΦ_j, δΦ_k⟩``, current margins ``m_j = ⟨w_rest, δΦ_j⟩`` of the weights
without this example's own ``α``, losses ``Δ_j``), written as cvxopt
minimises it, ``½ αᵀPα + qᵀα`` s.t. ``Gα ≤ h``:

============================  ==========================  ==============================  ======================
rescaling, norm               ``P``                        ``q``                           constraints
============================  ==========================  ==============================  ======================
margin, r = 1                 ``K``                        ``m − Δ``                       ``α ≥ 0, Σ α ≤ c``
margin, r = 2                 ``K + 1/c · 11ᵀ``            ``m − Δ``                       ``α ≥ 0``
slack, r = 1                  ``K``                        ``m − 1``                       ``α ≥ 0, Σ α/Δ ≤ c``
slack, r = 2                  ``K + 1/(c √Δ_j √Δ_k)``      ``m − 1``                       ``α ≥ 0``
============================  ==========================  ==============================  ======================

Margin rescaling comes from the constraints ``⟨w, δΦ⟩ ≥ Δ − ξ_i``, slack
rescaling from ``⟨w, δΦ⟩ ≥ 1 − ξ_i / Δ^{1/r}`` (Brefeld & Scheffer 2006,
Optimization Problems 3–6); with the 0/1 loss (``Δ = 1``) the two coincide.
The ``r = 2`` term couples *all* outputs of the same example, not only
``ȳ = ȳ'``: there is one slack per example, and ``(C/2) ξ_i²`` with ``ξ_i =
Σ_ȳ α_{i,ȳ} / (c √Δ)`` gives ``−(1/2c) (Σ_ȳ α_{i,ȳ}/√Δ)²`` in the dual
(Brefeld & Scheffer 2006, ``δ_{iȳ,jȳ'}`` below Optimization Problem 6;
Tsochantaridis et al. 2005, SVM₂).  The "diagonal" of Brefeld et al. (2005,
Eq. 27) is this block diagonal for single-output working sets.

References
----------
.. [1] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6,
   2005, §4 (margin/slack rescaling, the 1- and 2-norm duals, Alg. 1).
.. [2] Y. Altun, I. Tsochantaridis, T. Hofmann. Hidden Markov support vector
   machines. ICML 2003.
.. [3] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Table 2, Eq. 18–27.
.. [4] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §4, Optimization Problems 3–6, Alg. 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.learn.qp import solve_qp
from tagtool.learn.structsvm import _dual_kernels

#: KKT tolerance of the SMO solver, relative to the largest linear coefficient.
SMO_TOL = 1e-8
#: Iteration bound of the SMO solver.
SMO_ITER = 20000


@dataclass
class SVMSettings:
    """The loss, rescaling, norm, cost and solver of a structural SVM (their ranges: ``HMSVM.params``)."""

    C: float
    norm: int
    loss: str
    rescaling: str
    epsilon: float
    kbest: int
    qp_solver: str = "smo"


def subproblem(gram, margins, losses, cost, norm=1, rescaling="margin"):
    """The dual QP of one example in cvxopt's form ``(P, q, G, h)``.

    Parameters
    ----------
    gram : (m, m) array
        ``⟨δΦ_j, δΦ_k⟩`` of the working set's outputs.
    margins : (m,) array
        ``⟨w_rest, δΦ_j⟩`` with ``w_rest`` the weights without this
        example's own dual variables.
    losses : (m,) array
        ``Δ(y_i, ȳ_j) > 0``.
    cost : float
        The example's ``C`` (``C`` for labeled, ``min{γ,1}·C_u·C`` for
        unlabeled sentences in coSVM); 0 forces ``α = 0``.
    norm : {1, 2}
    rescaling : {"margin", "slack"}

    Returns
    -------
    P, q, G, h : arrays
        Minimise ``½ αᵀPα + qᵀα`` s.t. ``Gα ≤ h`` (the table in the module
        docstring).

    References
    ----------
    .. [1] U. Brefeld, T. Scheffer (2006), Optimization Problems 5 and 6.
    .. [2] I. Tsochantaridis et al. (2005), SVM₁/SVM₂ with margin and slack
       rescaling.
    """
    gram = np.asarray(gram, dtype=np.float64)
    margins = np.asarray(margins, dtype=np.float64)
    losses = np.asarray(losses, dtype=np.float64)
    m = len(margins)
    gain = losses if rescaling == "margin" else np.ones(m)
    q = margins - gain
    G = -np.eye(m)
    h = np.zeros(m)
    if norm == 1:
        weights = np.ones(m) if rescaling == "margin" else 1.0 / losses
        G = np.vstack([G, weights[None, :]])
        h = np.append(h, cost)
        P = gram.copy()
    else:
        root = np.ones(m) if rescaling == "margin" else np.sqrt(losses)
        P = gram + np.outer(1.0 / root, 1.0 / root) / cost
    return P, q, G, h


def _solve_one(P, q, G, h) -> float:
    """Closed form of a one-variable sub-QP: ``clip(−q/P, 0, upper)``."""
    upper = h[1] / G[1, 0] if G.shape[0] == 2 else np.inf
    if P[0, 0] <= 0.0:  # δΦ = 0 (cannot happen for ȳ ≠ y) — take the better end
        return float(upper) if q[0] < 0 and np.isfinite(upper) else 0.0
    return float(min(max(-q[0] / P[0, 0], 0.0), upper))


def solve_subproblem(
    gram, margins, losses, cost, norm=1, rescaling="margin", initial=None, solver="cvxopt"
) -> np.ndarray:
    """Optimal ``α`` of one example's sub-QP (:func:`subproblem`).

    A zero cost gives ``α = 0``.  One variable is solved in closed form;
    more go to cvxopt (:func:`tagtool.learn.qp.solve_qp`), or with
    ``solver="smo"`` to an exact pairwise (SMO) solver in numba that starts
    from ``initial`` — the same optimum (both are checked against the KKT
    conditions in the tests), and much faster on these tiny QPs.
    """
    m = len(margins)
    if cost <= 0.0:
        return np.zeros(m)
    P, q, G, h = subproblem(gram, margins, losses, cost, norm, rescaling)
    if m == 1:
        return np.array([_solve_one(P, q, G, h)])
    if solver == "smo":
        alpha = np.zeros(m) if initial is None else np.maximum(np.asarray(initial, dtype=np.float64), 0.0)
        boxed = norm == 1
        a = G[-1].copy() if boxed else np.ones(m)
        if boxed and a @ alpha > cost:
            alpha *= cost / (a @ alpha)
        P = P + 1e-12 * np.eye(m)  # δΦ of one sentence can be linearly dependent
        _dual_kernels.smo(P, q, a, float(cost), boxed, alpha, SMO_TOL * max(1.0, float(np.abs(q).max())), SMO_ITER)
        return alpha
    sol = solve_qp(P, q, G, h)
    alpha = np.maximum(sol.x, 0.0)
    if norm == 1:
        # cvxopt's interior point sits a hair inside the box; keep it feasible.
        weights = G[-1]
        total = weights @ alpha
        if total > cost:
            alpha *= cost / total
    return alpha

"""Small dense quadratic programs through cvxopt, and their KKT check.

The structural SVMs solve one small QP per example and working-set update
(Tsochantaridis et al. 2005; Brefeld & Scheffer 2006, Alg. 1); WD-PSL solves
one per cutting-plane round (Joachims et al. 2009).  All go through
:func:`solve_qp`, which passes ``options`` to each call — never
``cvxopt.solvers.options``, a global that a training thread must not touch.

References
----------
.. [1] M. Andersen, J. Dahl, L. Vandenberghe. CVXOPT: cone programming,
   ``cvxopt.solvers.qp``.
.. [2] S. Boyd, L. Vandenberghe. Convex Optimization, 2004, §5.5.3 (KKT).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from cvxopt import matrix, solvers

from tagtool.errors import TagtoolError

_OPTIONS = {"show_progress": False, "abstol": 1e-9, "reltol": 1e-8, "feastol": 1e-9, "maxiters": 200}


class QPError(TagtoolError, ArithmeticError):
    """cvxopt found no solution (infeasible or numerically stuck)."""


@dataclass(frozen=True)
class QPSolution:
    """Primal ``x``, multipliers ``z`` (inequalities) and ``y`` (equalities)."""

    x: np.ndarray
    z: np.ndarray
    y: np.ndarray
    status: str
    objective: float


def _as_matrix(a) -> matrix | None:
    if a is None:
        return None
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a[:, None]
    return matrix(np.ascontiguousarray(a))


def solve_qp(P, q, G=None, h=None, A=None, b=None, *, ridge: float = 1e-10, initvals=None) -> QPSolution:
    """Minimise ``½ xᵀPx + qᵀx`` s.t. ``Gx ≤ h``, ``Ax = b``.

    Parameters
    ----------
    P : (n, n) array, symmetric positive semidefinite
    q : (n,) array
    G, h : (m, n) and (m,) arrays, optional
    A, b : (p, n) and (p,) arrays, optional
    ridge : float
        Added to P's diagonal: Gram matrices of linearly dependent
        joint-feature differences are singular, which stalls cvxopt.
    initvals : dict, optional
        Warm start for cvxopt (``{"x": ...}``).

    Returns
    -------
    QPSolution
        ``status`` is ``"optimal"`` or ``"unknown"`` (cvxopt stopped at its
        iteration limit with a usable, slightly inaccurate point).

    Raises
    ------
    QPError
        cvxopt failed (e.g. a singular KKT system).
    """
    P = np.asarray(P, dtype=np.float64)
    P = 0.5 * (P + P.T) + ridge * np.eye(P.shape[0])
    try:
        res = solvers.qp(
            _as_matrix(P),
            _as_matrix(q),
            _as_matrix(G),
            _as_matrix(h),
            _as_matrix(A),
            _as_matrix(b),
            initvals=initvals,
            options=_OPTIONS,
        )
    except (ValueError, ArithmeticError) as exc:
        raise QPError(f"QP with {P.shape[0]} variables failed: {exc}") from exc
    if res["x"] is None:
        raise QPError(f"QP with {P.shape[0]} variables: cvxopt returned no solution ({res['status']})")
    return QPSolution(
        x=np.array(res["x"]).ravel(),
        z=np.array(res["z"]).ravel() if res["z"] is not None else np.zeros(0),
        y=np.array(res["y"]).ravel() if res["y"] is not None else np.zeros(0),
        status=res["status"],
        objective=float(res["primal objective"]),
    )


def kkt_residuals(sol: QPSolution, P, q, G=None, h=None, A=None, b=None) -> dict[str, float]:
    """The four KKT residuals of a QP solution (all ≈ 0 at an optimum).

    ``stationarity`` = ‖Px + q + Gᵀz + Aᵀy‖∞, ``primal`` = max violation of
    ``Gx ≤ h`` and ``Ax = b``, ``dual`` = max(−z), ``complementarity`` =
    max |z_i (h − Gx)_i|.
    """
    P, q, x = np.asarray(P, float), np.asarray(q, float), sol.x
    grad = P @ x + q
    primal = 0.0
    dual = 0.0
    complementarity = 0.0
    if G is not None:
        G, h = np.asarray(G, float), np.asarray(h, float)
        slack = h - G @ x
        grad = grad + G.T @ sol.z
        primal = max(primal, float(np.max(-slack, initial=0.0)))
        dual = float(np.max(-sol.z, initial=0.0))
        complementarity = float(np.max(np.abs(sol.z * slack), initial=0.0))
    if A is not None:
        A, b = np.asarray(A, float), np.asarray(b, float)
        grad = grad + A.T @ sol.y
        primal = max(primal, float(np.max(np.abs(A @ x - b), initial=0.0)))
    return {
        "stationarity": float(np.max(np.abs(grad), initial=0.0)),
        "primal": primal,
        "dual": dual,
        "complementarity": complementarity,
    }

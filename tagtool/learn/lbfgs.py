"""L-BFGS for the CRF objectives: two-loop recursion, backtracking line search, buffers allocated once.

Our own loop rather than scipy's L-BFGS-B (see :func:`lbfgs`); the vector
operations over ``θ`` are numba kernels (:mod:`tagtool.learn._lbfgs_kernels`).

References
----------
.. [1] J. Nocedal, S. J. Wright. Numerical Optimization, 2nd ed., 2006,
   Alg. 7.4–7.5 and §3.5.
.. [2] N. Okazaki. CRFsuite: a fast implementation of conditional random
   fields, 2007 (the memory of 6 pairs and the first step, as in liblbfgs).
"""

from __future__ import annotations

import logging

import numpy as np

from tagtool.learn._lbfgs_kernels import dot, store_pair, two_loop
from tagtool.learn.progress import TrainingMonitor

logger = logging.getLogger(__name__)

#: L-BFGS memory (CRFsuite's default ``num_memories``): 2 × 6 vectors of |θ|.
LBFGS_MEMORY = 6


def lbfgs(
    objective,
    theta0: np.ndarray,
    max_iterations: int,
    tol: float,
    monitor: TrainingMonitor,
    span: tuple[float, float] = (0.0, 1.0),
    phase: str = "",
    memory: int = LBFGS_MEMORY,
) -> tuple[np.ndarray, dict]:
    """Minimise ``objective`` from ``theta0`` by L-BFGS.

    Our own loop rather than scipy's L-BFGS-B: with a million parameters
    its bound-handling bookkeeping costs more per iteration than our
    whole objective pass.  Here an iteration is the two-loop
    recursion (Nocedal & Wright 2006, Alg. 7.4; ``4 m`` vector operations)
    and a backtracking line search (:func:`_line_search`), all in buffers
    allocated once.  As in liblbfgs (CRFsuite), the first step has length 1
    along ``-g/‖g‖`` and later ones try the quasi-Newton step first; a pair
    ``(s, y)`` with ``s·y ≤ 0`` (possible once the entropy term makes ``J``
    non-concave) is not stored.  Stops after ``max_iterations``, when an
    iteration lowers the objective by less than ``tol`` relative to it, or
    when the line search finds no decrease.  Progress goes to ``monitor``,
    mapped into ``span``.

    Returns
    -------
    theta : ndarray
    summary : dict
        JSON-compatible: iterations, evaluations, objective, message.

    References
    ----------
    .. [1] J. Nocedal, S. J. Wright. Numerical Optimization, 2nd ed., 2006,
       Alg. 7.4–7.5 and §3.5.
    """
    lo, hi = span
    monitor.report(lo, f"{phase}: starting", force=True)
    first_evaluation = objective.n_evaluations
    x = np.array(theta0, dtype=np.float64)
    trial = np.empty_like(x)
    g, g_trial, direction = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    f, _ = objective(x, out=g)
    history = _History(memory, x.size)
    message = "iteration limit reached"
    iteration = 0
    while iteration < max_iterations:
        history.direction(g, direction)
        slope = dot(g, direction)
        if history.size == 0 or slope >= 0.0:
            history.clear()
            np.multiply(g, -1.0 / max(np.sqrt(dot(g, g)), 1e-300), out=direction)
            slope = dot(g, direction)
        if slope == 0.0:
            message = "gradient is zero"
            break
        f_trial = _line_search(objective, x, f, slope, direction, trial, g_trial)
        if f_trial is None:
            message = "no step along the search direction lowers the objective"
            f, _ = objective(x, out=g)  # leave the objective's totals at the returned point
            break
        iteration += 1
        history.push(trial, x, g_trial, g)
        x, trial = trial, x
        g, g_trial = g_trial, g
        decrease, f = f - f_trial, f_trial
        monitor.report(lo + (hi - lo) * iteration / max_iterations, f"{phase}: iteration {iteration}/{max_iterations}")
        if decrease <= tol * max(abs(f), abs(f + decrease), 1.0):
            message = "relative decrease below tol"
            break
    logger.info("%s: %d iterations, objective %.6g (%s)", phase, iteration, f, message)
    summary = {
        "iterations": iteration,
        "evaluations": objective.n_evaluations - first_evaluation,
        "objective": float(f),
        "message": message,
    }
    return x, summary


def _line_search(objective, x, f, slope, direction, trial, g_trial, max_steps=20):
    """Backtrack from step 1 until the Armijo condition holds; returns ``f(trial)`` or None.

    ``trial`` and ``g_trial`` receive the accepted point and its gradient
    (the last point evaluated is always the accepted one).  Each retry
    takes the minimiser of the quadratic through ``f``, ``slope`` and the
    failed value, kept within [0.1, 0.5] of the failed step.
    """
    step = 1.0
    for _ in range(max_steps):
        np.multiply(direction, step, out=trial)
        trial += x
        f_trial, _ = objective(trial, out=g_trial)
        if np.isfinite(f_trial) and f_trial <= f + 1e-4 * step * slope:
            return f_trial if f_trial < f else None
        quadratic = -slope * step * step / (2.0 * (f_trial - f - slope * step)) if np.isfinite(f_trial) else 0.0
        step = min(max(quadratic, 0.1 * step), 0.5 * step)
    return None


class _History:
    """The last ``memory`` pairs ``s = x_new - x``, ``y = g_new - g`` in preallocated float32 rows.

    The pairs only shape the search direction (the line search evaluates
    the objective in float64), so float32 is exact enough; it halves the
    memory the two-loop recursion streams through, which bounds an
    iteration's cost beside the objective's.
    """

    def __init__(self, memory: int, n: int):
        self.s = np.empty((memory, n), dtype=np.float32)
        self.y = np.empty((memory, n), dtype=np.float32)
        self.rho = np.empty(memory)
        self.yy = np.empty(memory)
        self.order: list[int] = []  # rows, oldest first

    @property
    def size(self) -> int:
        return len(self.order)

    def clear(self) -> None:
        self.order.clear()

    def push(self, x_new, x, g_new, g) -> None:
        row = self.order[0] if len(self.order) == len(self.rho) else len(self.order)
        sy, yy = store_pair(x_new, x, g_new, g, self.s[row], self.y[row])
        if row in self.order:
            self.order.remove(row)
        if sy > 1e-12 * yy:
            self.order.append(row)
            self.rho[row] = 1.0 / sy
            self.yy[row] = yy

    def direction(self, g, out) -> None:
        """``out = -H g`` by the two-loop recursion."""
        two_loop(g, self.s, self.y, self.rho, self.yy, np.asarray(self.order, dtype=np.int64), out)

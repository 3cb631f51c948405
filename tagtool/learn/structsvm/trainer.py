"""The working-set trainer of the structural SVMs ``svm`` and ``cosvm``: one example at a time.

Both learners optimise the dual one example at a time (Tsochantaridis et
al. 2005; Brefeld et al. 2005, Table 2; Brefeld & Scheffer 2006, §4.3): for
sentence ``i`` the variables ``α_{i,ȳ}``, ``ȳ ∈ S_i``, are re-optimised with
all other ``α`` fixed.  :class:`WorkingSet` holds ``S_i`` of one sentence in
one view; :class:`ViewTrainer` runs the cutting-plane loop of one example in
one view.  Outputs are kept as label paths; Gram entries, margins and the
update ``θ += a·δΦ`` come from the paths and the sentence's token kernel
(:mod:`tagtool.learn.structsvm._joint_kernels`), and with the ``"smo"``
solver a whole round (add, re-solve, prune, update) is one numba call
(:mod:`tagtool.learn.structsvm._dual_kernels`).  The sub-QP is in
:mod:`tagtool.learn.structsvm.subqp`, the search for the most violating
output in :mod:`tagtool.learn.structsvm.search`, the weight layout in
:mod:`tagtool.learn.structsvm.layout`.

References
----------
.. [1] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6,
   2005, §4, Alg. 1.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Table 2.
.. [3] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §4, Alg. 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.learn._emission import sentence_emission
from tagtool.learn.structsvm import _dual_kernels, _joint_kernels
from tagtool.learn.structsvm.layout import Layout
from tagtool.learn.structsvm.search import Decoder, loss_value, most_violating, violation
from tagtool.learn.structsvm.subqp import SMO_ITER, SMO_TOL, SVMSettings, solve_subproblem

#: α below this (relative to the example's cost) leave the working set.
_ALPHA_TOL = 1e-8
#: Cutting-plane rounds of one labeled example in one visit (Table 2's loop).
MAX_INNER = 25
#: Bytes of token kernels a trainer keeps between visits (beyond it they are recomputed).
KERNEL_CACHE_BYTES = 64 * 2**20


class WorkingSet:
    """``S_i`` of one sentence in one view: output paths, losses, ``α`` and Gram, in preallocated rows.

    Rows ``:m`` are in use; :meth:`grow` doubles the capacity.  ``δΦ`` of an
    output is never stored (module docstring of :mod:`._joint_kernels`).
    """

    __slots__ = ("i", "target", "cost", "weights", "m", "_paths", "_alpha", "_losses", "_gram")

    def __init__(self, i: int, target: np.ndarray, cost: float, weights: np.ndarray | None = None, capacity: int = 4):
        self.i = i
        self.target = np.ascontiguousarray(target, dtype=np.int64)
        self.cost = cost
        self.weights = weights  # per-token Hamming weights (None: all 1)
        self.m = 0
        self._paths = np.zeros((capacity, len(self.target)), dtype=np.int64)
        self._alpha = np.zeros(capacity)
        self._losses = np.zeros(capacity)
        self._gram = np.zeros((capacity, capacity))

    def __len__(self) -> int:
        return self.m

    @property
    def paths(self) -> np.ndarray:
        return self._paths[: self.m]

    @property
    def alpha(self) -> np.ndarray:
        return self._alpha[: self.m]

    @property
    def losses(self) -> np.ndarray:
        return self._losses[: self.m]

    @property
    def gram(self) -> np.ndarray:
        return self._gram[: self.m, : self.m]

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The full row buffers (paths, α, losses, Gram) the kernels fill."""
        return self._paths, self._alpha, self._losses, self._gram

    def grow(self) -> None:
        cap = 2 * len(self._alpha)
        paths = np.zeros((cap, self._paths.shape[1]), dtype=np.int64)
        gram = np.zeros((cap, cap))
        paths[: self.m], gram[: self.m, : self.m] = self.paths, self.gram
        self._paths, self._gram = paths, gram
        self._alpha = np.concatenate([self._alpha, np.zeros(cap - len(self._alpha))])
        self._losses = np.concatenate([self._losses, np.zeros(cap - len(self._losses))])

    def contains(self, path: np.ndarray) -> bool:
        return bool(self.m) and bool(np.any(np.all(self.paths == path, axis=1)))


@dataclass
class _Visit:
    """The sentence being optimised: token kernel, emission scores (kept current), pending weight moves."""

    i: int
    lo: int
    K: np.ndarray
    emit: np.ndarray
    delta: np.ndarray  # per token and label, not yet scattered over the features (flush_weights)


class ViewTrainer:
    """One view's structural SVM over a snapshot, optimised example by example.

    Parameters
    ----------
    snapshot : Snapshot
    theta : float64 array
        The flat weights (:class:`Layout`), shared by both views of coSVM
        and updated in place.
    layout : Layout
    view : int
        Emission features of this view (−1: all features, single view).
    block_view : int
        This view's transition block in ``θ``.
    settings : SVMSettings

    Notes
    -----
    :meth:`begin` starts the visit of a sentence: its token kernel and its
    emission scores in this view are computed once, and every update of
    ``θ`` made for that sentence moves the emission scores with it.  Only
    this trainer's updates of the same sentence can change them (the views
    own disjoint features), so they stay exact for the whole visit.  The
    emission weights themselves are moved once, when the visit ends
    (:meth:`finish`, called by the next :meth:`begin`); call :meth:`finish`
    before reading ``θ``.
    """

    def __init__(self, snapshot, theta, layout: Layout, view: int, block_view: int, settings: SVMSettings):
        self.snapshot = snapshot
        self.theta = theta
        self.layout = layout
        self.view = view
        self.block_view = block_view
        self.settings = settings
        self.sets: dict[int, WorkingSet] = {}
        self._weights = layout.weights(theta)
        self._chain = layout.chain(theta, block_view)
        self._counts = np.zeros(snapshot.n_features, dtype=np.int64)
        self._visit: _Visit | None = None
        self._kernels: dict[int, np.ndarray] = {}
        self._kernel_bytes = 0

    # -- the sentence being visited ----------------------------------------

    def begin(self, i: int) -> _Visit:
        """Start visiting sentence ``i``: token kernel and emission scores at the current ``θ``."""
        self.finish()
        snap = self.snapshot
        lo, hi = int(snap.offsets[i]), int(snap.offsets[i + 1])
        K = self._token_kernel(i, lo, hi)
        emit = np.empty((hi - lo, self.layout.n_labels))
        sentence_emission(
            snap.feat_indptr, snap.feat_indices, snap.feature_view, self.view, lo, hi, self._weights, emit
        )
        self._visit = _Visit(i, lo, K, emit, np.zeros_like(emit))
        return self._visit

    def _token_kernel(self, i: int, lo: int, hi: int) -> np.ndarray:
        """``K`` of sentence ``i`` (kept for later visits while the cache has room)."""
        K = self._kernels.get(i)
        if K is None:
            snap = self.snapshot
            K = np.empty((hi - lo, hi - lo), dtype=np.int64)
            _joint_kernels.token_kernel(
                snap.feat_indptr, snap.feat_indices, snap.feature_view, self.view, lo, hi, self._counts, K
            )
            if self._kernel_bytes + K.nbytes <= KERNEL_CACHE_BYTES:
                self._kernels[i] = K
                self._kernel_bytes += K.nbytes
        return K

    def finish(self) -> None:
        """End the current visit: its emission-weight moves go into ``θ``."""
        visit, self._visit = self._visit, None
        if visit is not None:
            snap = self.snapshot
            _joint_kernels.flush_weights(
                snap.feat_indptr, snap.feat_indices, snap.feature_view, self.view, visit.lo, self._weights, visit.delta
            )

    def _at(self, i: int) -> _Visit:
        return self._visit if self._visit is not None and self._visit.i == i else self.begin(i)

    def decoder(self, i: int) -> Decoder:
        """The scores of sentence ``i`` in this view (its emission array follows later updates)."""
        visit = self._at(i)
        trans, start, end = self._chain
        return Decoder(visit.emit, trans, start, end, np.ones(visit.emit.shape, dtype=np.bool_))

    def _apply(self, visit: _Visit, ws: WorkingSet, j: int, amount: float) -> None:
        _joint_kernels.apply_path(visit.delta, *self._chain, visit.emit, visit.K, ws.target, ws.paths[j], amount)

    # -- working sets ------------------------------------------------------

    def reset(self, i: int) -> None:
        """Remove sentence ``i``'s outputs and their ``α`` from ``w`` (Alg. 1, line 1)."""
        ws = self.sets.pop(i, None)
        if ws is not None and len(ws):
            visit = self._at(i)
            for j in np.flatnonzero(ws.alpha):
                self._apply(visit, ws, j, -ws.alpha[j])

    def set_target(self, i: int, target: np.ndarray, cost: float, weights=None) -> WorkingSet:
        """The working set of ``i`` for ``target``; outputs are re-based if the target moved.

        "Substitute former target" (Alg. 1, line 11): the old outputs stay,
        their ``δΦ`` (and losses) now measured against the new target and
        token weights, and the sub-QP is re-solved (an output equal to the
        new target, or with zero loss under slack rescaling, leaves).
        """
        ws = self.sets.get(i)
        if ws is None:
            ws = self.sets[i] = WorkingSet(i, target, cost, weights)
            return ws
        same_weights = (weights is None and ws.weights is None) or (
            weights is not None and ws.weights is not None and np.array_equal(weights, ws.weights)
        )
        if np.array_equal(ws.target, target) and same_weights:
            if cost != ws.cost and len(ws):
                self.solve(ws, cost)  # the box moved (C_u schedule, peer margin)
            return ws
        old_paths = ws.paths.copy()
        self.reset(i)
        ws = self.sets[i] = WorkingSet(i, target, cost, weights, capacity=max(4, len(old_paths)))
        s = self.settings
        for path in old_paths:
            loss_val = loss_value(s.loss, ws.target, path, weights)
            if not np.array_equal(path, ws.target) and (s.rescaling == "margin" or loss_val > 0):
                ws._paths[ws.m], ws._losses[ws.m] = path, loss_val
                ws.m += 1
        if len(ws):
            _joint_kernels.gram_matrix(self._at(i).K, ws.target, ws._paths, ws.m, ws._gram)
            self.solve(ws, cost)
        return ws

    def margins(self, ws: WorkingSet) -> np.ndarray:
        """``⟨w, δΦ_j⟩ = f(x, y) − f(x, ȳ_j)`` of every output (this view's scores)."""
        dec = self.decoder(ws.i)
        target_score = dec.score(ws.target)
        return np.array([target_score - dec.score(path) for path in ws.paths])

    def solve(self, ws: WorkingSet, cost: float) -> float:
        """Re-optimise ``α_i`` over ``S_i`` with all other ``α`` fixed; prune zeros; returns ``max |Δα|``."""
        s = self.settings
        ws.cost = cost
        visit = self._at(ws.i)
        if s.qp_solver == "smo":
            change, ws.m, _ = _dual_kernels.resolve(
                visit.delta,
                *self._chain,
                visit.emit,
                visit.K,
                ws.target,
                *ws.arrays(),
                ws.m,
                float(cost),
                s.norm,
                s.rescaling == "slack",
                _ALPHA_TOL,
                SMO_TOL,
                SMO_ITER,
                -1,
            )
            return float(change)
        margins = self.margins(ws) - ws.gram @ ws.alpha  # ⟨w_rest, δΦ_j⟩
        alpha = solve_subproblem(ws.gram, margins, ws.losses.copy(), cost, s.norm, s.rescaling, solver=s.qp_solver)
        alpha[alpha <= _ALPHA_TOL * max(cost, 1.0)] = 0.0  # so that w stays exactly w_0 + Σ α δΦ
        change = alpha - ws.alpha
        for j in np.flatnonzero(change):
            self._apply(visit, ws, j, change[j])
        ws.alpha[...] = alpha
        ws.m, _ = _dual_kernels.compact(*ws.arrays(), ws.m, -1)
        return float(np.max(np.abs(change), initial=0.0))

    def slack(self, ws: WorkingSet, dec: Decoder) -> float:
        """``ξ_i = max(0, max_{ȳ ∈ S_i} H(ȳ))`` at the current ``w``."""
        if not len(ws):
            return 0.0
        s = self.settings
        target_score = dec.score(ws.target)
        return max(
            0.0,
            max(
                violation(ws.losses[j], target_score - dec.score(ws.paths[j]), s.norm, s.rescaling)
                for j in range(len(ws))
            ),
        )

    # -- the cutting-plane step of Table 2 / Alg. 1 -------------------------

    def step(self, i: int, target: np.ndarray, cost: float, weights=None) -> tuple[bool, float]:
        """One round: add the most violating output if ``H > ξ_i + ε``, re-solve.

        ``weights`` are per-token Hamming weights (partially labeled
        sentences); None counts every token once.  Returns ``(kept, max
        |Δα|)``: whether an output was added and kept a non-zero ``α``, and
        how far ``α_i`` moved.
        """
        ws = self.set_target(i, target, cost, weights)
        if cost <= 0.0:
            return False, 0.0
        s = self.settings
        dec = self.decoder(i)
        path, h = most_violating(dec, ws.target, s.loss, s.norm, s.rescaling, s.kbest, weights)
        if path is None:
            return False, 0.0
        loss_val = loss_value(s.loss, ws.target, path, weights)
        if s.qp_solver == "smo":
            return self._round(ws, np.ascontiguousarray(path, dtype=np.int64), loss_val, cost)
        if h <= self.slack(ws, dec) + s.epsilon or ws.contains(path):
            return False, 0.0
        self._add(ws, path, loss_val)
        change = self.solve(ws, cost)
        return ws.contains(path), change

    def _add(self, ws: WorkingSet, path: np.ndarray, loss_val: float) -> None:
        if ws.m == ws.arrays()[1].shape[0]:
            ws.grow()
        paths, _, losses, gram = ws.arrays()
        m = ws.m
        paths[m], losses[m] = path, loss_val
        ws._alpha[m] = 0.0
        K = self._at(ws.i).K
        for j in range(m + 1):
            gram[j, m] = gram[m, j] = _joint_kernels.gram_entry(K, ws.target, paths[j], paths[m])
        ws.m = m + 1

    def _round(self, ws: WorkingSet, path: np.ndarray, loss_val: float, cost: float) -> tuple[bool, float]:
        """:func:`._dual_kernels.round_update` on ``ws`` (growing it when full)."""
        s = self.settings
        visit = self._at(ws.i)
        while True:
            m, code, kept, change = _dual_kernels.round_update(
                visit.delta,
                *self._chain,
                visit.emit,
                visit.K,
                ws.target,
                *ws.arrays(),
                ws.m,
                path,
                float(loss_val),
                float(cost),
                s.norm,
                s.rescaling == "slack",
                s.epsilon,
                _ALPHA_TOL,
                SMO_TOL,
                SMO_ITER,
            )
            if code != _dual_kernels.FULL:
                break
            ws.grow()
        ws.m = m
        return bool(kept), float(change)

    def optimise(self, i: int, target: np.ndarray, cost: float, weights=None, rounds: int = MAX_INNER) -> int:
        """Table 2 of Brefeld et al. (2005): rounds until no output violates by more than ε.

        Returns the number of outputs added.
        """
        self.begin(i)
        added = 0
        for _ in range(rounds):
            grew, _ = self.step(i, target, cost, weights)
            if not grew:
                break
            added += 1
        return added

    def n_support(self) -> int:
        return sum(len(ws) for ws in self.sets.values())

    def support(self) -> list[tuple[int, np.ndarray, np.ndarray, float]]:
        """``(sentence, target, ȳ, α)`` of every output in a working set."""
        out = []
        for i, ws in sorted(self.sets.items()):
            for path, alpha in zip(ws.paths, ws.alpha):
                out.append((i, ws.target.copy(), path.copy(), float(alpha)))
        return out


def cu_schedule(epoch: int, cu_max: float, cu_epochs: int, start_ratio: float = 1e-3) -> float:
    """``C_u`` of an epoch: grows geometrically from ``start_ratio·cu_max`` to ``cu_max`` at ``cu_epochs``.

    Brefeld et al. (2005, §6) "use an exponential scheme to increase C_u to
    its maximal value in the 30th iteration"; Brefeld & Scheffer (2006, §5)
    a "smoothing strategy which exponentially approaches C_u after a fixed
    number of epochs".  ``epoch`` counts from 0.
    """
    if cu_epochs <= 0 or epoch >= cu_epochs:
        return float(cu_max)
    return float(cu_max * start_ratio ** (1.0 - epoch / cu_epochs))

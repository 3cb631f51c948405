"""WD-PSL's restricted dual: working sets, one block QP per piece, the explicit weights ``ω``.

For fixed candidate confidences ``P`` the QP of Eq. 17–21 is solved by the
n-slack cutting-plane method; its restricted dual separates into one block
per piece (the piece's multipliers ``α_i`` with ``Σ α_i ≤ C1/n`` and ``0 ≤
β_ij ≤ C2 P_ij / n``), coupled only through ``ω = Σ α δf + Σ β f``, which
:class:`Dual` keeps explicitly.  A pass solves every block whose KKT
conditions fail, each exactly with the others fixed: in numba
(:mod:`tagtool.learn.piecewise._block_kernels`) or, as the reference, by
cvxopt in Python.  :func:`primal_objective` gives ``J(ω)`` of Eq. 17 with
the exact slacks.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 9, 13, 17–21.
.. [2] T. Joachims, T. Finley, C.-N. J. Yu. Cutting-plane training of
   structural SVMs. Machine Learning 77, 2009 (n-slack algorithm).
"""

from __future__ import annotations

import time

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.learn.chain import emission_scores
from tagtool.learn.piecewise import _block_gram_kernels, _block_kernels, _piece_kernels, _working_set_kernels
from tagtool.learn.piecewise.pieces import Pieces, piece_energies
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.qp import solve_qp

_EQ18 = 0  # working-set entry: an output y'' of Eq. 18 (multiplier α)
_EQ20 = 1  # working-set entry: a candidate of Eq. 20 (multiplier β)


class Dual:
    """Working sets, multipliers and the explicit ``ω = Σ α δf + Σ β f``.

    ``W`` (state weights), ``T`` (transitions) and ``b`` (bias, ``bvec[0]``)
    are the three parts of ``ω``.  Piece ``i``'s Eq. 18 entries are
    ``ws_a[i, :ws_n[i]]``, ``ws_c[i, :ws_n[i]]`` (multipliers ``ws_lam``);
    its Eq. 20 entries are its candidates ``j`` with ``beta_in[j]``
    (multipliers ``beta[j]``).  A block lists the α entries first, then the
    β entries in candidate order (the layout of :mod:`._block_kernels`).
    """

    def __init__(self, snapshot: Snapshot, pieces: Pieces, c1: float, c2: float, use_bias: bool, capacity: int = 4):
        self.snap, self.pc = snapshot, pieces
        n, n_labels = pieces.n_pieces, snapshot.n_labels
        self.W = np.zeros((snapshot.n_features, n_labels))
        self.T = np.zeros((n_labels, n_labels))
        self.bvec = np.zeros(1)
        self.use_bias = use_bias
        self.c1n = c1 / max(n, 1)
        self.c2n = c2 / max(n, 1)
        self.ws_n = np.zeros(n, dtype=np.int64)
        self.ws_a = np.zeros((n, capacity), dtype=np.int64)
        self.ws_c = np.zeros((n, capacity), dtype=np.int64)
        self.ws_lam = np.zeros((n, capacity))
        self.ws_idle = np.zeros((n, capacity), dtype=np.int64)
        n_cand = len(pieces.cand_a)
        self.beta = np.zeros(n_cand)
        self.beta_in = np.zeros(n_cand, dtype=bool)
        self.beta_idle = np.zeros(n_cand, dtype=np.int64)
        self.conf = np.ones(n_cand)
        self.allowed = np.ascontiguousarray(snapshot.allowed)
        self.feat_indptr = np.ascontiguousarray(snapshot.feat_indptr, dtype=np.int64)
        self.feat_indices = np.ascontiguousarray(snapshot.feat_indices, dtype=np.int64)

    @property
    def b(self) -> float:
        return float(self.bvec[0])

    @property
    def bias_value(self) -> float:
        return self.b if self.use_bias else 0.0

    def _pieces_args(self):
        pc = self.pc
        return (
            self.feat_indptr,
            self.feat_indices,
            pc.left,
            self.allowed,
            pc.cand_ptr,
            pc.cand_a,
            pc.cand_c,
            pc.n1,
            pc.n2,
            pc.n12,
        )

    # -- working sets ---------------------------------------------------

    def n_entries(self) -> int:
        return int(self.ws_n.sum() + self.beta_in.sum())

    def ensure_slot(self) -> None:
        """Make room for one more Eq. 18 entry in every working set."""
        cap = self.ws_a.shape[1]
        if self.ws_n.max(initial=0) < cap:
            return
        grow = lambda x: np.concatenate([x, np.zeros_like(x)], axis=1)  # noqa: E731
        self.ws_a, self.ws_c = grow(self.ws_a), grow(self.ws_c)
        self.ws_lam, self.ws_idle = grow(self.ws_lam), grow(self.ws_idle)

    def entries(self, i: int) -> list[tuple[int, int, int, int]]:
        """Piece ``i``'s entries ``(kind, a, c, candidate)`` in block order."""
        out = [(_EQ18, int(self.ws_a[i, k]), int(self.ws_c[i, k]), -1) for k in range(self.ws_n[i])]
        lo, hi = self.pc.cand_ptr[i], self.pc.cand_ptr[i + 1]
        for j in range(lo, hi):
            if self.beta_in[j]:
                out.append((_EQ20, int(self.pc.cand_a[j]), int(self.pc.cand_c[j]), j))
        return out

    def block_lam(self, i: int) -> np.ndarray:
        lo, hi = self.pc.cand_ptr[i], self.pc.cand_ptr[i + 1]
        sel = lo + np.flatnonzero(self.beta_in[lo:hi])
        return np.concatenate([self.ws_lam[i, : self.ws_n[i]], self.beta[sel]])

    def set_block_lam(self, i: int, lam: np.ndarray) -> None:
        na = self.ws_n[i]
        self.ws_lam[i, :na] = lam[:na]
        lo, hi = self.pc.cand_ptr[i], self.pc.cand_ptr[i + 1]
        self.beta[lo + np.flatnonzero(self.beta_in[lo:hi])] = lam[na:]

    def add_violators(self, emit: np.ndarray, trans: np.ndarray, bias: float, epsilon: float) -> int:
        """Most violated Eq. 18 output and violated Eq. 20 candidates of every piece (numba)."""
        pc = self.pc
        self.ensure_slot()
        return int(
            _working_set_kernels.add_violators(
                emit,
                np.ascontiguousarray(trans),
                float(bias),
                pc.left,
                self.allowed,
                pc.cand_ptr,
                pc.cand_a,
                pc.cand_c,
                self.conf,
                float(epsilon),
                self.ws_n,
                self.ws_a,
                self.ws_c,
                self.ws_lam,
                self.ws_idle,
                self.beta_in,
                self.beta_idle,
            )
        )

    def drop_inactive(self, after: int) -> int:
        return int(
            _working_set_kernels.drop_inactive(
                int(after),
                self.ws_n,
                self.ws_a,
                self.ws_c,
                self.ws_lam,
                self.ws_idle,
                self.beta,
                self.beta_in,
                self.beta_idle,
            )
        )

    # -- block vectors (the Python reference path) ----------------------------

    def block_vectors(self, i: int):
        """Compact coordinates ``(C1, C2, M, bb, r, ub, is_alpha)`` of piece ``i``'s entries.

        An entry's vector in ω-space is ``φ1 ⊗ C1 + φ2 ⊗ C2 + M + bb·e_bias``.
        Eq. 18 entry ``(a, c)``: ``δf = f(C) − f(a, c)`` with ``f(C) = Σ_{y∈C} f(y)``
        (Eq. 9), target ``r = Δ`` (Eq. 13).  Eq. 20 entry: ``f(a, c)``, ``r = 1``.
        """
        pc, snap = self.pc, self.snap
        t = pc.left[i]
        L = snap.n_labels
        A1 = snap.allowed[t].astype(np.float64)
        A2 = snap.allowed[t + 1].astype(np.float64)
        s = float(pc.size[i])
        ents = self.entries(i)
        m = len(ents)
        C1 = np.zeros((m, L))
        C2 = np.zeros((m, L))
        M = np.zeros((m, L * L))
        bb = np.zeros(m)
        r = np.zeros(m)
        ub = np.zeros(m)
        is_alpha = np.zeros(m, dtype=bool)
        cand_mask = np.outer(A1, A2).ravel()
        for row, (kind, a, c, cand) in enumerate(ents):
            if kind == _EQ18:
                C1[row] = A2.sum() * A1
                C2[row] = A1.sum() * A2
                M[row] = cand_mask
                bb[row] = s - 1.0
                r[row] = 0.0 if cand_mask[a * L + c] else s
                is_alpha[row] = True
                ub[row] = self.c1n
                sign = -1.0
            else:
                bb[row] = 1.0
                r[row] = 1.0
                ub[row] = self.c2n * self.conf[cand]
                sign = 1.0
            C1[row, a] += sign
            C2[row, c] += sign
            M[row, a * L + c] += sign
        if not self.use_bias:
            bb[:] = 0.0
        return C1, C2, M, bb, r, ub, is_alpha

    def gram(self, i: int, C1, C2, M, bb) -> np.ndarray:
        pc = self.pc
        cross = C1 @ C2.T
        return (
            pc.n1[i] * (C1 @ C1.T) + pc.n12[i] * (cross + cross.T) + pc.n2[i] * (C2 @ C2.T) + M @ M.T + np.outer(bb, bb)
        )

    def inner(self, i: int, C1, C2, M, bb) -> np.ndarray:
        """``⟨z_k, ω⟩`` for the block's entries."""
        t = self.pc.left[i]
        u1 = self.W[self.snap.token_features(t)].sum(axis=0)
        u2 = self.W[self.snap.token_features(t + 1)].sum(axis=0)
        return C1 @ u1 + C2 @ u2 + M @ self.T.ravel() + bb * self.b

    def apply(self, i: int, delta, C1, C2, M, bb) -> None:
        """``ω += Σ_k δλ_k z_k`` for piece ``i``'s entries."""
        t = self.pc.left[i]
        self.W[self.snap.token_features(t)] += delta @ C1
        self.W[self.snap.token_features(t + 1)] += delta @ C2
        self.T += (delta @ M).reshape(self.T.shape)
        self.bvec[0] += float(delta @ bb)

    # -- one block ------------------------------------------------------------

    def block_problem(self, i: int):
        """The block QP of piece ``i`` in cvxopt form, and what :meth:`apply` needs.

        ``min ½ λᵀKλ + qᵀλ`` s.t. ``λ ≥ 0``, ``Σ α ≤ C1/n``, ``β ≤ C2 P / n`` —
        the restricted dual with every other piece's multipliers fixed.
        """
        C1, C2, M, bb, r, ub, is_alpha = self.block_vectors(i)
        lam = self.block_lam(i)
        K = self.gram(i, C1, C2, M, bb)
        grad = self.inner(i, C1, C2, M, bb) - r  # gradient of the min-form dual at lam
        q = grad - K @ lam
        m = len(lam)
        beta = np.flatnonzero(~is_alpha)
        G = np.vstack([-np.eye(m), is_alpha[None, :].astype(np.float64), np.eye(m)[beta]])
        h = np.concatenate([np.zeros(m), [self.c1n], ub[beta]])
        return K, q, G, h, lam, grad, (C1, C2, M, bb), (ub, is_alpha)

    def numba_block(self, i: int):
        """Piece ``i``'s block as the numba pass assembles it (closed-form Gram matrix)."""
        return _block_gram_kernels.assemble_block(
            i,
            self.W,
            self.T,
            self.b,
            self.use_bias,
            *self._pieces_args(),
            self.conf,
            self.c1n,
            self.c2n,
            self.ws_n,
            self.ws_a,
            self.ws_c,
            self.ws_lam,
            self.beta,
            self.beta_in,
        )

    def kkt_violation(self, lam, grad, ub, is_alpha) -> float:
        """Largest violation of the block's optimality conditions at ``lam``."""
        return float(
            _block_kernels.block_kkt(
                len(lam),
                np.asarray(grad, dtype=np.float64),
                np.asarray(lam, dtype=np.float64),
                np.asarray(ub, dtype=np.float64),
                np.asarray(is_alpha, dtype=bool),
                self.c1n,
            )
        )

    def solve_block(self, i: int, tol: float) -> bool:
        """Re-optimise piece ``i``'s multipliers by cvxopt; False when its KKT already hold to ``tol``."""
        if self.ws_n[i] == 0 and not self.beta_in[self.pc.cand_ptr[i] : self.pc.cand_ptr[i + 1]].any():
            return False
        K, q, G, h, lam, grad, vecs, (ub, is_alpha) = self.block_problem(i)
        if self.kkt_violation(lam, grad, ub, is_alpha) <= tol:
            return False
        sol = solve_qp(K, q, G, h)
        new = np.clip(sol.x, 0.0, None)
        new[~is_alpha] = np.minimum(new[~is_alpha], ub[~is_alpha])
        if new[is_alpha].sum() > self.c1n:
            new[is_alpha] *= self.c1n / new[is_alpha].sum()
        # the interior point leaves ~1e-10 where a bound is active: snap to it (within cvxopt's tolerance),
        # so that idle entries are exactly 0 and can be dropped
        new[new <= 1e-9 * np.maximum(ub, 1e-300)] = 0.0
        self.apply(i, new - lam, *vecs)
        self.set_block_lam(i, new)
        return True

    # -- whole passes -----------------------------------------------------------

    def python_pass(self, tol: float, monitor: TrainingMonitor | None = None) -> int:
        """One block-coordinate pass, each block by cvxopt (the reference); returns blocks changed."""
        changed = 0
        last = time.monotonic()
        for i in range(self.pc.n_pieces):
            changed += self.solve_block(i, tol)
            if monitor is not None and time.monotonic() - last > 0.1:
                monitor.check()
                last = time.monotonic()
        return changed

    def numba_pass(
        self, tol: float, monitor: TrainingMonitor | None = None, chunk: int = 4096, max_iter: int = 1000
    ) -> int:
        """One block-coordinate pass, each block by the exact numba solver; returns blocks changed.

        The pieces go in chunks so that a cancel request is seen between them.
        """
        changed = 0
        args = self._pieces_args()
        for lo in range(0, self.pc.n_pieces, chunk):
            if monitor is not None:
                monitor.check()
            hi = min(lo + chunk, self.pc.n_pieces)
            changed += _block_kernels.block_pass(
                lo,
                hi,
                self.W,
                self.T,
                self.bvec,
                self.use_bias,
                *args,
                self.conf,
                self.c1n,
                self.c2n,
                self.ws_n,
                self.ws_a,
                self.ws_c,
                self.ws_lam,
                self.beta,
                self.beta_in,
                float(tol),
                int(max_iter),
            )
        return changed

    def rescale_boxes(self) -> None:
        """Clip every β to its (new) box ``C2 P / n`` after ``P`` changed, updating ω."""
        pc = self.pc
        _working_set_kernels.clip_betas(
            self.W,
            self.T,
            self.bvec,
            self.use_bias,
            self.feat_indptr,
            self.feat_indices,
            pc.left,
            pc.cand_ptr,
            pc.cand_a,
            pc.cand_c,
            self.conf,
            self.c2n,
            self.beta,
            self.beta_in,
        )

    # -- objectives ---------------------------------------------------------

    def norm2(self) -> float:
        return float(np.sum(self.W**2) + np.sum(self.T**2) + (self.b**2 if self.use_bias else 0.0))

    def dual_objective(self) -> float:
        """``Σ r λ − ½‖ω‖²`` of the restricted dual."""
        pc = self.pc
        k = np.arange(self.ws_a.shape[1])[None, :] < self.ws_n[:, None]
        t = pc.left[:, None]
        inside = self.allowed[t, self.ws_a] & self.allowed[t + 1, self.ws_c]
        r_alpha = np.where(inside, 0.0, pc.size[:, None].astype(np.float64))
        total = float(np.sum(np.where(k, r_alpha * self.ws_lam, 0.0))) + float(self.beta[self.beta_in].sum())
        return total - 0.5 * self.norm2()

    def emissions(self) -> np.ndarray:
        return emission_scores(self.snap, self.W)


def primal_objective(dual: Dual, emit: np.ndarray | None = None) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """``J(ω)`` of Eq. 17 with the exact slacks, and the most violated outputs.

    Returns ``(J, a*, c*, ξ)`` where ``(a*, c*)`` is each piece's most
    violated output of Eq. 18 and ``ξ`` its exact slack.
    """
    pc, snap = dual.pc, dual.snap
    emit = dual.emissions() if emit is None else emit
    b = dual.b if dual.use_bias else 0.0
    best_a = np.zeros(pc.n_pieces, dtype=np.int64)
    best_c = np.zeros(pc.n_pieces, dtype=np.int64)
    xi = np.zeros(pc.n_pieces)
    _piece_kernels.most_violated(
        emit, dual.T, b, pc.left, snap.allowed, pc.cand_ptr, pc.cand_a, pc.cand_c, best_a, best_c, xi
    )
    energies = piece_energies(pc, emit, dual.T, b)
    nu = np.zeros(len(energies))
    _piece_kernels.candidate_violations(energies, pc.cand_ptr, dual.conf, 1.0, nu)
    j = 0.5 * dual.norm2() + dual.c1n * xi.sum() + dual.c2n * nu.sum()
    return j, best_a, best_c, xi

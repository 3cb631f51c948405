"""WD-PSL: weak disambiguation for partial structured output learning (DESIGN §5.4).

Pieces
    Each sentence is cut into pieces of two adjacent tokens ``(t − 1, t)``,
    one transition factor each (Lu & Chow, §IV-A, Fig. 4b).  A piece's
    candidate outputs are ``C = A_{t−1} × A_t``; a piece whose two tokens are
    both unlabeled carries no supervision and is left out; an unlabeled
    token next to a constrained one contributes ``Σ``.  A sentence of one
    token has no piece.

Energy and weights
    ``E(x, (a, c)) = ω·f(x, (a, c)) + b`` (Eq. 3) with
    ``f = φ(x_{t−1}) ⊗ e_a + φ(x_t) ⊗ e_c + e_{(a,c)}``: the state features
    of both tokens and the transition feature.  **The same state weights
    ``W`` serve both positions of a piece**, so a token's emission score is
    one number ``u_t[y] = Σ_{k ∈ φ(x_t)} W[k, y]`` wherever it appears.  The
    fitted :class:`~tagtool.learn.chain.ChainModel` is therefore one view
    with ``weights = W`` (each token's state factor counted once, as in the
    chain), ``trans = T`` and zero start/end; the bias ``b`` shifts every
    output of a piece alike, changes no Viterbi path and is kept only in
    ``model.info["bias"]``.  ``b`` is regularised like ``ω`` (an extra
    constant feature): left free, it would grow without bound, since with
    Eq. 9 it enters the Eq. 18 margin of a piece as ``(|C| − 1) b``.

Objective (Eq. 17–21), for fixed candidate confidences ``P``::

    min ½‖ω‖² + C1/n Σ_i ξ_i + C2/n Σ_i Σ_{j ∈ C_i} P_ij ν_ij
    s.t. Δ(C_i, y'') + E(x_i, y'') − E(x_i, C_i) ≤ ξ_i   ∀ y''    (18)
         E(x_i, y_j) ≥ 1 − ν_ij                         ∀ j ∈ C_i (20)

with ``E(x_i, C_i) = Σ_{y ∈ C_i} E(x_i, y)`` (Eq. 9) and ``Δ = |C_i|`` for
non-candidates, 0 for candidates (Eq. 13); ``n`` = number of pieces.

Solver
    Algorithm 1 alternates the QP for fixed ``P`` with Eq. 22, starting from
    Eq. 23 (``k`` nearest pieces), until the relative change of ``J`` is
    below ``tol``.  The QP is solved by the n-slack cutting-plane method
    (Joachims et al. 2009; the paper's "2n-slack": one ``ξ_i`` per piece
    plus the ``ν_ij``): every round finds each piece's most violated
    output of Eq. 18 (``argmax`` over the ``L²`` pair outputs, numba) and
    its violated candidates of Eq. 20, adds them to the piece's working set,
    and re-optimises the restricted dual.  The restricted dual is
    separable into blocks, one per piece (its multipliers ``α_i`` with
    ``Σ α_i ≤ C1/n`` and ``0 ≤ β_ij ≤ C2 P_ij / n``), coupled only through
    ``ω = Σ α δf + Σ β f``; it is solved by **dual block-coordinate
    ascent** — each block solved exactly with the other pieces'
    multipliers fixed, exactly the per-example working sets of structural
    SVMs — keeping ``ω`` explicitly.  Blocks already satisfying their KKT
    conditions (to ``qp_tol``) are skipped.  Block-coordinate ascent on a
    convex QP with separable constraints converges to the restricted QP's
    optimum; the tests compare it with a single dense cvxopt solve.

    Two block solvers reach the same optimum (``qp_solver``):

    * ``"smo"`` (default): one numba call per pass over all pieces
      (:func:`._wdpsl_kernels.block_pass`).  A block's Gram matrix is
      built in closed form from ``|φ_{t−1}|²``, ``|φ_t|²``,
      ``⟨φ_{t−1}, φ_t⟩`` and the allowed sets, and the block QP is solved
      exactly by alternating closed-form steps on each β (a box) with
      pairwise SMO steps on the α simplex (as :mod:`.structsvm._dual_kernels`' SMO
      solver, extended to the β boxes).  About 5 µs per block against
      ~2 ms per cvxopt call plus Python per block.
    * ``"cvxopt"``: a Python loop over the pieces, each block QP by
      :func:`tagtool.learn.qp.solve_qp` (DESIGN §5.4's reference).

    The tests check the closed-form blocks against the explicit vectors,
    the SMO block solutions against cvxopt and the KKT conditions, one
    numba pass against one cvxopt pass, and whole fits of both.
    Entries whose multiplier stayed 0 for ``drop_after`` rounds leave the
    working sets (no effect on ``ω``; re-added when violated again).

Confidences for the UI
    :func:`candidate_confidences` recomputes ``P`` for a snapshot's pieces
    from a saved model's energies by Eq. 22, sums each token's ``P`` mass per
    label over the pieces containing it, and normalises over the token's
    allowed set (0 outside it; a full token gets 1 on its label).

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 3, 9, 13, 17–23, Algorithm 1, §IV-B.
.. [2] T. Joachims, T. Finley, C.-N. J. Yu. Cutting-plane training of
   structural SVMs. Machine Learning 77, 2009 (n-slack algorithm).
.. [3] I. Tsochantaridis et al. Large margin methods for structured and
   interdependent output variables. JMLR 6, 2005 (per-example working sets).
.. [4] C. Sutton, A. McCallum. Piecewise training for structured
   prediction. Machine Learning 77, 2009.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from tagtool.core.snapshot import Snapshot
from tagtool.learn import _wdpsl_kernels as kern
from tagtool.learn.base import Learner, NothingToLearnError
from tagtool.learn.chain import ChainModel, emission_scores
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.qp import solve_qp

logger = logging.getLogger(__name__)

_EQ18 = 0  # working-set entry: an output y'' of Eq. 18 (multiplier α)
_EQ20 = 1  # working-set entry: a candidate of Eq. 20 (multiplier β)

QP_SOLVERS = ("smo", "cvxopt")


# ----------------------------------------------------------------------
# pieces


@dataclass(frozen=True)
class Pieces:
    """The two-token pieces of a snapshot and their candidate outputs.

    Attributes
    ----------
    left : int64 array (n,)
        Token index of the first token; the second is ``left + 1``.
    cand_ptr : int64 array (n + 1,)
        Candidates of piece ``i`` are ``cand_ptr[i]:cand_ptr[i + 1]``.
    cand_a, cand_c : int64 arrays
        Labels of the first and second token of each candidate.
    size : int64 array (n,)
        ``s_i = |A_{t−1}| · |A_t|``.
    n1, n2, n12 : float64 arrays (n,)
        ``|φ(x_{t−1})|²``, ``|φ(x_t)|²`` and ``⟨φ(x_{t−1}), φ(x_t)⟩``.
    """

    left: np.ndarray
    cand_ptr: np.ndarray
    cand_a: np.ndarray
    cand_c: np.ndarray
    size: np.ndarray
    n1: np.ndarray
    n2: np.ndarray
    n12: np.ndarray

    @property
    def n_pieces(self) -> int:
        return len(self.left)

    @property
    def cand_piece(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_pieces), self.size)


def build_pieces(snapshot: Snapshot) -> Pieces:
    """Cut every sentence into adjacent-token pieces (DESIGN §5.4).

    Pieces whose two tokens are both unlabeled are left out.
    """
    starts = np.zeros(snapshot.n_tokens, dtype=bool)
    starts[snapshot.offsets[:-1]] = True
    left = np.flatnonzero(~starts[1:]).astype(np.int64) if snapshot.n_tokens > 1 else np.zeros(0, np.int64)
    sizes = snapshot.allowed.sum(axis=1)
    unlabeled = sizes == snapshot.n_labels
    left = left[~(unlabeled[left] & unlabeled[left + 1])]
    pair = snapshot.allowed[left][:, :, None] & snapshot.allowed[left + 1][:, None, :]
    piece, cand_a, cand_c = np.nonzero(pair)
    size = np.bincount(piece, minlength=len(left)).astype(np.int64)
    n_feats = np.diff(snapshot.feat_indptr).astype(np.float64)
    n12 = np.zeros(len(left))
    kern.shared_features(snapshot.feat_indptr, snapshot.feat_indices, left, snapshot.n_features, n12)
    return Pieces(
        left=left,
        cand_ptr=np.concatenate(([0], np.cumsum(size))).astype(np.int64),
        cand_a=cand_a.astype(np.int64),
        cand_c=cand_c.astype(np.int64),
        size=size,
        n1=n_feats[left],
        n2=n_feats[left + 1],
        n12=n12,
    )


def piece_energies(pieces: Pieces, emit: np.ndarray, trans: np.ndarray, bias: float = 0.0) -> np.ndarray:
    """Energy (Eq. 3) of every candidate of every piece, flat in candidate order."""
    out = np.zeros(len(pieces.cand_a))
    kern.piece_energies(emit, trans, float(bias), pieces.left, pieces.cand_ptr, pieces.cand_a, pieces.cand_c, out)
    return out


def eq22(pieces: Pieces, energies: np.ndarray) -> np.ndarray:
    """Candidate confidences from energies, Eq. 22 (``1/s`` on ties)."""
    out = np.zeros(len(energies))
    kern.eq22_confidences(energies, pieces.cand_ptr, out)
    return out


# ----------------------------------------------------------------------
# Eq. 23: k nearest pieces


def _piece_matrix(snapshot: Snapshot, pieces: Pieces, max_df: float) -> scipy.sparse.csr_matrix:
    """Rows = pieces, columns = position-tagged features, idf-weighted, unit norm.

    Features present in more than ``max_df`` of the pieces are dropped: they
    barely change the ranking and would make the similarity product dense.
    """
    nf = snapshot.n_features
    ind = snapshot.feat_indptr
    rows, cols = [], []
    for offset, shift in ((0, 0), (1, nf)):
        tokens = pieces.left + offset
        counts = ind[tokens + 1] - ind[tokens]
        take = np.repeat(ind[tokens] - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        rows.append(np.repeat(np.arange(pieces.n_pieces), counts))
        cols.append(snapshot.feat_indices[take].astype(np.int64) + shift)
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    x = scipy.sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(pieces.n_pieces, 2 * nf))
    df = np.bincount(cols, minlength=2 * nf)
    idf = np.log((1.0 + pieces.n_pieces) / (1.0 + df))
    idf[df > max_df * pieces.n_pieces] = 0.0
    x = x @ scipy.sparse.diags(idf)
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x = scipy.sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ x
    x.eliminate_zeros()
    return x.tocsr()


def nearest_pieces(snapshot: Snapshot, pieces: Pieces, k: int, max_df: float = 0.01,
                   monitor: TrainingMonitor | None = None, chunk: int = 512) -> np.ndarray:
    """Indices ``[n, k']`` of each piece's ``k' = min(k, n − 1)`` most similar other pieces (cosine).

    The similarities stay sparse: each row's top ``k'`` is taken among its
    positive entries (numba), pieces of similarity 0 completing a short row
    in random order.  ``max_df`` = 0.01 (features in more than 1 % of the
    pieces ignored) keeps the product sparse; on CoNLL-2000 it gave the
    same held-out F1 as 0.05 at a fifth of the time.
    """
    n = pieces.n_pieces
    k = min(k, n - 1)
    if k <= 0:
        return np.zeros((n, 0), dtype=np.int64)
    x = _piece_matrix(snapshot, pieces, max_df)
    xt = x.T.tocsc()
    rng = np.random.default_rng(0)
    out = np.empty((n, k), dtype=np.int64)
    for lo in range(0, n, chunk):
        if monitor is not None:
            monitor.check()
        hi = min(lo + chunk, n)
        sim = (x[lo:hi] @ xt).tocsr()
        # ties (e.g. pieces with no informative feature) are broken at random, not by position;
        # pieces of similarity 0 come in random order after the positive ones
        noise = 1e-9 * rng.random(sim.nnz)
        fill = rng.integers(n, size=(hi - lo, k + 8))
        kern.top_k_rows(sim.indptr.astype(np.int64), sim.indices.astype(np.int64), sim.data, lo, n, k, noise, fill,
                        out[lo:hi])
    return out


def eq23(snapshot: Snapshot, pieces: Pieces, neighbours: np.ndarray) -> np.ndarray:
    """Initial confidences, Eq. 23: ``P_ij = k_ij / K``.

    ``k_ij`` counts the neighbours whose candidate set contains candidate
    ``j``.  A piece none of whose candidates occurs among its neighbours
    falls back to the uniform ``1/s`` (§IV-B's plain initialisation).
    """
    if neighbours.shape[1] == 0:
        return 1.0 / np.repeat(pieces.size, pieces.size).astype(np.float64)
    nb = neighbours[pieces.cand_piece]  # (n_cand, K)
    a1 = snapshot.allowed[pieces.left[nb], pieces.cand_a[:, None]]
    a2 = snapshot.allowed[pieces.left[nb] + 1, pieces.cand_c[:, None]]
    conf = (a1 & a2).sum(axis=1) / neighbours.shape[1]
    total = np.add.reduceat(conf, pieces.cand_ptr[:-1]) if len(conf) else conf
    empty = np.repeat(total <= 0, pieces.size)
    conf[empty] = 1.0 / np.repeat(pieces.size, pieces.size)[empty]
    return conf


# ----------------------------------------------------------------------
# the restricted dual, one block per piece


class _Dual:
    """Working sets, multipliers and the explicit ``ω = Σ α δf + Σ β f``.

    ``W`` (state weights), ``T`` (transitions) and ``b`` (bias, ``bvec[0]``)
    are the three parts of ``ω``.  Piece ``i``'s Eq. 18 entries are
    ``ws_a[i, :ws_n[i]]``, ``ws_c[i, :ws_n[i]]`` (multipliers ``ws_lam``);
    its Eq. 20 entries are its candidates ``j`` with ``beta_in[j]``
    (multipliers ``beta[j]``).  A block lists the α entries first, then the
    β entries in candidate order (the layout of :mod:`._wdpsl_kernels`).
    """

    def __init__(self, snapshot: Snapshot, pieces: Pieces, c1: float, c2: float, use_bias: bool,
                 capacity: int = 4):
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
        return (self.feat_indptr, self.feat_indices, pc.left, self.allowed, pc.cand_ptr, pc.cand_a, pc.cand_c,
                pc.n1, pc.n2, pc.n12)

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
        return int(kern.add_violators(emit, np.ascontiguousarray(trans), float(bias), pc.left, self.allowed,
                                      pc.cand_ptr, pc.cand_a, pc.cand_c, self.conf, float(epsilon), self.ws_n,
                                      self.ws_a, self.ws_c, self.ws_lam, self.ws_idle, self.beta_in,
                                      self.beta_idle))

    def drop_inactive(self, after: int) -> int:
        return int(kern.drop_inactive(int(after), self.ws_n, self.ws_a, self.ws_c, self.ws_lam, self.ws_idle,
                                      self.beta, self.beta_in, self.beta_idle))

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
        return pc.n1[i] * (C1 @ C1.T) + pc.n12[i] * (cross + cross.T) + pc.n2[i] * (C2 @ C2.T) + M @ M.T + np.outer(bb, bb)

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
        return kern.assemble_block(i, self.W, self.T, self.b, self.use_bias, *self._pieces_args(), self.conf,
                                   self.c1n, self.c2n, self.ws_n, self.ws_a, self.ws_c, self.ws_lam, self.beta,
                                   self.beta_in)

    def kkt_violation(self, lam, grad, ub, is_alpha) -> float:
        """Largest violation of the block's optimality conditions at ``lam``."""
        return float(kern.block_kkt(len(lam), np.asarray(grad, dtype=np.float64), np.asarray(lam, dtype=np.float64),
                                    np.asarray(ub, dtype=np.float64), np.asarray(is_alpha, dtype=bool), self.c1n))

    def solve_block(self, i: int, tol: float) -> bool:
        """Re-optimise piece ``i``'s multipliers by cvxopt; False when its KKT already hold to ``tol``."""
        if self.ws_n[i] == 0 and not self.beta_in[self.pc.cand_ptr[i]:self.pc.cand_ptr[i + 1]].any():
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

    def numba_pass(self, tol: float, monitor: TrainingMonitor | None = None, chunk: int = 4096,
                   max_iter: int = 1000) -> int:
        """One block-coordinate pass, each block by the exact numba solver; returns blocks changed.

        The pieces go in chunks so that a cancel request is seen between them.
        """
        changed = 0
        args = self._pieces_args()
        for lo in range(0, self.pc.n_pieces, chunk):
            if monitor is not None:
                monitor.check()
            hi = min(lo + chunk, self.pc.n_pieces)
            changed += kern.block_pass(lo, hi, self.W, self.T, self.bvec, self.use_bias, *args, self.conf,
                                       self.c1n, self.c2n, self.ws_n, self.ws_a, self.ws_c, self.ws_lam,
                                       self.beta, self.beta_in, float(tol), int(max_iter))
        return changed

    def rescale_boxes(self) -> None:
        """Clip every β to its (new) box ``C2 P / n`` after ``P`` changed, updating ω."""
        pc = self.pc
        kern.clip_betas(self.W, self.T, self.bvec, self.use_bias, self.feat_indptr, self.feat_indices, pc.left,
                        pc.cand_ptr, pc.cand_a, pc.cand_c, self.conf, self.c2n, self.beta, self.beta_in)

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


def primal_objective(dual: _Dual, emit: np.ndarray | None = None) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
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
    kern.most_violated(emit, dual.T, b, pc.left, snap.allowed, pc.cand_ptr, pc.cand_a, pc.cand_c, best_a, best_c, xi)
    energies = piece_energies(pc, emit, dual.T, b)
    nu = np.zeros(len(energies))
    kern.candidate_violations(energies, pc.cand_ptr, dual.conf, 1.0, nu)
    j = 0.5 * dual.norm2() + dual.c1n * xi.sum() + dual.c2n * nu.sum()
    return j, best_a, best_c, xi


# ----------------------------------------------------------------------
# the learner


class WDPSL(Learner):
    """Weak disambiguation for partial structured outputs (Lu & Chow), piecewise.

    Parameters
    ----------
    c1 : float
        ``C1`` of Eq. 17 (candidates vs. non-candidates, Eq. 18), divided by
        the number of pieces as in the paper.
    c2 : float
        ``C2`` of Eq. 17 (confidence-weighted candidate margins, Eq. 20).
        The defaults ``C1 = 100``, ``C2 = 1`` were chosen on training data
        only (CoNLL-2000 ``train.txt``, WD-PSL protocol P = 0.5, K = 3:
        500 of the first 1,500 sentences to train, the other 1,000 to
        score; grid {0.1, 1, 10, 100}², inside the paper's 0.01–100):
        chunk F1 rose with ``C1`` (67–74 at 0.1, 81 at 1, 82 at 10, 85.9 at
        100) and moved by < 0.2 with ``C2``.
    k_neighbours : int
        ``K`` of Eq. 23 (the paper's k = 10).
    tol : float
        ``ε`` of Algorithm 1: stop when ``|ΔJ / J| < tol``.
    max_alternations : int
        Bound on Algorithm 1's rounds (QP, then Eq. 22).
    epsilon : float
        Cutting-plane tolerance: a constraint joins a working set when it is
        violated by more than ``epsilon`` beyond the current slack (margins
        are ≥ 1; 0.05 and ``qp_tol`` = 0.01 gave the same held-out F1 as
        0.01 and 0.001 in less time).
    max_rounds : int
        Bound on cutting-plane rounds per QP.
    qp_tol : float
        KKT tolerance of the block-coordinate solution of a restricted QP.
    max_passes : int
        Bound on block-coordinate passes per cutting-plane round.
    bias : bool
        Learn the regularised bias ``b`` of Eq. 3.
    max_df : float
        Features in more than this share of pieces are ignored by Eq. 23's
        neighbour search.
    qp_solver : {"smo", "cvxopt"}
        Solver of the block QPs.  ``"smo"`` (default): one numba call per
        pass over all pieces, each block solved exactly by closed-form β
        steps and pairwise (SMO) α steps to ``qp_tol / 10``;
        ``"cvxopt"``: a Python loop, each block an interior-point cvxopt QP
        (DESIGN §5.4's reference; the tests check both reach the same
        restricted optimum).
    drop_after : int
        A working-set entry whose multiplier stayed 0 for more than this
        many cutting-plane rounds is dropped (0: never); it returns if
        violated again.
    """

    name = "wdpsl"
    uses = frozenset({"full", "partial"})
    two_view = False
    pass_param = "max_rounds"
    gives_confidences = True
    description = "WD-PSL: piecewise max-margin learning from candidate label sets (Lu & Chow)"

    def __init__(self, c1: float = 100.0, c2: float = 1.0, k_neighbours: int = 10, tol: float = 1e-3,
                 max_alternations: int = 10, epsilon: float = 0.05, max_rounds: int = 30,
                 qp_tol: float = 1e-2, max_passes: int = 5, bias: bool = True, max_df: float = 0.01,
                 qp_solver: str = "smo", drop_after: int = 3):
        self.c1 = c1
        self.c2 = c2
        self.k_neighbours = k_neighbours
        self.tol = tol
        self.max_alternations = max_alternations
        self.epsilon = epsilon
        self.max_rounds = max_rounds
        self.qp_tol = qp_tol
        self.max_passes = max_passes
        self.bias = bias
        self.max_df = max_df
        self.qp_solver = qp_solver
        self.drop_after = drop_after

    # -- public extras ---------------------------------------------------

    @staticmethod
    def candidate_confidences(model: ChainModel, snapshot: Snapshot) -> np.ndarray:
        """Per-token candidate confidences ``[N, L]``; see :func:`candidate_confidences`."""
        return candidate_confidences(model, snapshot)

    # -- fitting -----------------------------------------------------------

    def _check_params(self) -> None:
        if self.qp_solver not in QP_SOLVERS:
            raise ValueError(f"qp_solver must be one of {QP_SOLVERS}, got {self.qp_solver!r}")

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        pieces = build_pieces(snapshot)
        if pieces.n_pieces == 0:
            raise NothingToLearnError("wdpsl learns from pieces of two adjacent tokens and the data has none")
        notes = _piece_notes(snapshot, pieces)
        dual = _Dual(snapshot, pieces, self.c1, self.c2, self.bias)
        dual.conf = self._initial_confidences(snapshot, pieces, warm_start, dual, monitor)
        history: list[float] = []
        rounds_total = 0
        for alternation in range(self.max_alternations):
            dual.rescale_boxes()
            rounds_total += self._cutting_plane(dual, monitor, alternation)
            j = primal_objective(dual)[0]
            history.append(j)
            logger.info("wdpsl alternation %d: J = %.6g", alternation + 1, j)
            if len(history) > 1 and abs(history[-1] - history[-2]) <= self.tol * abs(history[-1]):
                break
            dual.conf = eq22(pieces, piece_energies(pieces, dual.emissions(), dual.T, dual.bias_value))
        model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views=1)
        model.weights[...] = dual.W
        model.trans[0] = dual.T
        model.info.update(
            objective=history, alternations=len(history), cutting_plane_rounds=rounds_total,
            pieces=pieces.n_pieces, working_set=dual.n_entries(), bias=dual.b, notes=notes,
        )
        return model

    def _initial_confidences(self, snapshot, pieces, warm_start, dual, monitor) -> np.ndarray:
        """Eq. 23 from the k nearest pieces, or Eq. 22 from a warm-start model.

        A warm start also seeds every working set with the outputs the
        previous model violates most, which usually are the final active ones.
        """
        if warm_start is None:
            monitor.report(0.0, "finding nearest pieces (Eq. 23)")
            return eq23(snapshot, pieces, nearest_pieces(snapshot, pieces, self.k_neighbours, self.max_df, monitor))
        emit, trans, _, _ = warm_start.chain_scores(snapshot)
        b = float(warm_start.info.get("bias", 0.0)) if self.bias else 0.0
        conf = eq22(pieces, piece_energies(pieces, emit, trans[...], b))
        dual.conf = conf
        self._add_violators(dual, emit=emit, trans=trans, bias=b)
        return conf

    def _cutting_plane(self, dual: _Dual, monitor: TrainingMonitor, alternation: int) -> int:
        """n-slack cutting-plane loop for fixed ``P`` (Joachims et al. 2009); returns the rounds run."""
        for rnd in range(self.max_rounds):
            frac = (alternation + rnd / self.max_rounds) / self.max_alternations
            monitor.report(frac, f"alternation {alternation + 1}/{self.max_alternations}, cutting-plane round "
                                 f"{rnd + 1}/{self.max_rounds}")
            added = self._add_violators(dual)
            converged = self._optimise_restricted(dual, monitor)
            logger.debug("wdpsl round %d: %d entries added, %d in the working sets, restricted QP %s", rnd + 1,
                         added, dual.n_entries(), "solved" if converged else "not solved")
            if added == 0 and converged:
                return rnd + 1
            if self.drop_after > 0:
                dual.drop_inactive(self.drop_after)
        logger.info("wdpsl: cutting plane stopped after %d rounds", self.max_rounds)
        return self.max_rounds

    def _add_violators(self, dual: _Dual, emit=None, trans=None, bias=None) -> int:
        """Add each piece's most violated Eq. 18 output and violated Eq. 20 candidates."""
        emit = dual.emissions() if emit is None else emit
        trans = dual.T if trans is None else trans
        bias = dual.bias_value if bias is None else bias
        return dual.add_violators(emit, np.asarray(trans, dtype=np.float64).reshape(dual.T.shape), bias,
                                  self.epsilon)

    def _optimise_restricted(self, dual: _Dual, monitor: TrainingMonitor) -> bool:
        """Block-coordinate passes over the pieces; True once no block needed an update."""
        for _ in range(self.max_passes):
            if self.qp_solver == "cvxopt":
                changed = dual.python_pass(self.qp_tol, monitor)
            else:
                changed = dual.numba_pass(self.qp_tol, monitor)
            logger.debug("wdpsl pass: %d blocks changed", changed)
            monitor.check()
            if changed == 0:
                return True
        return False


def _piece_notes(snapshot: Snapshot, pieces: Pieces) -> list[str]:
    """Notes on the tokens no piece covers (all-unlabeled stretches, one-token sentences)."""
    covered = np.zeros(snapshot.n_tokens, dtype=bool)
    covered[pieces.left] = True
    covered[pieces.left + 1] = True
    notes = []
    n_out = int((~covered).sum())
    if n_out:
        notes.append(
            f"wdpsl learns from pieces of two adjacent tokens, not both unlabeled: {n_out} tokens are in no piece"
        )
    return notes


def candidate_confidences(model: ChainModel, snapshot: Snapshot) -> np.ndarray:
    """Confidence of each allowed label of each token, ``float64[N, L]`` (DESIGN §5.4, §6).

    ``P`` is recomputed for the snapshot's pieces from the model's energies
    by Eq. 22 (over each piece's candidates; invariant to the bias, so
    the saved arrays suffice).  A token's confidence in label ``y`` is the
    ``P`` mass of the candidates giving it ``y``, summed over the pieces
    containing it and normalised over its allowed set.  Labels outside the
    allowed set get 0; a full token gets 1 on its label; a token in no piece
    (all-unlabeled neighbourhood, one-token sentence) and a token whose mass
    is all zero get the uniform ``1 / |A_t|``.

    References
    ----------
    .. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
       output learning. Eq. 22.
    """
    model.check_compatible(snapshot)
    pieces = build_pieces(snapshot)
    emit, trans, _, _ = model.chain_scores(snapshot)
    conf = eq22(pieces, piece_energies(pieces, emit, trans))
    mass = np.zeros((snapshot.n_tokens, snapshot.n_labels))
    kern.token_confidence_mass(conf, pieces.cand_ptr, pieces.cand_a, pieces.cand_c, pieces.left,
                               snapshot.n_tokens, snapshot.n_labels, mass)
    allowed = snapshot.allowed
    mass = np.where(allowed, mass, 0.0)
    total = mass.sum(axis=1, keepdims=True)
    uniform = allowed / allowed.sum(axis=1, keepdims=True)
    return np.where(total > 0, mass / np.where(total > 0, total, 1.0), uniform)

"""WD-PSL's pieces: two adjacent tokens, their candidate outputs, energies and confidences.

Each sentence is cut into pieces of two adjacent tokens ``(t − 1, t)``, one
transition factor each (Lu & Chow, §IV-A, Fig. 4b); a piece's candidate
outputs are ``C = A_{t−1} × A_t`` (:func:`build_pieces`).  Here also the
energies of the candidates (Eq. 3), the candidate confidences of Eq. 22
from energies and of Eq. 23 from the ``k`` nearest pieces.

References
----------
.. [1] X. Lu, T. W. S. Chow. Weak disambiguation for partial structured
   output learning. Eq. 3, 22, 23, §IV-A, §IV-B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from tagtool.core.snapshot import Snapshot
from tagtool.learn.piecewise import _piece_kernels
from tagtool.learn.progress import TrainingMonitor


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
    """Cut every sentence into adjacent-token pieces (docs/design.md#wd-psl).

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
    _piece_kernels.shared_features(snapshot.feat_indptr, snapshot.feat_indices, left, snapshot.n_features, n12)
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
    _piece_kernels.piece_energies(
        emit, trans, float(bias), pieces.left, pieces.cand_ptr, pieces.cand_a, pieces.cand_c, out
    )
    return out


def eq22(pieces: Pieces, energies: np.ndarray) -> np.ndarray:
    """Candidate confidences from energies, Eq. 22 (``1/s`` on ties)."""
    out = np.zeros(len(energies))
    _piece_kernels.eq22_confidences(energies, pieces.cand_ptr, out)
    return out


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


def nearest_pieces(
    snapshot: Snapshot,
    pieces: Pieces,
    k: int,
    max_df: float = 0.01,
    monitor: TrainingMonitor | None = None,
    chunk: int = 512,
) -> np.ndarray:
    """Indices ``[n, k']`` of each piece's ``k' = min(k, n − 1)`` most similar other pieces (cosine).

    The similarities stay sparse: each row's top ``k'`` is taken among its
    positive entries (numba), pieces of similarity 0 completing a short row
    in random order.  ``max_df`` = 0.01 (features in more than 1 % of the
    pieces ignored) keeps the product sparse, at no cost in F1
    (benchmarks/results/design-measurements.md, "wdpsl").
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
        _piece_kernels.top_k_rows(
            sim.indptr.astype(np.int64), sim.indices.astype(np.int64), sim.data, lo, n, k, noise, fill, out[lo:hi]
        )
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

"""Shared machinery of the structural SVMs ``svm`` and ``cosvm``.

Both learners keep the primal weights ``w = w_0 + Σ_{i,ȳ} α_{i,ȳ} δΦ_i(ȳ)``
explicitly (linear kernel) and optimise the dual one example at a time
(Tsochantaridis et al. 2005; Brefeld et al. 2005, Table 2; Brefeld &
Scheffer 2006, §4.3): for sentence ``i`` the variables ``α_{i,ȳ}``,
``ȳ ∈ S_i``, are re-optimised with all other ``α`` fixed.  This module holds
what both need:

* :class:`Layout` — one flat parameter vector ``θ`` laid out as the arrays of
  a :class:`~tagtool.learn.chain.ChainModel` (emissions ``W[k, l]`` first,
  then per view ``trans``, ``start``, ``end``), so that a joint-feature
  difference ``δΦ`` is a sparse vector over ``θ``'s indices;
* numba kernels for ``δΦ`` (only tokens where the two label sequences
  differ, plus the transitions that differ), sparse dot products (the Gram
  matrix of a working set) and the scatter update ``θ += a·δΦ``;
* :func:`subproblem` — the dual sub-QP of one example for both norms, both
  rescalings and any loss — and :func:`solve_subproblem` (cvxopt through
  :func:`tagtool.learn.qp.solve_qp`; a one-variable QP in closed form);
* :class:`WorkingSet` and :class:`ViewTrainer` — the cutting-plane loop of
  one example in one view.

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

from tagtool.decode._jit import _njit
from tagtool.decode._kbest import _kbest_kernel
from tagtool.decode._viterbi import _loss_augmented_kernel, _viterbi_kernel
from tagtool.learn.chain import ChainModel
from tagtool.learn.qp import solve_qp

LOSSES = ("hamming", "zero-one")
RESCALINGS = ("margin", "slack")
NORMS = (1, 2)

#: α below this (relative to the example's cost) leave the working set.
_ALPHA_TOL = 1e-8
#: Cutting-plane rounds of one labeled example in one visit (Table 2's loop).
MAX_INNER = 25


# ----------------------------------------------------------------------
# parameter layout


@dataclass(frozen=True)
class Layout:
    """Where each :class:`ChainModel` array lives in the flat vector ``θ``.

    ``θ[k·L + l]`` is ``weights[k, l]``; view ``v``'s block starts at
    ``block(v) = F·L + v·(L² + 2L)`` and holds ``trans[v]`` (row-major),
    ``start[v]`` and ``end[v]``.
    """

    n_features: int
    n_labels: int
    n_views: int

    @property
    def n_emission(self) -> int:
        return self.n_features * self.n_labels

    @property
    def block_size(self) -> int:
        return self.n_labels * (self.n_labels + 2)

    @property
    def size(self) -> int:
        return self.n_emission + self.n_views * self.block_size

    def block(self, view: int) -> int:
        return self.n_emission + view * self.block_size

    def weights(self, theta: np.ndarray) -> np.ndarray:
        return theta[: self.n_emission].reshape(self.n_features, self.n_labels)

    def chain(self, theta: np.ndarray, view: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Views into ``θ`` of ``(trans, start, end)`` of ``view`` (contiguous)."""
        base, n = self.block(view), self.n_labels
        trans = theta[base : base + n * n].reshape(n, n)
        start = theta[base + n * n : base + n * n + n]
        end = theta[base + n * n + n : base + n * n + 2 * n]
        return trans, start, end

    def from_model(self, model: ChainModel) -> np.ndarray:
        """``θ`` of a model's arrays (the warm-start offset ``w_0``)."""
        theta = np.zeros(self.size)
        self.weights(theta)[...] = model.weights
        for v in range(self.n_views):
            trans, start, end = self.chain(theta, v)
            trans[...], start[...], end[...] = model.trans[v], model.start[v], model.end[v]
        return theta

    def to_model(self, theta: np.ndarray, labels, feature_view: np.ndarray) -> ChainModel:
        model = ChainModel.zeros(labels, self.n_features, feature_view, n_views=self.n_views)
        model.weights[...] = self.weights(theta)
        for v in range(self.n_views):
            trans, start, end = self.chain(theta, v)
            model.trans[v], model.start[v], model.end[v] = trans, start, end
        return model


# ----------------------------------------------------------------------
# numba kernels


@_njit
def _delta_phi_kernel(indptr, indices, feature_view, view, lo, y, ybar, n_labels, base):
    """Sorted sparse ``Φ(x, y) − Φ(x, ȳ)`` over ``θ``'s indices.

    Only tokens with ``y_t ≠ ȳ_t`` contribute emissions, only differing
    label pairs contribute transitions; repeated indices (a feature on two
    such tokens) are summed and exact zeros dropped.
    """
    n_tokens = y.shape[0]
    count = 0
    for t in range(n_tokens):
        if y[t] != ybar[t]:
            for j in range(indptr[lo + t], indptr[lo + t + 1]):
                if view < 0 or feature_view[indices[j]] == view:
                    count += 2
    count += 2 * (n_tokens + 1)
    idx = np.empty(count, dtype=np.int64)
    val = np.empty(count)
    n = 0
    for t in range(n_tokens):
        if y[t] != ybar[t]:
            for j in range(indptr[lo + t], indptr[lo + t + 1]):
                k = indices[j]
                if view < 0 or feature_view[k] == view:
                    idx[n] = k * n_labels + y[t]
                    val[n] = 1.0
                    idx[n + 1] = k * n_labels + ybar[t]
                    val[n + 1] = -1.0
                    n += 2
    for t in range(1, n_tokens):
        if y[t - 1] != ybar[t - 1] or y[t] != ybar[t]:
            idx[n] = base + y[t - 1] * n_labels + y[t]
            val[n] = 1.0
            idx[n + 1] = base + ybar[t - 1] * n_labels + ybar[t]
            val[n + 1] = -1.0
            n += 2
    sbase = base + n_labels * n_labels
    if y[0] != ybar[0]:
        idx[n] = sbase + y[0]
        val[n] = 1.0
        idx[n + 1] = sbase + ybar[0]
        val[n + 1] = -1.0
        n += 2
    ebase = sbase + n_labels
    if y[n_tokens - 1] != ybar[n_tokens - 1]:
        idx[n] = ebase + y[n_tokens - 1]
        val[n] = 1.0
        idx[n + 1] = ebase + ybar[n_tokens - 1]
        val[n + 1] = -1.0
        n += 2
    order = np.argsort(idx[:n], kind="mergesort")
    out_idx = np.empty(n, dtype=np.int64)
    out_val = np.empty(n)
    m = 0
    for r in range(n):
        k = idx[order[r]]
        if m > 0 and out_idx[m - 1] == k:
            out_val[m - 1] += val[order[r]]
        else:
            out_idx[m] = k
            out_val[m] = val[order[r]]
            m += 1
    keep = 0
    for r in range(m):
        if out_val[r] != 0.0:
            out_idx[keep] = out_idx[r]
            out_val[keep] = out_val[r]
            keep += 1
    return out_idx[:keep].copy(), out_val[:keep].copy()


@_njit
def _sparse_dot(idx_a, val_a, idx_b, val_b):
    """``⟨a, b⟩`` of two sorted sparse vectors (a merge)."""
    i = 0
    j = 0
    total = 0.0
    while i < idx_a.shape[0] and j < idx_b.shape[0]:
        if idx_a[i] == idx_b[j]:
            total += val_a[i] * val_b[j]
            i += 1
            j += 1
        elif idx_a[i] < idx_b[j]:
            i += 1
        else:
            j += 1
    return total


@_njit
def _scatter_add(theta, idx, val, scale):
    for r in range(idx.shape[0]):
        theta[idx[r]] += scale * val[r]


@_njit
def _sentence_emission(indptr, indices, feature_view, view, lo, hi, weights, out):
    """``out[t − lo] = Σ_{k ∈ feats^view(x_t)} weights[k]`` for tokens ``lo:hi``."""
    n_labels = weights.shape[1]
    for t in range(lo, hi):
        for b in range(n_labels):
            out[t - lo, b] = 0.0
        for j in range(indptr[t], indptr[t + 1]):
            k = indices[j]
            if view < 0 or feature_view[k] == view:
                for b in range(n_labels):
                    out[t - lo, b] += weights[k, b]


@_njit
def _path_score(emit, trans, start, end, path):
    n_tokens = path.shape[0]
    total = start[path[0]] + end[path[n_tokens - 1]]
    for t in range(n_tokens):
        total += emit[t, path[t]]
    for t in range(1, n_tokens):
        total += trans[path[t - 1], path[t]]
    return total


@_njit
def _count_viterbi_kernel(emit, trans, start, end, target, counted, best, paths):
    """For every Hamming distance ``d``, the best path with exactly ``d`` tokens off ``target``.

    Only tokens with ``counted[t]`` count (the others may take any label).
    Viterbi over the states (label, differences so far): ``best[d]`` is the
    best score with ``d`` differences (``-inf`` if none), ``paths[d]`` that
    path.  O(T² L²).  The slack-rescaled violation ``Δ(y, ȳ)(1 − f(y) +
    f(ȳ))`` does not decompose over tokens (Tsochantaridis et al. 2005,
    §4); with the Hamming loss it does once the distance is in the state.
    """
    n_tokens, n_labels = emit.shape
    n_counts = n_tokens + 1
    score = np.full((n_tokens, n_counts, n_labels), -np.inf)
    bp = np.zeros((n_tokens, n_counts, n_labels), dtype=np.int64)
    for b in range(n_labels):
        d = 1 if (b != target[0] and counted[0]) else 0
        score[0, d, b] = start[b] + emit[0, b]
    for t in range(1, n_tokens):
        for b in range(n_labels):
            off = 1 if (b != target[t] and counted[t]) else 0
            for d in range(off, t + 2):
                prev_d = d - off
                top = -np.inf
                arg = 0
                for a in range(n_labels):
                    cand = score[t - 1, prev_d, a] + trans[a, b]
                    if cand > top:
                        top = cand
                        arg = a
                if top > -np.inf:
                    score[t, d, b] = top + emit[t, b]
                    bp[t, d, b] = arg
    last = n_tokens - 1
    for d in range(n_counts):
        top = -np.inf
        arg = 0
        for b in range(n_labels):
            cand = score[last, d, b] + end[b]
            if cand > top:
                top = cand
                arg = b
        best[d] = top
        if top == -np.inf:
            continue
        label = arg
        count = d
        for t in range(last, -1, -1):
            paths[d, t] = label
            if t > 0:
                previous = bp[t, count, label]
                if label != target[t] and counted[t]:
                    count -= 1
                label = previous


def delta_phi(snapshot, lo: int, target: np.ndarray, ybar: np.ndarray, view: int, layout: Layout,
              block_view: int) -> tuple[np.ndarray, np.ndarray]:
    """Sparse ``δΦ = Φ(x, target) − Φ(x, ȳ)`` of the sentence starting at token ``lo``.

    ``view`` selects the emission features (−1: all), ``block_view`` the
    transition block in ``θ``.
    """
    return _delta_phi_kernel(
        snapshot.feat_indptr, snapshot.feat_indices, snapshot.feature_view, view, lo,
        target, ybar, layout.n_labels, layout.block(block_view),
    )


# ----------------------------------------------------------------------
# the sub-QP of one example


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


@_njit
def _smo_kernel(P, q, a, cost, boxed, alpha, tol, max_iter):
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


QP_SOLVERS = ("cvxopt", "smo")
#: KKT tolerance of the SMO solver, relative to the largest linear coefficient.
_SMO_TOL = 1e-8


def solve_subproblem(gram, margins, losses, cost, norm=1, rescaling="margin", initial=None,
                     solver="cvxopt") -> np.ndarray:
    """Optimal ``α`` of one example's sub-QP (:func:`subproblem`).

    A zero cost gives ``α = 0``.  One variable is solved in closed form;
    more go to cvxopt (:func:`tagtool.learn.qp.solve_qp`), or with
    ``solver="smo"`` to an exact pairwise (SMO) solver in numba that starts
    from ``initial`` — the same optimum (both are checked against the KKT
    conditions in the tests), a hundred times faster on these tiny QPs.
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
        _smo_kernel(P, q, a, float(cost), boxed, alpha, _SMO_TOL * max(1.0, float(np.abs(q).max())), 20000)
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


# ----------------------------------------------------------------------
# loss and the most violating output


def hamming(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Number of differing tokens, or their summed ``weights``."""
    if weights is None:
        return float(np.count_nonzero(a != b))
    return float(weights[a != b].sum())


def loss_value(loss: str, target: np.ndarray, ybar: np.ndarray, weights: np.ndarray | None = None) -> float:
    if loss == "hamming":
        return hamming(target, ybar, weights)
    return float(not np.array_equal(target, ybar))


def violation(loss_val: float, margin: float, norm: int, rescaling: str) -> float:
    """``H(ȳ)``: the slack ``ȳ`` alone would need (Tsochantaridis et al. 2005, §4)."""
    if rescaling == "margin":
        return loss_val - margin
    return loss_val ** (1.0 / norm) * (1.0 - margin)


@dataclass
class Decoder:
    """The scores of one sentence in one view and the searches over them."""

    emit: np.ndarray
    trans: np.ndarray
    start: np.ndarray
    end: np.ndarray
    free: np.ndarray  # all-True mask of the sentence

    def score(self, path: np.ndarray) -> float:
        return float(_path_score(self.emit, self.trans, self.start, self.end, path))

    def best(self, allowed=None) -> np.ndarray:
        path = np.empty(self.emit.shape[0], dtype=np.int64)
        _viterbi_kernel(self.emit, self.trans, self.start, self.end,
                        self.free if allowed is None else allowed, path)
        return path

    def kbest(self, k: int, allowed=None) -> tuple[np.ndarray, np.ndarray]:
        mask = self.free if allowed is None else allowed
        k = _count_paths(mask, k)
        paths = np.empty((k, self.emit.shape[0]), dtype=np.int64)
        scores = np.empty(k)
        _kbest_kernel(self.emit, self.trans, self.start, self.end, mask, k, paths, scores)
        return paths, scores

    def loss_augmented(self, target: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        path = np.empty(self.emit.shape[0], dtype=np.int64)
        if weights is None:
            weights = np.ones(self.emit.shape[0])
        _loss_augmented_kernel(self.emit, self.trans, self.start, self.end, self.free, target, weights, path)
        return path

    def by_distance(self, target: np.ndarray, counted=None) -> tuple[np.ndarray, np.ndarray]:
        """Best score and path at every Hamming distance ``d = 0 … T`` from ``target`` (unconstrained).

        ``counted`` (bool per token, default all) selects the tokens whose differences count.
        """
        n_tokens = self.emit.shape[0]
        if counted is None:
            counted = np.ones(n_tokens, dtype=np.bool_)
        best = np.empty(n_tokens + 1)
        paths = np.zeros((n_tokens + 1, n_tokens), dtype=np.int64)
        _count_viterbi_kernel(self.emit, self.trans, self.start, self.end, np.ascontiguousarray(target, np.int64),
                              np.ascontiguousarray(counted, np.bool_), best, paths)
        return best, paths

    def margin_gap(self, allowed=None) -> tuple[np.ndarray, float]:
        """The best (allowed) path and its margin ``γ = f(ŷ) − max_{y ≠ ŷ} f(y)`` (Brefeld et al. 2005, §5)."""
        paths, scores = self.kbest(2, allowed)
        gap = scores[0] - scores[1] if len(scores) > 1 else np.inf
        return paths[0], float(gap)


def _count_paths(mask: np.ndarray, cap: int) -> int:
    count = 1
    for n in mask.sum(axis=1).tolist():
        count *= n
        if count >= cap:
            return cap
    return count


def most_violating(dec: Decoder, target: np.ndarray, loss: str, norm: int, rescaling: str,
                   kbest: int, weights: np.ndarray | None = None) -> tuple[np.ndarray | None, float]:
    """``argmax_{ȳ ≠ y} H(ȳ)`` and its ``H`` (None if every other output is fine).

    0/1 loss: the best path other than the target, exact by 2-best Viterbi.
    Hamming loss with margin rescaling: exact by loss-augmented Viterbi.
    Hamming loss with slack rescaling: ``Δ(y, ȳ)^{1/r} (1 − ⟨w, δΦ⟩)`` does
    not decompose over tokens, but for a fixed distance ``d`` it is largest
    at the best path ``d`` tokens away, which a Viterbi over (label,
    distance) finds (:func:`_count_viterbi_kernel`): exact whenever every
    token weight is 0 or 1 (labeled and unlabeled sentences, gated tokens).
    With fractional token weights (partially labeled sentences in
    ``cosvm``) the maximum is taken over the ``kbest`` best paths and the
    loss-augmented one — an approximation.
    """
    target_score = dec.score(target)
    if loss == "zero-one":
        paths, _ = dec.kbest(2)
        for path in paths:
            if not np.array_equal(path, target):
                return path, 1.0 - (target_score - dec.score(path))
        return None, 0.0
    if rescaling == "margin":
        path = dec.loss_augmented(target, weights)
        if np.array_equal(path, target):
            return None, 0.0
        return path, hamming(path, target, weights) - (target_score - dec.score(path))
    if weights is None or np.all((weights == 0) | (weights == 1)):
        return _slack_hamming_exact(dec, target, norm, weights)
    paths, _ = dec.kbest(kbest)
    return _slack_from_candidates(dec, target, norm, weights, list(paths) + [dec.loss_augmented(target, weights)])


def _slack_hamming_exact(dec: Decoder, target: np.ndarray, norm: int,
                         weights: np.ndarray | None) -> tuple[np.ndarray | None, float]:
    """Exact ``argmax_ȳ Δ(y, ȳ)^{1/r} (1 − f(y) + f(ȳ))`` for token weights in {0, 1}.

    For each distance ``d`` only the best path ``d`` counted tokens away can
    be the maximiser (``H`` grows with its score), so the search runs over
    ``d`` with :meth:`Decoder.by_distance`.
    """
    counted = None if weights is None else weights != 0
    best, paths = dec.by_distance(target, counted)
    target_score = dec.score(target)
    best_path, best_h = None, -np.inf
    for d in range(1, len(best)):
        if best[d] == -np.inf:
            continue
        h = violation(float(d), target_score - best[d], norm, "slack")
        if h > best_h:
            best_path, best_h = paths[d], h
    return (best_path.copy(), best_h) if best_path is not None else (None, 0.0)


def _slack_from_candidates(dec, target, norm, weights, candidates):
    """The most slack-violating of ``candidates`` (approximate search for fractional token weights)."""
    target_score = dec.score(target)
    best, best_h = None, -np.inf
    for path in candidates:
        loss_val = hamming(path, target, weights)
        if loss_val <= 0.0:  # the target itself, or a path that differs only where nothing counts
            continue
        h = violation(loss_val, target_score - dec.score(path), norm, "slack")
        if h > best_h:
            best, best_h = path, h
    return (best, best_h) if best is not None else (None, 0.0)


# ----------------------------------------------------------------------
# working sets


class WorkingSet:
    """``S_i`` of one sentence in one view: outputs, ``δΦ``, losses, ``α`` and Gram."""

    __slots__ = ("target", "cost", "weights", "paths", "keys", "idx", "val", "losses", "alpha", "gram")

    def __init__(self, target: np.ndarray, cost: float, weights: np.ndarray | None = None):
        self.target = target
        self.cost = cost
        self.weights = weights  # per-token Hamming weights (None: all 1)
        self.paths: list[np.ndarray] = []
        self.keys: set[bytes] = set()
        self.idx: list[np.ndarray] = []
        self.val: list[np.ndarray] = []
        self.losses: list[float] = []
        self.alpha = np.zeros(0)
        self.gram = np.zeros((0, 0))

    def __len__(self) -> int:
        return len(self.paths)

    def contains(self, path: np.ndarray) -> bool:
        return path.tobytes() in self.keys

    def add(self, path, idx, val, loss_val) -> None:
        row = np.array([_sparse_dot(idx, val, self.idx[j], self.val[j]) for j in range(len(self))])
        diag = _sparse_dot(idx, val, idx, val)
        m = len(self)
        gram = np.empty((m + 1, m + 1))
        gram[:m, :m] = self.gram
        gram[m, :m] = row
        gram[:m, m] = row
        gram[m, m] = diag
        self.gram = gram
        self.paths.append(path)
        self.keys.add(path.tobytes())
        self.idx.append(idx)
        self.val.append(val)
        self.losses.append(loss_val)
        self.alpha = np.append(self.alpha, 0.0)

    def keep(self, mask: np.ndarray) -> None:
        """Drop the outputs where ``mask`` is False (α = 0: Table 2, step 6)."""
        sel = np.flatnonzero(mask)
        self.paths = [self.paths[j] for j in sel]
        self.keys = {p.tobytes() for p in self.paths}
        self.idx = [self.idx[j] for j in sel]
        self.val = [self.val[j] for j in sel]
        self.losses = [self.losses[j] for j in sel]
        self.alpha = self.alpha[sel]
        self.gram = self.gram[np.ix_(sel, sel)]

    def margins(self, theta: np.ndarray) -> np.ndarray:
        return np.array([_dense_dot(theta, self.idx[j], self.val[j]) for j in range(len(self))])

    def apply(self, theta: np.ndarray, new_alpha: np.ndarray) -> float:
        """Set ``α`` to ``new_alpha`` and move ``θ`` by ``Σ Δα δΦ``; returns ``max |Δα|``."""
        change = new_alpha - self.alpha
        for j in np.flatnonzero(change):
            _scatter_add(theta, self.idx[j], self.val[j], change[j])
        self.alpha = new_alpha.copy()
        return float(np.max(np.abs(change), initial=0.0))


@_njit
def _dense_dot_kernel(theta, idx, val):
    total = 0.0
    for r in range(idx.shape[0]):
        total += theta[idx[r]] * val[r]
    return total


def _dense_dot(theta, idx, val) -> float:
    return float(_dense_dot_kernel(theta, idx, val))


# ----------------------------------------------------------------------
# one view's cutting-plane optimisation


@dataclass
class SVMSettings:
    C: float
    norm: int
    loss: str
    rescaling: str
    epsilon: float
    kbest: int
    qp_solver: str = "cvxopt"

    def check(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if self.rescaling not in RESCALINGS:
            raise ValueError(f"rescaling must be one of {RESCALINGS}, got {self.rescaling!r}")
        if self.norm not in NORMS:
            raise ValueError(f"norm must be 1 or 2, got {self.norm!r}")
        if not self.C > 0:
            raise ValueError(f"C must be positive, got {self.C}")
        if not self.epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {self.epsilon}")
        if self.qp_solver not in QP_SOLVERS:
            raise ValueError(f"qp_solver must be one of {QP_SOLVERS}, got {self.qp_solver!r}")
        if self.kbest < 2:
            raise ValueError(f"kbest must be at least 2, got {self.kbest}")


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

    # -- scores ----------------------------------------------------------

    def decoder(self, i: int) -> Decoder:
        snap = self.snapshot
        lo, hi = int(snap.offsets[i]), int(snap.offsets[i + 1])
        emit = np.empty((hi - lo, self.layout.n_labels))
        _sentence_emission(snap.feat_indptr, snap.feat_indices, snap.feature_view, self.view, lo, hi,
                           self._weights, emit)
        trans, start, end = self._chain
        return Decoder(emit, trans, start, end, np.ones(emit.shape, dtype=np.bool_))

    # -- working sets ------------------------------------------------------

    def reset(self, i: int) -> None:
        """Remove sentence ``i``'s outputs and their ``α`` from ``w`` (Alg. 1, line 1)."""
        ws = self.sets.pop(i, None)
        if ws is not None and len(ws):
            ws.apply(self.theta, np.zeros(len(ws)))

    def set_target(self, i: int, target: np.ndarray, cost: float, weights=None) -> WorkingSet:
        """The working set of ``i`` for ``target``; outputs are re-based if the target moved.

        "Substitute former target" (Alg. 1, line 11): the old outputs stay,
        their ``δΦ`` (and losses) now measured against the new target and
        token weights, and the sub-QP is re-solved (an output equal to the
        new target, or with zero loss under slack rescaling, leaves).
        """
        ws = self.sets.get(i)
        if ws is None:
            ws = self.sets[i] = WorkingSet(target, cost, weights)
            return ws
        same_weights = (weights is None and ws.weights is None) or (
            weights is not None and ws.weights is not None and np.array_equal(weights, ws.weights))
        if np.array_equal(ws.target, target) and same_weights:
            if cost != ws.cost and len(ws):
                self.solve(ws, cost)  # the box moved (C_u schedule, peer margin)
            return ws
        old_paths = ws.paths
        self.reset(i)
        ws = self.sets[i] = WorkingSet(target, cost, weights)
        for path in old_paths:
            if not np.array_equal(path, target) and (
                    self.settings.rescaling == "margin" or loss_value(self.settings.loss, target, path, weights) > 0):
                self._add(i, ws, path)
        if len(ws):
            self.solve(ws, cost)
        return ws

    def _add(self, i: int, ws: WorkingSet, path: np.ndarray) -> None:
        idx, val = delta_phi(self.snapshot, int(self.snapshot.offsets[i]), ws.target, path, self.view,
                             self.layout, self.block_view)
        ws.add(path, idx, val, loss_value(self.settings.loss, ws.target, path, ws.weights))

    def solve(self, ws: WorkingSet, cost: float) -> float:
        """Re-optimise ``α_i`` over ``S_i`` with all other ``α`` fixed; prune zeros; returns ``max |Δα|``."""
        s = self.settings
        margins = ws.margins(self.theta) - ws.gram @ ws.alpha  # ⟨w_rest, δΦ_j⟩
        alpha = solve_subproblem(ws.gram, margins, np.array(ws.losses), cost, s.norm, s.rescaling,
                                 initial=ws.alpha, solver=s.qp_solver)
        ws.cost = cost
        support = alpha > _ALPHA_TOL * max(cost, 1.0)
        alpha[~support] = 0.0  # so that w stays exactly w_0 + Σ α δΦ over the kept outputs
        change = ws.apply(self.theta, alpha)
        ws.keep(support)
        return change

    def slack(self, ws: WorkingSet, dec: Decoder) -> float:
        """``ξ_i = max(0, max_{ȳ ∈ S_i} H(ȳ))`` at the current ``w``."""
        if not len(ws):
            return 0.0
        s = self.settings
        target_score = dec.score(ws.target)
        return max(0.0, max(
            violation(ws.losses[j], target_score - dec.score(ws.paths[j]), s.norm, s.rescaling)
            for j in range(len(ws))
        ))

    # -- the cutting-plane step of Table 2 / Alg. 1 -------------------------

    def step(self, i: int, target: np.ndarray, cost: float, weights=None) -> tuple[bool, float]:
        """One round: add the most violating output if ``H > ξ_i + ε``, re-solve.

        ``weights`` are per-token Hamming weights (partially labeled
        sentences); None counts every token once.  Returns ``(kept, max
        |Δα|)``: whether an output was added and kept a non-zero ``α``, and
        how far ``α_i`` moved.
        """
        ws = self.set_target(i, target, cost, weights)
        s = self.settings
        dec = self.decoder(i)
        path, h = most_violating(dec, target, s.loss, s.norm, s.rescaling, s.kbest, weights)
        if path is None or h <= self.slack(ws, dec) + s.epsilon or ws.contains(path) or cost <= 0.0:
            return False, 0.0
        self._add(i, ws, path)
        change = self.solve(ws, cost)
        return ws.contains(path), change

    def optimise(self, i: int, target: np.ndarray, cost: float, weights=None, rounds: int = MAX_INNER) -> int:
        """Table 2 of Brefeld et al. (2005): rounds until no output violates by more than ε.

        Returns the number of outputs added.
        """
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

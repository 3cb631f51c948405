"""The CRF objective ``-J(θ)`` of docs/design.md#entropy-regularised-crf and its gradient, chunk by chunk.

``θ = (W[n_features, L], trans[L, L], start[L], end[L])`` is one flat
vector (:func:`unpack` gives views of its parts).  The numba kernels of
:mod:`tagtool.learn._crf_kernels` evaluate a chunk of sentences each, so a
cancel request is seen between chunks; chunks run on ``n_jobs`` threads
(the kernels release the GIL).  The learners are in :mod:`tagtool.learn.crf`.

The kernels (:mod:`tagtool.learn._crf_kernels`) compute ``-J(θ)``
(docs/design.md#entropy-regularised-crf) without its L2 term:

* a fully labeled sentence adds ``log Z - S(y)`` (``-log p(y|x)``);
* a partially labeled one adds ``log Z - log Z_A`` (``-log Σ_{y∈A} p(y|x)``);
* an unlabeled one adds ``γ H(p(·|x))``.

Every sentence first yields the gradient of its term with respect to its own
emission matrix, ``G[t, b]``; the chain rule then sends ``G[0]`` to the start
scores, ``G[T-1]`` to the end scores and ``G[t]`` to the weight row of every
feature of token ``t`` (a token's emission is the sum of its features' rows).

Scaled forward-backward.  Unlike the log-space decoders of
:mod:`tagtool.decode`, the kernels work with probabilities: ``exp(trans -
max trans)`` once per chunk, ``exp(emit[t] - max emit[t])`` once per token,
and forward vectors renormalised at every token (Rabiner 1989, §V-A), so a
forward or backward step is an ``L × L`` multiply-add without any ``exp`` or
``log``.  Every scaled quantity is then bounded by ``L^2 e^R`` where ``R`` is
the range of the transition, start and end scores plus the largest range of
one token's emissions: below ``R = max_range`` (default 500) nothing can
overflow or underflow to a relevant degree.  A sentence above the bound is
not touched there; its index is returned, and :class:`CRFObjective` handles
it with the log-space decoders.  With an L2 penalty the bound is never
approached in practice.

The sums of pair marginals are never formed per token: ``p(y_{t-1}=a,
y_t=b) = α̂[t-1, a] · expT[a, b] · w_t[b]``, so the kernels accumulate the
outer products ``α̂ ⊗ w`` over a whole chunk and multiply by ``expT`` once.
The entropy gradient uses the expected-score recursions of Mann & McCallum
(2007) in the same scaled form (see :func:`~tagtool.learn._crf_kernels._entropy_sentence`).

References
----------
.. [1] F. Jiao, S. Wang, C.-H. Lee, R. Greiner, D. Schuurmans.
   Semi-supervised conditional random fields for improved sequence
   segmentation and labeling. COLING/ACL 2006, Eqs. 1–3.
.. [2] G. S. Mann, A. McCallum. Efficient computation of entropy gradient for
   semi-supervised conditional random fields. NAACL-HLT 2007.
.. [3] L. R. Rabiner. A tutorial on hidden Markov models and selected
   applications in speech recognition. Proc. IEEE 77(2), 1989, §V-A.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.decode import entropy_and_gradient, forward_backward
from tagtool.learn import _crf_kernels as kernels
from tagtool.learn import crf_expreg as expreg
from tagtool.learn._lbfgs_kernels import axpy, dot
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import TrainingMonitor

#: Tokens per kernel call: a small fraction of a second of work, so cancels are prompt.
CHUNK_TOKENS = 16384


@dataclass(frozen=True)
class Parameters:
    """Views of the flat parameter vector ``θ`` (no copies)."""

    weights: np.ndarray
    trans: np.ndarray
    start: np.ndarray
    end: np.ndarray


def unpack(theta: np.ndarray, n_features: int, n_labels: int) -> Parameters:
    """Split ``θ = (W, trans, start, end)`` into views of the right shapes."""
    n_w = n_features * n_labels
    n_t = n_labels * n_labels
    return Parameters(
        theta[:n_w].reshape(n_features, n_labels),
        theta[n_w : n_w + n_t].reshape(n_labels, n_labels),
        theta[n_w + n_t : n_w + n_t + n_labels],
        theta[n_w + n_t + n_labels :],
    )


def pack(model: ChainModel) -> np.ndarray:
    """The flat ``θ`` of a one-view model."""
    return np.concatenate([model.weights.ravel(), model.trans[0].ravel(), model.start[0], model.end[0]])


def parameter_count(n_features: int, n_labels: int) -> int:
    return n_features * n_labels + n_labels * n_labels + 2 * n_labels


def _chunks(offsets: np.ndarray, chunk_tokens: int) -> list[tuple[int, int]]:
    """Consecutive sentence ranges of about ``chunk_tokens`` tokens each."""
    n_sentences = len(offsets) - 1
    bounds = [0]
    while bounds[-1] < n_sentences:
        lo = bounds[-1]
        hi = int(np.searchsorted(offsets, offsets[lo] + chunk_tokens, side="right")) - 1
        bounds.append(min(max(hi, lo + 1), n_sentences))
    return list(zip(bounds[:-1], bounds[1:]))


class CRFObjective:
    """``-J(θ)`` (docs/design.md#entropy-regularised-crf) and its gradient over a snapshot.

    Calling the object with ``θ`` returns ``(value, gradient)`` (the form
    ``scipy.optimize.minimize(jac=True)`` expects too).

    Parameters
    ----------
    snapshot : Snapshot
        Every sentence kind counts: full ones by their likelihood, partial
        ones by their marginal likelihood, unlabeled ones by their entropy
        (only when ``gamma > 0``).
    c2 : float
        L2 weight: the objective adds ``c2 ‖θ‖²`` (``c2 = 1/(2σ²)``).
    gamma : float
        Entropy weight ``γ``.
    monitor : TrainingMonitor, optional
        Checked between chunks (raises ``Cancelled``).
    n_jobs : int
        Threads that evaluate chunks concurrently.
    max_range : float
        Score range beyond which a sentence goes to the log-space decoders
        (see :mod:`tagtool.learn._crf_kernels`); tests lower it to exercise
        that path.
    chunk_tokens : int
        Tokens per kernel call.
    er_weight : float
        Weight ``λ`` of the expectation regularisation of label proportions
        (:mod:`tagtool.learn.crf_expreg`): the objective adds ``λ KL(p̃ ‖ p̂_θ)``
        over the unlabeled sentences (Mann & McCallum 2007, ICML, Eq. 2).
        0 (the default) leaves the objective as it was.
    er_target : ndarray, shape (n_labels,), optional
        ``p̃``; by default the add-one smoothed proportions of the given labels.

    Attributes
    ----------
    totals : ndarray, shape (3,)
        Of the last evaluation: ``Σ -log p(y|x)`` over full sentences,
        ``Σ -log p(A|x)`` over partial ones, ``Σ H`` over unlabeled ones.
    n_evaluations : int
    n_log_space : int
        Sentences of the last evaluation that went to the log-space decoders.
    er_value : float
        ``λ KL(p̃ ‖ p̂_θ)`` of the last evaluation (0 when off).
    proportions : ndarray or None
        ``p̂_θ`` of the last evaluation (None when the term is off).
    """

    def __init__(
        self,
        snapshot: Snapshot,
        c2: float = 1.0,
        gamma: float = 0.0,
        monitor: TrainingMonitor | None = None,
        n_jobs: int = 1,
        max_range: float = kernels.DEFAULT_MAX_RANGE,
        chunk_tokens: int = CHUNK_TOKENS,
        er_weight: float = 0.0,
        er_target: np.ndarray | None = None,
    ):
        if c2 < 0 or gamma < 0 or er_weight < 0:
            raise ValueError(f"c2, gamma and er_weight must be non-negative (got {c2}, {gamma}, {er_weight})")
        self.snapshot = snapshot
        self.c2 = float(c2)
        self.gamma = float(gamma)
        self.monitor = monitor or TrainingMonitor()
        self.n_jobs = max(1, int(n_jobs))
        self.max_range = float(max_range)
        self.n_features, self.n_labels = snapshot.n_features, snapshot.n_labels
        self.size = parameter_count(self.n_features, self.n_labels)
        self.kinds = snapshot.sentence_status().astype(np.int8)
        self.gold = np.ascontiguousarray(snapshot.allowed.argmax(axis=1), dtype=np.int64)
        self.chunks = _chunks(snapshot.offsets, chunk_tokens)
        self.totals = np.zeros(3)
        self.n_evaluations = 0
        self.n_log_space = 0
        self.er_weight = float(er_weight)
        self.er_sentences = np.flatnonzero(self.kinds == kernels.KIND_NONE)
        self.er_target = expreg.labeled_proportions(snapshot, self.kinds) if er_target is None else er_target
        self.er_value = 0.0
        self.proportions: np.ndarray | None = None
        # the other threads' gradients (the first thread adds to the output)
        self._buffers = [np.zeros(self.size) for _ in range(self.n_jobs - 1)]

    def value(self, theta: np.ndarray) -> float:
        """``-J(θ)`` alone (the gradient is computed and dropped)."""
        return self(theta)[0]

    def __call__(self, theta: np.ndarray, out: np.ndarray | None = None) -> tuple[float, np.ndarray]:
        """``(-J(θ), ∇(-J)(θ))``; the gradient is written to ``out`` if given (no allocation)."""
        theta = np.ascontiguousarray(theta, dtype=np.float64)
        params = unpack(theta, self.n_features, self.n_labels)
        grads = [np.zeros(self.size) if out is None else out] + self._buffers
        totals = np.zeros((self.n_jobs, 3))
        self._log_space_counts = [0] * self.n_jobs
        for grad in grads:
            grad.fill(0.0)
        if self.n_jobs == 1:
            for lo, hi in self.chunks:
                self._run_chunk(params, lo, hi, 0, grads[0], totals[0])
                self.monitor.check()
        else:
            self._run_threaded(params, grads, totals)
        grad = grads[0]
        for other in grads[1:]:
            grad += other
        self.totals = totals.sum(axis=0)
        self.n_log_space = sum(self._log_space_counts)
        penalty = self.c2 * dot(theta, theta)
        value = self.totals[0] + self.totals[1] + self.gamma * self.totals[2] + penalty
        if self.er_weight > 0.0:
            self.er_value, self.proportions = expreg.expectation_term(
                self.snapshot,
                self.er_sentences,
                self.er_target,
                self.er_weight,
                params,
                unpack(grad, self.n_features, self.n_labels),
            )
            value += self.er_value
        axpy(2.0 * self.c2, theta, grad)
        self.n_evaluations += 1
        return value, grad

    def _run_threaded(self, params: Parameters, grads: list, totals: np.ndarray) -> None:
        """Workers take chunks from a shared counter; this thread polls the cancel check meanwhile."""
        stop = threading.Event()
        lock = threading.Lock()
        taken = iter(range(len(self.chunks)))

        def work(job: int) -> None:
            while not stop.is_set():
                with lock:
                    k = next(taken, None)
                if k is None:
                    return
                self._run_chunk(params, *self.chunks[k], job, grads[job], totals[job])

        with ThreadPoolExecutor(max_workers=self.n_jobs) as pool:
            futures = [pool.submit(work, job) for job in range(self.n_jobs)]
            try:
                while wait(futures, timeout=0.05).not_done:
                    self.monitor.check()
                self.monitor.check()
            finally:
                stop.set()  # on a cancel, workers finish their current chunk and quit
            for future in futures:
                future.result()

    def _run_chunk(
        self, params: Parameters, lo: int, hi: int, job: int, flat_grad: np.ndarray, totals: np.ndarray
    ) -> None:
        s = self.snapshot
        grad = unpack(flat_grad, self.n_features, self.n_labels)
        skipped = np.empty(hi - lo, dtype=np.int64)
        n_skipped = kernels.objective_chunk(
            params.weights,
            params.trans,
            params.start,
            params.end,
            s.offsets,
            s.feat_indptr,
            s.feat_indices,
            s.allowed,
            self.gold,
            self.kinds,
            self.gamma,
            lo,
            hi,
            self.max_range,
            grad.weights,
            grad.trans,
            grad.start,
            grad.end,
            totals,
            skipped,
        )
        self._log_space_counts[job] += n_skipped
        for i in skipped[:n_skipped]:
            self._log_space_sentence(int(i), params, grad, totals)

    def _log_space_sentence(self, i: int, params: Parameters, grad: Parameters, totals: np.ndarray) -> None:
        """One sentence by the log-space decoders (scores too far apart for the scaled kernels)."""
        s = self.snapshot
        rows = s.sentence_slice(i)
        tokens = np.arange(rows.start, rows.stop)
        token_of_entry = np.repeat(tokens - rows.start, np.diff(s.feat_indptr[rows.start : rows.stop + 1]))
        feats = s.feat_indices[s.feat_indptr[rows.start] : s.feat_indptr[rows.stop]]
        emit = np.zeros((len(tokens), self.n_labels))
        np.add.at(emit, token_of_entry, params.weights[feats])
        chain = (emit, params.trans, params.start, params.end)
        kind = self.kinds[i]
        if kind == kernels.KIND_NONE:
            if self.gamma == 0.0:
                return
            ent = entropy_and_gradient(*chain)
            totals[2] += ent.entropy
            grad_emit, grad_trans = self.gamma * ent.d_emit, self.gamma * ent.d_trans
        else:
            free = forward_backward(*chain)
            grad_emit, grad_trans = free.marginals.copy(), free.pair_marginals.sum(axis=0)
            if kind == kernels.KIND_FULL:
                y = self.gold[rows]
                score = emit[np.arange(len(y)), y].sum() + params.trans[y[:-1], y[1:]].sum()
                totals[0] += free.log_z - (score + params.start[y[0]] + params.end[y[-1]])
                grad_emit[np.arange(len(y)), y] -= 1.0
                np.add.at(grad_trans, (y[:-1], y[1:]), -1.0)
            else:
                fixed = forward_backward(*chain, s.allowed[rows])
                totals[1] += free.log_z - fixed.log_z
                grad_emit -= fixed.marginals
                grad_trans -= fixed.pair_marginals.sum(axis=0)
        grad.trans[...] += grad_trans
        grad.start[...] += grad_emit[0]
        grad.end[...] += grad_emit[-1]
        np.add.at(grad.weights, feats, grad_emit[token_of_entry])

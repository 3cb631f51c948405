"""Linear-chain CRFs: supervised (``crf``) and entropy-regularised (``entropy-crf``).

Both maximise, by L-BFGS over ``θ = (W[n_features, L], trans[L, L],
start[L], end[L])``, the objective of DESIGN §5.3 (Jiao et al. 2006, Eq. 2):

``J(θ) = Σ_full log p(y_i|x_i) + Σ_partial log Σ_{y∈A_i} p(y|x_i)
− c2 ‖θ‖² − γ Σ_unlabeled H(p(·|x_i))``.

* **Regularisation.**  ``c2 ‖θ‖²`` with ``c2 = 1/(2σ²)`` is CRFsuite's
  parametrisation (``-p c2=…``, default 1), so settings carry over from
  CRFsuite and sklearn-crfsuite (their L1 term ``c1`` has no counterpart
  here).  All of ``θ`` is penalised, transitions included, as in CRFsuite.
* **Partial annotations.**  A probabilistic learner's natural use of an
  allowed-set annotation (DESIGN §2) is its marginal likelihood ``log Z_A −
  log Z``: the probability mass the model gives the sequences the annotator
  still allows.  ``crf`` therefore learns from full and partial sentences;
  unlabeled sentences carry no likelihood and are left out (and said so).
* **Entropy.**  ``entropy-crf`` adds the unlabeled entropy term with weight
  ``gamma``.  The objective is not concave, so, as in the paper (§3), it
  starts from the supervised optimum (γ = 0, ``supervised_iterations``) and
  then ascends ``J`` with the entropy term (``max_iterations``).
* **Optimiser.**  L-BFGS (:func:`lbfgs`) with CRFsuite's memory of 6
  pairs, first step of length 1 along the steepest descent, backtracking
  line search; it stops after ``max_iterations`` or when an iteration
  lowers the objective by less than ``tol`` relative to it.  A warm start
  starts from the previous model's ``θ``.

The objective and gradient of the whole corpus are computed by numba
kernels (:mod:`tagtool.learn._crf_kernels`), chunk by chunk, so a cancel
request is seen between chunks, within a fraction of a second; chunks run
on ``n_jobs`` threads (the kernels release the GIL).

References
----------
.. [1] J. Lafferty, A. McCallum, F. Pereira. Conditional random fields:
   probabilistic models for segmenting and labeling sequence data. ICML 2001.
.. [2] F. Jiao, S. Wang, C.-H. Lee, R. Greiner, D. Schuurmans.
   Semi-supervised conditional random fields for improved sequence
   segmentation and labeling. COLING/ACL 2006, Eqs. 1–3 (DESIGN §5.3).
.. [3] G. S. Mann, A. McCallum. Efficient computation of entropy gradient
   for semi-supervised conditional random fields. NAACL-HLT 2007.
.. [4] N. Okazaki. CRFsuite: a fast implementation of conditional random
   fields, 2007 (the ``c2`` parametrisation and L-BFGS settings).
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.decode import entropy_and_gradient, forward_backward
from tagtool.learn import _crf_kernels as kernels
from tagtool.learn.base import Learner, NothingToLearnError
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.unlabeled import (
    ENTROPY_DRIFT_TOLERANCE,
    balanced_weight,
    check_balance,
    choose_model,
    has_unlabeled,
)

logger = logging.getLogger(__name__)

#: Tokens per kernel call: about 10–30 ms of work, so cancels are prompt.
CHUNK_TOKENS = 16384
#: L-BFGS memory (CRFsuite's default ``num_memories``): 2 × 6 vectors of |θ|.
LBFGS_MEMORY = 6


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
    """``-J(θ)`` of DESIGN §5.3 and its gradient over a snapshot.

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

    Attributes
    ----------
    totals : ndarray, shape (3,)
        Of the last evaluation: ``Σ -log p(y|x)`` over full sentences,
        ``Σ -log p(A|x)`` over partial ones, ``Σ H`` over unlabeled ones.
    n_evaluations : int
    n_log_space : int
        Sentences of the last evaluation that went to the log-space decoders.
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
    ):
        if c2 < 0 or gamma < 0:
            raise ValueError(f"c2 and gamma must be non-negative (got c2={c2}, gamma={gamma})")
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
        penalty = self.c2 * kernels.dot(theta, theta)
        value = self.totals[0] + self.totals[1] + self.gamma * self.totals[2] + penalty
        kernels.axpy(2.0 * self.c2, theta, grad)
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
            params.weights, params.trans, params.start, params.end, s.offsets, s.feat_indptr, s.feat_indices,
            s.allowed, self.gold, self.kinds, self.gamma, lo, hi, self.max_range,
            grad.weights, grad.trans, grad.start, grad.end, totals, skipped,
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


def _default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class CRF(Learner):
    """Supervised linear-chain CRF trained by L-BFGS with an L2 penalty.

    Learns from fully labeled sentences (``log p(y|x)``) and partially
    labeled ones (the marginal likelihood ``log Σ_{y∈A} p(y|x)``, DESIGN
    §2); unlabeled sentences carry no likelihood and are left out.

    Parameters
    ----------
    c2 : float
        L2 weight; the objective subtracts ``c2 ‖θ‖²`` (``c2 = 1/(2σ²)``,
        CRFsuite's ``c2``, whose default is also 1).
    max_iterations : int
        L-BFGS iterations.
    tol : float
        Stop when the objective's relative decrease in one iteration falls
        below ``tol``.
    n_jobs : int or None
        Threads evaluating the objective; None for up to two (the cores of
        a typical laptop that the GUI leaves free).

    References
    ----------
    .. [1] J. Lafferty, A. McCallum, F. Pereira. Conditional random fields.
       ICML 2001 (the likelihood and its gradient ``F - E_p[F]``).
    .. [2] F. Jiao et al. Semi-supervised conditional random fields. ACL
       2006, Eq. 1 (DESIGN §5.3, its supervised part).
    """

    name = "crf"
    uses = frozenset({"full", "partial"})
    two_view = False
    pass_param = "max_iterations"
    description = "Supervised linear-chain CRF (L-BFGS, L2); partial labels by their marginal likelihood."

    def __init__(self, c2: float = 1.0, max_iterations: int = 100, tol: float = 1e-7, n_jobs: int | None = None):
        self.c2 = c2
        self.max_iterations = max_iterations
        self.tol = tol
        self.n_jobs = n_jobs

    def _check_params(self) -> None:
        if not self.c2 >= 0:
            raise ValueError(f"c2 must be non-negative, got {self.c2}")

    def _jobs(self) -> int:
        return _default_jobs() if self.n_jobs is None else max(1, int(self.n_jobs))

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        objective = CRFObjective(snapshot, c2=self.c2, gamma=0.0, monitor=monitor, n_jobs=self._jobs())
        theta0 = pack(warm_start) if warm_start is not None else np.zeros(objective.size)
        theta, info = lbfgs(objective, theta0, self.max_iterations, self.tol, monitor, (0.0, 1.0), "crf")
        return _to_model(snapshot, theta, {"optimiser": info})


class EntropyCRF(CRF):
    """Entropy-regularised semi-supervised CRF (Jiao et al. 2006; DESIGN §5.3).

    Maximises the labeled and partial (marginal) log-likelihood minus
    ``c2 ‖θ‖²`` minus ``gamma`` times the summed conditional entropy of the
    unlabeled sentences.  Without a warm start it first trains the
    supervised CRF (γ = 0) for ``supervised_iterations``, then continues
    from there with the entropy term for ``max_iterations`` (the objective
    is not concave: the paper improves a supervised model by ascent).  A
    warm start begins the second phase at once, unless the collapse guard
    needs the supervised solution (``guard`` with unlabeled sentences).

    Parameters
    ----------
    gamma : float
        Weight of the unlabeled entropy.  The paper tries 0.1–10 (gains on
        gene mentions up to 5); on CoNLL-2000 chunking from 100 labeled
        sentences every value above 0.1 lowered F1, hence the default at
        the low end.
    c2 : float
        L2 weight, ``c2 = 1/(2σ²)`` as in :class:`CRF`.
    max_iterations : int
        L-BFGS iterations with the entropy term.
    supervised_iterations : int
        L-BFGS iterations of the supervised start.
    tol : float
        Relative decrease of the objective below which L-BFGS stops.
    n_jobs : int or None
        Threads evaluating the objective.
    balance : float or None, default 0.1
        At most this many unlabeled tokens count per labeled one: the
        entropy term's weight is ``gamma · min(1, balance · n_l / n_u)``
        (tokens of labeled or partially labeled sentences ``n_l``, of
        unlabeled ones ``n_u``); ``None`` keeps ``gamma`` as given, the
        paper's objective.  Beyond the paper: Jiao et al. tune γ for one
        labeled/unlabeled ratio, but in an annotation tool the ratio runs
        from 1:100 to 10:1 as labeling goes on, and a fixed γ lets the
        entropy of many unlabeled sentences swamp a few labeled ones —
        minimising it then makes the model sure of a wrong labeling (one
        CoNLL-2000 draw of 5 labeled + 100 unlabeled sentences, γ = 0.1,
        c2 = 1: span F1 0.003 against 0.669 for the supervised CRF; 0.656
        with the balance).  benchmarks/results/entropy_crf.md: no change at
        100 labeled with 100–500 unlabeled on CoNLL-2000, better on
        CoNLL-2002 at 500 (F1 51.6 vs 50.5); at 5 labeled the balance helps
        (58.6 vs 55.3; NER 12.8 vs 8.7) but the supervised CRF stays ahead
        (62.7; 22.1).  Those runs used the crfsuite template and c2 = 0.1;
        at the defaults (default features, c2 = 1) balance 1 was worse than
        the supervised CRF wherever it did not collapse
        (benchmarks/robustness.py, 500 unlabeled sentences, 5 draws:
        CoNLL-2000 at 20 labeled +0.97 ± 0.35 token error, CoNLL-2002 at 100
        +0.74 ± 0.31) and collapsed on UD EWT and the PTB sample; 0.1 was
        even with it (−0.07 ± 0.08, −0.01 ± 0.01) and did not collapse on UD
        at 20 labeled, hence the default.  The weight used is
        ``model.info["optimiser"]["entropy"]["gamma"]`` (and
        ``model.unlabeled_weight_used``); see :mod:`tagtool.learn.unlabeled`.
    guard : bool, default True
        The collapse guard of :mod:`tagtool.learn.unlabeled`: compare the
        result with the supervised start (γ = 0) on the training sentences
        and return the supervised model if the entropy term lost labeled
        tokens or shifted the label proportions of the unlabeled tokens
        towards one label by more than 1 % (logged, and
        ``model.guard_fired``).  On UD English EWT part-of-speech (20
        labeled, 500 unlabeled sentences) the entropy term made the model
        sure of a wrong labeling in 4 of 5 repeats (issue 12).  A warm
        start then starts the supervised phase from the previous model.

    References
    ----------
    .. [1] F. Jiao et al. Semi-supervised conditional random fields for
       improved sequence segmentation and labeling. ACL 2006, Eqs. 2–3.
    .. [2] G. S. Mann, A. McCallum. Efficient computation of entropy gradient
       for semi-supervised conditional random fields. NAACL-HLT 2007.
    """

    name = "entropy-crf"
    uses = frozenset({"full", "partial", "none"})
    #: Of the collapse guard's drift check (:data:`tagtool.learn.unlabeled.ENTROPY_DRIFT_TOLERANCE`).
    guard_drift_tolerance: ClassVar[float] = ENTROPY_DRIFT_TOLERANCE
    description = "Semi-supervised CRF: likelihood of (partially) labeled sentences minus unlabeled entropy."

    def __init__(
        self,
        gamma: float = 0.1,
        c2: float = 1.0,
        max_iterations: int = 100,
        supervised_iterations: int = 100,
        tol: float = 1e-7,
        n_jobs: int | None = None,
        balance: float | None = 0.1,
        guard: bool = True,
    ):
        self.gamma = gamma
        self.c2 = c2
        self.max_iterations = max_iterations
        self.supervised_iterations = supervised_iterations
        self.tol = tol
        self.n_jobs = n_jobs
        self.balance = balance
        self.guard = guard

    def _check_params(self) -> None:
        super()._check_params()
        if not self.gamma >= 0:
            raise ValueError(f"gamma must be non-negative, got {self.gamma}")
        check_balance(self.balance)

    def effective_gamma(self, snapshot: Snapshot) -> float:
        """``gamma`` scaled by ``min(1, balance · n_l / n_u)`` (see ``balance``)."""
        return balanced_weight(self.gamma, snapshot, self.balance)

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        if not (snapshot.sentence_status() > 0).any():
            raise NothingToLearnError("entropy-crf needs labeled or partially labeled sentences besides unlabeled ones")
        gamma = self.effective_gamma(snapshot)
        guarded = bool(self.guard) and has_unlabeled(snapshot)
        info = {}
        theta = pack(warm_start) if warm_start is not None else None
        split = 0.0
        if theta is None or guarded:
            # the supervised optimum: the paper's starting point, and the guard's reference
            supervised = CRFObjective(snapshot, c2=self.c2, gamma=0.0, monitor=monitor, n_jobs=self._jobs())
            total = self.supervised_iterations + self.max_iterations
            split = self.supervised_iterations / total if total else 0.0
            start = theta if theta is not None else np.zeros(supervised.size)
            theta, info["supervised"] = lbfgs(
                supervised, start, self.supervised_iterations, self.tol, monitor, (0.0, split), "supervised start",
            )
        theta_supervised = theta
        objective = CRFObjective(snapshot, c2=self.c2, gamma=gamma, monitor=monitor, n_jobs=self._jobs())
        theta, info["entropy"] = lbfgs(
            objective, theta, self.max_iterations, self.tol, monitor, (split, 1.0), "entropy-regularised"
        )
        info["entropy"]["unlabeled_entropy"] = float(objective.totals[2])
        info["entropy"]["gamma"] = gamma
        semi = _to_model(snapshot, theta, {"optimiser": info})
        fallback = None
        if guarded:
            def fallback():
                return _to_model(snapshot, theta_supervised, {"optimiser": {"supervised": info["supervised"]}})
        model, self.alternative_ = choose_model(snapshot, semi, fallback, learner=self.name, weight=self.gamma,
                                                weight_used=gamma, drift_tolerance=self.guard_drift_tolerance)
        return model


def lbfgs(
    objective: CRFObjective,
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
    its bound-handling bookkeeping costs about 0.27 s an iteration, more
    than our whole objective pass.  Here an iteration is the two-loop
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
        slope = kernels.dot(g, direction)
        if history.size == 0 or slope >= 0.0:
            history.clear()
            np.multiply(g, -1.0 / max(np.sqrt(kernels.dot(g, g)), 1e-300), out=direction)
            slope = kernels.dot(g, direction)
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
    """The last ``memory`` pairs ``s = x_new - x``, ``y = g_new - g`` in preallocated rows."""

    def __init__(self, memory: int, n: int):
        self.s = np.empty((memory, n))
        self.y = np.empty((memory, n))
        self.rho = np.empty(memory)
        self.order: list[int] = []  # rows, oldest first

    @property
    def size(self) -> int:
        return len(self.order)

    def clear(self) -> None:
        self.order.clear()

    def push(self, x_new, x, g_new, g) -> None:
        row = self.order[0] if len(self.order) == len(self.rho) else len(self.order)
        np.subtract(x_new, x, out=self.s[row])
        np.subtract(g_new, g, out=self.y[row])
        sy = kernels.dot(self.s[row], self.y[row])
        if row in self.order:
            self.order.remove(row)
        if sy > 1e-12 * kernels.dot(self.y[row], self.y[row]):
            self.order.append(row)
            self.rho[row] = 1.0 / sy

    def direction(self, g, out) -> None:
        """``out = -H g`` by the two-loop recursion."""
        np.copyto(out, g)
        coefficients = []
        for row in reversed(self.order):
            a = self.rho[row] * kernels.dot(self.s[row], out)
            kernels.axpy(-a, self.y[row], out)
            coefficients.append(a)
        if self.order:
            last = self.order[-1]
            out *= 1.0 / (self.rho[last] * kernels.dot(self.y[last], self.y[last]))
        for row, a in zip(self.order, reversed(coefficients)):
            b = self.rho[row] * kernels.dot(self.y[row], out)
            kernels.axpy(a - b, self.s[row], out)
        out *= -1.0


def _to_model(snapshot: Snapshot, theta: np.ndarray, info: dict) -> ChainModel:
    params = unpack(theta, snapshot.n_features, snapshot.n_labels)
    model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views=1)
    model.weights[...] = params.weights
    model.trans[0] = params.trans
    model.start[0] = params.start
    model.end[0] = params.end
    model.probabilistic = True
    model.info.update(info)
    return model

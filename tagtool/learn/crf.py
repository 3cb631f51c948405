"""Linear-chain CRFs: supervised (``crf``) and entropy-regularised (``entropy-crf``).

Both maximise, by L-BFGS over ``θ = (W[n_features, L], trans[L, L],
start[L], end[L])``, the objective of docs/design.md#entropy-regularised-crf (Jiao et al. 2006, Eq. 2):

``J(θ) = Σ_full log p(y_i|x_i) + Σ_partial log Σ_{y∈A_i} p(y|x_i)
− c2 ‖θ‖² − γ Σ_unlabeled H(p(·|x_i))``.

* **Regularisation.**  ``c2 ‖θ‖²`` with ``c2 = 1/(2σ²)`` is CRFsuite's
  parametrisation (``-p c2=…``, default 1), so settings carry over from
  CRFsuite and sklearn-crfsuite (their L1 term ``c1`` has no counterpart
  here).  All of ``θ`` is penalised, transitions included, as in CRFsuite.
* **Partial annotations.**  A probabilistic learner's natural use of an
  allowed-set annotation (docs/design.md#allowed-sets) is its marginal likelihood ``log Z_A −
  log Z``: the probability mass the model gives the sequences the annotator
  still allows.  ``crf`` therefore learns from full and partial sentences;
  unlabeled sentences carry no likelihood and are left out (and said so).
* **Entropy.**  ``entropy-crf`` adds the unlabeled entropy term with weight
  ``gamma``.  The objective is not concave, so, as in the paper (§3), it
  starts from the supervised optimum (γ = 0, ``supervised_max_iter``) and
  then ascends ``J`` with the entropy term (``max_iter``).
* **Optimiser.**  L-BFGS (:func:`~tagtool.learn.lbfgs.lbfgs`) with CRFsuite's memory of 6
  pairs, first step of length 1 along the steepest descent, backtracking
  line search; it stops after ``max_iter`` or when an iteration
  lowers the objective by less than ``tol`` relative to it.  A warm start
  starts from the previous model's ``θ``.

The objective and gradient (:mod:`tagtool.learn.crf_objective`) are
computed by numba kernels (:mod:`tagtool.learn._crf_kernels`), chunk by
chunk, so a cancel request is seen between chunks, within a fraction of a
second; chunks run on ``n_jobs`` threads (the kernels release the GIL).
The optimiser is :mod:`tagtool.learn.lbfgs`.  This module holds the two
learners.

References
----------
.. [1] J. Lafferty, A. McCallum, F. Pereira. Conditional random fields:
   probabilistic models for segmenting and labeling sequence data. ICML 2001.
.. [2] F. Jiao, S. Wang, C.-H. Lee, R. Greiner, D. Schuurmans.
   Semi-supervised conditional random fields for improved sequence
   segmentation and labeling. COLING/ACL 2006, Eqs. 1–3.
.. [3] G. S. Mann, A. McCallum. Efficient computation of entropy gradient
   for semi-supervised conditional random fields. NAACL-HLT 2007.
.. [4] N. Okazaki. CRFsuite: a fast implementation of conditional random
   fields, 2007 (the ``c2`` parametrisation and L-BFGS settings).
"""

from __future__ import annotations

import os
from typing import ClassVar

import numpy as np

from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner, NothingToLearnError
from tagtool.learn.chain import ChainModel
from tagtool.learn.crf_expreg import parse_target
from tagtool.learn.crf_objective import CRFObjective, pack, unpack
from tagtool.learn.lbfgs import lbfgs
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.unlabeled import (
    ENTROPY_DRIFT_TOLERANCE,
    balanced_weight,
    choose_model,
    has_unlabeled,
)

#: Weight of the expectation regularisation per labeled sentence, when ``er_weight`` is None (:class:`EntropyCRF`).
ER_PER_SENTENCE = 10.0


def _default_jobs() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class CRF(Learner):
    """Supervised linear-chain CRF trained by L-BFGS with an L2 penalty.

    Learns from fully labeled sentences (``log p(y|x)``) and partially
    labeled ones (the marginal likelihood ``log Σ_{y∈A} p(y|x)``,
    docs/design.md#allowed-sets); unlabeled sentences carry no likelihood and are left out.

    Parameters
    ----------
    c2 : float
        L2 weight; the objective subtracts ``c2 ‖θ‖²`` (``c2 = 1/(2σ²)``,
        CRFsuite's ``c2``, whose default is also 1).
    max_iter : int
        L-BFGS iterations (at least 1).
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
       2006, Eq. 1 (its supervised part).
    """

    name = "crf"
    uses = frozenset({"full", "partial"})
    two_view = False
    description = "Supervised linear-chain CRF (L-BFGS, L2); partial labels by their marginal likelihood."
    params = ParamTable(
        Param("c2", float, 1.0, "L2 weight: the objective subtracts c2 ||theta||^2 (CRFsuite's c2)", low=0.0),
        Param("max_iter", int, 100, "L-BFGS iterations", low=1, aliases=("max_iterations",)),
        Param(
            "tol", float, 1e-7, "stop when the objective's relative decrease in one iteration is below this", low=0.0
        ),
        Param("n_jobs", int, None, "threads evaluating the objective", low=1, optional=True, none_means="up to two"),
        owner="crf",
    )

    def __init__(self, c2: float = 1.0, max_iter: int = 100, tol: float = 1e-7, n_jobs: int | None = None):
        self.c2 = c2
        self.max_iter = max_iter
        self.tol = tol
        self.n_jobs = n_jobs

    def _jobs(self) -> int:
        return _default_jobs() if self.n_jobs is None else max(1, int(self.n_jobs))

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        objective = CRFObjective(snapshot, c2=self.c2, gamma=0.0, monitor=monitor, n_jobs=self._jobs())
        theta0 = pack(warm_start) if warm_start is not None else np.zeros(objective.size)
        theta, info = lbfgs(objective, theta0, self.max_iter, self.tol, monitor, (0.0, 1.0), "crf")
        return _to_model(snapshot, theta, {"optimiser": info})


class EntropyCRF(CRF):
    """Entropy-regularised semi-supervised CRF (Jiao et al. 2006; docs/design.md#entropy-regularised-crf).

    Maximises the labeled and partial (marginal) log-likelihood minus
    ``c2 ‖θ‖²`` minus ``gamma`` times the summed conditional entropy of the
    unlabeled sentences.  Without a warm start it first trains the
    supervised CRF (γ = 0) for ``supervised_max_iter``, then continues
    from there with the entropy term for ``max_iter`` (the objective
    is not concave: the paper improves a supervised model by ascent).  A
    warm start begins the second phase at once, unless the collapse guard
    needs the supervised solution (``guard`` with unlabeled sentences).

    Parameters
    ----------
    gamma : float
        Weight of the unlabeled entropy (γ of Jiao et al., Eq. 2).  The
        paper tries 0.1–10; the default is at the low end because larger
        values lowered F1 on the development suite (see ``balance``).
    c2 : float
        L2 weight, ``c2 = 1/(2σ²)`` as in :class:`CRF`.
    max_iter : int
        L-BFGS iterations with the entropy term (at least 1).
    supervised_max_iter : int
        L-BFGS iterations of the supervised start (0: start from zero weights).
    tol : float
        Relative decrease of the objective below which L-BFGS stops.
    n_jobs : int or None
        Threads evaluating the objective.
    balance : float or None, default 0.1
        At most this many unlabeled tokens count per labeled one: the
        entropy term's weight is ``gamma · min(1, balance · n_l / n_u)``
        (tokens of labeled or partially labeled sentences ``n_l``, of
        unlabeled ones ``n_u``); ``None`` keeps ``gamma`` as given, the
        paper's objective.  Why: Jiao et al. tune γ for one
        labeled/unlabeled ratio, but in an annotation tool the ratio runs
        from 1:100 to 10:1 as labeling goes on, and a fixed γ lets the
        entropy of many unlabeled sentences swamp a few labeled ones --
        minimising it then makes the model sure of a wrong labeling.  The
        default was chosen on the development suite, see
        benchmarks/results/design-measurements.md ("entropy-crf: gamma,
        balance and guard").  The weight used is
        ``model.info["optimiser"]["entropy"]["gamma"]`` (and
        ``model.unlabeled_weight_used``); see :mod:`tagtool.learn.unlabeled`.
    guard : bool, default True
        The collapse guard of :mod:`tagtool.learn.unlabeled`: compare the
        result with the supervised start (γ = 0) on the training sentences
        and return the supervised model if the entropy term lost labeled
        tokens or shifted the label proportions of the unlabeled tokens
        towards one label by more than 1 % (logged, and
        ``model.guard_fired``).  Why: even balanced, the entropy term can
        make the model sure of a wrong labeling.  A warm start then starts
        the supervised phase from the previous model.
    er_weight : float or None, default None
        Weight ``λ`` of the expectation regularisation of label proportions
        (Mann & McCallum 2007, ICML, Eq. 2): the objective also subtracts
        ``λ · KL(p̃ ‖ p̂_θ)``, ``p̂_θ`` the mean token marginal over the
        unlabeled sentences and ``p̃`` the target (:mod:`tagtool.learn.crf_expreg`).
        It counters the entropy term's pull towards the majority label, the
        drift that makes the collapse guard fall back to the supervised start.
        None: :data:`ER_PER_SENTENCE` per labeled (or partially labeled)
        sentence -- the labeled likelihood grows with their number, the KL (a
        mean over tokens) does not, so a fixed ``λ`` would fade as labeling goes
        on.  The default was measured on the development suite
        (benchmarks/results/entropy_er_suite.md).  0 turns the term off.  Its
        value, ``p̃`` and ``p̂_θ`` are in ``model.info["optimiser"]["entropy"]["er"]``.
    er_target : list of str or None
        ``p̃`` as ``label=proportion`` entries, one per label (normalised);
        None: the add-one smoothed proportions of the tokens whose label is given.

    References
    ----------
    .. [1] F. Jiao et al. Semi-supervised conditional random fields for
       improved sequence segmentation and labeling. ACL 2006, Eqs. 2–3.
    .. [2] G. S. Mann, A. McCallum. Efficient computation of entropy gradient
       for semi-supervised conditional random fields. NAACL-HLT 2007.
    .. [3] G. S. Mann, A. McCallum. Simple, robust, scalable semi-supervised
       learning via expectation regularization. ICML 2007, Eq. 2.
    """

    name = "entropy-crf"
    uses = frozenset({"full", "partial", "none"})
    #: Of the collapse guard's drift check (:data:`tagtool.learn.unlabeled.ENTROPY_DRIFT_TOLERANCE`).
    guard_drift_tolerance: ClassVar[float] = ENTROPY_DRIFT_TOLERANCE
    description = "Semi-supervised CRF: likelihood of (partially) labeled sentences minus unlabeled entropy."

    params = CRF.params.extend(
        Param(
            "gamma", float, 0.1, "weight of the unlabeled sentences' conditional entropy (Jiao et al. 2006)", low=0.0
        ),
        Param(
            "supervised_max_iter",
            int,
            100,
            "L-BFGS iterations of the supervised start (gamma = 0)",
            low=0,
            aliases=("supervised_iterations",),
        ),
        Param(
            "balance",
            float,
            0.1,
            "at most this many unlabeled tokens count per labeled one (scales gamma)",
            low=0.0,
            low_open=True,
            optional=True,
            none_means="gamma as given, the paper's objective",
        ),
        Param("guard", bool, True, "collapse guard: fall back to the supervised start if the entropy term collapses"),
        Param(
            "er_weight",
            float,
            None,
            "weight of KL(target || expected label proportions of unlabeled tokens) (Mann & McCallum 2007); 0: off",
            low=0.0,
            optional=True,
            none_means=f"{ER_PER_SENTENCE:g} per labeled sentence",
        ),
        Param(
            "er_target",
            list,
            None,
            "target label proportions of expectation regularisation, as label=proportion for every label",
            optional=True,
            none_means="add-one smoothed proportions of the given labels",
        ),
        owner="entropy-crf",
        max_iter={"help": "L-BFGS iterations with the entropy term"},
    )

    def __init__(
        self,
        gamma: float = 0.1,
        c2: float = 1.0,
        max_iter: int = 100,
        supervised_max_iter: int = 100,
        tol: float = 1e-7,
        n_jobs: int | None = None,
        balance: float | None = 0.1,
        guard: bool = True,
        er_weight: float | None = None,
        er_target: list[str] | None = None,
    ):
        self.gamma = gamma
        self.c2 = c2
        self.max_iter = max_iter
        self.supervised_max_iter = supervised_max_iter
        self.tol = tol
        self.n_jobs = n_jobs
        self.balance = balance
        self.guard = guard
        self.er_weight = er_weight
        self.er_target = er_target

    def effective_gamma(self, snapshot: Snapshot) -> float:
        """``gamma`` scaled by ``min(1, balance · n_l / n_u)`` (see ``balance``)."""
        return balanced_weight(self.gamma, snapshot, self.balance)

    def effective_er_weight(self, snapshot: Snapshot) -> float:
        """``er_weight``, or :data:`ER_PER_SENTENCE` per labeled or partially labeled sentence when None."""
        if self.er_weight is not None:
            return float(self.er_weight)
        return ER_PER_SENTENCE * int((snapshot.sentence_status() > 0).sum())

    def _semi_objective(self, snapshot: Snapshot, gamma: float, monitor: TrainingMonitor) -> CRFObjective:
        """The objective with the entropy term (and the expectation regularisation unless its weight is 0)."""
        target = None if self.er_target is None else parse_target(self.er_target, snapshot.labels)
        return CRFObjective(
            snapshot,
            c2=self.c2,
            gamma=gamma,
            monitor=monitor,
            n_jobs=self._jobs(),
            er_weight=self.effective_er_weight(snapshot),
            er_target=target,
        )

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
            total = self.supervised_max_iter + self.max_iter
            split = self.supervised_max_iter / total if total else 0.0
            start = theta if theta is not None else np.zeros(supervised.size)
            theta, info["supervised"] = lbfgs(
                supervised,
                start,
                self.supervised_max_iter,
                self.tol,
                monitor,
                (0.0, split),
                "supervised start",
            )
        theta_supervised = theta
        objective = self._semi_objective(snapshot, gamma, monitor)
        theta, info["entropy"] = lbfgs(
            objective, theta, self.max_iter, self.tol, monitor, (split, 1.0), "entropy-regularised"
        )
        info["entropy"]["unlabeled_entropy"] = float(objective.totals[2])
        info["entropy"]["gamma"] = gamma
        if objective.er_weight > 0.0 and objective.proportions is not None:
            info["entropy"]["er"] = _er_info(objective)
        semi = _to_model(snapshot, theta, {"optimiser": info})
        fallback = None
        if guarded:

            def fallback():
                return _to_model(snapshot, theta_supervised, {"optimiser": {"supervised": info["supervised"]}})

        model, _ = choose_model(
            snapshot,
            semi,
            fallback,
            learner=self.name,
            weight=self.gamma,
            weight_used=gamma,
            drift_tolerance=self.guard_drift_tolerance,
        )
        return model


def _er_info(objective: CRFObjective) -> dict:
    """The expectation regularisation's weight, value, target and reached proportions, for ``model.info``."""
    proportions = objective.proportions if objective.proportions is not None else np.zeros(0)
    return {
        "weight": objective.er_weight,
        "value": objective.er_value,
        "target": [float(v) for v in objective.er_target],
        "proportions": [float(v) for v in proportions],
    }


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

"""``svm``: the single-view hidden Markov SVM (docs/design.md#baselines).

A structural SVM over first-order label sequences (Altun et al. 2003;
Tsochantaridis et al. 2005) trained example by example with per-example
working sets, the loop of Brefeld et al. (2005, Table 2): for sentence ``i``
find the most violating output, add it to ``S_i`` if it violates by more
than ``ε``, re-solve the sub-QP over ``α_{i,ȳ}``, ``ȳ ∈ S_i`` (cvxopt), drop
outputs whose ``α`` fell to 0.  The primal weights ``w = w_0 + Σ α δΦ`` are
kept explicitly (linear kernel); see :mod:`tagtool.learn.structsvm.subqp` for the
sub-QP of every norm, loss and rescaling.

Partially labeled sentences (docs/design.md#constrained-argmax) take as target the constrained
argmax of the current weights, recomputed at every visit (their outputs
are then re-based on the new target).  Their Hamming loss weighs token
``t`` by ``info_t`` (1 labeled, 0 free; :func:`partial_cost`), so only what
the annotator said is enforced; with the 0/1 loss the cost is ``C · mean_t
info_t`` instead.

References
----------
.. [1] Y. Altun, I. Tsochantaridis, T. Hofmann. Hidden Markov support vector
   machines. ICML 2003.
.. [2] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6, 2005.
.. [3] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Table 2, Eq. 18–27.
"""

from __future__ import annotations

import logging

import numpy as np

from tagtool.core.annotation import information_from_mask
from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.structsvm.layout import Layout
from tagtool.learn.structsvm.subqp import SVMSettings
from tagtool.learn.structsvm.trainer import ViewTrainer

logger = logging.getLogger(__name__)


def partial_cost(settings: SVMSettings, info: np.ndarray, weight_u: float) -> tuple[float, np.ndarray | None]:
    """Cost and per-token Hamming weights of a partially labeled sentence.

    With the Hamming loss a token counts ``info_t + (1 − info_t) · weight_u``
    (1 where labeled, ``weight_u`` where free, the sentence weight of docs/design.md#sentence-weight
    token by token) and the cost is ``C``; with the 0/1 loss, which cannot
    weigh tokens, the cost is ``C`` times the mean of those weights.
    """
    weights = info + (1.0 - info) * weight_u
    if settings.loss == "hamming":
        return settings.C, weights
    return settings.C * float(weights.mean()), None


def gold_paths(snapshot: Snapshot) -> np.ndarray:
    """The label of every token whose allowed set has one label (others: the first allowed)."""
    return np.argmax(snapshot.allowed, axis=1).astype(np.int64)


class HMSVM(Learner):
    """Hidden Markov SVM with per-example working sets (``svm``).

    Parameters
    ----------
    C : float, default 1.0
        Trade-off between margin and slack (per sentence).
    norm : {1, 2}, default 1
        Linear (box ``Σ α ≤ C``) or quadratic slack penalty (``1/C`` added
        to the Gram matrix of each sentence's outputs).
    loss : {"hamming", "zero-one"}, default "hamming"
        ``Δ(y, ȳ)``: number of differing tokens, or 1 for any difference.
    rescaling : {"margin", "slack"}, default "margin"
        How ``Δ`` enters the constraints; slack rescaling with the Hamming
        loss searches exactly (Viterbi over label and distance), except with
        fractional token weights (partially labeled sentences), where it
        searches the ``kbest`` best paths (approximate).
    epsilon : float, default 0.1
        An output joins a working set if it violates by more than this
        (SVMstruct's default; the unit is one token of Hamming loss).
        Smaller values cost much more time for the same F1
        (benchmarks/results/design-measurements.md, "svm").
    max_iter : int, default 10
        Passes (epochs) over the sentences; training stops earlier once a pass adds
        no output.  Later passes add few outputs and leave F1 where it was.
    kbest : int, default 10
        Paths searched for slack rescaling with the Hamming loss when token
        weights are fractional (partially labeled sentences); otherwise the
        search is exact.
    qp_solver : {"smo", "cvxopt"}, default "smo"
        Solver of the per-sentence sub-QPs with two or more outputs: the
        exact pairwise solver in numba, where a whole working-set round is
        one call (:func:`tagtool.learn.structsvm._dual_kernels.round_update`), or
        cvxopt (the reference solver; the same optimum, checked in the
        tests, and much slower).
    shuffle : bool, default True
        Visit the sentences in a new random order every pass.
    random_state : int, default 0

    Notes
    -----
    Warm start: the previous model's weights become a fixed offset ``w_0``
    and the dual starts from ``α = 0``, so training solves
    ``min ½‖w − w_0‖² + C Σ ξ_i`` — an SVM regularised towards the previous
    model rather than towards 0 (the tagger file stores no dual variables).
    Constraints the previous model already meets stay inactive, so a
    retrain after a few new labels is quick.

    The fitted model's ``extras["support"]`` lists ``(sentence, target, ȳ,
    α)`` of every output with ``α > 0``: ``w = w_0 + Σ α (Φ(x, target) −
    Φ(x, ȳ))``, ``w_0`` the warm start's weights (0 without one).

    References
    ----------
    .. [1] Altun et al. (2003); Tsochantaridis et al. (2005), §4, Alg. 1.
    .. [2] Brefeld, Büscher, Scheffer (2005), Table 2 and Eq. 18–27.
    """

    name = "svm"
    uses = frozenset({"full", "partial"})
    two_view = False
    description = "Hidden Markov SVM (structural SVM, per-example working sets, cvxopt)"
    params = ParamTable(
        Param("C", float, 1.0, "trade-off between margin and slack, per sentence", low=0.0, low_open=True),
        Param("norm", int, 1, "slack penalty: 1 linear, 2 quadratic", choices=(1, 2)),
        Param(
            "loss",
            str,
            "hamming",
            "loss between outputs: differing tokens, or 1 for any difference",
            choices=("hamming", "zero-one"),
        ),
        Param("rescaling", str, "margin", "how the loss enters the constraints", choices=("margin", "slack")),
        Param(
            "epsilon",
            float,
            0.1,
            "an output joins a working set if it violates by more than this (tokens)",
            low=0.0,
            low_open=True,
        ),
        Param(
            "max_iter",
            int,
            10,
            "passes (epochs) over the sentences; stops early once a pass adds no output",
            low=1,
            aliases=("max_epochs",),
        ),
        Param("kbest", int, 10, "paths searched for slack rescaling with fractional token weights", low=2),
        Param("qp_solver", str, "smo", "solver of the per-sentence sub-QPs", choices=("smo", "cvxopt")),
        Param("shuffle", bool, True, "visit the sentences in a new random order every pass"),
        Param("random_state", int, 0, "seed of the visiting orders"),
        owner="svm",
    )

    def __init__(
        self,
        C: float = 1.0,
        norm: int = 1,
        loss: str = "hamming",
        rescaling: str = "margin",
        epsilon: float = 0.1,
        max_iter: int = 10,
        kbest: int = 10,
        qp_solver: str = "smo",
        shuffle: bool = True,
        random_state: int = 0,
    ):
        self.C = C
        self.norm = norm
        self.loss = loss
        self.rescaling = rescaling
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.kbest = kbest
        self.qp_solver = qp_solver
        self.shuffle = shuffle
        self.random_state = random_state

    def settings(self) -> SVMSettings:
        return SVMSettings(
            float(self.C),
            int(self.norm),
            self.loss,
            self.rescaling,
            float(self.epsilon),
            int(self.kbest),
            self.qp_solver,
        )

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        settings = self.settings()
        layout = Layout(snapshot.n_features, snapshot.n_labels, 1)
        theta = layout.from_model(warm_start) if warm_start is not None else np.zeros(layout.size)
        trainer = ViewTrainer(snapshot, theta, layout, view=-1, block_view=0, settings=settings)
        status = snapshot.sentence_status()
        gold = gold_paths(snapshot)
        info = information_from_mask(snapshot.allowed)
        rng = np.random.default_rng(self.random_state)
        n = snapshot.n_sentences
        converged = False
        epoch = 0
        for epoch in range(int(self.max_iter)):
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            added = 0
            for count, i in enumerate(order):
                monitor.report((epoch + count / n) / self.max_iter, f"svm: pass {epoch + 1}/{self.max_iter}")
                rows = snapshot.sentence_slice(i)
                if status[i] == 2:
                    target, cost = gold[rows], settings.C
                    weights = None
                else:
                    target = trainer.decoder(i).best(snapshot.allowed[rows])
                    cost, weights = partial_cost(settings, info[rows], 0.0)
                added += trainer.optimise(i, target, cost, weights)
            logger.debug("svm pass %d: %d outputs added, %d in working sets", epoch + 1, added, trainer.n_support())
            if added == 0:
                converged = True
                break
        trainer.finish()
        support = trainer.support()
        model = layout.to_model(theta, snapshot.labels, snapshot.feature_view)
        model.extras["support"] = support
        model.info.update(
            {
                "epochs": epoch + 1,
                "converged": converged,
                "support_vectors": len(support),
                "warm_start": "previous weights as fixed offset w0" if warm_start is not None else None,
            }
        )
        return model

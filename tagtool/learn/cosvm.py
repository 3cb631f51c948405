"""``cosvm``: the co-trained structural SVM (docs/design.md#cosvm).

Per view ``v`` a hidden Markov SVM over the view's own features and its own
transitions, trained example by example (Brefeld & Scheffer 2006, §4.3):

* a fully labeled sentence runs the working-set loop of Brefeld et al.
  (2005, Table 2) in each view, target ``y_i``, cost ``C``;
* an unlabeled or partially labeled sentence runs Algorithm 1 of Brefeld &
  Scheffer (2006): its outputs in both views are dropped (line 1), then up
  to ``r_max`` times each view ``v`` takes the *peer* view's constrained
  argmax ``ŷ^{v̄}`` as target (line 11, docs/design.md#constrained-argmax), adds its most violating
  output if it violates by more than ``ε`` and re-solves the sub-QP, until
  the views agree and neither is violated (:mod:`tagtool.learn.cosvm_agreement`).
  An unlabeled sentence has cost
  ``min{γ_i^{v̄}, 1}·C_u·C`` (Optimization Problem 5, Eq. 26–27), with
  ``γ_i^{v̄}`` the peer's margin on its own prediction (best minus
  second-best constrained path score, Brefeld et al. 2005, §5).  A partially
  labeled sentence applies the sentence weight (docs/design.md#sentence-weight) token by token: cost
  ``C`` and Hamming weight ``info_t + (1 − info_t)·min{γ,1}·C_u`` per token
  (0/1 loss: cost ``C`` times the mean of those weights).

``C_u`` grows geometrically to ``cu_max`` over the first ``cu_ramp_iter``
passes (:func:`~tagtool.learn.structsvm.trainer.cu_schedule`).  The joint model
adds the views (Eq. 17 of Brefeld et al. 2005), which is what the
:class:`~tagtool.learn.chain.ChainModel` of two views does.

Unlabeled sentences that hurt (docs/design.md#unlabeled-sentences): ``cu_max`` is scaled by the
ratio of labeled to unlabeled tokens (``balance``), and the collapse guard
(``guard``) compares the result with the supervised twin, ``svm`` trained on
the labeled sentences (:meth:`CoSVM._train_twin`), and returns the twin when
co-training lost labeled tokens or drifted towards one label
(:mod:`tagtool.learn.unlabeled`).  The guard is needed because a small
``C_u`` alone does not prevent the collapse: each unlabeled sentence's
``α`` is tiny, but all of them push the same transitions the same way.

Notes on the option ``peer_margin`` (confidence-gated peer targets, beyond
Alg. 1): with few labeled sentences and a dominant label, the peer's
unsure tokens are mostly that label, and margin-rescaled Hamming
constraints towards such targets push the view's entity evidence down.
With ``peer_margin > 0`` only the tokens the peer is sure of (token margin
``≥ peer_margin``) keep the peer's label and carry loss; the others become
free, as for a partially labeled sentence (docs/design.md#constrained-argmax).  Since the cost
factor then uses the passed tokens' margin (≥ ``peer_margin``) instead of
the smallest one, it needs a smaller ``cu_max``.  Off by default: it did
not beat ``cu_max`` ≈ 0 (benchmarks/results/design-measurements.md,
"cosvm").

Slack rescaling: the most violating output under the Hamming loss is found
exactly (a Viterbi over label and distance,
:func:`~tagtool.learn.structsvm.search.most_violating`); still, the 1-norm box ``Σ α/Δ ≤
min{γ,1} C_u C`` lets an unlabeled sentence's ``α`` grow with ``Δ`` (up to the
sentence length), so a small ``C_u`` is much stronger than under margin
rescaling; with five labeled sentences the views then occasionally agree
on one label everywhere and stop unconverged at ``max_iter``
(``info["converged"]`` False); a ``cu_max`` about ten times smaller avoids
it.  Margin rescaling is the default.

References
----------
.. [1] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §4, Optimization Problems 4–6, Alg. 1.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5 (Tables 2–3, Eq. 25–27), §6.
.. [3] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6, 2005.
"""

from __future__ import annotations

import logging
from typing import ClassVar

import numpy as np

from tagtool.core.annotation import information_from_mask
from tagtool.core.params import Param
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.cosvm_agreement import agree_on_sentence
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.structsvm.coviews import joined_views, split_views
from tagtool.learn.structsvm.layout import Layout
from tagtool.learn.structsvm.subqp import SVMSettings
from tagtool.learn.structsvm.trainer import ViewTrainer, cu_schedule
from tagtool.learn.svm import HMSVM, gold_paths
from tagtool.learn.unlabeled import (
    SEMI_RUN,
    SUPERVISED_RUN,
    balanced_weight,
    choose_model,
    has_unlabeled,
)

logger = logging.getLogger(__name__)


class CoSVM(Learner):
    """Co-trained hidden Markov SVM for full, partial and unlabeled sentences (``cosvm``).

    Parameters
    ----------
    C : float, default 1.0
    norm : {1, 2}, default 1
    loss : {"hamming", "zero-one"}, default "hamming"
    rescaling : {"margin", "slack"}, default "margin"
    epsilon : float, default 0.1
        As for :class:`~tagtool.learn.svm.HMSVM`.
    cu_max : float, default 0.05
        Final weight ``C_u`` of an unlabeled sentence relative to a labeled
        one, before ``balance``.  Large values let the views agree on a
        degenerate labeling (all one label, carried by the transitions that
        every unlabeled sentence pushes the same way); see the module notes.
    cu_ramp_iter : int, default 5
        Pass at which ``C_u`` reaches ``cu_max`` (the paper: 30).  Fewer
        here because passes are the app's time budget.
    r_max : int, default 10
        Repetitions of Algorithm 1 per unlabeled sentence and visit.
    max_iter : int, default 10
        Passes (epochs) over all sentences (at least ``cu_ramp_iter`` unless converged
        earlier with ``C_u`` at its maximum; with only fully labeled
        sentences, until a pass adds nothing).  More passes did not raise
        F1 on the development suite.
    kbest : int, default 10
        Paths searched for slack rescaling with the Hamming loss when token
        weights are fractional (partially labeled sentences); otherwise the
        search is exact.
    qp_solver : {"smo", "cvxopt"}, default "smo"
        As for :class:`~tagtool.learn.svm.HMSVM`.
    shuffle : bool, default True
    random_state : int, default 0
    peer_margin : float, default 0.0
        Confidence gate on the peer's target (an option beyond Alg. 1).
        A token of an unlabeled sentence keeps the peer's label only where
        the peer's token margin — the gap between the max-marginals of its
        label and of the best other label (Brefeld et al. 2005, §5, the
        margin γ taken token by token) — is at least ``peer_margin``; the
        other tokens keep their allowed set, carry no Hamming loss, and the
        view's target there is its own constrained argmax (the rule for
        partial annotations, docs/design.md#constrained-argmax).  The cost factor ``min{γ, 1}`` then uses
        the peer's smallest margin over the tokens it passes on.  ``0``
        passes every token on, which is exactly Alg. 1 (the sentence margin
        ``γ`` is the smallest token margin).  Needs the Hamming loss (the
        0/1 loss cannot exempt tokens).  See the module notes.
    balance : float or None, default 1.0
        ``cu_max`` is scaled by ``min(1, balance · n_l / n_u)``: at most
        ``balance`` unlabeled tokens count per labeled one
        (:func:`tagtool.learn.unlabeled.balanced_weight`); None keeps
        ``cu_max``.  Why: without it, at the cold start (few labeled, many
        unlabeled sentences) the unlabeled sentences outweigh the labeled
        ones and the views agree on one label everywhere.  At the papers'
        ratio (U = 5 L) the default gives ``C_u`` = 0.01.
    guard : bool, default True
        The collapse guard (:mod:`tagtool.learn.unlabeled`): also train
        the supervised twin ``svm`` on the labeled sentences and return it
        (as a model of two views) if co-training lost labeled tokens or
        drifted towards one label (logged; ``model.guard_fired``).

    Notes
    -----
    Warm start: as for ``svm``, the previous model's weights (both views'
    emissions and transitions) become a fixed offset ``w_0`` and the duals
    start at 0, i.e. each view solves its SVM regularised towards the
    previous model.  The fitted model's ``extras["support"]`` holds
    ``(view, sentence, target, ȳ, α)``, view ``-1`` (all features) when the
    guard returned the supervised twin, and ``extras["alternative"]`` the
    model the guard did not return.
    """

    name = "cosvm"
    uses = frozenset({"full", "partial", "none"})
    two_view = True
    #: Two complete feature sets, one per view, as for ``mv-perceptron``: better and faster than random halves
    #: of one set (benchmarks/results/design-measurements.md, "cosvm").
    default_features: ClassVar[dict] = {"feature_set": "crfsuite+default"}
    #: Of the collapse guard's drift check: stricter than ``mv-perceptron``'s
    #: (:data:`tagtool.learn.unlabeled.DRIFT_TOLERANCE`, 0.25), because co-training can let a rare label's
    #: tags go without collapsing; chosen on the development suite (design-measurements.md, "cosvm").
    guard_drift_tolerance: ClassVar[float] = 0.10
    #: Of the guard's fit check: co-training may not lose any labeled token the twin reproduces, because a
    #: loss of labeled tokens was the only sign of co-training doing worse than ``svm`` when there are as many
    #: labeled as unlabeled sentences; chosen on the development suite (design-measurements.md, "cosvm").
    guard_fit_tolerance: ClassVar[float] = 0.0
    description = "Co-trained structural SVM: two views agree on unlabeled sentences (Brefeld & Scheffer 2006)"

    params = HMSVM.params.extend(
        Param("cu_max", float, 0.05, "final weight C_u of an unlabeled sentence relative to a labeled one", low=0.0),
        Param(
            "cu_ramp_iter",
            int,
            5,
            "pass at which C_u reaches cu_max (grows geometrically until then)",
            low=0,
            aliases=("cu_epochs",),
        ),
        Param("r_max", int, 10, "repetitions of Algorithm 1 per unlabeled sentence and visit", low=1),
        Param(
            "peer_margin",
            float,
            0.0,
            "a peer's token label is passed on only with at least this margin (0: every token, Alg. 1)",
            low=0.0,
        ),
        Param(
            "balance",
            float,
            1.0,
            "at most this many unlabeled tokens count per labeled one (scales cu_max)",
            low=0.0,
            low_open=True,
            optional=True,
            none_means="cu_max as given",
        ),
        Param("guard", bool, True, "collapse guard: fall back to the supervised twin svm if co-training collapses"),
        owner="cosvm",
        max_iter={"help": "passes (epochs) over all sentences"},
    )

    def __init__(
        self,
        C: float = 1.0,
        norm: int = 1,
        loss: str = "hamming",
        rescaling: str = "margin",
        epsilon: float = 0.1,
        cu_max: float = 0.05,
        cu_ramp_iter: int = 5,
        r_max: int = 10,
        max_iter: int = 10,
        kbest: int = 10,
        qp_solver: str = "smo",
        shuffle: bool = True,
        random_state: int = 0,
        peer_margin: float = 0.0,
        balance: float | None = 1.0,
        guard: bool = True,
    ):
        self.C = C
        self.norm = norm
        self.loss = loss
        self.rescaling = rescaling
        self.epsilon = epsilon
        self.cu_max = cu_max
        self.cu_ramp_iter = cu_ramp_iter
        self.r_max = r_max
        self.max_iter = max_iter
        self.kbest = kbest
        self.qp_solver = qp_solver
        self.shuffle = shuffle
        self.random_state = random_state
        self.peer_margin = peer_margin
        self.balance = balance
        self.guard = guard

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

    def _check_params(self) -> None:
        if self.peer_margin > 0 and self.loss != "hamming":
            # the 0/1 loss cannot exempt the free tokens: its constraint would train the view on its own guesses
            raise ValueError("peer_margin needs loss='hamming' (the 0/1 loss cannot leave tokens out)")

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        settings = self.settings()
        cu_max = balanced_weight(self.cu_max, snapshot, self.balance)
        if not (self.guard and has_unlabeled(snapshot)):
            model = self._train(snapshot, warm_start, monitor, settings, cu_max)
            model, _ = choose_model(snapshot, model, None, learner=self.name, weight=self.cu_max, weight_used=cu_max)
            return model
        kept = np.flatnonzero(snapshot.sentence_status() != 0)
        labeled = snapshot.subset(kept)
        share = labeled.n_tokens / (labeled.n_tokens + snapshot.n_tokens)
        supervised = self._train_twin(labeled, warm_start, monitor.span(0.0, share, SUPERVISED_RUN))
        # sentence numbers of the supervised run are positions in ``labeled``: renumber them as in ``snapshot``
        supervised.extras["support"] = [(v, int(kept[i]), *rest) for v, i, *rest in supervised.extras["support"]]
        semi = self._train(snapshot, warm_start, monitor.span(share, 1.0, SEMI_RUN), settings, cu_max)
        model, _ = choose_model(
            snapshot,
            semi,
            supervised,
            learner=self.name,
            weight=self.cu_max,
            weight_used=cu_max,
            drift_tolerance=self.guard_drift_tolerance,
            fit_tolerance=self.guard_fit_tolerance,
        )
        return model

    def twin(self) -> HMSVM:
        """The supervised twin: ``svm`` with this learner's SVM settings, on all features at once."""
        return HMSVM(
            C=self.C,
            norm=self.norm,
            loss=self.loss,
            rescaling=self.rescaling,
            epsilon=self.epsilon,
            max_iter=self.max_iter,
            kbest=self.kbest,
            qp_solver=self.qp_solver,
            shuffle=self.shuffle,
            random_state=self.random_state,
        )

    def _train_twin(self, labeled: Snapshot, warm_start: ChainModel | None, monitor) -> ChainModel:
        """The guard's supervised solution: the twin on the labeled sentences, as a model of two views.

        Why the twin and not co-training without the unlabeled sentences:
        on the labeled sentences alone the two views are two SVMs on half
        the features each, and their sum is a weaker tagger than one SVM on
        all of them, so backing off to it would still leave ``cosvm`` below
        ``svm``.  The twin's
        transitions are split equally between the views: the joint model
        (their sum) is exactly the twin's, and each view keeps its own
        emissions.  Its support (``extras["support"]``) is reported as view
        ``-1`` (all features).
        """
        joined = joined_views(warm_start) if warm_start is not None else None
        fitted = self.twin()._fit(labeled, joined, monitor)
        model = split_views(fitted)
        model.extras["support"] = [(-1, *s) for s in fitted.extras["support"]]
        return model

    def _train(
        self, snapshot: Snapshot, warm_start: ChainModel | None, monitor, settings: SVMSettings, cu_max: float
    ) -> ChainModel:
        """Alg. 1 over ``snapshot``; the model's ``extras["support"]`` holds its support."""
        layout = Layout(snapshot.n_features, snapshot.n_labels, 2)
        theta = layout.from_model(warm_start) if warm_start is not None else np.zeros(layout.size)
        views = [ViewTrainer(snapshot, theta, layout, view=v, block_view=v, settings=settings) for v in (0, 1)]
        status = snapshot.sentence_status()
        gold = gold_paths(snapshot)
        info = information_from_mask(snapshot.allowed)
        rng = np.random.default_rng(self.random_state)
        n = snapshot.n_sentences
        # without sentences for Alg. 1 the C_u schedule is moot: stop at the first pass that adds nothing
        min_epochs = int(self.cu_ramp_iter) if np.any(status != 2) else 0
        max_epochs = int(self.max_iter)
        converged = False
        epoch = 0
        history = []
        for epoch in range(max_epochs):
            c_u = cu_schedule(epoch, cu_max, int(self.cu_ramp_iter))
            order = rng.permutation(n) if self.shuffle else np.arange(n)
            added = disagreed = 0
            message = f"cosvm: pass {epoch + 1}/{max_epochs}"
            for count, i in enumerate(order):
                monitor.report((epoch + count / n) / max_epochs, message)
                rows = snapshot.sentence_slice(i)
                if status[i] == 2:
                    added += sum(view.optimise(i, gold[rows], settings.C) for view in views)
                else:
                    moved, disagree = agree_on_sentence(
                        views, snapshot, i, c_u, info[rows], monitor, int(self.r_max), self.peer_margin
                    )
                    added += moved
                    disagreed += disagree
            history.append({"c_u": c_u, "added": int(added), "disagreed": int(disagreed)})
            logger.debug("cosvm pass %d: C_u %.4g, %d updates, %d disagreements", epoch + 1, c_u, added, disagreed)
            if added == 0 and epoch + 1 >= min_epochs:
                converged = True
                break
        for view in views:
            view.finish()
        support = [(v, *s) for v, view in enumerate(views) for s in view.support()]
        model = layout.to_model(theta, snapshot.labels, snapshot.feature_view)
        model.extras["support"] = support
        model.info.update(
            {
                "epochs": epoch + 1,
                "converged": converged,
                "support_vectors": len(support),
                "passes": history,
                "warm_start": "previous weights as fixed offset w0" if warm_start is not None else None,
            }
        )
        return model

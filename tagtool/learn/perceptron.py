"""Hidden Markov perceptrons: single-view (Collins 2002) and multi-view (Brefeld et al. 2005).

Both are primal perceptrons over the linear chain of :class:`ChainModel`
(linear kernel: the dual of Brefeld et al. with ``w = Σ α Φ`` kept
explicitly, which is equivalent and much faster).  One numba call runs a
chunk of an epoch (:mod:`tagtool.learn._perceptron_kernels`); the Python
loop between chunks polls the cancel check and reports progress.

Mixed annotations follow docs/design.md#constrained-argmax: the target of a sentence that is not
fully labeled is a constrained argmax inside its allowed sets — of the
model itself for :class:`Perceptron` (the latent structured perceptron), of
the peer view for :class:`MultiViewPerceptron` (docs/design.md#multi-view-perceptron).

References
----------
.. [1] M. Collins. Discriminative training methods for hidden Markov models:
   theory and experiments with perceptron algorithms. EMNLP 2002.
.. [2] Y. Altun, I. Tsochantaridis, T. Hofmann. Hidden Markov support vector
   machines. ICML 2003 (the hidden Markov perceptron).
.. [3] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §4, Table 1, Eq. 14–17.
.. [4] A. Blum, T. Mitchell. Combining labeled and unlabeled data with
   co-training. COLT 1998 (only the most confident predictions are passed
   on, per class: ``peer_share``, ``peer_balance``).
"""

from __future__ import annotations

import logging
from typing import ClassVar

import numpy as np

from tagtool.core.annotation import information_from_mask
from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.perceptron_run import PerceptronRun, epoch_order
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.unlabeled import (
    DRIFT_TOLERANCE,
    SEMI_RUN,
    SUPERVISED_RUN,
    balanced_weight,
    choose_model,
    has_unlabeled,
    supervised_part,
)

logger = logging.getLogger(__name__)


def sentence_weights(snapshot: Snapshot, c_u: float) -> np.ndarray:
    """``η_i = C_u + (1 − C_u) · mean_t info_t`` of every sentence (docs/design.md#sentence-weight), vectorised.

    Equals :func:`tagtool.core.annotation.sentence_weight` sentence by sentence.
    """
    if not 0.0 <= c_u <= 1.0:
        raise ValueError(f"c_u must lie in [0, 1], got {c_u}")
    info = information_from_mask(snapshot.allowed)
    mean_info = np.add.reduceat(info, snapshot.offsets[:-1]) / snapshot.lengths
    return c_u + (1.0 - c_u) * mean_info


class Perceptron(Learner):
    """Single-view hidden Markov perceptron, with Collins averaging.

    For each sentence, ``ŷ`` = Viterbi under the current weights; the target
    is the gold sequence of a fully labeled sentence, or for a partially
    labeled one the constrained argmax inside its allowed sets (the latent
    structured perceptron, docs/design.md#constrained-argmax); on a mismatch ``w += Φ(x, target) −
    Φ(x, ŷ)`` (learning rate 1).  Training stops early after an epoch without
    a single update (nothing would change any more).

    Parameters
    ----------
    max_iter : int, default 10
        Passes (epochs) over the sentences (a warm start runs this many more).
    averaged : bool, default True
        Return the average of the weights after every sentence visit
        (Collins 2002), computed lazily in O(features updated) per update.
    shuffle : bool, default True
        Visit the sentences in a fresh random order every epoch.
    random_state : int, default 0
        Seed of the orders; epoch ``e`` uses ``(random_state, e)``, and a warm start
        continues the epoch count, so 5 epochs plus a warm start of 5 visit
        the sentences as 10 epochs would.

    Notes
    -----
    Unlabeled sentences carry no supervision for a single-view perceptron
    (their constrained argmax is the prediction itself); they are left out
    and the model's ``info["notes"]`` says so.  A warm start continues from
    the previous model's (averaged) weights.

    References
    ----------
    .. [1] M. Collins (2002), Fig. 1 and §2.5 (averaging); Y. Altun et al.
       (2003); U. Brefeld et al. (2005), Eq. 12.
    """

    name = "perceptron"
    uses = frozenset({"full", "partial"})
    two_view = False
    description = "Hidden Markov perceptron (averaged; partial labels via constrained Viterbi)"
    params = ParamTable(
        Param(
            "max_iter",
            int,
            10,
            "passes (epochs) over the sentences, stopping after a pass without update "
            "(0: a warm start's weights as they are)",
            low=0,
            aliases=("epochs",),
        ),
        Param("averaged", bool, True, "return the weights averaged over all sentence visits (Collins 2002)"),
        Param("shuffle", bool, True, "visit the sentences in a fresh random order every pass"),
        Param("random_state", int, 0, "seed of the visiting orders", aliases=("seed",)),
        owner="perceptron",
    )

    def __init__(self, max_iter: int = 10, averaged: bool = True, shuffle: bool = True, random_state: int = 0):
        self.max_iter = max_iter
        self.averaged = averaged
        self.shuffle = shuffle
        self.random_state = random_state

    def _n_views(self) -> int:
        return 1

    def _eta(self, snapshot: Snapshot) -> np.ndarray:
        return np.ones(snapshot.n_sentences)

    def _gate(self) -> tuple[float, bool]:
        return 1.0, False

    def _orders(self, snapshot: Snapshot, epoch: int) -> list[np.ndarray]:
        """The sentence orders of one epoch (one, or several visited one after the other)."""
        return [epoch_order(snapshot.n_sentences, self.shuffle, self.random_state, epoch)]

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        return self._train(snapshot, warm_start, monitor, self._eta(snapshot))

    def _train(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor, eta: np.ndarray) -> ChainModel:
        """The epochs over ``snapshot`` with sentence weights ``eta``."""
        if warm_start is not None:
            model, first_epoch = warm_start, int(warm_start.info.get("epochs_done", 0))
        else:
            model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, self._n_views())
            first_epoch = 0
        model.info = {}
        trainer = PerceptronRun(snapshot, model, eta, *self._gate())
        epochs, history = int(self.max_iter), []
        for e in range(epochs):
            message = f"epoch {e + 1}/{epochs}"
            orders = self._orders(snapshot, first_epoch + e)
            updates = 0
            for j, order in enumerate(orders):
                share = len(order) / sum(len(o) for o in orders) / epochs
                done = (e + sum(len(o) for o in orders[:j]) / sum(len(o) for o in orders)) / epochs
                updates += trainer.run_order(order, monitor, done, share, message)
            history.append(int(updates))
            logger.debug("%s %s: %d updates", self.name, message, updates)
            if updates == 0:
                break
        if self.averaged:
            trainer.averaged()
        model.info.update(epochs_run=len(history), epochs_done=first_epoch + len(history), updates=history)
        return model


class MultiViewPerceptron(Perceptron):
    """Multi-view hidden Markov perceptron (Brefeld et al. 2005, Table 1; docs/design.md#multi-view-perceptron).

    Two views own disjoint feature columns (``snapshot.feature_view``) and
    their own transition, start and end scores.  For every sentence ``i``
    both views first decode ``ŷ^v`` with their own scores (Eq. 14); view
    ``v``'s target is the constrained argmax of the peer view ``v̄`` — the
    gold labels of a fully labeled sentence (Eq. 15), the peer's prediction
    on an unlabeled one (Eq. 16), the peer's best sequence inside the allowed
    sets on a partially labeled one.  Where ``ŷ^v`` misses its target,
    ``w^v += η_i (Φ^v(x, target) − Φ^v(x, ŷ^v))`` with ``η_i = C_u + (1 −
    C_u) · mean_t info_t`` (1 labeled, ``C_u`` unlabeled).  The joint model
    decodes with ``w^0 + w^1`` (Eq. 17), which :class:`ChainModel` does.

    Parameters
    ----------
    max_iter : int, default 30
        Passes (epochs) over the sentences.  Co-training spreads the labeled
        sentences' evidence through the unlabeled ones one pass at a time,
        so it needs more passes than the supervised perceptron
        (benchmarks/results/design-measurements.md, "mv-perceptron").
    averaged : bool, default True
        Average both views' weights over all sentence visits (Collins 2002).
    shuffle : bool, default True
    random_state : int, default 0
        As for :class:`Perceptron`.
    c_u : float in [0, 1], default 0.5
        Weight of an unlabeled sentence's update (Eq. 16).  Values from
        0.3 to 1.0 scored alike; 0.5 keeps the labeled sentences ahead
        when there are many more unlabeled ones.
    labeled_first : bool, default False
        Visit the fully labeled sentences before the others in every epoch
        (each group shuffled on its own) instead of all interleaved.
    peer_share : float in [0, 1], default 1.0
        Confidence-gated peer targets (an option beyond Table 1).  Below 1,
        the peer's constrained argmax becomes a *partial* annotation: a free
        token keeps the peer's label only if the peer's token margin (the
        gap between the max-marginals of its label and of the best other
        label) is among the ``peer_share`` largest of the chunk's free
        tokens (thresholds per view, at the weights before the chunk); the
        other tokens keep their allowed sets, and the view's target is its
        own constrained argmax in that space (docs/design.md#constrained-argmax).  1.0 passes
        every token on (Table 1), 0 none (no unlabeled updates).  A quantile
        rather than a fixed margin because perceptron scores have no scale.
    peer_balance : bool, default False
        With ``peer_share < 1``, take the quantile per label of the peer's
        argmax (the most confident share of each predicted label is passed
        on, as Blum & Mitchell's co-training adds the most confident
        examples of every class), not over all free tokens.
    balance : float or None, default None
        Scale ``c_u`` by ``min(1, balance · n_l / n_u)`` (at most
        ``balance`` unlabeled tokens count per labeled one,
        :func:`tagtool.learn.unlabeled.balanced_weight`); None keeps
        ``c_u`` as given.
    guard : bool, default True
        The collapse guard (:mod:`tagtool.learn.unlabeled`): also train
        without the unlabeled sentences and return that model if
        co-training lost labeled tokens or drifted towards one
        label (logged; ``model.guard_fired``).

    Notes
    -----
    Primal form with the linear kernel: ``w^v = Σ_i Σ_ȳ α^v_i(ȳ) Φ^v(x_i, ȳ)``
    kept explicitly, equivalent to the dual of the paper (Eq. 13).

    Why the gate: with few labeled sentences and a dominant label (``O``
    in NER), the peer's unsure tokens are mostly predicted as the dominant
    label, and Table 1 forces the view towards them; both views end up
    agreeing by predicting ``O``.  Gating passes on only what the peer is
    sure of.  It removes most of that drift with weak views, but costs a
    little with the default features, where ungated co-training helps --
    hence the default 1.0.

    References
    ----------
    .. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
       sequential learning. ECML 2005, §4, Table 1, Eq. 14–17.
    .. [2] A. Blum, T. Mitchell. Combining labeled and unlabeled data with
       co-training. COLT 1998 (the gate: ``peer_share``, ``peer_balance``).
    """

    name = "mv-perceptron"
    uses = frozenset({"full", "partial", "none"})
    two_view = True
    #: Two complete feature sets, one per view (the pipeline's default split for a
    #: stack of two): with these co-training gains over the supervised perceptron;
    #: random halves of one set leave each view too weak.
    default_features: ClassVar[dict] = {"feature_set": "crfsuite+default"}
    #: Of the collapse guard's drift check (:data:`tagtool.learn.unlabeled.DRIFT_TOLERANCE`).
    guard_drift_tolerance: ClassVar[float] = DRIFT_TOLERANCE
    description = "Multi-view hidden Markov perceptron (co-training of two feature views, semi-supervised)"

    params = Perceptron.params.extend(
        Param("c_u", float, 0.5, "weight C_u of an unlabeled sentence's update (Eq. 16)", low=0.0, high=1.0),
        Param("labeled_first", bool, False, "visit the fully labeled sentences before the others in every pass"),
        Param(
            "peer_share",
            float,
            1.0,
            "share of the peer's most confident free tokens passed on as targets (1: all, Table 1)",
            low=0.0,
            high=1.0,
        ),
        Param("peer_balance", bool, False, "with peer_share < 1, take the confident share per predicted label"),
        Param(
            "balance",
            float,
            None,
            "at most this many unlabeled tokens count per labeled one (scales c_u)",
            low=0.0,
            low_open=True,
            optional=True,
            none_means="c_u as given",
        ),
        Param("guard", bool, True, "collapse guard: fall back to the supervised run if co-training collapses"),
        owner="mv-perceptron",
        max_iter={"default": 30},
    )

    def __init__(
        self,
        max_iter: int = 30,
        averaged: bool = True,
        shuffle: bool = True,
        random_state: int = 0,
        c_u: float = 0.5,
        labeled_first: bool = False,
        peer_share: float = 1.0,
        peer_balance: bool = False,
        balance: float | None = None,
        guard: bool = True,
    ):
        super().__init__(max_iter=max_iter, averaged=averaged, shuffle=shuffle, random_state=random_state)
        self.c_u = c_u
        self.labeled_first = labeled_first
        self.peer_share = peer_share
        self.peer_balance = peer_balance
        self.balance = balance
        self.guard = guard

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        """Co-training, and with ``guard`` the supervised run the collapse guard compares it with."""
        c_u = balanced_weight(self.c_u, snapshot, self.balance)
        if not (self.guard and has_unlabeled(snapshot)):
            model = self._train(snapshot, warm_start, monitor, sentence_weights(snapshot, c_u))
            model, _ = choose_model(snapshot, model, None, learner=self.name, weight=self.c_u, weight_used=c_u)
            return model
        labeled = supervised_part(snapshot)
        share = labeled.n_tokens / (labeled.n_tokens + snapshot.n_tokens)
        supervised = self._train(
            labeled,
            warm_start.copy() if warm_start is not None else None,
            monitor.span(0.0, share, SUPERVISED_RUN),
            sentence_weights(labeled, c_u),
        )
        model = self._train(snapshot, warm_start, monitor.span(share, 1.0, SEMI_RUN), sentence_weights(snapshot, c_u))
        model, _ = choose_model(
            snapshot,
            model,
            supervised,
            learner=self.name,
            weight=self.c_u,
            weight_used=c_u,
            drift_tolerance=self.guard_drift_tolerance,
        )
        return model

    def _gate(self) -> tuple[float, bool]:
        return float(self.peer_share), bool(self.peer_balance)

    def _n_views(self) -> int:
        return 2

    def _orders(self, snapshot: Snapshot, epoch: int) -> list[np.ndarray]:
        if not self.labeled_first:
            return super()._orders(snapshot, epoch)
        full = snapshot.sentence_status() == 2
        orders = []
        for group in (np.flatnonzero(full), np.flatnonzero(~full)):
            if len(group):
                orders.append(group[epoch_order(len(group), self.shuffle, self.random_state, epoch)])
        return orders

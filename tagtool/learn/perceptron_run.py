"""One run of the hidden Markov perceptrons: epochs in chunks of numba calls, averaging, peer gating.

Shared by :class:`~tagtool.learn.perceptron.Perceptron` and
:class:`~tagtool.learn.perceptron.MultiViewPerceptron`.  One numba call
(:func:`tagtool.learn._perceptron_kernels.perceptron_chunk`) runs a chunk of
an epoch; the loop between chunks polls the cancel check and reports
progress.  With two views and ``peer_share < 1`` each chunk first measures
the views' token margins (:func:`~tagtool.learn._perceptron_kernels.peer_margins`)
and passes on only the peer's most confident share of free tokens.

References
----------
.. [1] M. Collins. Discriminative training methods for hidden Markov models:
   theory and experiments with perceptron algorithms. EMNLP 2002 (averaging).
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §4, Table 1.
.. [3] A. Blum, T. Mitchell. Combining labeled and unlabeled data with
   co-training. COLT 1998 (only the most confident predictions are passed on).
"""

from __future__ import annotations

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.learn._perceptron_kernels import peer_margins, perceptron_chunk
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import TrainingMonitor

#: Sentences per numba call; between calls the cancel check runs, so a call must stay well under a second.
CHUNK_SENTENCES = 500


class PerceptronRun:
    """Arrays and loop of one perceptron run (shared by both learners)."""

    def __init__(
        self,
        snapshot: Snapshot,
        model: ChainModel,
        eta: np.ndarray,
        peer_share: float = 1.0,
        peer_balance: bool = False,
    ):
        self.snapshot = snapshot
        self.peer_share = float(peer_share)
        self.peer_balance = bool(peer_balance)
        self.model = model
        self.eta = np.ascontiguousarray(eta, dtype=np.float64)
        self.gold = np.argmax(snapshot.allowed, axis=1).astype(np.int64)
        self.is_full = snapshot.sentence_status() == 2
        self.acc = [np.zeros_like(a) for a in (model.weights, model.trans, model.start, model.end)]
        self.step = 1

    def run_order(self, order: np.ndarray, monitor: TrainingMonitor, done: float, share: float, message: str) -> int:
        """Visit the sentences of ``order`` in chunks; returns the number of updates."""
        snap, model = self.snapshot, self.model
        updates = 0
        for first in range(0, len(order), CHUNK_SENTENCES):
            monitor.check()
            chunk = np.ascontiguousarray(order[first : first + CHUNK_SENTENCES], dtype=np.int64)
            gating, thresholds = self.thresholds(chunk)
            updates += perceptron_chunk(
                snap.offsets,
                snap.feat_indptr,
                snap.feat_indices,
                snap.feature_view,
                snap.allowed,
                self.gold,
                self.is_full,
                self.eta,
                chunk,
                self.step,
                model.weights,
                model.trans,
                model.start,
                model.end,
                *self.acc,
                gating,
                thresholds,
            )
            self.step += len(chunk)
            monitor.report(done + share * (first + len(chunk)) / len(order), message)
        return updates

    def thresholds(self, chunk: np.ndarray) -> tuple[bool, np.ndarray]:
        """Whether to gate the peer's labels in ``chunk``, and each view's margin threshold.

        View ``v``'s threshold is the margin of its ``peer_share``-th most
        confident free token of the chunk (at the weights before the chunk),
        so that a share ``peer_share`` of the free tokens becomes the peer
        view's target; ``inf`` when the share is 0 (nothing passes on).
        """
        n_views, n_labels = self.model.trans.shape[:2]
        thresholds = np.full((n_views, n_labels), -np.inf)
        if n_views < 2 or self.peer_share >= 1.0:
            return False, thresholds
        snap, model = self.snapshot, self.model
        margins, labels = peer_margins(
            snap.offsets,
            snap.feat_indptr,
            snap.feat_indices,
            snap.feature_view,
            snap.allowed,
            self.is_full,
            chunk,
            model.weights,
            model.trans,
            model.start,
            model.end,
        )
        for v in range(n_views):
            if self.peer_balance:
                for b in range(n_labels):
                    thresholds[v, b] = confidence_threshold(margins[v][labels[v] == b], self.peer_share)
            else:
                thresholds[v, :] = confidence_threshold(margins[v], self.peer_share)
        return True, thresholds

    def averaged(self) -> None:
        """Replace the weights by their average over all steps (``w − acc / S``)."""
        n_steps = self.step - 1
        if n_steps == 0:
            return
        for array, acc in zip((self.model.weights, self.model.trans, self.model.start, self.model.end), self.acc):
            array -= acc / n_steps


def confidence_threshold(margins: np.ndarray, share: float) -> float:
    """The smallest margin among the ``ceil(share · n)`` largest (``inf`` for none, ``-inf`` for all)."""
    n_kept = int(np.ceil(share * len(margins) - 1e-9))
    if n_kept <= 0:
        return np.inf
    if n_kept >= len(margins):
        return -np.inf
    return float(np.partition(margins, len(margins) - n_kept)[len(margins) - n_kept])


def epoch_order(n_sentences: int, shuffle: bool, seed: int, epoch: int) -> np.ndarray:
    """Visiting order of one epoch; depends only on (seed, epoch) so a warm start continues the sequence."""
    if not shuffle:
        return np.arange(n_sentences, dtype=np.int64)
    return np.random.default_rng([seed, epoch]).permutation(n_sentences).astype(np.int64)

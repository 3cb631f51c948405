"""Generative first-order hidden Markov model with smoothed counts (docs/design.md#baselines).

The HMM of the papers' baselines, fitted in closed form from the fully
labeled sentences and expressed as a one-view :class:`ChainModel` of log
probabilities, so that Viterbi under the chain's scores is the HMM's MAP
decoding:

* ``start[y]  = log p(y_1 = y)``,
* ``trans[a, b] = log p(y_{t+1} = b | y_t = a)`` and
  ``end[a] = log p(STOP | y_T = a)``: from every state the next event is one
  of the ``L`` labels or the end of the sentence, one distribution of
  ``L + 1`` outcomes per state (the STOP counts come from the sentence *ends*;
  seqlearn's HMM took them from the starts, STYLE.md);
* ``weights[k, y] = log p(k | y)``.

Emission model
--------------
A :class:`~tagtool.core.snapshot.Snapshot` carries feature columns, not
words, so the emission is a multinomial event model over the token's bag of
features (McCallum & Nigam 1998): every active feature column of the token
is one draw from ``p(· | y)``, a distribution over the ``K`` columns of the
feature space, and ``log p(x_t | y) = Σ_{k ∈ feats(x_t)} log p(k | y)``.
With a single feature per token (word identity) this is exactly the classic
HMM; with the rich feature sets it is a naive-Bayes HMM whose emissions are
sums of per-feature log probabilities — exactly the linear form of the
chain.  Features of the vocabulary never seen with a label keep the
add-``λ`` mass ``λ / (n_y + λK)``; words unknown to the vocabulary arrive
with fewer active columns (the extractor drops unknown features), and their
surface features (shape, affixes, context) still carry evidence.

References
----------
.. [1] L. R. Rabiner. A tutorial on hidden Markov models and selected
   applications in speech recognition. Proc. IEEE 77(2), 1989.
.. [2] A. McCallum, K. Nigam. A comparison of event models for naive Bayes
   text classification. AAAI-98 Workshop on Learning for Text
   Categorization, 1998 (the multinomial event model).
.. [3] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6 (the HMM baseline).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from tagtool.core.params import Param, ParamTable
from tagtool.core.snapshot import Snapshot
from tagtool.learn.base import Learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import TrainingMonitor


def gold_labels(snapshot: Snapshot) -> np.ndarray:
    """Label index of every token of a snapshot whose tokens are all fully labeled."""
    return np.argmax(snapshot.allowed, axis=1).astype(np.int64)


def transition_counts(snapshot: Snapshot, labels: np.ndarray):
    """Counts of first labels, label bigrams and last labels.

    Returns
    -------
    starts : int64 array (L,)
        How many sentences begin with each label.
    pairs : int64 array (L, L)
        ``pairs[a, b]``: how often ``b`` follows ``a`` inside a sentence.
    ends : int64 array (L,)
        How many sentences *end* with each label.
    """
    n_labels = snapshot.n_labels
    first = snapshot.offsets[:-1]
    last = snapshot.offsets[1:] - 1
    starts = np.bincount(labels[first], minlength=n_labels)
    ends = np.bincount(labels[last], minlength=n_labels)
    inner = np.ones(snapshot.n_tokens, dtype=bool)
    inner[first] = False  # token t pairs with t - 1 unless it opens a sentence
    t = np.flatnonzero(inner)
    pairs = np.bincount(labels[t - 1] * n_labels + labels[t], minlength=n_labels * n_labels)
    return starts, pairs.reshape(n_labels, n_labels), ends


def emission_counts(snapshot: Snapshot, labels: np.ndarray) -> np.ndarray:
    """``counts[k, y]``: occurrences of feature column ``k`` in tokens labeled ``y``."""
    n_tokens, n_labels = snapshot.n_tokens, snapshot.n_labels
    features = scipy.sparse.csr_matrix(
        (np.ones(len(snapshot.feat_indices)), snapshot.feat_indices, snapshot.feat_indptr),
        shape=(n_tokens, snapshot.n_features),
    )
    onehot = scipy.sparse.csr_matrix((np.ones(n_tokens), labels, np.arange(n_tokens + 1)), shape=(n_tokens, n_labels))
    return np.asarray((features.T @ onehot).todense())


def smoothed_log(counts: np.ndarray, smoothing: float, axis: int) -> np.ndarray:
    """``log((c + λ) / (Σ c + λ · n))`` along ``axis`` (add-λ; λ = 1 is Laplace)."""
    counts = np.asarray(counts, dtype=np.float64) + smoothing
    return np.log(counts) - np.log(counts.sum(axis=axis, keepdims=True))


class HMM(Learner):
    """Generative first-order HMM with add-λ smoothed counts.

    Parameters
    ----------
    smoothing : float, default 1.0
        λ added to every emission count ``c(k, y)`` (Laplace at 1).  Must be
        positive: a zero probability would give ``-inf`` scores.
    transition_smoothing : float, default 1.0
        λ added to every start, transition and stop count.

    Notes
    -----
    Learns from fully labeled sentences only (the base class notes the
    others).  The fit is closed-form, so a warm start is not needed: the
    model is recomputed from all the labeled data.

    References
    ----------
    .. [1] L. R. Rabiner (1989); A. McCallum, K. Nigam (1998): see the
       module docstring.
    """

    name = "hmm"
    uses = frozenset({"full"})
    two_view = False
    description = "Generative HMM (smoothed counts, naive-Bayes emissions over the token's features)"
    params = ParamTable(
        Param("smoothing", float, 1.0, "lambda added to every emission count (Laplace at 1)", low=0.0, low_open=True),
        Param(
            "transition_smoothing",
            float,
            1.0,
            "lambda added to every start, transition and stop count",
            low=0.0,
            low_open=True,
        ),
        owner="hmm",
    )

    def __init__(self, smoothing: float = 1.0, transition_smoothing: float = 1.0):
        self.smoothing = smoothing
        self.transition_smoothing = transition_smoothing

    def _fit(self, snapshot: Snapshot, warm_start: ChainModel | None, monitor: TrainingMonitor) -> ChainModel:
        monitor.report(0.0, "counting")
        labels = gold_labels(snapshot)
        starts, pairs, ends = transition_counts(snapshot, labels)
        model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views=1)
        lam = self.transition_smoothing
        model.start[0] = smoothed_log(starts, lam, axis=0)
        # Next label or STOP: one distribution over L + 1 outcomes per state.
        outgoing = smoothed_log(np.column_stack([pairs, ends]), lam, axis=1)
        model.trans[0] = outgoing[:, :-1]
        model.end[0] = outgoing[:, -1]
        monitor.check()
        model.weights[:] = smoothed_log(emission_counts(snapshot, labels), self.smoothing, axis=0)
        # The scores are log p(x, y); normalised over y they give the exact
        # posterior, so forward-backward marginals are true probabilities.
        model.probabilistic = True
        model.info["emission_model"] = "multinomial over the token's feature columns"
        if warm_start is not None:
            model.info.setdefault("notes", []).append("hmm is fitted in closed form: warm start not needed")
        return model

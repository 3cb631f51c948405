"""Expectation regularisation of label proportions for the CRF objective.

Mann & McCallum (2007, ICML, Eq. 2 and §3) add to the likelihood the term
``−λ · KL(p̃ ‖ p̂_θ)``, where ``p̃`` are target label proportions and ``p̂_θ``
the model's expected label proportions over the unlabeled tokens,
``p̂_y = (1/N_u) Σ_unlabeled Σ_t p_θ(y_t = y | x)``.  The minimised ``−J``
therefore adds ``λ Σ_y p̃_y (log p̃_y − log p̂_y)``.

Gradient.  With ``w_y = ∂(λ KL)/∂p̂_y / N_u = −λ p̃_y / (p̂_y N_u)``, the
gradient is that of ``Σ_sentences E_p[R]`` with the per-token reward
``R(y) = Σ_t w_{y_t}``, which for a linear-chain CRF is the covariance
``Cov_p(F, R)``, the same form as the entropy gradient (there ``R`` is the
path score).  On the score matrices:

* ``∂E[R]/∂emit[t, b] = p(y_t=b) (E[R | y_t=b] − E[R])``;
* ``∂E[R]/∂trans[a, b] = Σ_t p(y_{t−1}=a, y_t=b) (E[R | y_{t−1}=a, y_t=b] − E[R])``,

where the conditional expectations are the reward of the clique plus the
expected prefix reward (a forward recursion over ``p(y_{t−1} | y_t)``) and
the expected suffix reward (a backward one over ``p(y_{t+1} | y_t)``),
``O(T L²)`` per sentence as in Mann & McCallum (2007, NAACL).  The
marginals come from the log-space decoders of :mod:`tagtool.decode`, so
the term is exact at any score range.

References
----------
.. [1] G. S. Mann, A. McCallum. Simple, robust, scalable semi-supervised
   learning via expectation regularization. ICML 2007, Eq. 2.
.. [2] G. S. Mann, A. McCallum. Efficient computation of entropy gradient for
   semi-supervised conditional random fields. NAACL-HLT 2007.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tagtool.core.snapshot import Snapshot
from tagtool.decode import forward_backward
from tagtool.learn._crf_kernels import _scatter
from tagtool.learn._expreg_kernels import reward_sentence

#: Floor for probabilities that are divided by.
_TINY = 1e-300


def labeled_proportions(snapshot: Snapshot, kinds: np.ndarray) -> np.ndarray:
    """Add-one smoothed label proportions of the tokens whose label is given.

    A token counts when its sentence is labeled or partially labeled and its
    allowed set has exactly one label.
    """
    counts = np.ones(snapshot.n_labels)
    token_kind = np.repeat(kinds, np.diff(snapshot.offsets))
    allowed = snapshot.allowed.astype(bool)
    known = (token_kind > 0) & (allowed.sum(axis=1) == 1)
    counts += allowed[known].sum(axis=0)
    return counts / counts.sum()


def parse_target(entries: Sequence[str], labels: Sequence[str]) -> np.ndarray:
    """Proportions from ``"label=p"`` entries, one per label, normalised to sum 1."""
    values = dict.fromkeys(labels, None)
    for entry in entries:
        name, sep, text = str(entry).rpartition("=")
        if not sep or name not in values:
            raise ValueError(f"er_target entry {entry!r} is not label=proportion for a label of {list(labels)}")
        values[name] = float(text)
    missing = [name for name, v in values.items() if v is None]
    if missing:
        raise ValueError(f"er_target gives no proportion for {missing}")
    target = np.array([values[name] for name in labels], dtype=float)
    if (target <= 0).any():
        raise ValueError("er_target proportions must be positive")
    return target / target.sum()


def reward_gradient(marginals: np.ndarray, pairs: np.ndarray, reward: np.ndarray) -> tuple:
    """``E[R]`` and its gradient in the emission and transition scores, ``R(y) = Σ_t reward[y_t]``.

    Parameters
    ----------
    marginals : ndarray, shape (T, L)
    pairs : ndarray, shape (T - 1, L, L)
        ``p(y_{t-1}=a, y_t=b)`` at index ``t - 1``.
    reward : ndarray, shape (L,)

    Returns
    -------
    (float, ndarray (T, L), ndarray (L, L))
    """
    n_tokens, n_labels = marginals.shape
    d_emit = np.empty((n_tokens, n_labels))
    d_trans = np.zeros((n_labels, n_labels))
    expected = reward_sentence(
        np.ascontiguousarray(marginals, dtype=np.float64),
        np.ascontiguousarray(pairs, dtype=np.float64).reshape(max(n_tokens - 1, 0), n_labels, n_labels),
        np.ascontiguousarray(reward, dtype=np.float64),
        _TINY,
        d_emit,
        d_trans,
    )
    return float(expected), d_emit, d_trans


def _sentence_chain(snapshot: Snapshot, i: int, weights: np.ndarray):
    rows = snapshot.sentence_slice(i)
    n_tokens = rows.stop - rows.start
    token_of_entry = np.repeat(np.arange(n_tokens), np.diff(snapshot.feat_indptr[rows.start : rows.stop + 1]))
    feats = snapshot.feat_indices[snapshot.feat_indptr[rows.start] : snapshot.feat_indptr[rows.stop]]
    emit = np.zeros((n_tokens, weights.shape[1]))
    np.add.at(emit, token_of_entry, weights[feats])
    return emit, feats, token_of_entry


def expectation_term(snapshot: Snapshot, sentences: np.ndarray, target: np.ndarray, weight: float, params, grad):
    """Add ``∇(λ KL(p̃ ‖ p̂_θ))`` to the views ``grad``; return ``(λ KL, p̂)``.

    ``sentences`` are the unlabeled sentences, ``params`` and ``grad`` the
    :class:`~tagtool.learn.crf_objective.Parameters` views of ``θ`` and of
    the gradient of ``−J``.
    """
    starts, posteriors = [], []
    totals = np.zeros(snapshot.n_labels)
    n_tokens = 0
    for i in sentences:
        emit, _, _ = _sentence_chain(snapshot, int(i), params.weights)
        post = forward_backward(emit, params.trans, params.start, params.end)
        starts.append(int(snapshot.offsets[int(i)]))
        posteriors.append(post)
        totals += post.marginals.sum(axis=0)
        n_tokens += len(emit)
    if n_tokens == 0:
        return 0.0, totals
    proportions = totals / n_tokens
    safe = np.maximum(proportions, _TINY)
    value = weight * float(np.sum(target * (np.log(target) - np.log(safe))))
    reward = -weight * target / (safe * n_tokens)
    for s0, post in zip(starts, posteriors):
        _, d_emit, d_trans = reward_gradient(post.marginals, post.pair_marginals, reward)
        grad.trans[...] += d_trans
        _scatter(
            d_emit, len(d_emit), snapshot.feat_indptr, snapshot.feat_indices, s0, grad.weights, grad.start, grad.end
        )
    return value, proportions

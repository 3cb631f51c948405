"""Public max-product decoders for first-order linear chains (docs/design.md#decoders): best paths and max-marginals.

Every decoder scores a label path ``y`` of a sentence with ``T`` tokens and
``L`` labels as::

    S(y) = start[y_0] + sum_t emit[t, y_t] + sum_{t>=1} trans[y_{t-1}, y_t] + end[y_{T-1}]

and takes an optional boolean mask ``allowed[T, L]`` that restricts the paths
to ``A_0 x ... x A_{T-1}`` (docs/design.md#constrained-argmax).  The wrappers here validate and
convert their arguments, then call one numba kernel that holds only loops.
Here: Viterbi (one sentence, stacked sentences), k-best, loss-augmented
Viterbi and max-marginals; the sums over paths are in
:mod:`tagtool.decode.sum_product`.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode import _validate
from tagtool.decode._kbest import _kbest_kernel
from tagtool.decode._viterbi import (
    _loss_augmented_kernel,
    _max_marginals_kernel,
    _viterbi_batch_kernel,
    _viterbi_kernel,
)

__all__ = [
    "count_paths",
    "kbest_viterbi",
    "loss_augmented_viterbi",
    "max_marginals",
    "viterbi",
    "viterbi_batch",
]


def viterbi(emit, trans, start, end, allowed=None) -> tuple[np.ndarray, float]:
    """Best label path of one sentence (constrained to ``allowed`` if given).

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.

    Returns
    -------
    path : ndarray of int64, shape (T,)
        The highest-scoring allowed path.  Among equal scores the last label
        is the lowest index, and so is every back-pointer.
    score : float
        Its score ``S(path)``.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, a non-finite score, or a mask
        row without any allowed label.

    References
    ----------
    .. [1] L. R. Rabiner, "A tutorial on hidden Markov models and selected
       applications in speech recognition", Proc. IEEE 77(2), 1989, §III-B.
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    path = np.empty(emit.shape[0], dtype=np.int64)
    score = _viterbi_kernel(emit, trans, start, end, allowed, path)
    return path, float(score)


def viterbi_batch(emit, offsets, trans, start, end, allowed=None) -> tuple[np.ndarray, np.ndarray]:
    """Best label paths of many sentences in a single kernel call.

    Parameters
    ----------
    emit : array_like of float, shape (N, L)
        The emission matrices of all sentences, stacked row-wise.
    offsets : array_like of int, shape (n_sent + 1,)
        Sentence ``i`` is ``emit[offsets[i]:offsets[i + 1]]``; ``offsets[0] = 0``,
        ``offsets[-1] = N`` and every sentence has at least one token.
    trans : array_like of float, shape (L, L)
        Transition scores, shared by all sentences.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label of each sentence.
    allowed : array_like of bool, shape (N, L), optional
        Stacked masks; None allows all labels.

    Returns
    -------
    paths : ndarray of int64, shape (N,)
        The best paths, stacked like ``emit``; identical to calling
        :func:`viterbi` on each sentence.
    scores : ndarray of float64, shape (n_sent,)
        Their scores.

    Raises
    ------
    DecoderInputError
        On wrong shapes or dtypes, malformed or empty sentences in
        ``offsets``, non-finite scores, or a mask row without allowed label.

    References
    ----------
    .. [1] L. R. Rabiner, "A tutorial on hidden Markov models and selected
       applications in speech recognition", Proc. IEEE 77(2), 1989, §III-B.
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed, allow_empty=True)
    offsets = _validate.offsets(offsets, emit.shape[0])
    paths = np.empty(emit.shape[0], dtype=np.int64)
    scores = np.empty(offsets.shape[0] - 1)
    _viterbi_batch_kernel(emit, offsets, trans, start, end, allowed, paths, scores)
    return paths, scores


def kbest_viterbi(emit, trans, start, end, k, allowed=None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best distinct label paths, best first (list Viterbi).

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    k : int
        How many paths, ``k >= 1``.  ``k = 2`` yields the best path and the
        best one that differs from it (``argmax_{y != y*}``).
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.

    Returns
    -------
    paths : ndarray of int64, shape (k', T)
        ``k' = min(k, number of allowed paths)`` distinct paths in descending
        score.  Equal scores are ordered as the back-pointers scan labels
        (lowest first), and ``paths[0]`` equals :func:`viterbi`'s path.
    scores : ndarray of float64, shape (k',)
        Their scores.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, ``k < 1``, a non-finite score,
        or a mask row without any allowed label.

    Notes
    -----
    Each (token, label) keeps its ``k`` best prefixes, merged from the sorted
    lists of its ``L`` predecessors by insertion; a list is left at its first
    rejected entry.  That is ``O(T L^2 k^2)`` time in the worst case (``O(T
    L^2)`` for the ``k = 2`` of 0/1-loss training) and ``O(T L k)`` memory.

    References
    ----------
    .. [1] N. Seshadri and C.-E. W. Sundberg, "List Viterbi decoding
       algorithms with applications", IEEE Trans. Commun. 42(234), 1994.
    .. [2] D. Nilsson and J. Goldberger, "Sequentially finding the N-best
       list in hidden Markov models", IJCAI 2001.
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    k = count_paths(allowed, cap=_validate.list_size(k))
    paths = np.empty((k, emit.shape[0]), dtype=np.int64)
    scores = np.empty(k)
    _kbest_kernel(emit, trans, start, end, allowed, k, paths, scores)
    return paths, scores


def count_paths(allowed: np.ndarray, cap: int) -> int:
    """``min(cap, number of allowed paths)``, without forming the possibly huge product."""
    count = 1
    for n in allowed.sum(axis=1).tolist():
        count *= n
        if count >= cap:
            return cap
    return count


def loss_augmented_viterbi(emit, trans, start, end, target, loss_weight=1.0, allowed=None) -> tuple[np.ndarray, float]:
    """Most violating path under margin rescaling with (weighted) Hamming loss.

    Finds ``argmax_y S(y) + sum_t w_t [y_t != target_t]`` over the allowed paths.

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    target : array_like of int, shape (T,)
        The reference labels the loss is measured against.
    loss_weight : float or array_like of float, shape (T,), default 1.0
        The loss of a wrong label, one for all tokens or one per token.
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.  ``target`` need not
        lie inside the mask.

    Returns
    -------
    path : ndarray of int64, shape (T,)
        The maximiser (ties broken as in :func:`viterbi`).
    augmented_score : float
        ``S(path) + sum_t w_t [path_t != target_t]``, the loss included.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, labels of ``target`` outside
        ``[0, L)``, a non-finite score or weight, or an empty mask row.

    References
    ----------
    .. [1] I. Tsochantaridis, T. Joachims, T. Hofmann and Y. Altun, "Large
       margin methods for structured and interdependent output variables",
       JMLR 6, 2005, §4 (margin rescaling).
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    target = _validate.target(target, *emit.shape)
    weights = _validate.token_weights(loss_weight, emit.shape[0])
    path = np.empty(emit.shape[0], dtype=np.int64)
    score = _loss_augmented_kernel(emit, trans, start, end, allowed, target, weights, path)
    return path, float(score)


def max_marginals(emit, trans, start, end, allowed=None) -> np.ndarray:
    """Max-marginals: the best score of a path that gives token ``t`` label ``b``.

    ``out.max(axis=1)`` is the Viterbi score at every token; the gap between
    the best and the second-best label of a token is the margin the
    uncertainty guidance of max-margin learners uses (docs/design.md#guidance).

    Parameters
    ----------
    emit, trans, start, end, allowed
        As for :func:`viterbi`.

    Returns
    -------
    ndarray of float64, shape (T, L)
        ``max_{y : y_t = b} S(y)``, ``-inf`` for masked labels.

    References
    ----------
    .. [1] L. R. Rabiner (1989), §III-B (the max-product recursions of
       Viterbi run forwards and backwards).
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    out = np.empty_like(emit)
    _max_marginals_kernel(emit, trans, start, end, allowed, out)
    return out

"""Losses and the most violating output of the structural SVMs (``svm``, ``cosvm``).

:class:`Decoder` holds one sentence's scores in one view; :func:`most_violating`
finds ``argmax_{ȳ ≠ y} H(ȳ)`` for every loss and rescaling (Tsochantaridis
et al. 2005, §4): 2-best Viterbi for the 0/1 loss, loss-augmented Viterbi for
margin-rescaled Hamming loss, a Viterbi over (label, distance) for
slack-rescaled Hamming loss (:func:`_count_viterbi_kernel`).

References
----------
.. [1] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6, 2005.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.decode._kbest import _kbest_kernel
from tagtool.decode._viterbi import _loss_augmented_kernel, _viterbi_kernel
from tagtool.decode.max_product import count_paths
from tagtool.learn._emission import path_score


@_njit
def _count_viterbi_kernel(emit, trans, start, end, target, counted, best, paths):
    """For every Hamming distance ``d``, the best path with exactly ``d`` tokens off ``target``.

    Only tokens with ``counted[t]`` count (the others may take any label).
    Viterbi over the states (label, differences so far): ``best[d]`` is the
    best score with ``d`` differences (``-inf`` if none), ``paths[d]`` that
    path.  O(T² L²).  The slack-rescaled violation ``Δ(y, ȳ)(1 − f(y) +
    f(ȳ))`` does not decompose over tokens (Tsochantaridis et al. 2005,
    §4); with the Hamming loss it does once the distance is in the state.
    """
    n_tokens, n_labels = emit.shape
    n_counts = n_tokens + 1
    score = np.full((n_tokens, n_counts, n_labels), -np.inf)
    bp = np.zeros((n_tokens, n_counts, n_labels), dtype=np.int64)
    for b in range(n_labels):
        d = 1 if (b != target[0] and counted[0]) else 0
        score[0, d, b] = start[b] + emit[0, b]
    for t in range(1, n_tokens):
        for b in range(n_labels):
            off = 1 if (b != target[t] and counted[t]) else 0
            for d in range(off, t + 2):
                prev_d = d - off
                top = -np.inf
                arg = 0
                for a in range(n_labels):
                    cand = score[t - 1, prev_d, a] + trans[a, b]
                    if cand > top:
                        top = cand
                        arg = a
                if top > -np.inf:
                    score[t, d, b] = top + emit[t, b]
                    bp[t, d, b] = arg
    last = n_tokens - 1
    for d in range(n_counts):
        top = -np.inf
        arg = 0
        for b in range(n_labels):
            cand = score[last, d, b] + end[b]
            if cand > top:
                top = cand
                arg = b
        best[d] = top
        if top == -np.inf:
            continue
        label = arg
        count = d
        for t in range(last, -1, -1):
            paths[d, t] = label
            if t > 0:
                previous = bp[t, count, label]
                if label != target[t] and counted[t]:
                    count -= 1
                label = previous


def hamming(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> float:
    """Number of differing tokens, or their summed ``weights``."""
    if weights is None:
        return float(np.count_nonzero(a != b))
    return float(weights[a != b].sum())


def loss_value(loss: str, target: np.ndarray, ybar: np.ndarray, weights: np.ndarray | None = None) -> float:
    if loss == "hamming":
        return hamming(target, ybar, weights)
    return float(not np.array_equal(target, ybar))


def violation(loss_val: float, margin: float, norm: int, rescaling: str) -> float:
    """``H(ȳ)``: the slack ``ȳ`` alone would need (Tsochantaridis et al. 2005, §4)."""
    if rescaling == "margin":
        return loss_val - margin
    return loss_val ** (1.0 / norm) * (1.0 - margin)


@dataclass
class Decoder:
    """The scores of one sentence in one view and the searches over them."""

    emit: np.ndarray
    trans: np.ndarray
    start: np.ndarray
    end: np.ndarray
    free: np.ndarray  # all-True mask of the sentence

    def score(self, path: np.ndarray) -> float:
        return float(path_score(self.emit, self.trans, self.start, self.end, path))

    def best(self, allowed=None) -> np.ndarray:
        path = np.empty(self.emit.shape[0], dtype=np.int64)
        _viterbi_kernel(self.emit, self.trans, self.start, self.end, self.free if allowed is None else allowed, path)
        return path

    def kbest(self, k: int, allowed=None) -> tuple[np.ndarray, np.ndarray]:
        mask = self.free if allowed is None else allowed
        k = count_paths(mask, k)
        paths = np.empty((k, self.emit.shape[0]), dtype=np.int64)
        scores = np.empty(k)
        _kbest_kernel(self.emit, self.trans, self.start, self.end, mask, k, paths, scores)
        return paths, scores

    def loss_augmented(self, target: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        path = np.empty(self.emit.shape[0], dtype=np.int64)
        if weights is None:
            weights = np.ones(self.emit.shape[0])
        _loss_augmented_kernel(self.emit, self.trans, self.start, self.end, self.free, target, weights, path)
        return path

    def by_distance(self, target: np.ndarray, counted=None) -> tuple[np.ndarray, np.ndarray]:
        """Best score and path at every Hamming distance ``d = 0 … T`` from ``target`` (unconstrained).

        ``counted`` (bool per token, default all) selects the tokens whose differences count.
        """
        n_tokens = self.emit.shape[0]
        if counted is None:
            counted = np.ones(n_tokens, dtype=np.bool_)
        best = np.empty(n_tokens + 1)
        paths = np.zeros((n_tokens + 1, n_tokens), dtype=np.int64)
        _count_viterbi_kernel(
            self.emit,
            self.trans,
            self.start,
            self.end,
            np.ascontiguousarray(target, np.int64),
            np.ascontiguousarray(counted, np.bool_),
            best,
            paths,
        )
        return best, paths

    def margin_gap(self, allowed=None) -> tuple[np.ndarray, float]:
        """The best (allowed) path and its margin ``γ = f(ŷ) − max_{y ≠ ŷ} f(y)`` (Brefeld et al. 2005, §5)."""
        paths, scores = self.kbest(2, allowed)
        gap = scores[0] - scores[1] if len(scores) > 1 else np.inf
        return paths[0], float(gap)


def most_violating(
    dec: Decoder,
    target: np.ndarray,
    loss: str,
    norm: int,
    rescaling: str,
    kbest: int,
    weights: np.ndarray | None = None,
) -> tuple[np.ndarray | None, float]:
    """``argmax_{ȳ ≠ y} H(ȳ)`` and its ``H`` (None if every other output is fine).

    0/1 loss: the best path other than the target, exact by 2-best Viterbi.
    Hamming loss with margin rescaling: exact by loss-augmented Viterbi.
    Hamming loss with slack rescaling: ``Δ(y, ȳ)^{1/r} (1 − ⟨w, δΦ⟩)`` does
    not decompose over tokens, but for a fixed distance ``d`` it is largest
    at the best path ``d`` tokens away, which a Viterbi over (label,
    distance) finds (:func:`_count_viterbi_kernel`): exact whenever every
    token weight is 0 or 1 (labeled and unlabeled sentences, gated tokens).
    With fractional token weights (partially labeled sentences in
    ``cosvm``) the maximum is taken over the ``kbest`` best paths and the
    loss-augmented one — an approximation.
    """
    target_score = dec.score(target)
    if loss == "zero-one":
        paths, _ = dec.kbest(2)
        for path in paths:
            if not np.array_equal(path, target):
                return path, 1.0 - (target_score - dec.score(path))
        return None, 0.0
    if rescaling == "margin":
        path = dec.loss_augmented(target, weights)
        if np.array_equal(path, target):
            return None, 0.0
        return path, hamming(path, target, weights) - (target_score - dec.score(path))
    if weights is None or np.all((weights == 0) | (weights == 1)):
        return _slack_hamming_exact(dec, target, norm, weights)
    paths, _ = dec.kbest(kbest)
    return _slack_from_candidates(dec, target, norm, weights, list(paths) + [dec.loss_augmented(target, weights)])


def _slack_hamming_exact(
    dec: Decoder, target: np.ndarray, norm: int, weights: np.ndarray | None
) -> tuple[np.ndarray | None, float]:
    """Exact ``argmax_ȳ Δ(y, ȳ)^{1/r} (1 − f(y) + f(ȳ))`` for token weights in {0, 1}.

    For each distance ``d`` only the best path ``d`` counted tokens away can
    be the maximiser (``H`` grows with its score), so the search runs over
    ``d`` with :meth:`Decoder.by_distance`.
    """
    counted = None if weights is None else weights != 0
    best, paths = dec.by_distance(target, counted)
    target_score = dec.score(target)
    best_path, best_h = None, -np.inf
    for d in range(1, len(best)):
        if best[d] == -np.inf:
            continue
        h = violation(float(d), target_score - best[d], norm, "slack")
        if h > best_h:
            best_path, best_h = paths[d], h
    return (best_path.copy(), best_h) if best_path is not None else (None, 0.0)


def _slack_from_candidates(dec, target, norm, weights, candidates):
    """The most slack-violating of ``candidates`` (approximate search for fractional token weights)."""
    target_score = dec.score(target)
    best, best_h = None, -np.inf
    for path in candidates:
        loss_val = hamming(path, target, weights)
        if loss_val <= 0.0:  # the target itself, or a path that differs only where nothing counts
            continue
        h = violation(loss_val, target_score - dec.score(path), norm, "slack")
        if h > best_h:
            best, best_h = path, h
    return (best, best_h) if best is not None else (None, 0.0)

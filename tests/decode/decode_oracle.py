"""Brute-force oracle for the decoder tests: enumerate all L**T label paths.

Deliberately written without any dynamic programming, so it shares no code
path (and no bug) with the kernels or with :mod:`tagtool.decode.reference`.
Path scores and everything derived from them are computed in ``longdouble``
(80-bit on x86 Linux), so the oracle's own rounding stays well below the
1e-9 tolerances even for scores of magnitude 500.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

MASK_KINDS = ("none", "all_true", "random", "single_path")
SHAPES = [(n_tokens, n_labels) for n_tokens in range(1, 6) for n_labels in range(1, 5)]
# Enough labels for the vectorised Viterbi step (tagtool.decode._viterbi._WIDE_LABELS).
WIDE_SHAPES = [(n_tokens, n_labels) for n_tokens in range(1, 4) for n_labels in (16, 17)]


def make_chain(rng, n_tokens, n_labels, scale=1.0, integer=False):
    """Random ``(emit, trans, start, end)``; ``integer`` gives small whole numbers (ties)."""
    if integer:
        draw = lambda *shape: rng.integers(-2, 3, size=shape).astype(float)  # noqa: E731
    else:
        draw = lambda *shape: rng.uniform(-scale, scale, size=shape)  # noqa: E731
    return draw(n_tokens, n_labels), draw(n_labels, n_labels), draw(n_labels), draw(n_labels)


def make_mask(rng, n_tokens, n_labels, kind):
    """A mask of the given kind with at least one allowed label per row (None for "none")."""
    if kind == "none":
        return None
    if kind == "all_true":
        return np.ones((n_tokens, n_labels), dtype=bool)
    mask = np.zeros((n_tokens, n_labels), dtype=bool)
    mask[np.arange(n_tokens), rng.integers(0, n_labels, n_tokens)] = True
    if kind == "random":
        mask |= rng.random((n_tokens, n_labels)) < 0.5
    return mask


@dataclass
class Enumeration:
    """Every allowed path with its score, and the quantities derived from them."""

    paths: np.ndarray  # (P, T) allowed paths, in itertools.product order
    scores: np.ndarray  # (P,)
    n_labels: int

    def _log_z(self):
        top = self.scores.max()
        return top + np.log(np.exp(self.scores - top).sum())

    @property
    def probs(self) -> np.ndarray:
        return np.exp(self.scores - self._log_z())

    def _expected(self):
        return (self.probs * self.scores).sum()

    @property
    def log_z(self) -> float:
        return float(self._log_z())

    @property
    def entropy(self) -> float:
        return float(-(self.probs * (self.scores - self._log_z())).sum())

    @property
    def expected_score(self) -> float:
        return float(self._expected())

    def token_indicators(self) -> np.ndarray:
        """``(P, T, L)``: 1 where path p has label b at token t."""
        return np.eye(self.n_labels)[self.paths]

    def pair_indicators(self) -> np.ndarray:
        """``(P, T - 1, L, L)``: 1 where path p has labels (a, b) at tokens (t - 1, t)."""
        tok = self.token_indicators()
        return tok[:, :-1, :, None] * tok[:, 1:, None, :]

    def marginals(self) -> np.ndarray:
        return np.einsum("p,ptl->tl", self.probs, self.token_indicators()).astype(float)

    def pair_marginals(self) -> np.ndarray:
        return np.einsum("p,ptab->tab", self.probs, self.pair_indicators()).astype(float)

    def entropy_gradient(self):
        """``-Cov(F, S)`` for each score's count feature F: (d_emit, d_trans, d_start, d_end)."""
        centred = self.probs * (self.scores - self._expected())
        tok = self.token_indicators()
        d_emit = -np.einsum("p,ptl->tl", centred, tok)
        d_trans = -np.einsum("p,ptab->ab", centred, self.pair_indicators())
        d_start, d_end = -centred @ tok[:, 0], -centred @ tok[:, -1]
        return tuple(g.astype(float) for g in (d_emit, d_trans, d_start, d_end))

    def best(self, order: int = 0):
        """The ``order``-th best path (0 = best) and its score, by descending score."""
        idx = np.argsort(-self.scores, kind="stable")[order]
        return self.paths[idx], float(self.scores[idx])

    def viterbi_tie_winner(self):
        """Among the exact maxima, the path smallest when read from its last label back."""
        tied = self.paths[self.scores == self.scores.max()]
        return min(tied, key=lambda path: tuple(path[::-1]))


def path_score(path, emit, trans, start, end) -> float:
    path = np.asarray(path)
    t = np.arange(len(path))
    return float(start[path[0]] + emit[t, path].sum() + trans[path[:-1], path[1:]].sum() + end[path[-1]])


def enumerate_paths(emit, trans, start, end, allowed=None) -> Enumeration:
    """All allowed paths of a small chain with their scores."""
    n_tokens, n_labels = emit.shape
    paths = np.array(list(itertools.product(range(n_labels), repeat=n_tokens)), dtype=np.int64)
    if allowed is not None:
        paths = paths[allowed[np.arange(n_tokens), paths].all(axis=1)]
    t = np.arange(n_tokens)
    emit, trans, start, end = (np.asarray(a, dtype=np.longdouble) for a in (emit, trans, start, end))
    scores = (
        start[paths[:, 0]]
        + emit[t, paths].sum(axis=1)
        + trans[paths[:, :-1], paths[:, 1:]].sum(axis=1)
        + end[paths[:, -1]]
    )
    return Enumeration(paths, scores, n_labels)


def hamming(paths, target, weights) -> np.ndarray:
    """Weighted Hamming loss of each row of ``paths`` against ``target``."""
    return ((paths != target) * weights).sum(axis=1)


def instances(n_tokens, n_labels, mask_kind, seeds=(0, 1, 2), scales=(1.0, 500.0)):
    """Random chains of one shape and mask kind, over several seeds and magnitudes."""
    for seed in seeds:
        for scale in scales:
            key = [seed, n_tokens, n_labels, MASK_KINDS.index(mask_kind), int(scale)]
            rng = np.random.default_rng(key)
            chain = make_chain(rng, n_tokens, n_labels, scale)
            yield scale, chain, make_mask(rng, n_tokens, n_labels, mask_kind)


def feature_counts(paths, n_labels) -> np.ndarray:
    """``(P, n_scores)``: how often each score enters each path's S.

    Columns follow ``emit.ravel()``, ``trans.ravel()``, ``start``, ``end``,
    so ``S = feature_counts(...) @ concatenate(ravelled scores)``.
    """
    n_paths, n_tokens = paths.shape
    tok = np.eye(n_labels)[paths]  # (P, T, L)
    pairs = np.einsum("pta,ptb->pab", tok[:, :-1], tok[:, 1:])
    return np.hstack([tok.reshape(n_paths, -1), pairs.reshape(n_paths, -1), tok[:, 0], tok[:, -1]])


def entropy_of_scores(scores) -> float:
    """``H = -sum p log p`` of the distribution ``p ∝ exp(scores)``."""
    top = scores.max()
    log_p = scores - (top + np.log(np.exp(scores - top).sum()))
    return float(-(np.exp(log_p) * log_p).sum())

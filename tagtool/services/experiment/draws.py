"""The pool and the draws of an experiment's repeats (the module doc of :mod:`tagtool.services.experiment`).

The pool's fully labeled sentences of the right length, each repeat's
labeled, unlabeled and holdout sentences (the labeled set redrawn until it
holds every label), and the WD-PSL protocol's candidate sets.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet

logger = logging.getLogger(__name__)


def select_pool(corpus: Corpus, size: int, min_length: int, max_length: int) -> list[Sentence]:
    """The first ``size`` fully labeled sentences of ``min_length``–``max_length`` tokens."""
    pool = []
    for sentence in corpus:
        if min_length <= len(sentence) <= max_length and sentence.status == "full":
            pool.append(sentence)
            if len(pool) == size:
                break
    if len(pool) < size:
        logger.warning("the pool holds only %d sentences (asked for %d)", len(pool), size)
    return pool


def gold_indices(sentences: Sequence[Sentence], labels: LabelSet) -> list[np.ndarray]:
    """Label index of every token of fully labeled sentences."""
    return [np.array([labels.index(next(iter(a))) for a in s.annotations], dtype=np.int64) for s in sentences]


def label_presence(gold: Sequence[np.ndarray], n_labels: int) -> np.ndarray:
    """``bool[n_sentences, n_labels]``: which labels each sentence holds."""
    present = np.zeros((len(gold), n_labels), dtype=bool)
    for i, g in enumerate(gold):
        present[i, g] = True
    return present


@dataclass(frozen=True)
class Draw:
    labeled: np.ndarray
    unlabeled: np.ndarray
    holdout: np.ndarray
    covered: bool


def draw_split(
    rng: np.random.Generator,
    present: np.ndarray,
    n_labeled: int,
    n_unlabeled: int,
    n_holdout: int,
    max_redraws: int,
) -> Draw:
    """Labeled, unlabeled and holdout pool indices, without replacement (see the module doc)."""
    n_pool = len(present)
    needed = present.any(axis=0)
    for _ in range(max(1, max_redraws)):
        labeled = rng.choice(n_pool, n_labeled, replace=False)
        covered = bool(present[labeled].any(axis=0)[needed].all())
        if covered:
            break
    rest = rng.permutation(np.setdiff1d(np.arange(n_pool), labeled))
    return Draw(labeled, rest[n_holdout : n_holdout + n_unlabeled], rest[:n_holdout], covered)


def candidate_mask(gold: np.ndarray, n_labels: int, share: float, k: int, rng: np.random.Generator) -> np.ndarray:
    """Allowed sets of the WD-PSL protocol: ``bool[N, L]`` (see the module doc).

    A share ``share`` of the tokens keeps ``{gold}``; the others get gold
    plus ``k - 1`` distinct other labels drawn uniformly.
    """
    n = len(gold)
    allowed = np.zeros((n, n_labels), dtype=bool)
    allowed[np.arange(n), gold] = True
    keep = np.zeros(n, dtype=bool)
    keep[rng.choice(n, int(round(share * n)), replace=False)] = True
    ambiguous = np.flatnonzero(~keep)
    extra = min(k, n_labels) - 1
    if extra > 0 and len(ambiguous):
        keys = rng.random((len(ambiguous), n_labels))
        keys[np.arange(len(ambiguous)), gold[ambiguous]] = np.inf  # gold is never an "other"
        others = np.argsort(keys, axis=1)[:, :extra]
        allowed[ambiguous[:, None], others] = True
    return allowed

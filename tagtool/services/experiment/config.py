"""What an experiment runs: the learner, its settings, the (L, U) pairs, the pool and the repeats."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tagtool.errors import TagtoolError

FIT_FEATURES = ("train", "pool")


class ExperimentError(TagtoolError, ValueError):
    """Settings the data cannot satisfy (pool too small, bad lists …)."""


@dataclass(frozen=True)
class ExperimentConfig:
    """What to run; the defaults are the CoNLL-2002 Spanish protocol of the papers."""

    learner: str
    params: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    decode: dict = field(default_factory=dict)
    labeled: tuple[int, ...] = (5, 10, 20)
    unlabeled: tuple[int, ...] = (25, 50, 100)
    holdout: int = 300
    repeats: int = 20
    min_length: int = 10
    max_length: int = 40
    pool: int = 3100
    partial_share: float | None = None
    candidates: int | None = None
    seed: int = 0
    fit_features: str = "train"
    max_redraws: int = 1000

    def settings(self) -> list[tuple[int, int]]:
        """The (L, U) pairs, element-wise."""
        return pair_settings(self.labeled, self.unlabeled)


def pair_settings(labeled: Sequence[int], unlabeled: Sequence[int] | None) -> list[tuple[int, int]]:
    """Pair L and U element-wise; one U (or none: 0) applies to every L."""
    labeled = list(labeled)
    unlabeled = list(unlabeled or [0])
    if len(unlabeled) == 1:
        unlabeled *= len(labeled)
    if len(unlabeled) != len(labeled):
        raise ExperimentError(
            f"--labeled has {len(labeled)} values and --unlabeled {len(unlabeled)}: they pair up element-wise"
        )
    if any(n < 1 for n in labeled) or any(n < 0 for n in unlabeled):
        raise ExperimentError("labeled sizes must be >= 1 and unlabeled sizes >= 0")
    return list(zip(labeled, unlabeled))

"""An experiment's scores per (L, U) setting: the repeats' values, their means and standard errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tagtool.core.metrics import SCALE, percent


@dataclass
class SettingResult:
    """Scores of all repeats of one (L, U) setting."""

    labeled: int
    unlabeled: int
    token_error: list[float] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    train_seconds: list[float] = field(default_factory=list)
    uncovered: int = 0

    @property
    def repeats(self) -> int:
        return len(self.token_error)

    def to_dict(self) -> dict:
        """The ``settings`` entry of the ``--json`` output (token error and F1
        both in percent)."""
        return {
            "labeled": self.labeled,
            "unlabeled": self.unlabeled,
            "repeats": self.repeats,
            "token_error_mean": _mean(self.token_error),
            "token_error_se": standard_error(self.token_error),
            "f1_mean": percent(_mean(self.f1)),
            "f1_se": percent(standard_error(self.f1)),
            "train_seconds_mean": _mean(self.train_seconds),
        }


@dataclass
class ExperimentResult:
    learner: str
    settings: list[SettingResult]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"learner": self.learner, "scale": SCALE, "settings": [s.to_dict() for s in self.settings]}


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def standard_error(values: Sequence[float]) -> float:
    """``std(ddof=1) / sqrt(n)``; 0 for a single value."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return 0.0
    return float(values.std(ddof=1) / np.sqrt(len(values)))

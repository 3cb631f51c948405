"""A simulation's curve (cost against test F1), its reference F1 and its ``--json`` record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from tagtool.core.metrics import SCALE, percent
from tagtool.services.simulate.config import TARGET_SHARE, Costs


@dataclass(frozen=True)
class CurvePoint:
    """The state after one step.

    Attributes
    ----------
    cost : float
        Annotation cost spent so far.
    tokens_labeled : int
        Tokens with an annotation (a full label or a candidate set).
    f1 : float
        Test span F1 of the model trained after this step.
    train_seconds : float
        That training's seconds (warm start included).
    candidate_sets : int
        Tokens annotated with a candidate set (``partial`` mode).
    sentences : int
        Sentences with at least one annotation.
    warm_start : bool
        Whether the training started from the previous step's model.
    accepted : int
        Tokens whose suggestion the annotator accepted (``review`` mode).
    string_matched, string_matched_right : int
        ``review`` with string matches: tokens shown with a string match's
        label first (:mod:`tagtool.services.simulate.suggestions`), and those
        of them where it was the gold label.
    cv_seconds : float
        The cross-validation after the training (:mod:`tagtool.services.simulate.calibrate`).
    threshold : float or None
        The question threshold the next step asks with.
    cold : bool
        The next step is in the cold start (:mod:`tagtool.services.question_threshold`).
    """

    cost: float
    tokens_labeled: int
    f1: float
    train_seconds: float
    candidate_sets: int = 0
    sentences: int = 0
    warm_start: bool = False
    accepted: int = 0
    string_matched: int = 0
    string_matched_right: int = 0
    cv_seconds: float = 0.0
    threshold: float | None = None
    cold: bool = False


@dataclass
class SimulationResult:
    """A simulation's curve, its reference F1 and notes; :meth:`to_dict` is the ``--json`` output."""

    learner: str
    strategy: str
    mode: str
    full_data_f1: float
    curve: list[CurvePoint]
    costs: Costs
    data_tokens: int
    notes: list[str] = field(default_factory=list)

    @property
    def cost_to_95(self) -> float | None:
        return cost_to_reach(self.curve, TARGET_SHARE * self.full_data_f1)

    @property
    def final_f1(self) -> float:
        return self.curve[-1].f1 if self.curve else 0.0

    def to_dict(self) -> dict:
        """The ``--json`` output (settings, scores and learning curve, plus ``costs``, ``data_tokens`` and ``notes``).

        F1 in percent (``"scale": "percent"``), as every command prints and
        writes scores; the object itself keeps fractions.
        """
        return {
            "learner": self.learner,
            "strategy": self.strategy,
            "mode": self.mode,
            "scale": SCALE,
            "full_data_f1": percent(self.full_data_f1),
            "cost_to_95": self.cost_to_95,
            "costs": self.costs.to_dict(),
            "data_tokens": self.data_tokens,
            "curve": [dict(asdict(p), f1=percent(p.f1)) for p in self.curve],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, record: dict) -> SimulationResult:
        """Inverse of :meth:`to_dict`; records without ``"scale": "percent"`` hold fractions."""
        scale = 100.0 if record.get("scale") == SCALE else 1.0
        curve = [CurvePoint(**dict(point, f1=point["f1"] / scale)) for point in record["curve"]]
        return cls(
            record["learner"],
            record["strategy"],
            record["mode"],
            record["full_data_f1"] / scale,
            curve,
            Costs(**record["costs"]),
            record["data_tokens"],
            list(record.get("notes", [])),
        )


def cost_to_reach(curve: Sequence[CurvePoint], target: float) -> float | None:
    """Cost of the first point with ``f1 ≥ target`` (None if the curve never gets there)."""
    for point in curve:
        if point.f1 >= target:
            return point.cost
    return None

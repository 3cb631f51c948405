"""Numbers of the statistics panel, computed without Qt.

* :func:`progress_over_time` replays the annotation log backwards from the
  current counts, so labels imported with the corpus (which the log does
  not hold) count from the start;
* :func:`label_distribution` counts full labels and candidate mentions;
* :func:`learning_curve` reads the stored models' metrics and dates them in
  annotation minutes from the action log;
* :func:`speed_by_kind` reads the action log (:mod:`tagtool.services.annotation_costs`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from tagtool.services.annotation_costs import KIND_NAMES, KindCost, active_minutes_at, measure
from tagtool.store.actions import KINDS


def progress_over_time(entries: Sequence, full_now: int, partial_now: int) -> list[tuple[float, int, int]]:
    """``[(time, full tokens, partial tokens), ...]`` after each logged edit.

    The first point is just before the first edit.
    """
    if not entries:
        return []
    deltas = []
    for e in entries:
        d_full = (len(e.new) == 1) - (len(e.old) == 1)
        d_partial = (len(e.new) > 1) - (len(e.old) > 1)
        deltas.append((e.time, d_full, d_partial))
    full = full_now - sum(d[1] for d in deltas)
    partial = partial_now - sum(d[2] for d in deltas)
    points = [(entries[0].time, full, partial)]
    for when, d_full, d_partial in deltas:
        full, partial = full + d_full, partial + d_partial
        points.append((when, full, partial))
    return points


def label_distribution(sentences: Iterable, labels: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``label -> (tokens with it as full label, candidate sets holding it)``, in label order."""
    full, candidate = Counter(), Counter()
    for sentence in sentences:
        for ann in sentence.annotations:
            if len(ann) == 1:
                full.update(ann)
            elif ann:
                candidate.update(ann)
    return {name: (full[name], candidate[name]) for name in labels}


class CurvePoint(NamedTuple):
    """One cross-validated model on the learning curve.

    ``labeled_tokens`` are the tokens with a full label it was trained on;
    ``minutes`` the annotation minutes the action log holds up to its
    training (idle time over the threshold not counted).
    """

    model_id: int
    learner: str
    created: float
    labeled_tokens: int
    f1: float
    token_accuracy: float | None
    minutes: float


def learning_curve(records: Sequence, actions: Sequence = ()) -> list[CurvePoint]:
    """The stored models with a cross-validated F1, oldest first (models trained without CV are left out)."""
    chosen = [r for r in records if (r.metrics or {}).get("f1") is not None]
    minutes = active_minutes_at(actions, [r.created for r in chosen])
    return [
        CurvePoint(
            r.id,
            r.learner,
            r.created,
            int(r.metrics.get("labeled_tokens", 0)),
            float(r.metrics["f1"]),
            r.metrics.get("token_accuracy"),
            m,
        )
        for r, m in zip(chosen, minutes)
    ]


def by_learner(points: Sequence[CurvePoint]) -> dict[str, list[CurvePoint]]:
    """The curve split into one series per learner, in order of first appearance."""
    series: dict[str, list[CurvePoint]] = {}
    for p in points:
        series.setdefault(p.learner, []).append(p)
    return series


def speed_by_kind(actions: Sequence) -> list[tuple[str, KindCost]]:
    """``[(kind in words, its measured cost), ...]`` for the kinds the log holds, in :data:`KINDS` order."""
    measured = measure(actions)
    return [(KIND_NAMES[k], measured[k]) for k in KINDS if measured[k].actions]

"""Numbers of the statistics panel, computed without Qt.

* :func:`progress_over_time` replays the annotation log backwards from the
  current counts, so labels imported with the corpus (which the log does
  not hold) count from the start;
* :func:`label_distribution` counts full labels and candidate mentions;
* :func:`learning_curve` reads the stored models' metrics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence


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


def learning_curve(records: Sequence) -> list[tuple[float, int, float | None, float | None]]:
    """``[(created, labeled tokens, CV accuracy, CV F1), ...]`` of stored models, oldest first."""
    out = []
    for r in records:
        m = r.metrics or {}
        out.append((r.created, int(m.get("labeled_tokens", 0)), m.get("token_accuracy"), m.get("f1")))
    return out

"""The steps of one training run, their shares of its time, and reading its progress messages back.

A run (:func:`tagtool.gui.training.run_training`) reports through
``state.progress(fraction, message)`` in named steps whose number is known
from the start (:func:`plan_run`: the fit, the suggestions, each
cross-validation fold), so the model panel's bar has a known end and never
goes back; :func:`phase_progress` reads such a message back into the
phase the panel shows.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.core.params import MAX_ITER

if TYPE_CHECKING:
    from tagtool.gui.training import TrainingInputs, TrainingResult


class RunState(Protocol):
    """What :func:`run_training` talks to (the worker, or a test's mock)."""

    def progress(self, fraction: float, message: str) -> None: ...

    def should_stop(self) -> bool: ...

    def model_ready(self, result: TrainingResult) -> None: ...


@dataclass(frozen=True)
class RunStep:
    name: str
    cost: float


@dataclass(frozen=True)
class RunPlan:
    """The steps of a run; :meth:`reporter` turns a step's own fraction into the run's.

    Every message names the step and its number ("step 3 of 5,
    cross-validation fold 1 of 3") and ends with the step's own percentage,
    so a learner message without a total ("pass 10") still has one; the
    fraction is the run's, weighted by the steps' estimated costs, so the
    bar has a known end and never goes back.
    """

    steps: tuple[RunStep, ...]

    def bounds(self, index: int) -> tuple[float, float]:
        costs = np.array([s.cost for s in self.steps], dtype=float)
        edges = np.concatenate([[0.0], np.cumsum(costs)]) / costs.sum()
        return float(edges[index]), float(edges[index + 1])

    def label(self, index: int) -> str:
        return f"step {index + 1} of {len(self.steps)}, {self.steps[index].name}"

    def reporter(self, state: RunState, index: int):
        lo, hi = self.bounds(index)
        label = self.label(index)

        def report(fraction: float, message: str = "") -> None:
            fraction = min(max(float(fraction), 0.0), 1.0)
            detail = f": {message}" if message else ""
            state.progress(lo + (hi - lo) * fraction, f"{label}{detail} · {100 * fraction:.0f} %")

        return report

    def start(self, state: RunState, index: int) -> None:
        self.reporter(state, index)(0.0)


#: A report of :meth:`RunPlan.reporter`: "step i of n, <step name>[: <learner message>] · p %".
_REPORT = re.compile(r"step \d+ of \d+, (?P<name>[^:·]+?)(?:: (?P<detail>.*?))? · (?P<percent>\d+) %")
_FOLD = re.compile(r"cross-validation fold (?P<fold>\d+) of (?P<k>\d+)")


@dataclass(frozen=True)
class PhaseProgress:
    """What a run is doing, for the model panel: the phase, its own share done, and the details.

    A run has up to three phases, each with its own total: the fit
    (``"training"`` or ``"quick retrain"``), ``"suggestions"``, and
    ``"cross-validation"`` over all its folds.  The learner's pass counter
    ("epoch 19/30") belongs to the step named in ``step``, so a
    cross-validation after a 3-pass retrain no longer reads as the retrain
    (each phase counts its own steps).
    """

    phase: str
    fraction: float
    step: str
    detail: str = ""


def phase_progress(message: str) -> PhaseProgress | None:
    """Read a :meth:`RunPlan.reporter` message; None for others (e.g. "done")."""
    m = _REPORT.fullmatch(message)
    if m is None:
        return None
    name, share = m["name"], int(m["percent"]) / 100
    fold = _FOLD.fullmatch(name)
    if fold is not None:  # the folds of one cross-validation share its bar
        i, k = int(fold["fold"]), int(fold["k"])
        return PhaseProgress("cross-validation", (i - 1 + share) / k, f"fold {i} of {k}", m["detail"] or "")
    phase = next((p for p in ("quick retrain", "training") if name.startswith(p)), "suggestions")
    return PhaseProgress(phase, share, name, m["detail"] or "")


def _learner_passes(learner) -> tuple[str, int] | None:
    """The learner's pass-counting parameter (``max_iter``) and its value (None: it does not iterate, the HMM)."""
    name = MAX_ITER
    value = getattr(learner, name) if name in learner.params else None
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return name, value
    return None


def _fit_cost(learner, sentences: Sequence[Sentence]) -> float:
    """Estimated cost of a fit: the sentences the learner reads times its passes."""
    uses_unlabeled = "none" in learner.uses
    n = sum(1 for s in sentences if uses_unlabeled or s.status != "none")
    passes = _learner_passes(learner)
    return max(n, 1) * (passes[1] if passes else 1)


def plan_run(inputs: TrainingInputs, learner, chosen, overrides: Mapping) -> RunPlan:
    """The steps of one run and their estimated shares of its time.

    Steps: the fit (named for what it is: a full training or a quick
    retrain capped at a few passes), the suggestions (one tagging of every
    sentence, costed as one pass), and with ``cv_folds`` one step per fold,
    each a full fit of the chosen settings on the fold's training sentences
    ((k − 1)/k of the fully labeled ones plus the rest).
    """
    passes = _learner_passes(learner)
    if overrides:
        what = ", ".join(f"{k}={v}" for k, v in overrides.items())
        name = f"quick retrain (warm start, {what})"
    else:
        name = "training" + (f" ({passes[0]}={passes[1]})" if passes else "")
    steps = [
        RunStep(name, _fit_cost(learner, inputs.sentences)),
        RunStep("computing suggestions", float(max(len(inputs.sentences), 1))),
    ]
    k = min(inputs.cv_folds, sum(1 for s in inputs.sentences if s.status == "full"))
    if inputs.cv_folds and k >= 2:
        fold_cost = _fit_cost(chosen, inputs.sentences) * (k - 1) / k
        steps += [RunStep(f"cross-validation fold {f + 1} of {k}", fold_cost) for f in range(k)]
    return RunPlan(tuple(steps))

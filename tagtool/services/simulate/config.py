"""The settings of a simulated annotation session and what the annotator pays (:mod:`tagtool.services.simulate`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from tagtool.errors import TagtoolError
from tagtool.learn import Learner
from tagtool.services import near_duplicates, strategies
from tagtool.services.crossval import DEFAULT_FOLDS
from tagtool.services.span_questions import DEFAULT_QUESTIONS, QUESTIONS
from tagtool.services.strategies import DEFAULT_CLOSE, MODES

#: The strategies' names (:data:`tagtool.services.strategies.REGISTRY`, the only list of them).
STRATEGIES = strategies.names()
#: Share of the full-data F1 that ``cost_to_95`` waits for.
TARGET_SHARE = 0.95
#: ``review``: string-match suggestions off unless asked for (``--string-matches on``): over five seeds they
#: lowered the review cost to 95 % of full-data F1 on one NER corpus, not on the other
#: (benchmarks/results/string_match_review.md).
DEFAULT_STRING_MATCHES = False
#: Costs closer than this are one cost: the float sum of a step's costs (0.1 at a time) must not decide
#: whether the step's target is reached (the app's action log sums the same costs in another order).
COST_TOLERANCE = 1e-6


def reached(spent: float, target: float) -> bool:
    """Whether ``spent`` has reached ``target`` (within :data:`COST_TOLERANCE`)."""
    return spent >= target - COST_TOLERANCE


class SimulationError(TagtoolError, ValueError):
    """Settings the learner or the data cannot satisfy."""


@dataclass(frozen=True)
class Costs:
    """What the simulated annotator pays per token (stated in every output).

    ``accept`` (a suggestion accepted in ``review``) is None unless measured
    or given: it then costs ``skip``, as before it had its own price.
    ``sentence`` (opening a sentence) is None unless measured or given: the
    ``gain`` strategy then ranks with :data:`tagtool.services.strategies.SENTENCE_COST`.
    It only ranks: the simulated annotator is not charged for opening a
    sentence, measured or not, so that costs stay comparable with the
    default runs (and with the app's action log priced by
    :func:`tagtool.services.annotation_costs.logged_cost`).
    """

    full: float = 1.0
    partial: float = 0.5
    skip: float = 0.1
    accept: float | None = None
    sentence: float | None = None

    @property
    def accepted(self) -> float:
        """Cost of an accepted suggestion."""
        return self.skip if self.accept is None else self.accept

    @property
    def opening(self) -> float:
        """Cost of opening a sentence, as the ``gain`` strategy ranks with it."""
        return strategies.SENTENCE_COST if self.sentence is None else self.sentence

    def to_dict(self) -> dict:
        """The costs as written to JSON (``accept`` only when it has its own value)."""
        return {name: value for name, value in asdict(self).items() if value is not None}

    def check(self) -> None:
        for name, value in self.to_dict().items():
            if not (value >= 0 and np.isfinite(value)):
                raise SimulationError(f"cost of {name} must be a finite number >= 0, got {value}")
        if self.full <= 0:
            raise SimulationError("the cost of a full label must be > 0")


@dataclass(frozen=True)
class SimulationConfig:
    """One simulated annotation session (see the module doc).

    Attributes
    ----------
    learner : str
    strategy, mode : str
        One of :data:`STRATEGIES` and :data:`MODES`.
    budget : float, optional
        Total cost; default the cost of labeling every token of the data.
    step : float
        Cost of the first step (the learner retrains after each).
    growth : float
        Each step costs ``growth`` times the previous one (1: fixed steps;
        above 1 the curve is sampled evenly on a log scale of cost, densely
        where the model changes fastest).
    seed : int
        Random order, learner seed and view split.
    params, features, views, decode : dict
        Learner parameters, feature, view and decoding settings (as ``--set``).
    costs : Costs
    threshold : float, optional
        ``tokens``/``partial``: a token is asked when its question ``q ≥ threshold``;
        default (``--threshold auto``) the project's own, from the cross-validation after
        each step (:mod:`tagtool.services.question_threshold`).
    cv_folds : int
        Folds of that cross-validation, the app's after each training run
        (:mod:`tagtool.services.simulate.calibrate`); 0: none, the model kind's
        threshold (:data:`DEFAULT_THRESHOLD`) and no cold start.
    close : float
        ``partial``: a candidate set is given where the gold and strongest
        wrong label's pair uncertainty is ``≥ close``.
    max_unlabeled : int
        Unlabeled sentences given to learners that use them, per step.
    full_data_f1 : float, optional
        Known F1 of the learner on the whole data: skips that training.
    until_95 : bool
        Stop once the curve reaches 95 % of ``full_data_f1`` (``cost_to_95``
        is then the last point).
    string_matches : bool
        ``review`` and the token modes: suggest every span labeled so far
        wherever its string recurs, before and beside the model's
        suggestions, in whole sentences (a token question shows the model's,
        as the app's does; :mod:`tagtool.services.simulate.suggestions`);
        ``full`` ignores it.
    questions : str
        ``tokens``/``partial``: what is asked, single tokens (``tokens``) or the
        uncertain spans around them (``spans``, :mod:`tagtool.services.span_questions`).
    skip_near_duplicates : bool
        Within a step, pass over a sentence a near-duplicate of which was
        shown in the step (:mod:`tagtool.services.near_duplicates`): the next
        model decides about it again.
    accept_questions : bool
        ``tokens``/``partial``: an asked token (a span question: all of its
        tokens) whose suggestion is gold is accepted (cost ``accept``), as the
        app's Space accepts the suggestion shown on a question; off, every
        asked token is typed (cost ``full``).
    """

    learner: str
    strategy: str = "uncertainty"
    mode: str = "full"
    budget: float | None = None
    step: float = 500.0
    growth: float = 1.0
    seed: int = 0
    params: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    decode: dict = field(default_factory=dict)
    costs: Costs = field(default_factory=Costs)
    threshold: float | None = None
    cv_folds: int = DEFAULT_FOLDS
    close: float = DEFAULT_CLOSE
    max_unlabeled: int = 500
    full_data_f1: float | None = None
    until_95: bool = False
    string_matches: bool = DEFAULT_STRING_MATCHES
    questions: str = DEFAULT_QUESTIONS
    skip_near_duplicates: bool = near_duplicates.DEFAULT_SKIP
    accept_questions: bool = True

    def check(self, learner_cls: type[Learner]) -> None:
        """Raise :class:`SimulationError` for settings that cannot run with ``learner_cls``."""
        if self.strategy not in STRATEGIES:
            raise SimulationError(f"unknown strategy {self.strategy!r} (known: {', '.join(STRATEGIES)})")
        if self.mode not in MODES:
            raise SimulationError(f"unknown mode {self.mode!r} (known: {', '.join(MODES)})")
        why = strategies.unavailable(strategies.get(self.strategy), learner_cls.name, learner_cls.two_view)
        if why is not None:
            raise SimulationError(why)
        if self.questions not in QUESTIONS:
            raise SimulationError(f"unknown questions {self.questions!r} (known: {', '.join(QUESTIONS)})")
        if not self.step > 0:
            raise SimulationError(f"--step must be > 0, got {self.step}")
        if not 1.0 <= self.growth <= 10.0:
            raise SimulationError(f"--growth must lie in [1, 10], got {self.growth}")
        if self.budget is not None and not self.budget > 0:
            raise SimulationError(f"--budget must be > 0, got {self.budget}")
        for name in ("threshold", "close"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise SimulationError(f"--{name} must lie in [0, 1], got {value}")
        if self.cv_folds < 0:
            raise SimulationError(f"--cv-folds must be >= 0, got {self.cv_folds}")
        if self.max_unlabeled < 0:
            raise SimulationError(f"--max-unlabeled must be >= 0, got {self.max_unlabeled}")
        if self.full_data_f1 is not None and not 0.0 <= self.full_data_f1 <= 1.0:
            raise SimulationError(f"--full-data-f1 must lie in [0, 1], got {self.full_data_f1}")
        self.costs.check()

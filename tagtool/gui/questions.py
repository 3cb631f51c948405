"""The app's queue and token questions under a strategy (no Qt here).

A model's guidance of the whole project (:class:`tagtool.services.guidance.Analysis`) and the queue
strategy the user picked (:mod:`tagtool.services.strategies`, Go › Queue strategy) give the J queue, the
list's Info scores and the *token questions*: the unlabeled tokens whose question ``q_t`` reaches the
project's threshold (:mod:`tagtool.services.question_threshold`, with its cold start) — for the strategies
that read the views, every token where they disagree — exactly what ``tagtool simulate --mode tokens``
asks (span questions: :mod:`tagtool.gui.span_plan`).

:class:`QueuePlan` is one model's plan under one strategy and mode; :class:`Questions` keeps the user's choice
(strategy, token-question mode) and rebuilds the plan when a model or the choice changes. The sentence scores
assume ``tokens`` while token questions are shown and ``review`` otherwise, and read the annotation costs of
:attr:`Questions.costs` (:mod:`tagtool.services.queue_costs`), part of the choice a worker plans with.
Where the model is torn between its best label and the strongest other one
(:func:`tagtool.services.guidance.pair_uncertainty` ≥ :data:`tagtool.services.strategies.DEFAULT_CLOSE`),
:meth:`QueuePlan.pair` names the two: the candidate set ``--mode partial`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tagtool.gil_slices import dict_of, index_of, list_of
from tagtool.gui.span_plan import span_plan
from tagtool.services import guidance, strategies
from tagtool.services.question_threshold import NO_RULE, Calibration
from tagtool.services.queue_costs import DEFAULT as DEFAULT_COSTS
from tagtool.services.queue_costs import QueueCosts
from tagtool.services.strategies import DEFAULT_CLOSE, DEFAULT_STRATEGY, Strategy

#: The seed of the tie order (:func:`tagtool.services.strategies.tie_order`) until the settings give another
#: (``queue_seed``): fixed, so the ``random`` order stays put between models.
DEFAULT_SEED = 0
#: Tokens of an analysis above which a changed queue choice is planned in a worker, so that the plan
#: made on the GUI thread stays too short to notice.
SYNC_PLAN_TOKENS = 100_000


@dataclass(frozen=True)
class SentenceQuestions:
    """One sentence's questions as the editor needs them (token index → value)."""

    asked: frozenset = frozenset()
    question: Mapping[int, float] = field(default_factory=dict)
    pairs: Mapping[int, tuple[str, str]] = field(default_factory=dict)
    spans: bool = False  # each run of asked tokens is one span question


@dataclass
class QueuePlan:
    """A model's queue and token questions under one strategy and mode.

    Attributes
    ----------
    strategy : Strategy
    mode : str
        What the sentence scores assume (``tokens`` or ``review``).
    threshold : float
        A token is asked when ``q ≥ threshold`` (the model kind's default).
    ids : tuple of int
        Sentence ids in document order (the analysis's rows).
    q : float array [N]
    asked : bool array [N]
        Unlabeled when the model scored them, and ``q ≥ threshold``.
    scores : dict id → float
        The strategy's sentence scores (empty for an unguided strategy).
    queue : list of int
        Not fully labeled, best first (:func:`tagtool.services.guidance.queue_order`),
        ties in the tie order of ``seed``.
    """

    strategy: Strategy
    mode: str
    threshold: float
    ids: tuple[int, ...]
    offsets: np.ndarray
    q: np.ndarray
    asked: np.ndarray
    pair_of: np.ndarray  # bool [N]: torn between its two best labels
    best: np.ndarray
    runner_up: np.ndarray
    labels: tuple[str, ...]
    scores: dict[int, float]
    queue_rows: np.ndarray  # rows (sentence indices) in queue order
    seed: int = DEFAULT_SEED  # of the tie order
    #: The sentences scored so far (a big project's first page, :mod:`tagtool.services.chunked_guidance`); None: all.
    scored: np.ndarray | None = None
    #: The annotation costs the scores read.
    costs: QueueCosts = DEFAULT_COSTS
    calibration: Calibration = NO_RULE  # the threshold's source and the cold start
    spans: bool = False  # ``asked`` holds span questions (:mod:`tagtool.gui.span_plan`): each of its runs is one

    @property
    def complete(self) -> bool:
        """Every sentence scored: the queue's final order."""
        return self.scored is None or bool(self.scored.all())

    def __post_init__(self):
        self.queue = list_of(np.asarray(self.ids, dtype=np.int64)[self.queue_rows])  # made in a worker: in slices
        starts = self.offsets[:-1]
        counts = np.add.reduceat(self.asked.astype(np.int64), starts) if len(starts) else np.zeros(0, np.int64)
        asking = counts[self.queue_rows] > 0
        #: Sentences with a question when the model scored them: rows in queue order, and their queue positions.
        self._asking_rows = self.queue_rows[asking]
        self._asking_positions = np.flatnonzero(asking)
        self._index: dict[int, int] | None = None

    @property
    def index(self) -> dict[int, int]:
        """Sentence id → row (built on first use)."""
        if self._index is None:
            self._index = index_of(self.ids)
        return self._index

    @property
    def n_asking(self) -> int:
        """Sentences that had a question when the model scored them."""
        return len(self._asking_rows)

    def rows(self, sid: int) -> slice | None:
        i = self.index.get(sid)
        return None if i is None else slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def sentence(self, sid: int) -> SentenceQuestions:
        """The questions and torn pairs of sentence ``sid`` (as the model saw it)."""
        rows = self.rows(sid)
        if rows is None:
            return SentenceQuestions()
        q, asked, torn = self.q[rows], self.asked[rows], self.pair_of[rows]
        best, other = self.best[rows], self.runner_up[rows]
        return SentenceQuestions(
            frozenset(np.flatnonzero(asked).tolist()),
            {t: float(x) for t, x in enumerate(q.tolist())},
            {int(t): (self.labels[best[t]], self.labels[other[t]]) for t in np.flatnonzero(torn)},
            self.spans,
        )

    def open_questions(self, sid: int, annotations: Sequence[frozenset]) -> list[int]:
        """Tokens of ``sid`` asked and still unlabeled in ``annotations`` (its annotations now)."""
        rows = self.rows(sid)
        if rows is None or rows.stop - rows.start != len(annotations):
            return []  # not scored, or retokenised since
        return [int(t) for t in np.flatnonzero(self.asked[rows]) if not annotations[t]]

    def pair(self, sid: int, token: int) -> tuple[str, str] | None:
        """The two labels the model is torn between at ``token`` of ``sid`` (None: it is not)."""
        rows = self.rows(sid)
        if rows is None or not 0 <= token < rows.stop - rows.start or not self.pair_of[rows.start + token]:
            return None
        return self.labels[self.best[rows.start + token]], self.labels[self.runner_up[rows.start + token]]

    def next_question(
        self,
        sid: int | None,
        focus: int,
        annotations_of: Callable[[int], Sequence[frozenset]],
        direction: int = 1,
        passed_over: Container[int] = (),
    ) -> tuple[int, int] | None:
        """The next open question from token ``focus`` of ``sid``: ``(sentence id, token)`` or None.

        Forward: the next one after ``focus`` in ``sid``, else the first
        question of the next sentence in queue order that has one, wrapping
        around to the queue's head (from its head when ``sid`` is not in
        the queue), else one before ``focus`` in ``sid``.  Backward
        (``direction`` < 0): the same, the other way.  J (the queue's head)
        restarts from the best sentence after a retrain.  Sentences in
        ``passed_over`` (skipped ones, retokenized since) ask nothing.
        """
        here = self.open_questions(sid, annotations_of(sid)) if sid is not None and sid not in passed_over else []
        forward = direction >= 0
        ahead = [t for t in here if (t > focus if forward else t < focus)]
        if ahead:
            return sid, ahead[0] if forward else ahead[-1]
        for other in self._circle(sid, forward):
            found = self.open_questions(other, annotations_of(other)) if other not in passed_over else []
            if found:
                return other, found[0] if forward else found[-1]
        return (sid, here[0] if forward else here[-1]) if here else None

    def _circle(self, sid: int | None, forward: bool):
        """The asking sentences other than ``sid``, in queue order from the one after ``sid`` round to it."""
        row = self.index.get(sid) if sid is not None else None
        hit = np.flatnonzero(self.queue_rows == row) if row is not None else ()
        position = int(hit[0]) if len(hit) else (-1 if forward else len(self.queue_rows))
        split = int(np.searchsorted(self._asking_positions, position, side="right"))
        rows = self._asking_rows
        if forward:
            order = np.concatenate([rows[split:], rows[:split]])
        else:
            below = split - (1 if split and self._asking_positions[split - 1] == position else 0)
            order = np.concatenate([rows[:below][::-1], rows[below:][::-1]])
        return (self.ids[r] for r in order.tolist() if r != row)


def build_plan(
    ids: Sequence[int],
    analysis: guidance.Analysis,
    status: Mapping[int, str],
    strategy: Strategy,
    mode: str,
    close: float = DEFAULT_CLOSE,
    seed: int = DEFAULT_SEED,
    costs: QueueCosts = DEFAULT_COSTS,
    calibration: Calibration = NO_RULE,
) -> QueuePlan:
    """The queue and questions of a model's ``analysis`` of sentences ``ids`` (document order).

    The sentence scores read ``costs`` (:meth:`QueueCosts.showing`).

    Ties, and the whole order of ``random``, go by the strategy's tie order
    under ``seed`` (:func:`tagtool.services.strategies.tie_order`): the order
    ``tagtool simulate --seed`` gives the same sentences.
    """
    threshold = calibration.threshold(strategy, analysis.probabilistic, mode)
    q = np.asarray(strategy.question(analysis.evidence), dtype=np.float64)
    tokens = analysis.tokens
    n = len(ids)
    ranked = np.full(n, np.nan)
    scores: dict[int, float] = {}
    if strategy.guided and not calibration.random_order:  # cold start: the tie order (random)
        ranked = strategy.score(q, tokens, costs.showing(mode, threshold))
        if analysis.scored is None:
            scores = dict_of(ids, ranked)
        else:  # scored chunk by chunk: the sentences not scored yet rank last, and show no score
            ranked[~analysis.scored] = np.nan
            rows = np.flatnonzero(analysis.scored)
            scores = dict_of(list_of(np.asarray(ids, dtype=np.int64)[rows]), ranked[rows])
    open_ = np.fromiter((status.get(sid, "none") != "full" for sid in ids), dtype=bool, count=n)
    ties = None if strategy.file_order else tie_ranks(strategy, n, seed)
    return QueuePlan(
        strategy,
        mode,
        threshold,
        tuple(ids),
        tokens.offsets,
        q,
        tokens.unlabeled & (q >= (0.0 if calibration.cold else threshold)),
        analysis.torn >= close,
        analysis.best,
        analysis.runner_up,
        analysis.labels,
        scores,
        guidance.queue_order(ranked, open_, ties),
        seed,
        analysis.scored,
        costs,
        calibration,
    )


def tie_ranks(strategy: Strategy, n: int, seed: int = DEFAULT_SEED) -> np.ndarray:
    """Each row's rank in the strategy's tie order (the inverse of :func:`tagtool.services.strategies.tie_order`)."""
    ranks = np.empty(n, dtype=np.int64)
    ranks[strategies.tie_order(strategy, n, seed)] = np.arange(n)
    return ranks


class Questions:
    """The user's queue choice and the plan of the model in use (see the module doc).

    ``strategy`` is what the user picked (kept in the settings); the plan
    uses :meth:`effective` — the default strategy when the model in use
    cannot serve it (no second view, not WD-PSL).  ``seed``: of the tie
    order (:func:`build_plan`).  ``costs``: the annotation costs the
    scores read (:mod:`tagtool.services.queue_costs`).
    """

    def __init__(
        self,
        strategy: str = DEFAULT_STRATEGY,
        asking: bool = False,
        seed: int = DEFAULT_SEED,
        costs: QueueCosts = DEFAULT_COSTS,
        spans: bool = False,
        calibration: Calibration = NO_RULE,
    ):
        self.strategy = strategy if strategy in strategies.REGISTRY else DEFAULT_STRATEGY
        self.spans = bool(spans)  # span questions (``questions = spans``, :mod:`tagtool.gui.span_plan`)
        self.asking, self.seed = asking, int(seed)
        self.costs, self.calibration = costs, calibration  # the latest model's threshold and cold start
        self.plan: QueuePlan | None = None
        self._source = None  # (ids, analysis, status, learner, two_view) of the model in use

    @property
    def mode(self) -> str:
        """The mode the sentence scores assume: ``tokens`` with the token questions shown, else ``review``."""
        return "tokens" if self.asking else "review"

    def effective(self, learner: str | None, two_view: bool) -> Strategy:
        chosen = strategies.get(self.strategy)
        if learner is None or strategies.unavailable(chosen, learner, two_view) is None:
            return chosen
        return strategies.get(DEFAULT_STRATEGY)

    def set(
        self,
        strategy: str | None = None,
        asking: bool | None = None,
        seed: int | None = None,
        costs: QueueCosts | None = None,
    ) -> QueuePlan | None:
        """Change the choice; returns the new plan (None without a model)."""
        self.choose(strategy, asking, seed, costs)
        return self._build()

    def choose(
        self,
        strategy: str | None = None,
        asking: bool | None = None,
        seed: int | None = None,
        costs: QueueCosts | None = None,
        spans: bool | None = None,
    ) -> None:
        """Change the choice only: the plan is made elsewhere (:func:`replan` in a worker, for a big project)."""
        self.spans = self.spans if spans is None else bool(spans)
        if strategy is not None:
            self.strategy = strategies.get(strategy).name
        if asking is not None:
            self.asking = bool(asking)
        if seed is not None:
            self.seed = int(seed)
        if costs is not None:
            self.costs = costs

    @property
    def big(self) -> bool:
        """The model's analysis covers more than :data:`SYNC_PLAN_TOKENS` tokens: plan in a worker."""
        return self._source is not None and len(self._source[1].tokens.unlabeled) > SYNC_PLAN_TOKENS

    def job(self) -> tuple:
        """What :func:`replan` needs to make the current choice's plan in a worker."""
        return self.choice(), self._source

    def adopt(self, plan: QueuePlan | None, job: tuple) -> bool:
        """Take a plan :func:`replan` made for ``job``, unless the choice or the model changed since."""
        choice, source = job
        if source is not self._source or choice != self.choice():
            return False
        self.plan = plan
        return True

    def choice(self) -> tuple[str, bool, int, QueueCosts, bool, Calibration]:
        """``(strategy, asking, seed, costs, spans, calibration)``: what a worker plans a new model's queue with."""
        return self.strategy, self.asking, self.seed, self.costs, self.spans, self.calibration

    def update(
        self, ids, analysis, status, learner: str, two_view: bool, ready: QueuePlan | None = None, build: bool = True
    ) -> QueuePlan | None:
        """A new model's analysis (None: it has none, e.g. no sentence).

        ``ready``: the plan a worker made for the model; used when it is
        the current choice's (the strategy or mode may have changed since).
        Otherwise the plan is made here, or with ``build`` False the worker's
        is kept for now and None returned (the caller replans in a worker).
        """
        self._source = None if analysis is None else (tuple(ids), analysis, status, learner, two_view)
        self.calibration = ready.calibration if ready is not None else self.calibration  # the run's, after its CV
        if (
            ready is not None
            and self._source is not None
            and ready.mode == self.mode
            and ready.strategy is self.effective(learner, two_view)
            and ready.seed == self.seed
            and ready.costs == self.costs
            and ready.spans == self.spans
        ):
            self.plan = ready
            return ready
        if not build and ready is not None:
            self.plan = ready
            return None
        return self._build()

    def _build(self) -> QueuePlan | None:
        if self._source is None:
            self.plan = None
            return None
        ids, analysis, status, learner, two_view = self._source
        strategy = self.effective(learner, two_view)
        plan = build_plan(
            ids, analysis, status, strategy, self.mode, DEFAULT_CLOSE, self.seed, self.costs, self.calibration
        )
        self.plan = span_plan(plan, analysis) if self.spans else plan
        return self.plan


def replan(job: tuple, state=None) -> QueuePlan | None:
    """The plan of :meth:`Questions.job` (a choice and a model's analysis), made in a worker thread."""
    choice, source = job
    questions = Questions(*choice)
    questions._source = source
    plan = questions._build()
    if plan is not None:
        plan._index = index_of(plan.ids)
    return plan


def plan_in_worker(
    choice: tuple | None, ids, analysis, status, learner: str, model, index: dict[int, int] | None = None
) -> QueuePlan | None:
    """The plan of a new model under ``choice`` (:meth:`Questions.choice`), made in the worker thread.

    Scoring and ordering a 100,000-sentence project takes a tenth of a
    second or more: done where the model was trained, the GUI thread only
    swaps it in (unless the choice changed meanwhile).  Its id → row index
    is built here too (``index``: one already built for ``ids``).
    """
    if choice is None or analysis is None:
        return None
    two_view = getattr(model, "n_views", 1) == 2
    plan = Questions(*choice).update(ids, analysis, status, learner, two_view)
    if plan is not None:
        plan._index = index if index is not None else index_of(plan.ids)
    return plan

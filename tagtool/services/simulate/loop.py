"""The simulation's loop: show sentences until a step's cost is spent, retrain, score; until the budget is spent."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from tagtool.core.corpus import Corpus
from tagtool.errors import Cancelled
from tagtool.learn import Learner, get_learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.services import guidance, span_questions, strategies
from tagtool.services.near_duplicates import NONE, StepShown, group_sentences
from tagtool.services.simulate import calibrate
from tagtool.services.simulate.config import TARGET_SHARE, SimulationConfig, SimulationError, reached
from tagtool.services.simulate.oracle import Answer, Oracle
from tagtool.services.simulate.pool import build_pool
from tagtool.services.simulate.questions import Questions, ask_questions
from tagtool.services.simulate.results import CurvePoint, SimulationResult
from tagtool.services.simulate.suggestions import StringMatchSuggester
from tagtool.services.strategies import TOKEN_MODES, Showing
from tagtool.services.training_setup import seeded_learner
from tagtool.services.uncertainty import pair_uncertainty, strongest_other

logger = logging.getLogger(__name__)


class Simulation:
    """Runs a :class:`SimulationConfig` on data and test corpora (``names``: theirs, for messages)."""

    def __init__(
        self,
        config: SimulationConfig,
        data: Corpus,
        test: Corpus,
        names: tuple[str, str] = ("data", "test"),
        representations=None,
        knowledge: dict | None = None,
    ):
        self.learner_cls = get_learner(config.learner)
        config.check(self.learner_cls)
        self.config = config
        self.notes: list[str] = []
        self.pool = build_pool(
            config, self.learner_cls, data, test, self.notes, names, representations, **(knowledge or {})
        )
        snap = self.pool.data
        self.oracle = Oracle(self.pool.gold, snap.offsets, snap.n_labels, config.costs)
        unlabeled_rng = np.random.default_rng(np.random.SeedSequence(config.seed).spawn(2)[1])
        self.strategy = strategies.get(config.strategy)
        self.order = strategies.tie_order(self.strategy, snap.n_sentences, config.seed)  # as the app's
        self.unlabeled_order = unlabeled_rng.permutation(snap.n_sentences)
        self.budget = float(config.budget) if config.budget is not None else config.costs.full * snap.n_tokens
        #: Cost at which a step first ran out of questions (None: never).
        self.fallback_from: float | None = None
        #: With string matches (``review`` and the token modes): the labels given so far and the suggestions
        #: they make, shown as the app's hints are (in whole sentences; a question shows the model's).
        self.matcher = (
            StringMatchSuggester(self.pool.tokens, self.pool.labels.names)
            if config.mode != "full" and config.string_matches
            else None
        )
        #: With string matches: the cost-aware strategies also count the tokens an agreeing match covers as
        #: accepted, not corrected (off: measured not to help, benchmarks/results/string_match_review.md).
        self.rank_matches = False
        #: Near-duplicate sentences, passed over within a step once one of them was shown.
        self.groups = group_sentences(self.pool.tokens) if config.skip_near_duplicates else NONE
        if self.groups.members:
            n, extra = len(self.groups.members), self.groups.repeats
            self._note(f"near-duplicates: {n:,} groups, {extra:,} sentences beyond the first of each")
        #: The question threshold and cold-start state from the cross-validation after each step (as the app's).
        self.calibration = calibrate.initial(config.cv_folds, config.threshold)

    # -- training and scoring -----------------------------------------------

    def make_learner(self) -> Learner:
        try:
            return seeded_learner(self.learner_cls, self.config.params, self.config.seed)
        except ValueError as exc:
            raise SimulationError(str(exc)) from None

    def score(self, model: ChainModel) -> float:
        """Span F1 (token accuracy for non-span labels) of ``model`` on the test sentences."""
        return self.pool.test_scorer.f1(model.predict(self.pool.test))

    def full_data_f1(self, should_stop: StopCallback | None = None) -> float:
        """F1 of the learner trained (cold) on every sentence of the data, fully labeled."""
        if self.config.full_data_f1 is not None:
            return float(self.config.full_data_f1)
        snap = replace(self.pool.data, allowed=np.eye(self.pool.data.n_labels, dtype=bool)[self.pool.gold])
        model = self.make_learner().fit(snap, should_stop=should_stop)
        model.set_decode(self.config.decode)
        return self.score(model)

    def training_ids(self, status: np.ndarray) -> np.ndarray:
        """Labeled and partially labeled sentences, plus the capped unlabeled sample, in document order (module doc).

        Document order, as the app trains: a learner that visits the
        sentences in a seeded order (the perceptrons) then sees the same
        sentences in the same order as the app's model would.
        """
        ids = np.flatnonzero(status > 0)
        if "none" in self.learner_cls.uses and self.config.max_unlabeled > 0:
            free = self.unlabeled_order[status[self.unlabeled_order] == 0][: self.config.max_unlabeled]
            ids = np.sort(np.concatenate([ids, free]))
        return ids

    def train(self, previous: ChainModel | None, should_stop: StopCallback | None) -> tuple[ChainModel, float]:
        status = self.oracle.sentence_status()
        snap = replace(self.pool.data, allowed=self.oracle.allowed).subset(self.training_ids(status))
        started = time.perf_counter()
        model = self.make_learner().fit(snap, warm_start=previous, should_stop=should_stop)
        seconds = time.perf_counter() - started
        model.set_decode(self.config.decode)
        for note in model.info.get("notes", []):
            self._note(note)
        return model, seconds

    # -- one step -----------------------------------------------------------

    def questions(self, model: ChainModel | None, status: np.ndarray) -> Questions | None:
        """The model's questions, or None where none are needed (first step, unguided full mode)."""
        if model is None or (not self.strategy.guided and self.config.mode == "full"):
            return None
        open_ids = np.flatnonzero(status < 2)
        return ask_questions(
            model,
            self.pool,
            self.oracle.allowed,
            open_ids,
            self.config.strategy,
            need_scores=self.config.mode == "partial",
            need_suggestions=self.config.mode == "review" or self.reviewing_cold or self.accepting_questions,
            showing=self.showing(model.probabilistic),
            cheap=self.matcher.agreeing(self.pool.data.offsets) if self.matcher and self.rank_matches else None,
        )

    def showing(self, probabilistic: bool) -> Showing:
        """The cost model the strategy's sentence scores read (the mode, threshold and costs of the config)."""
        c = self.config.costs
        return Showing(
            self.config.mode, self.threshold(probabilistic), c.full, c.partial, c.skip, c.opening, accept=c.accept
        )

    def queue(self, status: np.ndarray, questions: Questions | None) -> list[int]:
        """:func:`tagtool.services.guidance.queue` over the data by the strategy's scores, ties in its order."""
        names = ("none", "partial", "full")
        ordered = {int(i): names[status[i]] for i in self.order}
        guided = self.strategy.guided and not self.calibration.random_order  # cold start: the tie order
        scores = questions.sentence_scores if questions is not None and guided else {}
        return guidance.queue(scores, ordered)

    def threshold(self, probabilistic: bool) -> float:
        """The ``tokens``/``partial`` threshold: the given one, else the project's (:attr:`calibration`)."""
        return self.calibration.threshold(self.strategy, probabilistic, self.config.mode)

    @property
    def reviewing_cold(self) -> bool:
        """The token modes' cold start reviews whole sentences (``COLD_TOKENS`` of the question_threshold module)."""
        return self.config.mode in TOKEN_MODES and self.calibration.cold and calibrate.cold_tokens() == "review"

    @property
    def accepting_questions(self) -> bool:
        """The token modes accept a question's suggestion where it is gold (``accept_questions``)."""
        return self.config.mode in TOKEN_MODES and self.config.accept_questions

    def what_to_ask(self, i: int, questions: Questions | None) -> Answer:
        """What the annotator does in sentence ``i`` (module doc, "Modes")."""
        open_ = self.oracle.unlabeled(i)
        rows = self.oracle.rows(i)
        # before any model the token modes label whole sentences, with the string matches' suggestions if on
        reviewing = self.config.mode == "review" or (
            self.config.mode in TOKEN_MODES and (questions is None or self.reviewing_cold)
        )
        if reviewing and (questions is not None or self.matcher is not None):
            return Answer(open_, accepted=open_ & self.suggested_right(i, open_, questions))
        if questions is None or self.config.mode == "full" or self.calibration.cold:
            return Answer(open_)
        ask = open_ & (questions.q[rows] >= self.threshold(questions.probabilistic))
        if self.config.questions == "spans":
            ask = self.span_question_tokens(ask, open_, rows, questions)
        accepted = self.accepted_questions(i, ask, questions)
        if self.config.mode != "partial" or not ask.any():
            return Answer(ask, accepted=accepted)
        scores = questions.scores[rows]
        gold = self.oracle.gold[rows]
        other = strongest_other(scores, gold)
        torn = pair_uncertainty(scores, gold, other, questions.probabilistic, questions.scale)
        return Answer(ask, candidates=np.where(ask & (torn >= self.config.close), other, -1), accepted=accepted)

    def accepted_questions(self, i: int, ask: np.ndarray, questions: Questions) -> np.ndarray | None:
        """The asked tokens of sentence ``i`` whose suggestion the annotator accepts (None: none).

        A token question whose suggestion (the model's, :attr:`Questions.suggested`:
        the app shows no string match over a question, :mod:`tagtool.gui.match_hints`)
        is gold is accepted with Space instead of typed; a span question only
        when every token of it is suggested right — otherwise its label key
        labels the whole span.  In ``partial``, a candidate set still goes
        before an acceptance (the annotator is unsure there).
        """
        if not self.accepting_questions or questions.suggested is None:
            return None
        rows = self.oracle.rows(i)
        right = ask & (questions.suggested[rows] == self.oracle.gold[rows])
        return span_questions.whole_runs(ask, right) if self.config.questions == "spans" else right

    def span_question_tokens(self, ask: np.ndarray, open_: np.ndarray, rows: slice, questions: Questions) -> np.ndarray:
        """The tokens of sentence ``rows``'s span questions grown from its token questions ``ask``."""
        assert questions.best is not None  # ask_questions gives it
        best = questions.best[rows]
        threshold = self.threshold(questions.probabilistic)
        offsets = np.array([0, rows.stop - rows.start])
        return span_questions.grow(ask, questions.q[rows], threshold, best, open_, offsets, self.pool.labels.names)

    def suggested_right(self, i: int, tokens: np.ndarray, questions: Questions | None) -> np.ndarray:
        """Whole sentences (``review``, and the token modes before a model or in the cold start): bool mask
        of sentence ``i``'s ``tokens`` whose shown suggestion is gold.

        The model's suggestions, and with string matches on, those of the
        spans labeled so far by the precedence rule of
        :mod:`tagtool.services.simulate.suggestions`, as the annotator meets
        them token by token (:meth:`StringMatchSuggester.walk`).
        """
        rows = self.oracle.rows(i)
        gold = self.oracle.gold[rows]
        model = None if questions is None else questions.suggested[rows]
        if self.matcher is None:
            return np.zeros(len(gold), dtype=bool) if model is None else model == gold
        return self.matcher.walk(i, np.flatnonzero(tokens), gold, model)

    def show(self, i: int, answer: Answer) -> None:
        """Sentence ``i`` annotated as ``answer`` says; its spans become string-match evidence."""
        self.oracle.annotate(i, answer.ask, answer.candidates, answer.accepted)
        if self.matcher is not None and answer.ask.any():
            self.matcher.add(i, self.oracle.full_labels(i))  # the labels Enter (review) gave, too

    def annotate_step(self, questions: Questions | None, status: np.ndarray, step: float) -> int:
        """Show sentences from the queue until ``step`` is spent; returns how many were shown.

        When no sentence has a question left before the step is spent (the
        model is sure of every unlabeled token), the rest of the step labels
        whole sentences in queue order, as an annotator with nothing flagged
        would go on.  A near-duplicate of a sentence shown in the step is
        passed over (:mod:`tagtool.services.near_duplicates`).
        """
        target = min(self.oracle.spent + step, self.budget)
        order = self.queue(status, questions)
        shown, seen = 0, StepShown(self.groups)
        for i in order:
            if reached(self.oracle.spent, target):
                return shown
            answer = self.what_to_ask(i, questions) if not seen.passes(i) else None
            if answer is not None and answer.ask.any():  # a sentence without a question is not shown
                self.show(i, answer)
                seen.add(i)
                shown += 1
        if not reached(self.oracle.spent, target) and questions is not None and self.config.mode in TOKEN_MODES:
            if self.fallback_from is None:
                self.fallback_from = self.oracle.spent
                self._note(
                    f"from cost {self.oracle.spent:g} on, steps ran out of questions above the threshold "
                    "and went on with whole sentences"
                )
            for i in order:
                if reached(self.oracle.spent, target):
                    break
                open_ = self.oracle.unlabeled(i)
                if open_.any() and not seen.passes(i):
                    self.show(i, Answer(open_))  # its spans are string-match evidence as any shown sentence's
                    seen.add(i)
                    shown += 1
        return shown

    # -- the loop -------------------------------------------------------------

    def run(
        self, progress: ProgressCallback | None = None, should_stop: StopCallback | None = None
    ) -> SimulationResult:
        """Annotate, retrain and score until the budget is spent (module doc)."""
        report = progress or (lambda fraction, message="": None)
        report(0.0, "full-data F1" if self.config.full_data_f1 is None else "starting")
        full_f1 = self.full_data_f1(should_stop)
        curve: list[CurvePoint] = []
        model = None
        step = float(self.config.step)
        while not reached(self.oracle.spent, self.budget):
            if should_stop is not None and should_stop():
                raise Cancelled("simulation cancelled")
            status = self.oracle.sentence_status()
            if not self.annotate_step(self.questions(model, status), status, step):
                self._note(f"stopped at cost {self.oracle.spent:g}: every token carries an annotation")
                break
            step *= self.config.growth
            warm = model is not None
            model, seconds = self.train(model, should_stop)
            point = self._point(model, seconds, warm, calibrate.recalibrate(self))
            curve.append(point)
            report(min(point.cost / self.budget, 1.0), f"cost {point.cost:,.0f}, F1 {100 * point.f1:.2f}%")
            if self.config.until_95 and point.f1 >= TARGET_SHARE * full_f1:
                break
        if self.matcher is not None:
            self._note(
                f"string matches: {self.matcher.shown:,} suggestions shown first, {self.matcher.right:,} of them right"
            )
        return SimulationResult(
            self.config.learner,
            self.config.strategy,
            self.config.mode,
            full_f1,
            curve,
            self.config.costs,
            self.pool.data.n_tokens,
            self.notes,
        )

    def _point(self, model: ChainModel, seconds: float, warm: bool, cv_seconds: float = 0.0) -> CurvePoint:
        return CurvePoint(
            cost=round(self.oracle.spent, 6),
            tokens_labeled=self.oracle.tokens_labeled,
            f1=self.score(model),
            train_seconds=seconds,
            candidate_sets=self.oracle.candidate_sets,
            sentences=int((self.oracle.sentence_status() > 0).sum()),
            warm_start=warm,
            accepted=self.oracle.accepted,
            string_matched=0 if self.matcher is None else self.matcher.shown,
            string_matched_right=0 if self.matcher is None else self.matcher.right,
            cv_seconds=cv_seconds,
            threshold=self.threshold(model.probabilistic),
            cold=self.calibration.cold,
        )

    def _note(self, message: str) -> None:
        if message not in self.notes:
            logger.info(message)
            self.notes.append(message)


def simulate(
    config: SimulationConfig,
    data: Corpus,
    test: Corpus,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
    names: tuple[str, str] = ("data", "test"),
    representations=None,
    knowledge: dict | None = None,
) -> SimulationResult:
    """Run one simulated annotation session (module doc).

    Parameters
    ----------
    config : SimulationConfig
    data : Corpus
        Fully labeled sentences the oracle annotates (others are left out).
    test : Corpus
        Fully labeled sentences the F1 is measured on.
    progress, should_stop : callables, optional
        ``progress(fraction, message)`` after every step; ``should_stop()``
        True raises :class:`~tagtool.errors.Cancelled`.
    names : (str, str)
        What to call ``data`` and ``test`` in errors and notes (file names).
    representations : WordRepresentations, optional
        For ``dist`` feature sets (default: learned from ``data``'s text).
    knowledge : dict, optional
        ``vectors`` (the user's word vectors, ``vec`` sets) and ``gazetteers`` (dictionaries, ``gaz``).

    Returns
    -------
    SimulationResult
    """
    return Simulation(config, data, test, names, representations, knowledge).run(progress, should_stop)

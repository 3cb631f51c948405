"""One background training run, without Qt (Orange3's ``run(data, learner, state)``).

:func:`run_training` is what the worker thread executes: it trains on an
immutable :class:`TrainingInputs` built on the GUI thread (never on the
project's SQLite connection), computes the guidance for every sentence
(:func:`tagtool.gui.scoring.score_guidance`: a big project's first page
first, handed to ``state.model_ready`` at once, which the GUI swaps in; then
the rest, with updates, the complete result last), then optionally cross-validates on the fully labeled sentences
(:mod:`tagtool.services.crossval`: held-out blocks, never in the fold's training
data, features refitted — an estimate of the F1 on new text, with its
standard error; the held-out tokens' questions set the project's question
threshold and cold-start state, :mod:`tagtool.services.question_threshold`,
and the plan is made again with them) and writes the tagger's file bytes
(:attr:`TrainingResult.data`, so the GUI thread only inserts them into the
project).  It reports through ``state.progress(fraction, message)`` in
named steps whose number is known from the start (:class:`RunPlan`: the
fit, the suggestions, each fold: :mod:`tagtool.gui.run_plan`) and polls ``state.should_stop()``; a stop
surfaces as
:class:`~tagtool.errors.Cancelled`.  Tested with a mock state
and no Qt (tests/gui/test_training_run.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.gui import scoring
from tagtool.gui.questions import plan_in_worker
from tagtool.gui.run_plan import RunPlan, RunState, plan_run
from tagtool.services import crossval
from tagtool.services.crossval import column_check, fold_trainer
from tagtool.services.guidance import Analysis, SentenceGuidance
from tagtool.services.warmup import wait_for_warm_up

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TrainingInputs:
    """An immutable copy of the project's sentences for one run.

    Attributes
    ----------
    ids : tuple of int
        Project id of every sentence, in document order.
    sentences : tuple of Sentence
        With their annotations at the time of the snapshot.
    labels : LabelSet
    cv_folds : int
        k of the k-fold cross-validation over fully labeled sentences
        (0: none).
    seed : int
    features : mapping or None
        Feature settings of a cold start (None: the learner's defaults).
    representations : WordRepresentations or None
        The project's word representations, read by ``features`` that name
        a ``dist`` set (:mod:`tagtool.gui.representations`).
    vectors : WordRepresentations or None
        Word vectors the user brought, read by the ``vec`` sets
        (:mod:`tagtool.gui.knowledge`).
    gazetteers : Gazetteers or None
        The project's dictionaries, read by the ``gaz`` set.
    """

    ids: tuple[int, ...]
    sentences: tuple[Sentence, ...]
    labels: LabelSet
    cv_folds: int = 0
    seed: int = 0
    features: Mapping | None = None
    representations: object = None
    vectors: object = None
    gazetteers: object = None

    @classmethod
    def from_project(cls, project, cv_folds: int = 0, seed: int = 0) -> TrainingInputs:
        """Read the whole project (on the thread that owns its connection).

        The app builds its inputs from the session's cached sentences
        instead (:meth:`~tagtool.gui.session_cache.SentenceCache.training_sentences`).
        """
        with project.read_transaction():  # the ids and the sentences of one moment
            ids = tuple(project.sentence_ids())
            corpus = project.corpus()
        sentences = tuple(corpus)
        if len(sentences) != len(ids):
            raise RuntimeError("project changed while it was read")
        return cls(ids, sentences, corpus.labels, cv_folds, seed)

    @property
    def status(self) -> dict[int, str]:
        return {sid: s.status for sid, s in zip(self.ids, self.sentences)}


@dataclass
class TrainingResult:
    """A trained tagger and what it says about every sentence."""

    tagger: object
    learner: str
    params: dict
    guidance: Mapping[int, SentenceGuidance]
    status: Mapping[int, str]
    metrics: dict = field(default_factory=dict)
    seconds: float = 0.0
    #: The tagger's file (:meth:`Tagger.to_bytes`), written in the worker; None until the run ends.
    data: bytes | None = None
    #: The guidance as flat arrays over every token (the queue strategies read it), rows in ``guidance``'s order.
    analysis: Analysis | None = None
    #: The queue and token questions under the strategy chosen when the run started
    #: (:class:`tagtool.gui.questions.QueuePlan`, made in the worker).
    plan: object = None
    #: ``time.perf_counter()`` when the model was ready to be scored (the fit had ended, or it was read).
    arrived: float | None = None
    #: The id the worker stored the model under (:func:`tagtool.store.model_file.add_model_in_file`);
    #: None: not stored there (the GUI thread stores it), ``store_error`` says why when it failed.
    model_id: int | None = None
    store_error: str = ""

    @property
    def complete(self) -> bool:
        """Every sentence scored (False: the queue's first page, the rest is being scored)."""
        return self.analysis is None or self.analysis.complete

    @property
    def scores(self) -> dict[int, float]:
        return {sid: g.score for sid, g in self.guidance.items()}


def run_training(
    inputs: TrainingInputs,
    learner_name: str,
    params: Mapping,
    warm_start,
    state: RunState,
    overrides: Mapping | None = None,
    queue: tuple[str, bool] | Callable[[], tuple[str, bool]] | None = None,
    priority: scoring.Priority | None = None,
    store_to: tuple | None = None,
) -> TrainingResult:
    """Train ``learner_name`` with ``params`` on ``inputs``; see the module docstring.

    Parameters
    ----------
    inputs : TrainingInputs
    learner_name : str
        A name of :func:`tagtool.learn.available_learners`.
    params : mapping
        Learner parameters (validated by the learner).
    warm_start : Tagger or None
        A previous tagger of the same learner and settings.
    state : RunState
        Receives the run's fraction and "step i of n, <step>: <learner's
        message> · p %" (:class:`RunPlan`).
    overrides : mapping, optional
        Settings for this fit only, e.g. ``{"max_iter": 3}`` for a cheap
        warm-started retrain after an edit; the result keeps ``params`` (what
        the user chose) and records the overrides in ``metrics["retrain"]``.
        Cross-validation uses ``params`` (a full fit: what Train now runs).
    queue : (str, bool) or callable returning one, optional
        The queue strategy and token-question mode
        (:meth:`tagtool.gui.questions.Questions.choice`, read at each update):
        the result's :attr:`TrainingResult.plan` is made here, not on the GUI
        thread.
    priority : Priority, optional
        The sentences scored first (:mod:`tagtool.gui.scoring`): the model's
        first page reaches ``state.model_ready`` before the rest is scored.
    store_to : (path, keep), optional
        Store the finished model in the project file at ``path`` here, keeping
        the newest ``keep`` models (:attr:`TrainingResult.model_id`), unless
        a newer run asked this one to stop.

    Returns
    -------
    TrainingResult
        ``metrics`` holds the training facts and, with ``cv_folds``, the
        cross-validation of :mod:`tagtool.services.crossval` (span ``f1``,
        ``token_accuracy``, their SEs, the loss without input columns).
    """
    started = time.perf_counter()
    wait_for_warm_up()  # a first model waits for the kernels being compiled rather than compile them again
    overrides = dict(overrides or {})
    choice = _calibrated(_choice(queue), inputs.cv_folds)
    trained, chosen, plan = _fit(inputs, learner_name, params, warm_start, state, overrides)
    tagger = trained.tagger  # trained.snapshot: the guidance slices its rows (tagtool.gui.scoring)
    plan.start(state, 1)
    arrived = time.perf_counter()
    status = inputs.status
    metrics = _fit_metrics(inputs, status, overrides, arrived - started)

    def make_result(guidance, analysis, queue_plan) -> TrainingResult:
        return TrainingResult(
            tagger,
            learner_name,
            chosen,
            guidance,
            status,
            metrics,
            analysis=analysis,
            plan=queue_plan,
            arrived=arrived,
            seconds=time.perf_counter() - started,
        )

    report = plan.reporter(state, 1)
    result = scoring.score_guidance(
        tagger,
        inputs,
        state,
        make_result,
        choice,
        priority,
        report=lambda f: report(f, "first page" if f < 1 else ""),
        last_update=bool(inputs.cv_folds),
        snapshot=trained.snapshot,
    )
    del trained  # the snapshot's memory, before the cross-validation
    if inputs.cv_folds:
        _validate(result, choice, inputs, params, state, plan)
    _finish(result, started)
    if store_to is not None and not state.should_stop():
        _store(result, *store_to)
    if not inputs.cv_folds:
        # Ready once the bytes are written: the GUI thread then swaps the
        # model in while this thread is idle, not competing for the GIL.
        state.model_ready(result)
    state.progress(1.0, "done")
    return result


def _fit(inputs: TrainingInputs, learner_name: str, params: Mapping, warm_start, state: RunState, overrides: dict):
    """The run's first step: fit the learner; ``(trained, the chosen settings, the run's plan)``.

    The fit uses ``params`` with ``overrides`` over them; the settings the
    result keeps are ``params`` alone (what the user chose).
    """
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train

    chosen_learner = make_learner(learner_name, **dict(params))
    chosen = chosen_learner.get_params()
    learner = make_learner(learner_name, **{**dict(params), **overrides})
    plan = plan_run(inputs, learner, chosen_learner, overrides)
    corpus = Corpus.from_sentences(inputs.sentences, labels=inputs.labels)
    plan.start(state, 0)
    trained = train(
        corpus,
        learner,
        warm_start=warm_start,
        progress=plan.reporter(state, 0),
        should_stop=state.should_stop,
        seed=inputs.seed,
        features=None if warm_start is not None else inputs.features,
        representations=inputs.representations,
        **{
            name: value
            for name, value in (("vectors", inputs.vectors), ("gazetteers", inputs.gazetteers))
            if value is not None
        },
    )
    return trained, chosen, plan


def _fit_metrics(inputs: TrainingInputs, status: Mapping[int, str], overrides: dict, seconds: float) -> dict:
    """The training facts of a fit: its time, the sentences by status, the labeled tokens, a retrain's cap."""
    counts = {kind: sum(1 for s in status.values() if s == kind) for kind in ("full", "partial", "none")}
    metrics = {
        "train_seconds": round(seconds, 3),
        "sentences": counts,
        "labeled_tokens": int(sum(len(a) == 1 for s in inputs.sentences for a in s.annotations)),
    }
    if overrides:
        metrics["retrain"] = overrides
    return metrics


def _choice(queue) -> Callable[[], tuple[str, bool]] | None:
    """``queue`` as a callable: the choice when each update is made."""
    if queue is None or callable(queue):
        return queue
    return lambda: queue


def _validate(result: TrainingResult, choice, inputs: TrainingInputs, params: Mapping, state, plan) -> None:
    """The cross-validation's metrics into the result's, and the plan made again with its threshold."""
    cv = cross_validate(inputs, result.learner, params, result.tagger, state, plan)
    held = cv.pop("held_out", None)  # arrays, not metrics: they set the threshold, not stored
    result.metrics.update(cv)
    _recalibrate(result, choice, cv, held)


def _calibrated(choice: Callable[[], tuple] | None, folds: int) -> Callable[[], tuple] | None:
    """``choice`` as the plans before the cross-validation read it: without folds, no cold-start rule."""
    if choice is None or folds:
        return choice

    def read() -> tuple:
        now = choice()  # (strategy, asking[, seed, costs, calibration]): Questions.choice
        return now if len(now) < 5 else (*now[:-1], now[-1].after_cv(None, None))

    return read


def _recalibrate(result: TrainingResult, choice: Callable[[], tuple] | None, cv: Mapping, held) -> None:
    """After the cross-validation: the project's question threshold and cold start, and the plan made with them.

    The queue choice is read now (the user may have changed it during the
    run); the GUI thread takes the new plan's calibration in with it
    (:meth:`tagtool.gui.questions.Questions.update`).
    """
    if choice is None or result.plan is None or result.analysis is None:
        return
    now = choice()
    if len(now) < 5:  # a choice without a calibration: the kind's threshold, no cold start
        return
    calibration = now[-1].after_cv(cv, held)
    old, model = result.plan, result.tagger.model
    plan = plan_in_worker((*now[:-1], calibration), old.ids, result.analysis, result.status, result.learner, model)
    if plan is None:
        return
    plan._index = old.index  # the same sentences
    result.metrics["questions"] = calibration.describe(plan.strategy, result.analysis.probabilistic, now[1])
    result.plan = plan


def _store(result: TrainingResult, path, keep: int) -> None:
    """Store the model in the project file from this thread (a connection of its own)."""
    from tagtool.errors import ProjectError
    from tagtool.store.model_file import add_model_in_file

    try:
        result.model_id = add_model_in_file(
            path, result.learner, result.params, result.metrics, result.data, note="trained in the app", keep=keep
        )
    except ProjectError as exc:  # the GUI thread tries again, and reports
        log.warning("could not store the model from the worker: %s", exc)
        result.store_error = str(exc)


def _finish(result: TrainingResult, started: float) -> None:
    tagger = result.tagger
    tagger.metrics = dict(result.metrics)
    check = column_check(result.metrics)
    if check is not None:
        # The loss without an input column as measured on held-out sentences,
        # not on the training ones (where a small project's model loses nothing).
        tagger.input_columns = {**tagger.input_columns, "check": check}
    result.data = tagger.to_bytes()
    result.seconds = time.perf_counter() - started


def cross_validate(
    inputs: TrainingInputs, learner_name: str, params: Mapping, tagger, state: RunState, plan: RunPlan
) -> dict:
    """k-fold cross-validation of a full fit of ``params`` (:mod:`tagtool.services.crossval`, new-text protocol).

    Folds are contiguous blocks of the fully labeled sentences; each fold
    trains on the other sentences only (the held-out text is not there,
    not even unlabeled) with features refitted on them in the settings and
    views of ``tagger``.
    """
    from tagtool.learn import NothingToLearnError
    from tagtool.services.training_setup import TrainingSetupError

    first = 2  # the fit and the suggestions come first

    def fold_progress(fold: int, _k: int):
        plan.start(state, first + fold)
        return plan.reporter(state, first + fold)

    train = fold_trainer(learner_name, params, tagger, seed=inputs.seed)
    try:
        return crossval.cross_validate(
            inputs.sentences,
            inputs.labels,
            train,
            inputs.cv_folds,
            seed=inputs.seed,
            progress=fold_progress,
            should_stop=state.should_stop,
            questions=True,  # the held-out tokens' questions: the project's threshold (question_threshold)
        )
    except (NothingToLearnError, TrainingSetupError) as exc:
        return {"cv": f"not possible: {exc}"}

"""The learner in the loop: train in the background, show what the model says.

:class:`ModelLoop` ties a :class:`~tagtool.gui.session.Session` to a
:class:`~tagtool.gui.worker.TaskRunner`:

* **Training.**  :meth:`train` builds an immutable
  :class:`~tagtool.gui.training.TrainingInputs` from the session's cached
  sentences (``session.cache.training_sentences()``: no project read per run)
  and runs :func:`~tagtool.gui.training.run_training` in the worker; a newer
  run cancels the older one.  After an edit, a short debounce timer
  (restarted by every further edit) starts a run (``auto``); that run
  warm-starts from the last model with a small budget
  (:attr:`ModelLoop.retrain_epochs` passes, see :mod:`tagtool.gui.warm_start`),
  so suggestions follow the annotator within about a second, while "Train
  now" fits with the full settings.  When the model is ready (before the
  optional cross-validation) it is swapped in on the GUI thread; when the
  run ends its bytes (written in the worker) are stored in the project with
  its metrics (``project.stored.add_model``, one INSERT on the GUI thread,
  whose connection it is).
* **Guidance.**  Per sentence a :class:`~tagtool.services.guidance.SentenceGuidance`;
  the current sentence's becomes the editor's hints (filtered by the View
  toggles), held still while the sentence is open
  (:mod:`tagtool.gui.suggestion_hold`), with the string matches on top
  (:mod:`tagtool.gui.string_suggestions`).  The queue strategy
  (:mod:`tagtool.services.strategies`, Go › Queue strategy) scores the sentences from the same guidance
  as flat arrays (:class:`~tagtool.gui.questions.Questions`): its scores fill the sentence list's Info
  column, its queue orders J, and its token questions are what Tab visits and the mode marks.
* **Big projects.**  A new model's guidance comes chunk by chunk
  (:mod:`tagtool.gui.scoring`): first the sentences the new queue's first
  page most likely holds (``loop.queue.priority()``: the current sentence, the
  list's rows on screen, the head of the queue in use), in use within a
  second or two, then the rest in the background, every few seconds an
  update; an edit's retrain stops it.  Each update is planned in the
  worker; a changed queue choice of a big project too (``loop.queue.replan()``).
  The GUI thread only swaps plans in.  The queue is the loop's ``queue`` part
  (:mod:`~tagtool.gui.queue_steering`), what the open sentence shows its ``hold``.
* **Reopening.**  The last stored model is loaded, its guidance recomputed in the worker (the ``models`` part,
  :class:`~tagtool.gui.stored_models.StoredModels`, also storing what the worker could not).
"""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from functools import partial

from PySide6.QtCore import QObject, QTimer, Signal

from tagtool.gui.hints import Marks, hints_for
from tagtool.gui.questions import SYNC_PLAN_TOKENS, Questions
from tagtool.gui.queue_costs_watch import QueueCostsWatch
from tagtool.gui.queue_steering import QueueSteering
from tagtool.gui.retire import Retirer
from tagtool.gui.session import Session
from tagtool.gui.stored_models import MAX_STORED_MODELS, StoredModels
from tagtool.gui.string_suggestions import StringSuggestions
from tagtool.gui.suggestion_hold import SuggestionHold
from tagtool.gui.training import TrainingInputs, TrainingResult, run_training
from tagtool.gui.warm_start import can_warm_start, capped_retrain, cold_features, same_params
from tagtool.gui.worker import TaskRunner
from tagtool.learn import DEFAULT_LEARNER
from tagtool.services.crossval import DEFAULT_FOLDS as CV_FOLDS  # folds of the CV after each run
from tagtool.services.guidance import SentenceGuidance
from tagtool.services.question_threshold import Calibration
from tagtool.store.review import for_training

log = logging.getLogger(__name__)

#: Milliseconds of quiet after an edit before an automatic retrain (each edit restarts it).
DEBOUNCE_MS = 400
#: Milliseconds a changed learner or setting rests before the run it starts (automatic retraining on).
SETTINGS_MS = 600
#: Default passes of a warm-started retrain after an edit (0: the learner's full settings).
RETRAIN_EPOCHS = 3
#: Milliseconds between swapping a finished run's model in and storing it.
STORE_DELAY_MS = 30


class ModelLoop(QObject):
    """Background training and guidance for one session.

    Signals
    -------
    started(str)
        A run started (the learner's name).
    progress(float, str)
    modelChanged(object)
        A new :class:`TrainingResult` is in use (suggestions refreshed).
    finished(object)
        A run ended with its metrics (after the optional cross-validation).
    failed(str, str)
        A run raised: message and traceback.  The previous model stays.
    cancelled()
    stored(int)
        A model was stored in the project (its id).
    suggestionsWaiting(bool)
        A newer model's suggestions for the open sentence wait (True) or
        were shown (False) (:mod:`tagtool.gui.suggestion_hold`).
    """

    started = Signal(str)
    waiting = Signal(str)  # a run waits for the project's sentences (read in the background)
    progress = Signal(float, str)
    modelChanged = Signal(object)
    finished = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()
    stored = Signal(int)
    #: The project's stored model was read (before its guidance is recomputed).
    loaded = Signal(object)
    #: The queue strategy or the token-question mode changed (the J queue and Info scores with them).
    queueChanged = Signal()
    suggestionsWaiting = Signal(bool)

    def __init__(self, session: Session, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.runner = TaskRunner(self, paced=True)  # scoring a big project waits for the GUI's turns
        #: Plans of a big project's changed queue choice (``queue.replan()``), beside the runs.
        self.planner = TaskRunner(self)
        self.result: TrainingResult | None = None
        self.learner_name = DEFAULT_LEARNER
        self.params: dict = {}
        self.auto = True
        self.warm_start = True
        self.cv_folds = CV_FOLDS
        #: Passes of a warm-started retrain after an edit (0: full settings).
        self.retrain_epochs = RETRAIN_EPOCHS
        self.marks = Marks()
        #: The queue strategy and token-question mode, and the plan of the model in use.
        self.questions = Questions(calibration=Calibration())  # cold until a cross-validation says otherwise
        # Sentences split or merged since the current run took its sentences, and when: the model's
        # guidance for them names other tokens (possibly as many), so it is not shown.
        self._retokenized: dict[int, float] = {}
        self.hold = SuggestionHold(session, self.guidance, self.questions, self._refresh_hints, self.suggestionsWaiting)
        self.queue = QueueSteering(
            session,
            self.questions,
            self.planner,
            self.hold,
            self._retokenized,
            lambda: self.result,
            self._refresh_hints,
            self.queueChanged,
        )
        self.models = StoredModels(self)
        #: The annotation costs the queue ranks with, measured in a worker (:mod:`tagtool.gui.queue_costs_watch`).
        self.costs_watch = QueueCostsWatch(self)
        self.run_started = 0.0
        #: The settings overridden for the current run (``{}``: a full fit).
        self.run_overrides: dict = {}
        self._unstored: TrainingResult | None = None
        self.retirer = Retirer(self)
        self._announced = None  # the tagger whose first result modelChanged announced
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self.train(after_edit=True))
        self._settings_timer = QTimer(self, singleShot=True, interval=SETTINGS_MS)
        self._settings_timer.timeout.connect(self._settings_changed)
        session.annotationsChanged.connect(self._edited)
        session.sentenceChanged.connect(self._refresh_hints)
        session.reviewChanged.connect(self.queue.review_changed)
        self.started.connect(self.queue.duplicates.run_started)  # the labeled sentences its model will know
        session.tokensChanged.connect(self._tokens_changed)
        self._inputs_at = 0.0
        self.editor = self.list_panel = None  # attach()
        #: The project's word representations (a RepresentationsController) and the vectors and dictionaries the
        #: user brought (a KnowledgeController), set by the window.
        self.representations = self.knowledge = None
        #: String matches shown among the hints (:mod:`tagtool.gui.string_suggestions`).
        self.string_suggestions = StringSuggestions(session, self._refresh_hints, self)

    # ------------------------------------------------------------------
    # wiring

    def attach(self, editor, list_panel) -> None:
        """Feed hints to ``editor`` and scores to ``list_panel``."""
        self.editor, self.list_panel = editor, list_panel
        self.queue.list_panel = list_panel
        if editor is not None:
            editor.questions = self.queue  # Tab and Shift+Space ask next_question() and pair()
        self._refresh_hints()

    @property
    def tagger(self):
        return None if self.result is None else self.result.tagger

    @property
    def busy(self) -> bool:
        return self.runner.busy

    def set_learner(self, name: str, params: dict, retrain: bool = True) -> bool:
        """Use learner ``name`` with ``params``; True when that changes the model the next run makes.

        With automatic retraining on and something labeled, a change starts a full run once the
        settings rest for :data:`SETTINGS_MS` (``retrain`` False: a stored model's own learner).
        """
        from tagtool.services.settings import current_names

        before = (self.learner_name, self.full_params())
        self.learner_name, self.params = name, current_names(name, params)
        changed = not (before[0] == name and same_params(before[1], self.full_params()))
        if changed and self.auto and retrain:
            self._settings_timer.start()
        return changed

    def _settings_changed(self) -> None:
        counts = self.session.counts.token_counts()
        result = self.result
        in_use = (
            result is not None
            and result.learner == self.learner_name
            and same_params(dict(result.params), self.full_params())
        )
        if self.auto and counts["full"] + counts["partial"] and not in_use:
            self.train()

    def set_marks(self, **changes) -> None:
        self.marks = replace(self.marks, **changes)
        self._refresh_hints()

    # ------------------------------------------------------------------
    # runs

    def _edited(self, sid, _changes) -> None:
        if sid == self.session.current_id:  # another sentence's (Label all occurrences): nothing on screen
            self._refresh_hints()
        if self.auto:
            if self.runner.busy:
                self.runner.cancel()  # obsolete now
            self._debounce.start()

    def train(self, after_edit: bool = False) -> bool:
        """Start a run on the annotations as they are now; False if nothing can start.

        ``after_edit`` (the debounce timer's runs): a warm start is capped at
        :attr:`retrain_epochs` passes.  Otherwise (Train now) the learner's
        full settings.
        """
        self._debounce.stop()
        self._settings_timer.stop()
        project = self.session.project
        counts = self.session.counts.token_counts()
        if counts["full"] + counts["partial"] == 0:
            self.failed.emit("Label some tokens first: the model learns from your annotations.", "")
            return False
        if self.session.cache.defer_until_sentences_ready("train", lambda: self.train(after_edit)):
            # a big project is still being read in the background: train once it is in
            self.waiting.emit("Reading the project's sentences; training starts once they are in…")
            return True
        ids, sentences = self.session.cache.training_sentences()
        self._inputs_at = time.perf_counter()
        sentences = for_training(ids, sentences, self.session.edits.skipped)  # skipped: unlabeled text
        reps = self.representations and self.representations.for_training(self.learner_name, sentences)
        known = self.knowledge.for_training() if self.knowledge is not None else {}  # vectors, gazetteers
        inputs = TrainingInputs(
            ids,
            sentences,
            project.labels,
            self.cv_folds,
            features=cold_features(self.learner_name, reps, sentences, **known),
            representations=reps,
            **known,
        )
        params = self.full_params()
        warm_ok = self.warm_start and can_warm_start(
            self.result, self.learner_name, params, project.labels, reps, features=inputs.features, **known
        )
        warm = self.tagger if warm_ok else None
        overrides = {}
        if after_edit and warm is not None:
            overrides = capped_retrain(self.learner_name, params, self.retrain_epochs)
        store_to = None if project.readonly else (project.path, MAX_STORED_MODELS)  # stored by the worker
        run = partial(
            run_training,
            overrides=overrides,
            queue=self.questions.choice,
            priority=self.queue.priority(),
            store_to=store_to,
        )
        self.runner.start(run, inputs, self.learner_name, params, warm, wire=partial(self._connect, store=True))
        self.run_started = time.perf_counter()
        self.run_overrides = overrides
        self.started.emit(self.learner_name)
        return True

    def full_params(self) -> dict:
        """The learner's settings: :attr:`params` over its defaults."""
        from tagtool.learn import get_learner

        try:
            defaults = get_learner(self.learner_name).param_defaults()
        except Exception:  # noqa: BLE001 — an unknown name fails in the run, as an error signal
            defaults = {}
        return {**defaults, **self.params}

    def representations_ready(self) -> None:
        """New word representations are current: retrain (a cold start) if they change the model's features."""
        reps = self.representations.for_training() if self.representations is not None else None
        used = getattr(self.tagger.extractor, "representations", None) if self.tagger is not None else None
        if self.auto and reps is not None and getattr(used, "fingerprint", None) != reps.fingerprint:
            counts = self.session.counts.token_counts()
            if counts["full"] + counts["partial"] and not self.runner.busy:
                self.train()

    def cancel(self) -> bool:
        """Stop the running (or waiting) run; False if there was none."""
        self._debounce.stop()
        self._settings_timer.stop()
        if self.session.cache.drop_deferred("train") or self.runner.cancel():
            self.cancelled.emit()
            return True
        return False

    def _connect(self, task, store: bool) -> None:
        s = task.signals
        s.progress.connect(lambda f, m, t=task: self.runner.is_current(t) and self.progress.emit(f, m))
        s.ready.connect(lambda r, t=task: self.runner.is_current(t) and self._use(r, unstored=store))
        s.returned.connect(lambda r, t=task: self._returned(t, r, store))
        s.errored.connect(lambda m, tb, t=task: self.runner.is_current(t) and self.failed.emit(m, tb))
        s.cancelled.connect(lambda t=task: self.runner.is_current(t) and self.cancelled.emit())

    def _returned(self, task, result: TrainingResult, store: bool) -> None:
        if (self.result is not result or self.questions.plan is not result.plan) and self.runner.is_current(task):
            self._use(result, unstored=store)  # a new model, or its plan made again after its cross-validation
        # Store and report in a later turn of the event loop: the new
        # suggestions paint first, and no single turn stalls the window.
        QTimer.singleShot(STORE_DELAY_MS, self, lambda: self._ended(result, store))

    def _ended(self, result: TrainingResult, store: bool) -> None:
        if result.model_id is not None:  # the worker stored it
            if self._unstored is result:
                self._unstored = None
            self.stored.emit(result.model_id)
        elif store and (self._unstored is result):
            self.models.store(result)
        if self.result is result and not self.runner.busy:  # a newer run reports for itself
            self.finished.emit(result)

    def _use(self, result: TrainingResult, unstored: bool) -> None:
        """Take a model's result in: its first page, an update while the rest is scored, or the complete one.

        What the worker made (the plan, the queue, the scores) is swapped
        in; ``modelChanged`` is emitted for a new model's first result and
        for its complete one, not for the updates between.
        """
        announce = result.complete or result.tagger is not self._announced
        # What this result replaces is let go of over the next turns, not freed in this one (tagtool.gui.retire).
        scores = self.list_panel.model.scores if self.list_panel is not None else None
        old_tagger = self._announced if self._announced is not result.tagger else None
        self.retirer.retire(self.result, self.questions.plan, scores, old_tagger)
        self._announced = result.tagger
        self.result = result
        # only the current run's results get here: what was retokenized before it read is in them
        for sid in [sid for sid, at in self._retokenized.items() if at < self._inputs_at]:
            del self._retokenized[sid]  # in place: the queue part holds this dict
        if unstored:
            self._unstored = result
        two_view = getattr(result.tagger.model, "n_views", 1) == 2
        ids = result.plan.ids if result.plan is not None else tuple(result.status)
        big = result.analysis is not None and len(result.analysis.tokens.unlabeled) > SYNC_PLAN_TOKENS
        if (
            self.questions.update(
                ids, result.analysis, result.status, result.learner, two_view, ready=result.plan, build=not big
            )
            is None
            and big
        ):
            self.queue.replan()  # the choice changed since the worker planned: its plan serves meanwhile
        self.queue.requeue()
        # Painted now, not in a later turn of the event loop: a worker scoring a big project waits
        # for this turn to end (tagtool.gui.scoring); painted later, the list's and the editor's
        # Python calls would each wait for the GIL the worker holds, 0.1-0.3 s in all
        # (benchmarks/results/big_project.md, §4).
        self.queue.show_scores(now=True)
        self._refresh_hints()
        if self.editor is not None and self.editor.isVisible():
            self.editor.repaint()
        if announce:  # the log file's record of when suggestions appeared (benchmarks/bare_desktop.py reads it)
            seconds = time.perf_counter() - self.run_started
            log.info("suggestions of a %s model shown %.2f s after its run started", result.learner, seconds)
            self.modelChanged.emit(result)

    def _tokens_changed(self, sid: int, _focus: int) -> None:
        self._retokenized[sid] = time.perf_counter()
        self.hold.drop_held(sid)

    # ------------------------------------------------------------------
    # projects

    def close(self) -> None:
        """Stop the workers; keep a model not stored yet (its CV was cancelled)."""
        for part in (self.representations, self.knowledge):
            if part is not None:
                part.shutdown()
        self._debounce.stop()
        self._settings_timer.stop()
        self.runner.shutdown()
        self.planner.shutdown()
        for watch in (self.string_suggestions, self.costs_watch, self.queue.duplicates):
            watch.shutdown()
        self.retirer.close()
        if self._unstored is not None:
            self.models.store(self._unstored)

    # ------------------------------------------------------------------
    # hints

    def guidance(self, sid: int | None) -> SentenceGuidance | None:
        if self.result is None or sid is None or sid in self._retokenized:
            return None
        return self.result.guidance.get(sid)

    def _refresh_hints(self, *_args) -> None:
        if self.editor is None:
            return
        sid = self.session.current_id
        guidance, questions = self.hold.shown(sid)  # the open sentence's are held still
        hints = hints_for(sid, guidance, self.session.annotations, self.marks, questions, self.questions.asking)
        self.editor.set_hints(self.string_suggestions.hints(sid, hints) if self.marks.string_matches else hints)

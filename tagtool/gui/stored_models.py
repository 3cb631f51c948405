"""The model loop's stored models: the newest one loaded on reopening, each finished run's kept.

:class:`StoredModels` is the ``models`` part of :class:`~tagtool.gui.model_loop.ModelLoop`.
On reopening a project the last stored model is read (only the row's bytes
on the GUI thread), decoded in the worker (:func:`_read_tagger`) and its
guidance recomputed there (:func:`run_guidance`), its first page first.  A
finished run is stored by the worker itself
(:func:`tagtool.gui.training.run_training`, ``store_to``); what it could
not store (a cancelled cross-validation, a refusal) the GUI thread stores
(:meth:`StoredModels.store`), keeping the newest :data:`MAX_STORED_MODELS`.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import TYPE_CHECKING

from tagtool.gui.scoring import Priority, score_guidance
from tagtool.gui.training import TrainingInputs, TrainingResult

if TYPE_CHECKING:
    from tagtool.gui.model_loop import ModelLoop

log = logging.getLogger(__name__)

#: Stored models kept in the project (older ones are deleted: each holds a
#: whole tagger, and automatic retraining makes many).
MAX_STORED_MODELS = 30


def run_guidance(inputs: TrainingInputs, tagger, state, queue=None, priority: Priority | None = None) -> TrainingResult:
    """Guidance of every sentence under an existing tagger (after reopening), its first page first.

    ``queue`` and ``priority`` as :func:`run_training`'s.
    """
    arrived, status = time.perf_counter(), inputs.status

    def make_result(guidance, analysis, plan) -> TrainingResult:
        return TrainingResult(
            tagger,
            tagger.learner,
            dict(tagger.model.params),
            guidance,
            status,
            dict(tagger.metrics),
            analysis=analysis,
            plan=plan,
            arrived=arrived,
        )

    return score_guidance(tagger, inputs, state, make_result, queue, priority)


class StoredModels:
    """Loading and storing a :class:`~tagtool.gui.model_loop.ModelLoop`'s models (see the module docstring).

    Parameters
    ----------
    loop : ModelLoop
        The loop whose model in use a loaded model becomes (its ``result``, ``runner``,
        ``set_learner`` and the run wiring ``_connect``), and whose signals say what happened.
    """

    def __init__(self, loop: ModelLoop):
        self.loop = loop

    def load_last(self) -> bool:
        """Load the project's newest stored model in the worker, then recompute its guidance there.

        Only the row's bytes are read on the GUI thread: decoding a big
        project's tagger (its vocabulary, word representations) stalls the window
        (benchmarks/results/gui_representations.md).  A run started
        meanwhile replaces the loading.  Returns whether there was a model.
        """
        project = self.loop.session.project
        records = project.stored.models()
        if not records:
            return False
        record = records[-1]
        self.loop.set_learner(record.learner, dict(record.params), retrain=False)

        def wire(task) -> None:
            task.signals.returned.connect(
                lambda tagger, t=task: self.loop.runner.is_current(t) and self._loaded(record, tagger)
            )
            task.signals.errored.connect(
                lambda message, _tb: log.warning("stored model %d unreadable: %s", record.id, message)
            )

        self.loop.runner.start(_read_tagger, project.stored.model_data(record.id), f"model {record.id}", wire=wire)
        return True

    def _loaded(self, record, tagger) -> None:
        tagger.metrics = dict(record.metrics)
        from tagtool.services.settings import current_names

        params = current_names(record.learner, record.params)  # a model stored before a rename
        self.loop.result = TrainingResult(tagger, record.learner, params, {}, {}, dict(record.metrics))
        # its stored cross-validated F1 ends the cold start (tagtool.services.question_threshold); the
        # threshold is the kind's until the next run's cross-validation (the held-out tokens are not stored)
        questions = self.loop.questions
        questions.calibration = questions.calibration.after_cv(record.metrics, None)
        self.loop.loaded.emit(self.loop.result)
        if not self.loop.session.cache.defer_until_sentences_ready("guidance", lambda: self._guide(tagger)):
            self._guide(tagger)

    def _guide(self, tagger) -> None:
        """Recompute a loaded model's guidance in the worker, unless another model came meanwhile."""
        if self.loop.result is None or self.loop.result.tagger is not tagger:
            return
        ids, sentences = self.loop.session.cache.training_sentences()
        self.loop._inputs_at = time.perf_counter()
        self.loop.runner.start(
            partial(run_guidance, queue=self.loop.questions.choice, priority=self.loop.queue.priority()),
            TrainingInputs(ids, sentences, self.loop.session.project.labels),
            tagger,
            wire=partial(self.loop._connect, store=False),
        )

    def store(self, result: TrainingResult) -> None:
        project = self.loop.session.project
        if project.closed or project.readonly or result.model_id is not None:  # the worker stored it
            return
        self.loop._unstored = None
        try:
            data = result.data if result.data is not None else result.tagger.to_bytes()  # CV cancelled
            model_id = project.stored.add_model(
                result.learner, result.params, result.metrics, data, note="trained in the app"
            )
            records = project.stored.models()
            for old in records[:-MAX_STORED_MODELS]:
                project.stored.delete_model(old.id)
        except Exception as exc:  # noqa: BLE001 — a full disk must not lose the model in use
            log.warning("could not store the model: %s", exc)
            self.loop.failed.emit(f"The model could not be saved in the project: {exc}", "")
            return
        self.loop.stored.emit(model_id)


def _read_tagger(data: bytes, name: str, state):
    """A stored model's tagger (the worker's half of :meth:`StoredModels.load_last`)."""
    from tagtool.tagger.model import Tagger

    return Tagger.from_bytes(data, name)

"""One background training run, without Qt (Orange3's ``run(data, learner, state)``).

:func:`run_training` is what the worker thread executes: it trains on an
immutable :class:`TrainingInputs` built on the GUI thread (never on the
project's SQLite connection), computes the guidance for every sentence,
hands the ready model to ``state.model_ready`` (the GUI swaps it in at once),
then optionally cross-validates on the fully labeled sentences and writes
the tagger's file bytes (:attr:`TrainingResult.data`, so the GUI thread only
inserts them into the project).  It reports
through ``state.progress(fraction, message)`` and polls
``state.should_stop()``; a stop surfaces as
:class:`~tagtool.learn.progress.TrainingCancelled`.  Tested with a mock state
and no Qt (tests/gui/test_training_run.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import evaluate
from tagtool.guidance import SentenceGuidance, analyse

log = logging.getLogger(__name__)


class RunState(Protocol):
    """What :func:`run_training` talks to (the worker, or a test's mock)."""

    def progress(self, fraction: float, message: str) -> None: ...

    def should_stop(self) -> bool: ...

    def model_ready(self, result: TrainingResult) -> None: ...


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
    """

    ids: tuple[int, ...]
    sentences: tuple[Sentence, ...]
    labels: LabelSet
    cv_folds: int = 0
    seed: int = 0

    @classmethod
    def from_project(cls, project, cv_folds: int = 0, seed: int = 0) -> TrainingInputs:
        """Read the whole project (on the thread that owns its connection).

        The app builds its inputs from the session's cached sentences
        instead (:meth:`~tagtool.gui.session.Session.training_sentences`).
        """
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

    @property
    def scores(self) -> dict[int, float]:
        return {sid: g.score for sid, g in self.guidance.items()}


def _scaled(state: RunState, lo: float, hi: float):
    def report(fraction: float, message: str = "") -> None:
        state.progress(lo + (hi - lo) * float(fraction), message)

    return report


def run_training(
    inputs: TrainingInputs,
    learner_name: str,
    params: Mapping,
    warm_start,
    state: RunState,
    overrides: Mapping | None = None,
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
    overrides : mapping, optional
        Settings for this fit only, e.g. ``{"epochs": 3}`` for a cheap
        warm-started retrain after an edit; the result keeps ``params`` (what
        the user chose) and records the overrides in ``metrics["retrain"]``.
        Cross-validation uses ``params``.

    Returns
    -------
    TrainingResult
        ``metrics`` holds the training facts and, with ``cv_folds``, the
        cross-validated ``token_accuracy`` and span ``f1``.
    """
    from tagtool.learn import make_learner
    from tagtool.pipeline import train_tagger

    started = time.perf_counter()
    overrides = dict(overrides or {})
    chosen = make_learner(learner_name, **dict(params)).get_params()
    learner = make_learner(learner_name, **{**dict(params), **overrides})
    corpus = Corpus.from_sentences(inputs.sentences, labels=inputs.labels)
    main_share = 0.6 if inputs.cv_folds else 0.9
    tagger = train_tagger(corpus, learner, warm_start=warm_start, progress=_scaled(state, 0.0, main_share),
                          should_stop=state.should_stop, seed=inputs.seed)
    state.progress(main_share, "computing suggestions")
    guidance = dict(zip(inputs.ids, analyse(tagger, inputs.sentences, state.should_stop)))
    status = inputs.status
    counts = {kind: sum(1 for s in status.values() if s == kind) for kind in ("full", "partial", "none")}
    metrics = {
        "train_seconds": round(time.perf_counter() - started, 3),
        "sentences": counts,
        "labeled_tokens": int(sum(len(a) == 1 for s in inputs.sentences for a in s.annotations)),
    }
    if overrides:
        metrics["retrain"] = overrides
    result = TrainingResult(tagger, learner_name, chosen, guidance, status, metrics)
    if inputs.cv_folds:
        result.seconds = time.perf_counter() - started
        state.model_ready(result)
        metrics.update(cross_validate(inputs, learner_name, params, tagger, state, main_share))
    _finish(result, started)
    if not inputs.cv_folds:
        # Ready once the bytes are written: the GUI thread then swaps the
        # model in while this thread is idle, not competing for the GIL.
        state.model_ready(result)
    state.progress(1.0, "done")
    return result


def _finish(result: TrainingResult, started: float) -> None:
    result.tagger.metrics = dict(result.metrics)
    result.data = result.tagger.to_bytes()
    result.seconds = time.perf_counter() - started


def cross_validate(inputs: TrainingInputs, learner_name: str, params: Mapping, tagger, state: RunState,
                   start: float = 0.0) -> dict:
    """k-fold cross-validation over the fully labeled sentences.

    Each fold's held-out sentences stay in the training data *unlabeled*
    (their text is there for the semi-supervised learners, their labels
    are not); the features and views of ``tagger`` are reused, so only the
    learner is refitted.  Predictions of all folds are scored together:
    token accuracy and span F1 (conlleval rules).
    """
    from tagtool.learn import NothingToLearnError, make_learner
    from tagtool.pipeline import TrainingSetupError, train_tagger

    full = [i for i, s in enumerate(inputs.sentences) if s.status == "full"]
    k = min(inputs.cv_folds, len(full))
    if k < 2:
        return {"cv": f"needs 2 fully labeled sentences, has {len(full)}"}
    order = np.random.default_rng(inputs.seed).permutation(full)
    gold, pred = [], []
    for fold in range(k):
        held = sorted(int(i) for i in order[fold::k])
        held_set = set(held)
        train = [s.unlabeled() if i in held_set else s for i, s in enumerate(inputs.sentences)]
        report = _scaled(state, start + (1 - start) * fold / k, start + (1 - start) * (fold + 1) / k)
        try:
            fold_tagger = train_tagger(
                Corpus.from_sentences(train, labels=inputs.labels), make_learner(learner_name, **dict(params)),
                features=tagger.extractor, views=tagger.view_split, progress=report,
                should_stop=state.should_stop, seed=inputs.seed,
            )
        except (NothingToLearnError, TrainingSetupError) as exc:
            return {"cv": f"not possible: {exc}"}
        held_sentences = [inputs.sentences[i] for i in held]
        # The project's own sentences: some may lack a column others have (imported later).
        pred.extend(fold_tagger.tag(held_sentences, allow_missing_columns=True))
        gold.extend([next(iter(a)) for a in s.annotations] for s in held_sentences)
    scores = evaluate(gold, pred, inputs.labels)
    return {"cv_folds": k, "cv_sentences": len(gold), "token_accuracy": round(scores.token_accuracy, 4),
            "f1": round(scores.f1, 4)}

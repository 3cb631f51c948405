"""The simulation's cross-validation after each step: the app's, on the sentences the step trained on.

After each retrain the app cross-validates its model
(:func:`tagtool.services.crossval.cross_validate`, ``k`` =
``--cv-folds``, new-text protocol, contiguous blocks of the fully labeled
sentences, features refitted per fold in the settings of the pool's
extractor and view split) and sets its question threshold and cold-start
state from it (:mod:`tagtool.services.question_threshold`).  The simulation
runs the same function on the same sentences — the step's training
sentences, in document order, with the oracle's annotations — with the
seed of the simulation, and uses the result for the next step's
questions and queue.
"""

from __future__ import annotations

import time
from dataclasses import replace
from types import SimpleNamespace

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.services import crossval
from tagtool.services.question_threshold import Calibration


def cold_tokens() -> str:
    """What the token modes do in the cold start: ``review`` or ``full`` (the question_threshold ``COLD_TOKENS``)."""
    from tagtool.services import question_threshold

    return question_threshold.COLD_TOKENS


def initial(folds: int, given: float | None) -> Calibration:
    """The state before any model: cold with cross-validation on, no rule with it off (0 folds)."""
    return Calibration(given=given) if folds > 0 else Calibration(warm=True, checked=False, given=given)


def annotated(sentence: Sentence, allowed: np.ndarray, names) -> Sentence:
    """``sentence`` with the annotations of its ``allowed[T, L]`` rows (every label allowed: none)."""
    anns = tuple(frozenset() if row.all() else frozenset(names[j] for j in np.flatnonzero(row)) for row in allowed)
    return replace(sentence, annotations=anns)


def step_sentences(sim, ids: np.ndarray) -> list[Sentence]:
    """The data's sentences ``ids`` (document order) as the app's project holds them after the step."""
    pool, allowed, offsets = sim.pool, sim.oracle.allowed, sim.pool.data.offsets
    names = pool.labels.names
    return [annotated(pool.sentences[i], allowed[offsets[i] : offsets[i + 1]], names) for i in ids.tolist()]


def cross_validate_step(sim) -> tuple[dict, float]:
    """The app's cross-validation of the simulation's learner on the step's training sentences; its seconds.

    Returns the metrics of :func:`tagtool.services.crossval.cross_validate`
    with ``held_out`` (``{}`` with 0 folds; ``{"cv": reason}`` when not possible).
    """
    config = sim.config
    if config.cv_folds <= 0:
        return {}, 0.0
    from tagtool.learn import NothingToLearnError
    from tagtool.services.training_setup import TrainingSetupError

    started = time.perf_counter()
    sentences = step_sentences(sim, sim.training_ids(sim.oracle.sentence_status()))
    settings = SimpleNamespace(extractor=sim.pool.extractor, view_split=sim.pool.view_split)  # a tagger's, to refit
    fit = crossval.fold_trainer(config.learner, config.params, settings, seed=config.seed, decode=config.decode)
    try:
        metrics = crossval.cross_validate(
            sentences, sim.pool.labels, fit, config.cv_folds, seed=config.seed, questions=True
        )
    except (NothingToLearnError, TrainingSetupError) as exc:
        metrics = {"cv": f"not possible: {exc}"}
    return metrics, time.perf_counter() - started


def recalibrate(sim) -> float:
    """``sim.calibration`` after the step's cross-validation (:func:`cross_validate_step`); its seconds."""
    metrics, seconds = cross_validate_step(sim)
    sim.calibration = sim.calibration.after_cv(metrics if sim.config.cv_folds > 0 else None, metrics.get("held_out"))
    return seconds

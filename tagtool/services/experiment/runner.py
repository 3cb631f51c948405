"""Runs an experiment: featurise, train and score every repeat of every (L, U) setting."""

from __future__ import annotations

import logging
import time
from dataclasses import replace

import numpy as np

from tagtool.core.corpus import Corpus
from tagtool.core.metrics import evaluate
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.errors import Cancelled
from tagtool.learn import get_learner
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.services.experiment.config import FIT_FEATURES, ExperimentConfig, ExperimentError
from tagtool.services.experiment.draws import (
    Draw,
    candidate_mask,
    draw_split,
    gold_indices,
    label_presence,
    select_pool,
)
from tagtool.services.experiment.results import ExperimentResult, SettingResult
from tagtool.services.training_setup import (
    attach_representations,
    feature_views,
    make_extractor,
    seeded_learner,
    view_split_for,
)

logger = logging.getLogger(__name__)


class _Repeat:
    """The arrays of one repeat: training snapshot and holdout snapshot + gold."""

    def __init__(self, train: Snapshot, holdout: Snapshot):
        self.train, self.holdout = train, holdout


class Experiment:
    """Runs an :class:`ExperimentConfig` on a pool (and optional test sentences)."""

    def __init__(self, config: ExperimentConfig, data: Corpus, test: Corpus | None = None, representations=None):
        """``representations``: word representations for ``dist`` feature sets; by default
        learned once from the text of ``data``'s pool (labels not read, the test file never)."""
        if config.fit_features not in FIT_FEATURES:
            raise ExperimentError(f"fit_features must be one of {', '.join(FIT_FEATURES)}")
        self.config = config
        self.learner_cls = get_learner(config.learner)
        self.labels = data.labels if test is None else data.labels.union(test.labels)
        self.pool = select_pool(data, config.pool, config.min_length, config.max_length)
        self.test = [s for s in test if s.status == "full"] if test is not None else None
        self.pool_gold = gold_indices(self.pool, self.labels)
        self.present = label_presence(self.pool_gold, len(self.labels))
        self.notes: list[str] = []
        self._check_sizes()
        self.representations = representations
        self._pool_arrays = self._featurise_pool() if config.fit_features == "pool" else None

    def _extractor(self):
        """An unfitted extractor of the configured features, with the pool's word representations if they need them."""
        extractor = make_extractor(self.learner_cls, self.config.features)
        attach_representations(extractor, self.pool, self.representations)
        self.representations = extractor.representations  # learned once, for every repeat
        return extractor

    def _check_sizes(self) -> None:
        holdout = 0 if self.test is not None else self.config.holdout
        for n_labeled, n_unlabeled in self.config.settings():
            if n_labeled + n_unlabeled + holdout > len(self.pool):
                raise ExperimentError(
                    f"L={n_labeled} + U={n_unlabeled} + holdout {holdout} exceed the pool of {len(self.pool)} "
                    f"sentences ({self.config.min_length}-{self.config.max_length} tokens)"
                )
        if self.test is not None and not self.test:
            raise ExperimentError("the test file holds no fully labeled sentence")

    def _featurise_pool(self):
        sentences = self.pool + (self.test or [])
        extractor = self._extractor()
        fitted = extractor.fit_transform(sentences)
        snapshot = build_snapshot(
            sentences, self.labels, extractor, np.zeros(extractor.n_features_, np.int8), features=fitted
        )
        return extractor, snapshot

    def _learner(self, seed: int):
        return seeded_learner(self.learner_cls, self.config.params, seed)

    def _views(self, extractor, seed: int) -> np.ndarray:
        spec = dict(self.config.views)
        split = view_split_for(
            self.learner_cls,
            spec if (self.learner_cls.two_view or self.config.views) else None,
            seed,
            extractor=extractor,
        )
        return feature_views(extractor, split)

    def _arrays(self, draw: Draw, train_ids: np.ndarray, seed: int) -> _Repeat:
        if self._pool_arrays is not None:
            extractor, pool_snapshot = self._pool_arrays
            views = self._views(extractor, seed)
            test_ids = np.arange(len(self.pool), pool_snapshot.n_sentences) if self.test else draw.holdout
            train = replace(pool_snapshot.subset(train_ids), feature_view=views)
            return _Repeat(train, replace(pool_snapshot.subset(test_ids), feature_view=views))
        train_sentences = [self.pool[i] for i in train_ids]
        extractor = self._extractor()
        fitted = extractor.fit_transform(train_sentences)
        views = self._views(extractor, seed)
        holdout = self.test if self.test is not None else [self.pool[i] for i in draw.holdout]
        train = build_snapshot(train_sentences, self.labels, extractor, views, features=fitted)
        return _Repeat(train, build_snapshot(holdout, self.labels, extractor, views))

    def _allowed(self, draw: Draw, n_unlabeled_tokens: int, rng: np.random.Generator) -> np.ndarray:
        gold = np.concatenate([self.pool_gold[i] for i in draw.labeled])
        n_labels = len(self.labels)
        if self.config.partial_share is not None:
            labeled = candidate_mask(gold, n_labels, self.config.partial_share, self.config.candidates, rng)
        else:
            labeled = np.eye(n_labels, dtype=bool)[gold]
        return np.vstack([labeled, np.ones((n_unlabeled_tokens, n_labels), dtype=bool)])

    def _holdout_gold(self, draw: Draw) -> list[list[str]]:
        names = self.labels.names
        if self.test is not None:
            return [[next(iter(a)) for a in s.annotations] for s in self.test]
        return [[names[j] for j in self.pool_gold[i]] for i in draw.holdout]

    def _repeat_randomness(self, n_labeled: int, n_unlabeled: int, repeat: int):
        """``(draw, learner seed, partial-label generator)`` of one repeat, from (seed, L, repeat) only."""
        draw_rng, partial_rng, seed_rng = (
            np.random.default_rng(s) for s in np.random.SeedSequence([self.config.seed, n_labeled, repeat]).spawn(3)
        )
        holdout = 0 if self.test is not None else self.config.holdout
        draw = draw_split(draw_rng, self.present, n_labeled, n_unlabeled, holdout, self.config.max_redraws)
        return draw, int(seed_rng.integers(2**31 - 1)), partial_rng

    def repeat_draw(self, n_labeled: int, n_unlabeled: int, repeat: int) -> tuple[Draw, int]:
        """The draw of one repeat (pool indices) and the seed its learner and view split get.

        What :meth:`run_repeat` uses, so that a repeat can be reproduced
        outside the experiment (e.g. to check its scores).  With a test file
        the draw's holdout is empty: the test sentences are scored instead.
        """
        draw, seed, _ = self._repeat_randomness(n_labeled, n_unlabeled, repeat)
        return draw, seed

    def run_repeat(self, n_labeled: int, n_unlabeled: int, repeat: int, should_stop: StopCallback | None = None):
        """Token error (%), F1, training seconds and label coverage of one repeat."""
        draw, seed, partial_rng = self._repeat_randomness(n_labeled, n_unlabeled, repeat)
        unlabeled = draw.unlabeled if "none" in self.learner_cls.uses else draw.unlabeled[:0]
        arrays = self._arrays(draw, np.concatenate([draw.labeled, unlabeled]), seed)
        n_unlabeled_tokens = int(sum(len(self.pool[i]) for i in unlabeled))
        train = replace(arrays.train, allowed=self._allowed(draw, n_unlabeled_tokens, partial_rng))
        learner = self._learner(seed)
        started = time.perf_counter()
        model = learner.fit(train, should_stop=should_stop)
        seconds = time.perf_counter() - started
        model.set_decode(self.config.decode)
        pred = model.predict(arrays.holdout)
        names = np.asarray(self.labels.names, dtype=object)[pred]
        predicted = [list(names[arrays.holdout.sentence_slice(i)]) for i in range(arrays.holdout.n_sentences)]
        scores = evaluate(self._holdout_gold(draw), predicted, self.labels)
        return 100.0 * scores.token_error, scores.f1, seconds, draw.covered

    def run(
        self, progress: ProgressCallback | None = None, should_stop: StopCallback | None = None
    ) -> ExperimentResult:
        """Every setting, every repeat; ``progress(fraction, message)`` after each repeat."""
        settings = self.config.settings()
        self._note_unused_unlabeled(settings)
        results = []
        total, done = len(settings) * self.config.repeats, 0
        for n_labeled, n_unlabeled in settings:
            result = SettingResult(n_labeled, n_unlabeled)
            for repeat in range(self.config.repeats):
                if should_stop is not None and should_stop():
                    raise Cancelled("experiment cancelled")
                error, f1, seconds, covered = self.run_repeat(n_labeled, n_unlabeled, repeat, should_stop)
                result.token_error.append(error)
                result.f1.append(f1)
                result.train_seconds.append(seconds)
                result.uncovered += not covered
                done += 1
                if progress is not None:
                    progress(done / total, f"L={n_labeled} U={n_unlabeled} repeat {repeat + 1}/{self.config.repeats}")
            self._note_uncovered(result)
            results.append(result)
        return ExperimentResult(self.config.learner, results, self.notes)

    def _note_unused_unlabeled(self, settings) -> None:
        if "none" not in self.learner_cls.uses and any(u for _, u in settings):
            self._note(f"{self.config.learner} cannot use unlabeled sentences: trained on the labeled ones only")

    def _note_uncovered(self, result: SettingResult) -> None:
        if result.uncovered:
            self._note(
                f"L={result.labeled}: in {result.uncovered} of {result.repeats} repeats no draw of "
                f"{self.config.max_redraws} held every label of the pool; the last draw was used"
            )

    def _note(self, message: str) -> None:
        logger.warning(message)
        self.notes.append(message)


def run_experiment(
    config: ExperimentConfig,
    data: Corpus,
    test: Corpus | None = None,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> ExperimentResult:
    """Run the resampling protocol of the module docstring.

    Parameters
    ----------
    config : ExperimentConfig
    data : Corpus
        The data the pool is drawn from (fully labeled sentences count).
    test : Corpus, optional
        Scored instead of a drawn holdout.
    progress, should_stop : callables, optional
        As for training; cancel raises :class:`Cancelled`.

    Returns
    -------
    ExperimentResult
    """
    if config.partial_share is not None:
        if not 0.0 <= config.partial_share <= 1.0:
            raise ExperimentError(f"--partial-share must lie in [0, 1], got {config.partial_share}")
        if config.candidates is None or config.candidates < 1:
            raise ExperimentError("--partial-share needs --candidates K >= 1")
    return Experiment(config, data, test).run(progress, should_stop)

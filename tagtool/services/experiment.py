"""The resampling experiments of the papers (``tagtool experiment``).

Protocol (Brefeld et al. 2005, §6; Brefeld et al. 2006, §5.2):

* **Pool**: the first ``pool`` fully labeled sentences of the data whose
  length lies in ``[min_length, max_length]`` tokens (CoNLL-2002 Spanish:
  3,100 sentences of 10–40 tokens).
* **Settings**: ``labeled`` and ``unlabeled`` pair up element-wise, as in
  Table 2 of the 2006 paper (L = 5 with U = 25, L = 10 with U = 50,
  L = 20 with U = 100); a single ``unlabeled`` value applies to every L, and
  no ``unlabeled`` means U = 0.
* **Per repeat**: draw L labeled, U unlabeled and ``holdout`` sentences
  from the pool without replacement.  "We assure that each label occurs at
  least once in the labeled training data; otherwise, we discard and draw
  again": the labeled set is redrawn (up to ``max_redraws`` times) until it
  holds every label of the pool; when it never does, the last draw is used
  and the result says how many repeats lacked a label.  Redrawing only the
  labeled set and then drawing the others from the rest gives the same
  distribution as redrawing everything, since the condition concerns the
  labeled set alone.  With ``test`` the holdout is that file instead.
  Unlabeled sentences lose their labels; learners that cannot use them
  (``"none"`` not in ``learner.uses``) are trained without them (said once).
* **Features** (``fit_features``): ``"train"`` (default) fits the extractor
  on the repeat's training text (labeled + unlabeled), so the model never
  sees holdout text, as in the papers; ``"pool"`` fits it once on the pool
  (and the test file) and takes every repeat's arrays with
  :meth:`~tagtool.core.snapshot.Snapshot.subset` — faster, with a
  vocabulary that includes holdout text (no labels).
* **Views**: two-view learners get a fresh random split per repeat ("we
  utilize a distinct random split of the attributes in two views for each
  repetition", 2006 §5.2) unless the caller fixes ``views``.
* **WD-PSL protocol** (``partial_share`` P, ``candidates`` K; Lu & Chow §V):
  a share P of the labeled training tokens (chosen uniformly, exactly
  ``round(P · tokens)``) keeps its gold label; every other token gets K
  candidate labels, the gold one plus K − 1 others drawn uniformly (K ≥ L
  means no label).
* **Scores**: token error in percent and span F1 (conlleval rules via
  seqeval; token accuracy for non-span label sets) of the joint model's
  unconstrained Viterbi labels on the holdout; mean and standard error
  (``std(ddof=1) / sqrt(R)``) over the repeats; learner training seconds.

A seed fixes everything: draws depend on (seed, L, repeat) only — never on
the learner or on U — so two learners run with one seed see the same
sentences, and runs with U = 0 and U > 0 share their labeled and holdout
sets (the unlabeled ones are the first U of the rest), a paired comparison.

References
----------
.. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6.
.. [2] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §5.2 and Table 2.
.. [3] Lu, Chow. Weak disambiguation for partial structured output
   learning, §V (random candidate generation).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import SCALE, evaluate, percent
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.errors import Cancelled, TagtoolError
from tagtool.learn import get_learner
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.services.pipeline import attach_representations, feature_views, make_extractor, view_split_for

logger = logging.getLogger(__name__)

FIT_FEATURES = ("train", "pool")


class ExperimentError(TagtoolError, ValueError):
    """Settings the data cannot satisfy (pool too small, bad lists …)."""


@dataclass(frozen=True)
class ExperimentConfig:
    """What to run; the defaults are the CoNLL-2002 Spanish protocol of the papers."""

    learner: str
    params: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    decode: dict = field(default_factory=dict)
    labeled: tuple[int, ...] = (5, 10, 20)
    unlabeled: tuple[int, ...] = (25, 50, 100)
    holdout: int = 300
    repeats: int = 20
    min_length: int = 10
    max_length: int = 40
    pool: int = 3100
    partial_share: float | None = None
    candidates: int | None = None
    seed: int = 0
    fit_features: str = "train"
    max_redraws: int = 1000

    def settings(self) -> list[tuple[int, int]]:
        """The (L, U) pairs, element-wise."""
        return pair_settings(self.labeled, self.unlabeled)


@dataclass
class SettingResult:
    """Scores of all repeats of one (L, U) setting."""

    labeled: int
    unlabeled: int
    token_error: list[float] = field(default_factory=list)
    f1: list[float] = field(default_factory=list)
    train_seconds: list[float] = field(default_factory=list)
    uncovered: int = 0

    @property
    def repeats(self) -> int:
        return len(self.token_error)

    def to_dict(self) -> dict:
        """The ``settings`` entry of the ``--json`` output (issue 3 schema; token
        error and F1 both in percent since issue 11)."""
        return {
            "labeled": self.labeled,
            "unlabeled": self.unlabeled,
            "repeats": self.repeats,
            "token_error_mean": _mean(self.token_error),
            "token_error_se": standard_error(self.token_error),
            "f1_mean": percent(_mean(self.f1)),
            "f1_se": percent(standard_error(self.f1)),
            "train_seconds_mean": _mean(self.train_seconds),
        }


@dataclass
class ExperimentResult:
    learner: str
    settings: list[SettingResult]
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"learner": self.learner, "scale": SCALE, "settings": [s.to_dict() for s in self.settings]}


def _mean(values: Sequence[float]) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def standard_error(values: Sequence[float]) -> float:
    """``std(ddof=1) / sqrt(n)``; 0 for a single value."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return 0.0
    return float(values.std(ddof=1) / np.sqrt(len(values)))


def pair_settings(labeled: Sequence[int], unlabeled: Sequence[int] | None) -> list[tuple[int, int]]:
    """Pair L and U element-wise; one U (or none: 0) applies to every L."""
    labeled = list(labeled)
    unlabeled = list(unlabeled or [0])
    if len(unlabeled) == 1:
        unlabeled *= len(labeled)
    if len(unlabeled) != len(labeled):
        raise ExperimentError(
            f"--labeled has {len(labeled)} values and --unlabeled {len(unlabeled)}: they pair up element-wise"
        )
    if any(n < 1 for n in labeled) or any(n < 0 for n in unlabeled):
        raise ExperimentError("labeled sizes must be >= 1 and unlabeled sizes >= 0")
    return list(zip(labeled, unlabeled))


# ---------------------------------------------------------------------------
# data


def select_pool(corpus: Corpus, size: int, min_length: int, max_length: int) -> list[Sentence]:
    """The first ``size`` fully labeled sentences of ``min_length``–``max_length`` tokens."""
    pool = []
    for sentence in corpus:
        if min_length <= len(sentence) <= max_length and sentence.status == "full":
            pool.append(sentence)
            if len(pool) == size:
                break
    if len(pool) < size:
        logger.warning("the pool holds only %d sentences (asked for %d)", len(pool), size)
    return pool


def gold_indices(sentences: Sequence[Sentence], labels: LabelSet) -> list[np.ndarray]:
    """Label index of every token of fully labeled sentences."""
    return [np.array([labels.index(next(iter(a))) for a in s.annotations], dtype=np.int64) for s in sentences]


def label_presence(gold: Sequence[np.ndarray], n_labels: int) -> np.ndarray:
    """``bool[n_sentences, n_labels]``: which labels each sentence holds."""
    present = np.zeros((len(gold), n_labels), dtype=bool)
    for i, g in enumerate(gold):
        present[i, g] = True
    return present


@dataclass(frozen=True)
class Draw:
    labeled: np.ndarray
    unlabeled: np.ndarray
    holdout: np.ndarray
    covered: bool


def draw_split(
    rng: np.random.Generator, present: np.ndarray, n_labeled: int, n_unlabeled: int, n_holdout: int,
    max_redraws: int,
) -> Draw:
    """Labeled, unlabeled and holdout pool indices, without replacement (see the module doc)."""
    n_pool = len(present)
    needed = present.any(axis=0)
    for _ in range(max(1, max_redraws)):
        labeled = rng.choice(n_pool, n_labeled, replace=False)
        covered = bool(present[labeled].any(axis=0)[needed].all())
        if covered:
            break
    rest = rng.permutation(np.setdiff1d(np.arange(n_pool), labeled))
    return Draw(labeled, rest[n_holdout : n_holdout + n_unlabeled], rest[:n_holdout], covered)


def candidate_mask(
    gold: np.ndarray, n_labels: int, share: float, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Allowed sets of the WD-PSL protocol: ``bool[N, L]`` (see the module doc).

    A share ``share`` of the tokens keeps ``{gold}``; the others get gold
    plus ``k - 1`` distinct other labels drawn uniformly.
    """
    n = len(gold)
    allowed = np.zeros((n, n_labels), dtype=bool)
    allowed[np.arange(n), gold] = True
    keep = np.zeros(n, dtype=bool)
    keep[rng.choice(n, int(round(share * n)), replace=False)] = True
    ambiguous = np.flatnonzero(~keep)
    extra = min(k, n_labels) - 1
    if extra > 0 and len(ambiguous):
        keys = rng.random((len(ambiguous), n_labels))
        keys[np.arange(len(ambiguous)), gold[ambiguous]] = np.inf  # gold is never an "other"
        others = np.argsort(keys, axis=1)[:, :extra]
        allowed[ambiguous[:, None], others] = True
    return allowed


# ---------------------------------------------------------------------------
# running


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
        extractor = self._extractor().fit(sentences)
        snapshot = build_snapshot(sentences, self.labels, extractor, np.zeros(extractor.n_features_, np.int8))
        return extractor, snapshot

    def _learner(self, seed: int):
        learner = self.learner_cls()
        params = dict(self.config.params)
        for name in ("seed", "random_state"):
            if name in learner.param_names() and name not in params:
                params[name] = seed
        return learner.set_params(**params)

    def _views(self, extractor, seed: int) -> np.ndarray:
        spec = dict(self.config.views)
        spec.setdefault("seed", seed)
        split = view_split_for(
            self.learner_cls, spec if (self.learner_cls.two_view or self.config.views) else None, extractor=extractor
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
        extractor = self._extractor().fit(train_sentences)
        views = self._views(extractor, seed)
        holdout = self.test if self.test is not None else [self.pool[i] for i in draw.holdout]
        train = build_snapshot(train_sentences, self.labels, extractor, views)
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
            np.random.default_rng(s)
            for s in np.random.SeedSequence([self.config.seed, n_labeled, repeat]).spawn(3)
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

    def run(self, progress: ProgressCallback | None = None, should_stop: StopCallback | None = None) -> ExperimentResult:
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

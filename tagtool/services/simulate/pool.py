"""The simulation's data, featurised once: every token unlabeled, its gold labels, and the test set.

The extractor is fitted on the data's text (as ``tagtool experiment
--fit-features pool`` does with its pool), so one feature space serves
every step and the warm start; each step trains on a subset of the data's
snapshot with the oracle's allowed sets (:meth:`Snapshot.subset`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.chunks import F1Scorer
from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.learn import Learner
from tagtool.services.simulate.config import SimulationConfig, SimulationError
from tagtool.services.training_setup import (
    attach_gazetteers,
    attach_representations,
    attach_vectors,
    feature_views,
    make_extractor,
    view_split_for,
)


def _gold(sentences: Sequence[Sentence], labels: LabelSet) -> np.ndarray:
    return np.array([labels.index(next(iter(a))) for s in sentences for a in s.annotations], dtype=np.int64)


def _fully_labeled(corpus: Corpus, name: str, notes: list[str]) -> list[Sentence]:
    full = [s for s in corpus if s.status == "full"]
    if not full:
        raise SimulationError(f"{name}: no fully labeled sentence (the oracle and the scores need gold labels)")
    if len(full) < len(corpus):
        notes.append(f"{name}: {len(corpus) - len(full)} sentences not fully labeled were left out")
    return full


@dataclass(frozen=True)
class Pool:
    """The featurised data (every token unlabeled), its gold labels, the test set, and the data's tokens.

    ``sentences`` (the data's, unlabeled), ``extractor`` and ``view_split``:
    what the cross-validation after each step refits its folds with, as the
    app's (:mod:`tagtool.services.simulate.calibrate`).
    """

    data: Snapshot
    gold: np.ndarray
    test: Snapshot
    test_scorer: F1Scorer
    labels: LabelSet
    tokens: tuple[tuple[str, ...], ...] = ()
    sentences: tuple[Sentence, ...] = ()
    extractor: object = None
    view_split: object = None


def build_pool(
    config: SimulationConfig,
    learner_cls: type[Learner],
    data: Corpus,
    test: Corpus,
    notes: list[str],
    names: tuple[str, str] = ("data", "test"),
    representations=None,
    vectors=None,
    gazetteers=None,
) -> Pool:
    """Featurise ``data`` (extractor fitted on its text) and ``test`` once.

    ``names`` name the two corpora in errors and notes (the CLI gives the file names).
    ``representations``: for ``dist`` feature sets; by default learned from ``data``'s text.
    ``vectors``, ``gazetteers``: the user's word vectors (``vec`` sets) and dictionaries (``gaz``).
    """
    data_sentences = _fully_labeled(data, names[0], notes)
    test_sentences = _fully_labeled(test, names[1], notes)
    labels = data.labels.union(test.labels)
    if len(labels) < 2:
        raise SimulationError("the data has fewer than two labels: nothing to learn")
    extractor = make_extractor(learner_cls, config.features)
    attach_representations(extractor, data_sentences, representations)  # dist sets: the data's text, not the test's
    attach_vectors(extractor, vectors)
    attach_gazetteers(extractor, gazetteers)
    fitted = extractor.fit_transform(data_sentences)  # also the pool's features (unlabeled copies, same tokens)
    # the extractor: with a stack of two feature sets the default split gives each a view, as in training
    split = view_split_for(
        learner_cls, dict(config.views) if (learner_cls.two_view or config.views) else None, config.seed, extractor
    )
    views = feature_views(extractor, split)
    unlabeled = [s.unlabeled() for s in data_sentences]
    test_snapshot = build_snapshot([s.unlabeled() for s in test_sentences], labels, extractor, views)
    return Pool(
        data=build_snapshot(unlabeled, labels, extractor, views, features=fitted),
        gold=_gold(data_sentences, labels),
        test=test_snapshot,
        test_scorer=F1Scorer(labels, _gold(test_sentences, labels), test_snapshot.offsets),
        labels=labels,
        tokens=tuple(s.tokens for s in data_sentences),
        sentences=tuple(unlabeled),
        extractor=extractor,
        view_split=split,
    )

"""The training snapshot is built once per retrain: no path extracts a training sentence's features twice.

Every extraction is counted where it happens (``FeatureExtractor.transform``,
the outermost call: a stacked extractor's parts are not counted again), per
sentence by its tokens.  A retrain of the app (a cold fit, then a warm one
after an edit, each scoring the guidance chunk by chunk), a training by
``tagtool train``'s path and a whole simulation of several retrains must each
see every sentence's features extracted once.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import replace

import pytest

from tagtool.core import Corpus
from tagtool.core.features.extractor import FeatureExtractor
from tagtool.gui.training import TrainingInputs, run_training
from tagtool.services import chunked_guidance
from tagtool.services.pipeline import train
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR
from tests.run_states import QuietRun


class Counted:
    """Counts, per sentence (its tokens), the outermost feature extractions: ``FeatureExtractor.transform``
    and the fit's own pass (``_fit``, which :meth:`FeatureExtractor.fit` and ``fit_transform`` run)."""

    def __init__(self, monkeypatch):
        self.seen: Counter = Counter()
        self._depth = threading.local()
        for name in ("transform", "_fit"):
            monkeypatch.setattr(FeatureExtractor, name, self._counting(getattr(FeatureExtractor, name)))

    def _counting(self, original):
        def extract(extractor, sentences):
            sentences = list(sentences)
            depth = getattr(self._depth, "n", 0)
            if depth == 0:
                self.seen.update(tuple(s.tokens) for s in sentences)
            self._depth.n = depth + 1
            try:
                return original(extractor, sentences)
            finally:
                self._depth.n = depth

        return extract

    def take(self) -> Counter:
        seen, self.seen = self.seen, Counter()
        return seen


@pytest.fixture(scope="module")
def gold():
    corpus = read_corpus(DATA_DIR / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    # No extra column: a tagger reading one measures its loss on copies without it (tagtool.tagger.inputs),
    # a measurement on other inputs, not the training features again.
    return Corpus.from_sentences([replace(s, columns={}) for s in corpus.sentences[:60]], labels=corpus.labels)


@pytest.fixture
def counted(monkeypatch):
    monkeypatch.setattr(chunked_guidance, "FIRST", 10)  # the guidance in several chunks, as a big project's
    monkeypatch.setattr(chunked_guidance, "CHUNK", 15)
    return Counted(monkeypatch)


def _once(seen: Counter, sentences) -> None:
    wanted = Counter(tuple(s.tokens) for s in sentences)
    twice = {tokens: n for tokens, n in seen.items() if n > wanted.get(tokens, 0)}
    assert not twice, f"features extracted again for {len(twice)} sentence(s), e.g. {next(iter(twice))[:6]}"
    assert set(seen) == set(wanted), "every sentence's features extracted"


@pytest.mark.parametrize("learner, params", [("mv-perceptron", {"max_iter": 2}), ("crf", {"max_iter": 5})])
def test_an_app_retrain_extracts_each_sentence_once(gold, counted, learner, params):
    sentences = tuple(s if i % 4 == 0 else s.unlabeled() for i, s in enumerate(gold.sentences))
    inputs = TrainingInputs(tuple(range(len(sentences))), sentences, gold.labels)
    first = run_training(inputs, learner, params, None, QuietRun(), queue=("gain", False))
    _once(counted.take(), sentences)
    assert first.complete and len(first.guidance) == len(sentences)
    edited = tuple(gold.sentences[i] if i == 1 else s for i, s in enumerate(sentences))  # one more sentence labeled
    again = run_training(
        replace(inputs, sentences=edited),
        learner,
        params,
        first.tagger,
        QuietRun(),
        overrides={"max_iter": 1} if learner == "mv-perceptron" else None,
        queue=("gain", False),
    )
    _once(counted.take(), edited)
    assert again.tagger.extractor is first.tagger.extractor


def test_train_hands_over_the_snapshot_it_fitted(gold, counted):
    trained = train(gold, "perceptron", unlabeled=[s.unlabeled() for s in gold.sentences[:5]])
    _once(counted.take(), [*gold.sentences, *gold.sentences[:5]])
    assert trained.snapshot.n_sentences == len(gold) + 5
    assert trained.snapshot.labels == tuple(trained.tagger.labels.names)
    assert (
        trained.snapshot.feature_view is trained.tagger.model.feature_view
        or (trained.snapshot.feature_view == trained.tagger.model.feature_view).all()
    )
    assert not trained.snapshot.allowed.flags.writeable, "the snapshot is immutable"


def test_a_simulation_extracts_each_sentence_once_over_all_its_retrains(gold, counted):
    data, test = (
        Corpus.from_sentences(gold.sentences[:45], gold.labels),
        Corpus.from_sentences(gold.sentences[45:], gold.labels),
    )
    config = SimulationConfig(
        "perceptron",
        strategy="uncertainty",
        mode="tokens",
        step=60.0,
        growth=1.5,
        budget=300.0,
        params={"max_iter": 2},
        full_data_f1=0.5,
        cv_folds=0,  # the cross-validation refits its features on each fold's text, by design (crossval)
    )
    result = Simulation(config, data, test).run()
    assert len(result.curve) >= 3, "several retrains"
    _once(counted.take(), gold.sentences)

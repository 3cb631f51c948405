"""Every available learner through the one training pipeline.

On a CoNLL-2000 slice (70 training + 30 test sentences; two-view and
semi-supervised learners also get the test sentences' text unlabeled):
fit, warm start, cancel within a second, tagger-file round trip with
identical predictions, beating ``hmm``, a note for sentence kinds a
learner does not use, and BIO-valid output (constraint on by default).  Iteration counts are kept small for speed.
"""

import pathlib
import time

import numpy as np
import pytest

from tagtool.core.corpus import Corpus
from tagtool.core.labels import invalid_inside
from tagtool.decode import viterbi_batch
from tagtool.errors import Cancelled
from tagtool.learn import available_learners
from tagtool.services.guidance import analyse
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tagtool.tagger.model import Tagger, load_tagger

DATA = pathlib.Path(__file__).parents[1] / "data" / "conll2000_train_head.txt"
LEARNERS = available_learners()

#: Small iteration budgets, by learner (every one has the common max_iter but for the HMM).
FAST = {
    "perceptron": {"max_iter": 5},
    "mv-perceptron": {"max_iter": 5},
    "svm": {"max_iter": 2},
    "cosvm": {"max_iter": 2, "cu_ramp_iter": 1},
    "crf": {"max_iter": 60},
    "entropy-crf": {"max_iter": 60, "supervised_max_iter": 60},
    "wdpsl": {"max_iter": 1, "max_rounds": 5, "max_passes": 1},
}


def make(name: str):
    cls = LEARNERS[name]
    learner = cls()
    return learner.set_params(**FAST.get(name, {}))


def uses_unlabeled(name: str) -> bool:
    return "none" in LEARNERS[name].uses


@pytest.fixture(scope="module")
def data():
    corpus = read_corpus(DATA)
    sentences = corpus.sentences
    return corpus.labels, sentences[:70], sentences[70:]


def accuracy(tagger, sentences) -> float:
    pred = [y for s in tagger.tag(sentences) for y in s]
    gold = [next(iter(a)) for s in sentences for a in s.annotations]
    return float(np.mean(np.asarray(pred) == np.asarray(gold)))


_cache: dict = {}


def fitted(name: str, data):
    """The learner's tagger on the 70 training sentences (once per module)."""
    if name not in _cache:
        labels, train, test = data
        unlabeled = test if uses_unlabeled(name) else None
        _cache[name] = train_tagger(Corpus.from_sentences(train, labels), make(name), unlabeled=unlabeled)
    return _cache[name]


@pytest.mark.parametrize("name", list(LEARNERS))
def test_fit_and_tagger_round_trip(name, data, tmp_path):
    tagger = fitted(name, data)
    _, _, test = data
    assert tagger.learner == name and accuracy(tagger, test) > 0.5
    path = tmp_path / f"{name}.tagger"
    tagger.save(path)
    loaded = load_tagger(path)
    assert loaded.tag(test) == tagger.tag(test)
    for a, b in zip(loaded.score_tokens(test[:3]), tagger.score_tokens(test[:3])):
        np.testing.assert_array_equal(a, b)
    if tagger.two_view:
        assert loaded.disagreement(test[:3]) == tagger.disagreement(test[:3])


@pytest.mark.parametrize("name", [n for n in LEARNERS if n != "hmm"])
def test_beats_hmm_on_the_slice(name, data):
    if "hmm" not in LEARNERS:
        pytest.skip("hmm not available")
    _, _, test = data
    assert accuracy(fitted(name, data), test) > accuracy(fitted("hmm", data), test)


@pytest.mark.parametrize("name", list(LEARNERS))
def test_warm_start_on_more_data(name, data):
    labels, train, test = data
    first = train_tagger(Corpus.from_sentences(train[:35], labels), make(name))
    second = train_tagger(Corpus.from_sentences(train, labels), make(name), warm_start=first)
    assert second.extractor is first.extractor and second.model.n_features == first.model.n_features
    # the warm start reached the learner (base and pipeline say "ignored" when it does not)
    assert not any("warm start" in note and "ignored" in note for note in second.model.info["notes"])
    # more data from a warm start: no worse than the first model beyond noise
    assert accuracy(second, test) >= accuracy(first, test) - 0.03


@pytest.mark.parametrize("name", list(LEARNERS))
def test_cancel_takes_effect_within_a_second(name, data):
    labels, train, test = data
    flagged = []

    def progress(fraction, message):
        if not flagged:
            flagged.append(time.monotonic())

    def should_stop():
        return bool(flagged)

    unlabeled = test if uses_unlabeled(name) else None
    learner = LEARNERS[name]()  # default (long) budgets: the cancel must cut them short
    with pytest.raises(Cancelled):
        train_tagger(
            Corpus.from_sentences(train, labels),
            learner,
            unlabeled=unlabeled,
            progress=progress,
            should_stop=should_stop,
        )
    assert time.monotonic() - flagged[0] < 1.0


@pytest.mark.parametrize("name", list(LEARNERS))
def test_unused_sentence_kinds_are_noted(name, data):
    labels, train, test = data
    cls = LEARNERS[name]
    partial = test[0].with_annotations([set(a) | {"O"} for a in test[0].annotations])
    mixed = Corpus.from_sentences(list(train[:30]) + [partial, test[1].unlabeled()], labels)
    tagger = train_tagger(mixed, make(name))
    notes = " ".join(tagger.model.info["notes"])
    for kind, phrase in (("partial", "partially labeled"), ("none", "unlabeled")):
        if kind in cls.uses:
            assert f"cannot use {phrase}" not in notes
        else:
            assert f"{name} cannot use {phrase} sentences: 1 left out" in notes
    assert tagger.model.info["sentences"] == {"full": 30, "partial": 1, "none": 1}


# ---------------------------------------------------------------------------
# BIO constraint: no I-X after anything but B-X / I-X in what a user sees


def n_invalid(tagged) -> int:
    return sum(len(invalid_inside(list(tags))) for tags in tagged)


def pushed(tagger: Tagger) -> Tagger:
    """A copy whose every view scores ``O -> I-NP`` and an opening ``I-NP`` far above anything else."""
    model = tagger.model.copy()
    o, i_np = tagger.labels.index("O"), tagger.labels.index("I-NP")
    shift = 10.0 * (np.abs(model.weights).sum(axis=0).max() + np.abs(model.trans).max() + 1.0)
    model.trans[:, o, i_np] += shift
    model.start[:, i_np] += shift
    return Tagger(tagger.labels, tagger.extractor, tagger.view_split, model)


def plain_viterbi(tagger: Tagger, sentences) -> list[list[str]]:
    """The unconstrained Viterbi labels of the model's scores: what tagging gave before the constraint."""
    snap = tagger.snapshot(sentences)
    emit, trans, start, end = tagger.model.chain_scores(snap)
    paths, _ = viterbi_batch(emit, snap.offsets, trans, start, end)
    names = np.asarray(tagger.labels.names, dtype=object)[paths]
    return [list(names[snap.sentence_slice(i)]) for i in range(snap.n_sentences)]


@pytest.mark.parametrize("name", list(LEARNERS))
def test_bio_constraint_holds_in_every_output(name, data):
    _, _, test = data
    raw = [s.unlabeled() for s in test]
    for tagger in (fitted(name, data), pushed(fitted(name, data))):
        assert tagger.model.bio_constraint
        assert n_invalid(tagger.tag(test)) == 0
        assert n_invalid([next(iter(a)) for a in s.annotations] for s in tagger.tag_corpus(test)) == 0
        assert n_invalid(g.suggestions for g in analyse(tagger, raw)) == 0
        if tagger.two_view:
            assert n_invalid(view for pair in tagger.disagreement(test) for view in pair) == 0
    assert n_invalid(plain_viterbi(pushed(fitted(name, data)), test)) > 0, "the push made no invalid tag"


@pytest.mark.parametrize("name", list(LEARNERS))
def test_bio_constraint_off_gives_the_plain_viterbi_path_and_survives_the_file(name, data, tmp_path):
    _, _, test = data
    for tagger in (fitted(name, data), pushed(fitted(name, data))):
        tagger = Tagger(tagger.labels, tagger.extractor, tagger.view_split, tagger.model.copy())
        tagger.model.set_decode({"bio_constraint": False})
        off = tagger.tag(test)
        assert off == plain_viterbi(tagger, test)
        path = tmp_path / f"{name}.tagger"
        tagger.save(path)
        loaded = load_tagger(path)
        assert loaded.model.bio_constraint is False and loaded.tag(test) == off
    assert n_invalid(off) > 0

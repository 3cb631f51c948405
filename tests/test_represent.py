"""Word representations: learning, features, storage (no pickle), tagger round trips, views, cancel."""

from __future__ import annotations

import io
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.features.wordreps import WordRepresentations, char_ngrams, normalise_word
from tagtool.core.views import ViewSplit, ViewSplitError
from tagtool.errors import Cancelled
from tagtool.services.pipeline import train_tagger
from tagtool.services.represent import (
    MIN_TWO_VIEW_SPAN_SENTENCES,
    RepresentationError,
    RepresentationSettings,
    held_back_by_default,
    learn_representations,
    read_text_file,
    spherical_kmeans,
)
from tagtool.store.formats import read_corpus
from tagtool.tagger.file_format import TaggerFileError
from tagtool.tagger.model import Tagger, load_tagger

DATA = Path(__file__).parent / "data"
SMALL = RepresentationSettings(dim=16, epochs=3, granularities=(4, 16), kmeans_iterations=10)


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(DATA / "conll2000_train_head.txt")


@pytest.fixture(scope="module")
def reps(corpus):
    return learn_representations(corpus.sentences, SMALL)


def test_learned_arrays_are_consistent(reps):
    assert reps.dim == 16 and reps.granularities == (4, 16)
    assert np.allclose(np.linalg.norm(reps.vectors, axis=1), 1, atol=2e-3)  # float16 precision
    for k in reps.granularities:
        assert set(np.unique(reps.clusters[k]).tolist()) <= set(range(k))
    assert reps.ngrams and reps.info["n_tokens"] > 2000


def test_same_text_same_representations(corpus, reps):
    again = learn_representations(corpus.sentences, SMALL)
    assert again.fingerprint == reps.fingerprint


def test_word_lookup_normalises_digits_and_falls_back_to_lower_case(reps):
    assert normalise_word("1,987.5") == "0,000.0"
    word = next(w for w in reps.words if w.islower() and w.isalpha() and w.title() not in reps.words)
    assert reps.cluster_features(word.title()) == reps.cluster_features(word) != []


def test_unseen_word_uses_known_ngrams_only(reps):
    word = next(w for w in reps.words if len(w) >= 6 and w.isalpha())
    unseen = word + "zzq"
    assert reps.word_index(unseen) is None
    known = [g for g in char_ngrams(unseen, 3, 5) if g in set(reps.ngrams)]
    assert known, "the test word shares n-grams with the vocabulary"
    rows = [reps.ngrams.index(g) for g in known]
    expected = (reps.ngram_vectors[rows] * reps.ngram_scale[rows, None]).mean(axis=0)
    assert np.allclose(reps.subword_vector(unseen), expected / np.linalg.norm(expected), atol=1e-6)
    assert len(reps.cluster_features(unseen)) == 2
    assert reps.cluster_features("\u4e00\u4e01\u4e02") == []  # no known n-gram: no feature


def test_spherical_kmeans_finds_separated_directions():
    rng = np.random.default_rng(1)
    axes = np.eye(3)
    points = np.repeat(axes, 20, axis=0) + 0.05 * rng.standard_normal((60, 3))
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    centres, ids = spherical_kmeans(points, 3, seed=0)
    assert len(set(ids.tolist())) == 3
    for block in range(3):
        assert len(set(ids[block * 20 : (block + 1) * 20].tolist())) == 1
    assert np.allclose(np.linalg.norm(centres, axis=1), 1, atol=1e-6)


def test_npz_round_trip_and_no_pickle(reps):
    data = reps.to_bytes()
    again = WordRepresentations.from_bytes(data)
    assert again.fingerprint == reps.fingerprint
    assert again.words == reps.words and again.ngrams == reps.ngrams
    with zipfile.ZipFile(io.BytesIO(data)) as npz:
        for name in npz.namelist():
            header = npz.read(name)[:128]
            assert b"'descr': '|O'" not in header and b"'descr': '<U" not in header, name


def test_round_trip_keeps_every_dims_feature(reps):
    # The file keeps vectors at float16: the learned object must already hold those values, or a
    # binarised dimension near its threshold flips between training and the saved tagger.
    again = WordRepresentations.from_bytes(reps.to_bytes())
    assert np.array_equal(again.vectors, reps.vectors)
    assert [again.dimension_features(w) for w in reps.words] == [reps.dimension_features(w) for w in reps.words]
    assert np.allclose(np.linalg.norm(reps.vectors, axis=1), 1, atol=2e-3)


def test_a_pickled_member_is_refused(reps):
    arrays = reps.to_arrays()
    arrays["words_utf8"] = np.array([pickle.dumps("x")], dtype=object)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with pytest.raises(FeatureError):
        WordRepresentations.from_bytes(buffer.getvalue())


def test_dist_features_stack_and_need_their_representations(corpus, reps):
    fx = FeatureExtractor("crfsuite+dist", representations=reps).fit(corpus.sentences)
    names = [n for n in fx.feature_names_ if n.startswith("dist/")]
    assert any(n.startswith("dist/c4=") for n in names) and any(n.startswith("dist/-1:c16=") for n in names)
    with pytest.raises(FeatureError, match="word representations"):
        FeatureExtractor("crfsuite+dist").fit(corpus.sentences)
    other = learn_representations(corpus.sentences, RepresentationSettings(**{**SMALL.__dict__, "seed": 5}))
    with pytest.raises(FeatureError, match="other word representations"):
        FeatureExtractor.from_dict(fx.to_dict(), other)


def test_dims_features_are_binarised_dimensions(reps):
    word = reps.words[3]
    feats = reps.dimension_features(word)
    high, low = reps._thresholds
    v = reps.vectors[3]
    assert sorted(feats) == sorted(
        [f"e={j}+" for j in np.flatnonzero(v >= high)] + [f"e={j}-" for j in np.flatnonzero(v <= low)]
    )


def test_lexical_distributional_view_split(corpus, reps):
    fx = FeatureExtractor("crfsuite+dist", representations=reps).fit(corpus.sentences)
    views = ViewSplit("lexical-distributional").assign(fx)
    is_dist = np.array([n.startswith("dist/") for n in fx.feature_names_])
    assert np.array_equal(views.astype(bool), is_dist)
    plain = FeatureExtractor("crfsuite").fit(corpus.sentences)
    with pytest.raises(ViewSplitError, match="word-representation"):
        ViewSplit("lexical-distributional").assign(plain)


@pytest.mark.parametrize("learner", ["perceptron", "mv-perceptron"])
def test_tagger_file_round_trip_gives_identical_tags(tmp_path, corpus, reps, learner):
    sentences = corpus.sentences
    tagger = train_tagger(
        sentences[:40],
        learner,
        features={"feature_set": "crfsuite+dist"},
        unlabeled=sentences[40:],
        representations=reps,
        views={"kind": "lexical-distributional"} if learner == "mv-perceptron" else None,
    )
    path = tmp_path / "t.tagger"
    tagger.save(path)
    loaded = load_tagger(path)
    assert loaded.extractor.representations.fingerprint == reps.fingerprint
    assert loaded.tag(sentences[40:]) == tagger.tag(sentences[40:])
    assert Tagger.from_bytes(tagger.to_bytes()).tag(sentences[:5]) == tagger.tag(sentences[:5])


def test_tagger_without_its_representations_member_is_refused(tmp_path, corpus, reps):
    tagger = train_tagger(
        corpus.sentences[:30], "perceptron", features={"feature_set": "crfsuite+dist"}, representations=reps
    )
    data = tagger.to_bytes()
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            if item.filename != "representations.npz":
                dst.writestr(item, src.read(item.filename))
    with pytest.raises(TaggerFileError, match="representations.npz is missing"):
        Tagger.from_bytes(out.getvalue())


def test_train_learns_representations_when_none_given(corpus):
    tagger = train_tagger(
        corpus.sentences[:30], "perceptron", features={"feature_set": "crfsuite+dist"}, unlabeled=corpus.sentences[30:]
    )
    reps = tagger.extractor.representations
    assert reps is not None and reps.info["n_sentences"] == len(corpus.sentences)


def test_learning_is_cancellable_and_reports_progress(corpus):
    seen = []

    def progress(fraction, message):
        seen.append((fraction, message))

    with pytest.raises(Cancelled):
        learn_representations(
            corpus.sentences, SMALL, progress=progress, should_stop=lambda: any("epoch 2" in m for _, m in seen)
        )
    assert any("epoch 1/3" in m for _, m in seen)
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions)


def test_too_little_text_is_a_clear_error():
    with pytest.raises(RepresentationError, match="too little text"):
        learn_representations([["a", "b", "a", "b"]], SMALL)


def test_read_text_file_names_the_line_of_bad_bytes(tmp_path):
    path = tmp_path / "t.txt"
    path.write_bytes(b"Hello world .\n\nSecond line here\n" + b"bad \xff byte\n")
    with pytest.raises(RepresentationError, match=r"t\.txt:4: not UTF-8"):
        read_text_file(path)
    path.write_text("Hello world .\n\nSecond line\n", encoding="utf-8")
    assert read_text_file(path) == [["Hello", "world", "."], ["Second", "line"]]


def test_project_keeps_text_and_representations(tmp_path, corpus, reps):
    from tagtool.store.project import Project

    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus) as project:
        assert project.stored.representations() is None and project.stored.representations_stale()
        tokens = project.stored.text_tokens()
        project.stored.set_representations(reps, tokens)
        assert not project.stored.representations_stale()
        project.stored.add_text("notes.txt", [["a", "few", "words"], [], ["more"]])
        assert [(t.name, t.n_lines, t.n_tokens) for t in project.stored.texts()] == [("notes.txt", 2, 4)]
    with Project.open(path) as project:  # what was shown as saved is there after reopening
        again = project.stored.representations()
        assert again.fingerprint == reps.fingerprint
        assert project.stored.text_lines() == [["a", "few", "words"], ["more"]]
        assert project.stored.text_tokens() == tokens + 4 and not project.stored.representations_stale()
        project.stored.add_text("big.txt", [["w"] * (tokens // 10)])
        assert project.stored.representations_stale()  # the text grew by 10 %: relearn


def test_another_thread_stores_them_while_the_project_is_open(tmp_path, corpus, reps):
    """The app's worker writes through its own connection; the open project sees them, and a failure is a
    ProjectError that leaves the file as it was."""
    import threading

    from tagtool.errors import ProjectError
    from tagtool.store.project import Project
    from tagtool.store.representations import store_in_file

    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus) as project:
        errors = []
        worker = threading.Thread(target=lambda: _capture(errors, store_in_file, path, reps, 123))
        worker.start()
        worker.join()
        assert errors == []
        assert project.stored.representations().fingerprint == reps.fingerprint
        assert project.stored.representations_record().text_tokens == 123
        project.stored.add_text("notes.txt", [["still", "writable"]])  # the project's own connection writes on
        with pytest.raises(ProjectError, match="could not be saved"):
            store_in_file(tmp_path / "missing.tagproj", reps, 1)
        assert not (tmp_path / "missing.tagproj").exists()


def _capture(errors, function, *args):
    try:
        function(*args)
    except Exception as exc:  # noqa: BLE001 — reported to the test's thread
        errors.append(exc)


def test_old_project_gains_the_representation_tables(tmp_path, corpus):
    import sqlite3

    from tagtool.store import schema
    from tagtool.store.project import Project

    path = tmp_path / "old.tagproj"
    conn = sqlite3.connect(path)
    with conn:
        schema.create_schema(conn, version=3)
    conn.close()
    with Project.open(path) as project:
        assert project.schema_version == schema.CURRENT_VERSION and project.migrated_from == 3
        assert project.stored.texts() == [] and project.stored.representations() is None


def test_default_views_with_representations(corpus, reps):
    from tagtool.services.training_setup import default_view_kind

    one = FeatureExtractor("crfsuite+dist", representations=reps).fit(corpus.sentences)
    assert default_view_kind(one) == "lexical-distributional"
    two = FeatureExtractor("crfsuite+default+dist", representations=reps).fit(corpus.sentences)
    assert default_view_kind(two) == "feature-sets"
    views = ViewSplit("feature-sets").assign(two)
    names = two.feature_names_
    for name, view in zip(names, views.tolist()):
        expected = 1 if name.startswith("default/") else 0  # dist joins crfsuite's view
        assert view == expected, name


def test_with_representations_adds_the_sets_the_text_calls_for():
    """Plain tokens get the clusters and the dimensions; input with a column (part of speech) the clusters only."""
    from tagtool.core.corpus import Sentence
    from tagtool.learn import get_learner
    from tagtool.services.training_setup import with_representations

    plain = [Sentence(("Aspirin", "helps"))]
    tagged = [Sentence(("Aspirin", "helps"), columns={"pos": ("NN", "VBZ")})]
    conllu = [Sentence(("Aspirin", "helps"), columns={"lemma": ("aspirin", "help"), "upos": ("NOUN", "VERB")})]
    crf, mv = get_learner("crf"), get_learner("mv-perceptron")
    assert with_representations(crf, sentences=plain)["feature_set"] == "default+dist+dist-dims"
    assert with_representations(mv, sentences=plain)["feature_set"] == "crfsuite+default+dist+dist-dims"
    assert with_representations(crf, sentences=tagged)["feature_set"] == "default+dist"
    assert with_representations(crf, sentences=conllu)["feature_set"] == "default+dist+dist-dims"  # layers: no input
    assert with_representations(crf, {"feature_set": "crfsuite+dist"})["feature_set"] == "crfsuite+dist"


def test_experiment_learns_representations_once_from_the_pool(corpus):
    from tagtool.services.experiment.config import ExperimentConfig
    from tagtool.services.experiment.runner import Experiment

    config = ExperimentConfig(
        learner="perceptron",
        labeled=(5,),
        unlabeled=(10,),
        holdout=20,
        repeats=2,
        min_length=1,
        max_length=1000,
        pool=100,
        seed=0,
        features={"feature_set": "crfsuite+dist"},
    )
    experiment = Experiment(config, corpus)
    result = experiment.run()
    reps = experiment.representations
    assert reps is not None and reps.info["n_sentences"] == len(experiment.pool)
    assert result.settings[0].repeats == 2 and all(e < 100 for e in result.settings[0].token_error)


def test_simulate_reads_representations_of_the_data_text(corpus):
    from tagtool.services.simulate.config import SimulationConfig
    from tagtool.services.simulate.loop import simulate

    config = SimulationConfig(
        learner="perceptron",
        strategy="random",
        mode="full",
        step=20,
        growth=1.0,
        budget=40,
        features={"feature_set": "crfsuite+dist"},
    )
    result = simulate(config, corpus, corpus)
    assert result.curve and result.curve[-1].f1 > 0


def test_auto_holds_them_back_from_a_two_view_learner_on_few_span_labeled_sentences(corpus):
    chunks = list(corpus.sentences)  # 100 chunk-labeled sentences
    few = chunks[:20] + [s.unlabeled() for s in chunks[20:]]
    reason = held_back_by_default(True, few)
    assert f"from {MIN_TWO_VIEW_SPAN_SENTENCES} labeled sentences (20 so far)" in reason
    assert held_back_by_default(False, few) == ""  # one-view learners read them at once
    assert held_back_by_default(True, chunks[:MIN_TWO_VIEW_SPAN_SENTENCES]) == ""
    assert held_back_by_default(True, [s.unlabeled() for s in chunks]) == ""  # nothing labeled: nothing to say
    pos = read_corpus(DATA / "ptb_wsj_sample_head.txt")  # word classes, not spans
    assert held_back_by_default(True, pos.sentences[:5]) == ""

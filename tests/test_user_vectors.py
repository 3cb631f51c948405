"""Word vectors a user brings: loading, the vec sets, the project's copy, tagger round trips, no pickle."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.features.wordreps import normalise_word
from tagtool.core.views import ViewSplit
from tagtool.errors import Cancelled
from tagtool.services import user_vectors as uv
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tagtool.tagger.file_format import TaggerFileError
from tagtool.tagger.model import Tagger, load_tagger
from tests.user_vector_files import write_vector_files

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(DATA / "conll2000_train_head.txt")


@pytest.fixture(scope="module")
def files(corpus, tmp_path_factory):
    return write_vector_files(corpus, tmp_path_factory.mktemp("user-vectors"))


def vocabulary(corpus):
    return [t for s in corpus.sentences for t in s.tokens]


@pytest.fixture(scope="module")
def from_vec(corpus, files):
    return uv.load_user_vectors(files[1]["vec"], vocabulary(corpus))


@pytest.fixture(scope="module")
def from_bin(corpus, files):
    return uv.load_user_vectors(files[1]["bin"], vocabulary(corpus))


def test_a_text_file_keeps_the_vocabularys_words_only(corpus, files, from_vec):
    model = files[0]
    info = from_vec.info
    assert info["source"] == "vectors file" and info["file"] == "small.vec" and info["format"] == "word2vec-text"
    assert info["dim"] == 12 and info["from_subwords"] == 0 and "ngrams" not in info
    assert info["words"] == len(from_vec.words) < info["vocabulary"] == len(set(vocabulary(corpus)))
    forms = {normalise_word(w) for w in vocabulary(corpus)}
    assert set(from_vec.words) <= forms | {w.lower() for w in forms}
    assert not from_vec.ngrams and info["granularities"] == list(from_vec.granularities)
    assert from_vec.granularities == (64, 256) or max(from_vec.granularities) <= len(from_vec.words) // 4
    # the file's vector of a word, unit length (and float16-rounded as stored)
    row = from_vec.vectors[from_vec.word_index("market")]
    expected = model.wv["market"] / np.linalg.norm(model.wv["market"])
    np.testing.assert_allclose(row, expected, atol=2e-3)
    assert np.allclose(np.linalg.norm(from_vec.vectors, axis=1), 1, atol=1e-2)


def test_case_folds_and_digits_share_a_form(from_vec):
    assert from_vec.word_index("The") is not None  # the file is lower-cased
    assert "0000" not in from_vec.words or from_vec.word_index("1987") == from_vec.word_index("2003")


def test_gzip_gives_the_same_vectors(corpus, files, from_vec):
    again = uv.load_user_vectors(files[1]["vec.gz"], vocabulary(corpus))
    assert again.fingerprint == from_vec.fingerprint


def test_a_bin_keeps_every_word_and_the_ngrams_for_unseen_words(corpus, from_bin, from_vec):
    info = from_bin.info
    assert info["format"] == "fasttext-bin" and info["from_subwords"] > 0 and info["ngrams"] == len(from_bin.ngrams)
    assert (info["min_n"], info["max_n"]) == (3, 5)
    assert len(from_bin.words) == len({w for w in set(vocabulary(corpus))}) - _shared_forms(vocabulary(corpus))
    unseen = "marketeering"
    assert from_bin.word_index(unseen) is None and from_vec.word_index(unseen) is None
    assert from_bin.cluster_features(unseen) and from_bin.dimension_features(unseen)
    # without subwords: the documented fallback is no feature
    assert from_vec.cluster_features(unseen) == [] and from_vec.dimension_features(unseen) == []


def _shared_forms(words) -> int:
    distinct = set(words)
    return len(distinct) - len({normalise_word(w) for w in distinct})


def test_no_word_in_the_file_is_a_clear_error(files):
    with pytest.raises(uv.UserVectorsError, match="small.vec: none of the 2 words"):
        uv.load_user_vectors(files[1]["vec"], ["Xyzzy", "Plugh"])


def test_loading_reports_progress_and_cancels(corpus, files):
    seen = []
    uv.load_user_vectors(files[1]["vec"], vocabulary(corpus), progress=lambda f, m: seen.append(f))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    with pytest.raises(Cancelled):
        uv.load_user_vectors(files[1]["vec"], vocabulary(corpus), should_stop=lambda: True)
    with pytest.raises(Cancelled):
        uv.load_user_vectors(files[1]["bin"], vocabulary(corpus), should_stop=lambda: True)


def test_vec_sets_stack_with_dist_and_read_their_own_slot(corpus, from_vec, from_bin):
    sentences = corpus.sentences
    fx = FeatureExtractor("crfsuite+dist+vec+vec-dims", representations=from_bin, vectors=from_vec).fit(sentences)
    names = [str(n) for n in fx.feature_names_]
    assert any(n.startswith("vec/c64=") for n in names) and any(n.startswith("vec-dims/e=") for n in names)
    assert any(n.startswith("dist/") for n in names)
    again = FeatureExtractor.from_dict(fx.to_dict(), from_bin, vectors=from_vec)
    assert [np.array_equal(a, b) for a, b in zip(again.transform(sentences), fx.transform(sentences))] == [True] * 2
    with pytest.raises(FeatureError, match="other word vectors"):
        FeatureExtractor.from_dict(fx.to_dict(), from_bin, vectors=from_bin)
    with pytest.raises(FeatureError, match="needs word vectors"):
        FeatureExtractor("crfsuite+vec").fit(sentences)


def test_vec_is_the_distributional_view(corpus, from_vec):
    fx = FeatureExtractor("crfsuite+vec", vectors=from_vec).fit(corpus.sentences)
    views = ViewSplit("lexical-distributional").assign(fx)
    assert np.array_equal(views.astype(bool), np.array([str(n).startswith("vec/") for n in fx.feature_names_]))


def _members_without_pickle(data: bytes) -> list[str]:
    names = []
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if name.endswith(".npz"):
                with np.load(io.BytesIO(archive.read(name)), allow_pickle=False) as npz:
                    for array in npz.files:
                        assert not npz[array].dtype.hasobject
            names.append(name)
    return names


@pytest.mark.parametrize("which", ["bin", "vec"])
def test_project_to_tagger_file_and_back_tags_identically(tmp_path, corpus, files, which):
    from tagtool.store.project import Project

    sentences = corpus.sentences
    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus) as project:
        assert uv.project_vocabulary(project) == list(dict.fromkeys(vocabulary(corpus)))
        reps = uv.load_user_vectors(files[1][which], uv.project_vocabulary(project))
        uv.store_vectors(project.stored, reps)
    with Project.open(path) as project:
        stored = uv.project_vectors(project.stored)
        assert stored.fingerprint == reps.fingerprint and stored.info["file"] == f"small.{which}"
        assert uv.vectors_info(project.stored)["fingerprint"] == reps.fingerprint
    tagger = train_tagger(
        sentences[:40], "mv-perceptron", features={"feature_set": "crfsuite+default+vec+vec-dims"}, vectors=stored
    )
    assert tagger.model.info["vectors"]["fingerprint"] == reps.fingerprint
    assert tagger.model.info["vectors"]["file"] == f"small.{which}"
    out = tmp_path / "t.tagger"
    tagger.save(out)
    assert "vectors.npz" in _members_without_pickle(out.read_bytes())
    loaded = load_tagger(out)
    assert loaded.extractor.vectors.fingerprint == reps.fingerprint
    assert loaded.tag(sentences[40:]) == tagger.tag(sentences[40:])
    first = sentences[41]
    new = [dataclasses.replace(first, tokens=("Marketeering", "9,876", *first.tokens[2:]))]
    assert loaded.tag(new) == tagger.tag(new)
    assert (loaded.extractor.vectors.cluster_features("marketeering") != []) == (which == "bin")


def test_a_tagger_without_its_vectors_member_is_refused(corpus, from_vec):
    tagger = train_tagger(
        corpus.sentences[:30], "perceptron", features={"feature_set": "crfsuite+vec"}, vectors=from_vec
    )
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(tagger.to_bytes())) as src, zipfile.ZipFile(out, "w") as dst:
        for item in src.infolist():
            if item.filename != "vectors.npz":
                dst.writestr(item, src.read(item.filename))
    with pytest.raises(TaggerFileError, match="vectors.npz is missing"):
        Tagger.from_bytes(out.getvalue())


def test_store_remove_and_the_use_setting(tmp_path, corpus, from_vec):
    from tagtool.store.project import Project

    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus) as project:
        assert uv.project_vectors(project.stored) is None and uv.vectors_info(project.stored) is None
        assert uv.vectors_use(project) == "on" and uv.vectors_for_training(project) is None
        uv.store_vectors(project.stored, from_vec)
        assert uv.vectors_for_training(project) is None  # chunks are spans: the default rule adds no vec set
        assert uv.vectors_for_training(project, named=True).fingerprint == from_vec.fingerprint
        uv.set_vectors_use(project, "off")
        assert uv.vectors_use(project) == "off" and uv.vectors_for_training(project) is None
        assert uv.vectors_for_training(project, named=True) is not None
        with pytest.raises(ValueError, match="vectors.use"):
            uv.set_vectors_use(project, "sometimes")
        assert "small.vec (word2vec-text, dim 12)" in uv.describe(uv.vectors_info(project.stored))
        assert uv.remove_vectors(project.stored) and not uv.remove_vectors(project.stored)
        assert uv.project_vectors(project.stored) is None
    uv.store_vectors_in_file(path, from_vec)  # the app's worker thread
    with Project.open(path, readonly=True) as project:
        assert uv.project_vectors(project.stored).fingerprint == from_vec.fingerprint


def test_the_stored_bytes_hold_numbers_only(tmp_path, from_bin):
    with np.load(io.BytesIO(from_bin.to_bytes()), allow_pickle=False) as npz:
        assert all(not npz[name].dtype.hasobject for name in npz.files)
        assert {"ngrams_utf8", "ngram_vectors", "vectors"} <= set(npz.files)


def test_with_vectors_adds_the_default_sets_and_the_views_follow(corpus, from_vec):
    from tagtool.learn import get_learner
    from tagtool.services.training_setup import default_view_kind, with_vectors

    learner = get_learner("mv-perceptron")
    settings = with_vectors(learner, None, corpus.sentences)
    assert settings["feature_set"] == "+".join(["crfsuite+default", *uv.vector_sets(corpus.sentences)])
    assert with_vectors(learner, {"feature_set": "crfsuite+vec"})["feature_set"] == "crfsuite+vec"
    fx = FeatureExtractor(settings["feature_set"], vectors=from_vec).fit(corpus.sentences)
    assert default_view_kind(fx) == "feature-sets"
    one = FeatureExtractor("crfsuite+vec", vectors=from_vec).fit(corpus.sentences)
    assert default_view_kind(one) == "lexical-distributional"


def test_the_default_rule_adds_the_dimensions_for_word_classes_on_plain_tokens(corpus):
    ud = read_corpus(DATA / "ud_en_ewt_train_head.conllu", label_field="upos")
    assert uv.vector_sets(ud.sentences) == ("vec", "vec-dims")  # part of speech, FORM only
    assert uv.vector_sets(corpus.sentences) == ()  # chunks (spans): none unless named
    plain_spans = [dataclasses.replace(s, columns={}) for s in corpus.sentences]
    assert uv.vector_sets(plain_spans) == ()
    assert uv.vector_sets(None) == ()


def test_a_part_of_speech_project_trains_with_its_vectors(tmp_path, from_vec):
    from tagtool.store.project import Project

    ud = read_corpus(DATA / "ud_en_ewt_train_head.conllu", label_field="upos")
    with Project.create(tmp_path / "pos.tagproj", ud) as project:
        uv.store_vectors(project.stored, from_vec)
        assert uv.vectors_for_training(project).fingerprint == from_vec.fingerprint

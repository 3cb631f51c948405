"""The tagger file: round trips, atomic writes, and every way a file can be broken."""

import io
import json
import pathlib
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import tagtool
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.views import ViewSplit
from tagtool.learn.chain import ChainModel
from tagtool.store.formats import read_corpus
from tagtool.tagger.file_format import FORMAT_VERSION, TaggerFileError
from tagtool.tagger.inputs import TaggerInputError
from tagtool.tagger.model import Tagger, load_tagger

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(DATA)


def random_tagger(corpus, n_views: int, seed: int = 0) -> Tagger:
    """A tagger with random weights: the file format needs no learner."""
    rng = np.random.default_rng(seed)
    extractor = FeatureExtractor(min_count=1).fit(corpus)
    split = ViewSplit("random", seed) if n_views == 2 else None
    views = split.assign(extractor) if split else np.zeros(extractor.n_features_, np.int8)
    model = ChainModel.zeros(
        corpus.labels,
        extractor.n_features_,
        views,
        n_views,
        learner="toy",
        params={"c": 1.5, "flag": True},
        info={"notes": ["hello"]},
    )
    model.weights[:] = rng.normal(size=model.weights.shape)
    model.trans[:] = rng.normal(size=model.trans.shape)
    model.start[:] = rng.normal(size=model.start.shape)
    model.end[:] = rng.normal(size=model.end.shape)
    return Tagger(corpus.labels, extractor, split, model, metrics={"f1": 0.5})


@pytest.fixture(scope="module", params=[1, 2], ids=["one-view", "two-view"])
def tagger(request, corpus):
    return random_tagger(corpus, request.param)


def test_save_load_gives_identical_predictions_scores_and_meta(tagger, corpus, tmp_path):
    path = tmp_path / "m.tagger"
    tagger.save(path)
    loaded = load_tagger(path)
    sentences = corpus.sentences
    assert loaded.tag(sentences) == tagger.tag(sentences)
    for a, b in zip(loaded.score_tokens(sentences[:5]), tagger.score_tokens(sentences[:5])):
        np.testing.assert_array_equal(a, b)
    assert loaded.labels == tagger.labels and loaded.view_split == tagger.view_split
    assert loaded.model.params == {"c": 1.5, "flag": True} and loaded.model.info["notes"] == ["hello"]
    assert loaded.metrics == {"f1": 0.5} and loaded.created == tagger.created
    assert loaded.extractor.to_dict() == tagger.extractor.to_dict()
    if tagger.two_view:
        assert loaded.disagreement(sentences[:5]) == tagger.disagreement(sentences[:5])


def test_bytes_round_trip(tagger, corpus):
    again = Tagger.from_bytes(tagger.to_bytes())
    assert again.tag(corpus.sentences[:10]) == tagger.tag(corpus.sentences[:10])


def test_meta_json_holds_the_documented_fields(tagger):
    with zipfile.ZipFile(io.BytesIO(tagger.to_bytes())) as archive:
        assert sorted(archive.namelist()) == ["meta.json", "weights.npz"]
        meta = json.loads(archive.read("meta.json"))
    assert meta["format"] == "tagtool-tagger" and meta["format_version"] == FORMAT_VERSION
    assert meta["tagtool_version"] == tagtool.__version__
    assert meta["labels"] == list(tagger.labels)
    assert meta["learner"] == {"name": "toy", "params": {"c": 1.5, "flag": True}}
    assert meta["features"]["vocabulary"] == list(tagger.extractor.feature_names_)
    assert meta["view_split"] == (None if not tagger.two_view else {"kind": "random", "seed": 0})
    assert {"created", "metrics", "model"} <= set(meta)


def test_tagging_ignores_annotations_and_accepts_token_lists(tagger, corpus):
    sentence = corpus.sentences[0]
    foreign = sentence.with_annotations([["NOT-A-LABEL"]] * len(sentence))
    # Labels outside the label set do not matter: tagging never reads them.
    assert tagger.tag([foreign]) == tagger.tag([sentence])
    assert len(tagger.tag([list(sentence.tokens)], allow_missing_columns=True)[0]) == len(sentence)
    assert tagger.tag([]) == [] and tagger.score_tokens([]) == []


def test_tag_corpus_keeps_documents_columns_and_sets_full_labels(tagger, corpus):
    docs = (Document("a", corpus.sentences[:3]), Document("b", corpus.sentences[3:5]))
    tagged = tagger.tag_corpus(Corpus(corpus.labels, docs))
    assert [d.name for d in tagged.documents] == ["a", "b"]
    predicted = tagger.tag(corpus.sentences[:5])
    for sentence, original, labels in zip(tagged.sentences, corpus.sentences[:5], predicted):
        assert sentence.tokens == original.tokens and dict(sentence.columns) == dict(original.columns)
        assert [next(iter(a)) for a in sentence.annotations] == labels


def test_save_is_atomic_and_leaves_no_temporary_file(tagger, tmp_path, monkeypatch):
    path = tmp_path / "m.tagger"
    path.write_bytes(b"old content")

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        tagger.save(path)
    assert path.read_bytes() == b"old content"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tagger"]


def test_importing_tagtool_is_light_and_load_tagger_is_lazy():
    code = (
        "import sys, tagtool\n"
        "heavy = [m for m in ('numpy', 'numba', 'PySide6', 'tagtool.tagger.model') if m in sys.modules]\n"
        "f = tagtool.load_tagger\n"
        "print(heavy, f.__module__, 'PySide6' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "tagtool.tagger.model", "False"]


# ---------------------------------------------------------------------------
# damaged and altered files


def rewrite(data: bytes, *, meta=None, arrays=None, drop=(), raw_meta=None) -> bytes:
    """The tagger ``data`` with its meta or arrays replaced, or members dropped."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    if meta is not None:
        members["meta.json"] = json.dumps(meta).encode()
    if raw_meta is not None:
        members["meta.json"] = raw_meta
    if arrays is not None:
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)
        members["weights.npz"] = buffer.getvalue()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in members.items():
            if name not in drop:
                archive.writestr(name, content)
    return out.getvalue()


@pytest.fixture(scope="module")
def good(corpus):
    tagger = random_tagger(corpus, 2)
    data = tagger.to_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        meta = json.loads(archive.read("meta.json"))
    return data, meta, tagger.model.to_arrays()


def _load(tmp_path, data: bytes):
    path = tmp_path / "bad.tagger"
    path.write_bytes(data)
    return load_tagger(path)


def test_not_a_zip(tmp_path):
    with pytest.raises(TaggerFileError, match="not a zip"):
        _load(tmp_path, b"label\tword\n" * 10)


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.5, 0.9, 0.999])
def test_truncated_file(good, tmp_path, fraction):
    data = good[0]
    with pytest.raises(TaggerFileError) as info:
        _load(tmp_path, data[: int(len(data) * fraction)])
    assert str(tmp_path / "bad.tagger") in str(info.value)


def test_flipped_byte_in_weights_is_detected(good, tmp_path):
    data = bytearray(good[0])
    data[len(data) // 2] ^= 0xFF  # inside the weights member
    with pytest.raises(TaggerFileError):
        _load(tmp_path, bytes(data))


@pytest.mark.parametrize("member", ["meta.json", "weights.npz"])
def test_missing_member(good, tmp_path, member):
    with pytest.raises(TaggerFileError, match=f"{member}.*missing"):
        _load(tmp_path, rewrite(good[0], drop=(member,)))


def test_edited_json_that_is_no_longer_json(good, tmp_path):
    with pytest.raises(TaggerFileError, match="not valid JSON"):
        _load(tmp_path, rewrite(good[0], raw_meta=b'{"format": "tagtool-tagger",'))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(format="something-else"), "does not name the format"),
        (lambda m: m.pop("features"), "lacks features"),
        (lambda m: m.update(format_version=FORMAT_VERSION + 1), "newer tagtool"),
        (lambda m: m.update(format_version="1"), "no valid format_version"),
        (lambda m: m.update(labels=m["labels"][:-1]), "labels differ"),
        (lambda m: m["features"]["vocabulary"].pop(), "features"),
        (lambda m: m["features"].update(params=42), "malformed|feature"),
        (lambda m: m.update(view_split={"kind": "sideways"}), "view split"),
        (lambda m: m.update(labels=["O", "O"] + m["labels"][2:]), "duplicate"),
    ],
    ids=["format", "missing-key", "newer", "version-type", "labels", "vocabulary", "params", "views", "dup-labels"],
)
def test_altered_meta(good, tmp_path, edit, message):
    meta = json.loads(json.dumps(good[1]))
    edit(meta)
    with pytest.raises(TaggerFileError, match=message):
        _load(tmp_path, rewrite(good[0], meta=meta))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda a: a.update(weights=a["weights"][:-1]), "features"),
        (lambda a: a.update(trans=a["trans"][:, :-1]), "trans"),
        (lambda a: a.update(start=a["start"][:1]), "start"),
        (lambda a: a.update(feature_view=a["feature_view"] + 3), "feature_view"),
        (lambda a: a.update(weights=np.full_like(a["weights"], np.nan)), "non-finite"),
        # finite, but a constrained decode's penalty over such scores overflows to -inf (the fuzzer found it)
        (lambda a: a.update(trans=np.full_like(a["trans"], -1e300)), "magnitude"),
        (lambda a: a.update(weights=a["weights"].astype(str)), "dtype"),
        (lambda a: a.pop("end"), "lacks the arrays end"),
    ],
    ids=["weights-rows", "trans-shape", "start-views", "views-values", "nan", "huge", "strings", "missing-array"],
)
def test_altered_arrays(good, tmp_path, change, message):
    arrays = {k: v.copy() for k, v in good[2].items()}
    change(arrays)
    with pytest.raises(TaggerFileError, match=message):
        _load(tmp_path, rewrite(good[0], arrays=arrays))


def test_pickle_inside_the_npz_is_refused(good, tmp_path):
    arrays = dict(good[2])
    buffer = io.BytesIO()
    np.savez(buffer, **{**arrays, "weights": np.array([{"evil": 1}], dtype=object)})  # pickled object array
    with zipfile.ZipFile(io.BytesIO(good[0])) as archive:
        meta = archive.read("meta.json")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("meta.json", meta)
        archive.writestr("weights.npz", buffer.getvalue())
    with pytest.raises(TaggerFileError, match="cannot be loaded safely"):
        _load(tmp_path, out.getvalue())


def test_from_bytes_of_garbage_names_its_source():
    with pytest.raises(TaggerFileError, match="<bytes>"):
        Tagger.from_bytes(b"\x00" * 100)


# ---------------------------------------------------------------------------
# the input columns a tagger needs


def test_tagging_without_the_trained_columns_is_an_error_unless_allowed(tagger, corpus):
    plain = [list(s.tokens) for s in corpus.sentences[:3]]
    with pytest.raises(TaggerInputError, match=r"lacks the column\(s\) 'col1' the tagger was trained with"):
        tagger.tag(plain)
    with pytest.raises(TaggerInputError):
        tagger.tag_corpus([Sentence(s.tokens) for s in corpus.sentences[:3]])
    assert [len(t) for t in tagger.tag(plain, allow_missing_columns=True)] == [len(s) for s in plain]
    assert tagger.check_input(plain, "x.txt", allow_missing_columns=True)[0].startswith("x.txt: lacks")


def test_input_columns_record_survives_save_and_load(corpus, tmp_path):
    tagger = random_tagger(corpus, 1)
    tagger.input_columns = {
        "required": ["col1"],
        "check": {"sentences": 9, "tokens": 99, "accuracy": 0.95, "accuracy_without": {"col1": 0.5}},
    }
    tagger.save(tmp_path / "m.tagger")
    back = load_tagger(tmp_path / "m.tagger")
    assert back.input_columns == tagger.input_columns
    with pytest.raises(TaggerInputError, match=r"95\.0 % with it, 50\.0 % without, on 9 of its training"):
        back.tag([["a", "b"]])


def test_old_tagger_files_without_the_record_infer_it_from_the_feature_columns(good, tmp_path):
    data, meta, _ = good
    old = {k: v for k, v in meta.items() if k != "input_columns"}
    tagger = _load(tmp_path, rewrite(data, meta=old))
    assert tagger.input_columns == {"required": ["col1"], "check": None}
    with pytest.raises(TaggerInputError, match="expected loss unknown"):
        tagger.tag([["a", "b"]])


@pytest.mark.parametrize(
    "record",
    [
        [],
        {"required": "col1"},
        {"required": ["pos"]},
        {"required": ["col1"], "check": 3},
    ],
)
def test_a_malformed_input_columns_record_is_a_tagger_file_error(good, tmp_path, record):
    data, meta, _ = good
    with pytest.raises(TaggerFileError, match="malformed.*input_columns"):
        _load(tmp_path, rewrite(data, meta={**meta, "input_columns": record}))

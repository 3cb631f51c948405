"""The vectors reader: every layout gives the same rows, gzip works, fastText subwords, npz round trip."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from tagtool.errors import FormatError
from tagtool.store import vectors
from tests.store.vector_files import fasttext_model, gzip_copy, keyed_vectors, write_all

VOCAB = ["cat", "dog", "Paris", "zebra", "the", "THE", "cat"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    kv = keyed_vectors()
    return kv, write_all(kv, tmp_path_factory.mktemp("vectors"))


@pytest.mark.parametrize(
    "name", ["word2vec-text", "word2vec-binary", "glove", "word2vec-text-gz", "word2vec-binary-gz", "glove-gz"]
)
def test_every_layout_gives_the_same_vectors(files, name):
    kv, paths = files
    got = vectors.read_vectors(paths[name], VOCAB)
    assert got.fmt == name.removesuffix("-gz")
    assert vectors.detect_format(paths[name]) == got.fmt
    # unseen "zebra" left out; duplicate "cat" once; "THE" folds to "the"
    assert got.words == ["cat", "dog", "Paris", "the", "THE"]
    assert got.matrix.dtype == np.float32 and got.matrix.shape == (5, kv.vector_size)
    expected = np.stack([kv[w] for w in ["cat", "dog", "Paris", "the", "the"]])
    np.testing.assert_array_equal(got.matrix, expected)
    assert not got.subword.any()
    assert got.rows_read == len(kv.index_to_key)


def test_no_case_folding_when_asked(files):
    _, paths = files
    assert vectors.read_vectors(paths["glove"], ["THE", "the"], fold_case=False).words == ["the"]


def test_fasttext_vec_and_bin_agree_and_unseen_words_get_subword_vectors(tmp_path):
    model, bin_path = fasttext_model(tmp_path)
    vec_path = tmp_path / "ft.vec"
    model.wv.save_word2vec_format(str(vec_path))
    vocab = ["cat", "Paris", "cats", "Londons"]
    from_vec = vectors.read_vectors(vec_path, vocab)
    from_bin = vectors.read_vectors(bin_path, vocab)
    assert from_bin.fmt == "fasttext-bin" and from_vec.fmt == "word2vec-text"
    assert from_vec.words == ["cat", "Paris"]
    assert from_bin.words == vocab and from_bin.subword.tolist() == [False, False, True, True]
    np.testing.assert_allclose(from_bin.matrix[:2], from_vec.matrix, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(from_bin.matrix[2], model.wv["cats"], rtol=1e-6)
    assert np.abs(from_bin.matrix[2:]).sum(axis=1).min() > 0
    from_gz = vectors.read_vectors(gzip_copy(bin_path), vocab)
    np.testing.assert_array_equal(from_gz.matrix, from_bin.matrix)


def test_npz_round_trip_is_identical_and_needs_no_pickle(files, tmp_path):
    _, paths = files
    got = vectors.read_vectors(paths["word2vec-binary"], VOCAB)
    got.subword[1] = True
    out = tmp_path / "vectors.npz"
    vectors.save_npz(got, out)
    back = vectors.load_npz(out)
    assert back.words == got.words and back.source == "w2v.bin" and back.fmt == "word2vec-binary"
    np.testing.assert_array_equal(back.matrix, got.matrix)
    np.testing.assert_array_equal(back.subword, got.subword)
    with np.load(out, allow_pickle=False) as z:
        assert all(z[name].dtype != object for name in z.files)
    with zipfile.ZipFile(out) as zf:
        assert not any(b"pickle" in zf.read(name)[:200] for name in zf.namelist())


def test_empty_vocabulary_round_trips(files, tmp_path):
    _, paths = files
    got = vectors.read_vectors(paths["glove"], ["unknownword"])
    assert got.words == [] and got.matrix.shape == (0, 6)
    vectors.save_npz(got, tmp_path / "e.npz")
    assert vectors.load_npz(tmp_path / "e.npz").matrix.shape == (0, 6)


@pytest.mark.parametrize(
    "text, where, what",
    [
        ("2 3\ncat 1 2 3\ndog 1 2\n", ":3:", "2 values where the file's vectors have 3"),
        ("2 3\ncat 1 2 3\ndog 1 2 3 4\n", ":3:", "4 values"),
        ("cat 1 2 3\ndog 1 x 3\n", ":2:", "'x' is not a number"),
        ("3 3\ncat 1 2 3\ndog 1 2 3\n", ": ", "truncated: its header promises 3 vectors, it has 2"),
        ("cat\n", ":1:", "is not a vectors file"),
    ],
)
def test_bad_text_is_one_line_naming_file_and_line(tmp_path, text, where, what):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        vectors.read_vectors(path, ["cat", "dog"])
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(path) + where) and what in message


def test_truncated_binary_names_the_vector(files, tmp_path):
    kv, paths = files
    n = len(kv.index_to_key)
    data = paths["word2vec-binary"].read_bytes()
    path = tmp_path / "cut.bin"
    path.write_bytes(data[: len(data) - 10])
    with pytest.raises(FormatError, match=f"cut.bin: is truncated: it ends inside vector {n} of the {n} "):
        vectors.read_vectors(path, ["cat"])


def test_unknown_format_is_refused(files):
    _, paths = files
    with pytest.raises(ValueError, match="unknown vectors format"):
        vectors.read_vectors(paths["glove"], ["cat"], fmt="spacy")
    with pytest.raises(FormatError, match="not in the word2vec-binary layout"):
        vectors.read_vectors(paths["glove"], ["cat"], fmt="word2vec-binary")


def test_long_text_rows_with_multibyte_words_are_not_taken_for_binary(tmp_path):
    dim = 400
    row = " ".join(["0.123456789"] * dim)
    path = tmp_path / "long.vec"
    path.write_text(f"2 {dim}\nnaïve {row}\ncafé {row}\n", encoding="utf-8")
    # a sample without a newline that ends inside a character is still text
    assert not vectors.vectors_stream._looks_binary("naïve 0.1 0.2 café".encode()[:-1])
    assert vectors.vectors_stream._looks_binary(np.arange(8, dtype=np.float32).tobytes())
    got = vectors.read_vectors(path, ["café"])
    assert got.fmt == "word2vec-text" and got.matrix.shape == (1, dim)

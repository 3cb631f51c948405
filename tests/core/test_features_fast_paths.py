"""The fast paths of tagging give the same feature ids as the name-by-name reference, bit for bit.

Tagging encodes a batch with a frozen vocabulary (``_BaseTable._encode_frozen``,
lists and numpy) and loads a tagger's vocabulary with
:func:`parse_feature_names`; the references are the name-by-name loop
(``_BaseTable._encode_each``, which also grows the table in training) and
:func:`parse_feature_name`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureExtractor
from tagtool.core.features.encoding import _BaseTable
from tagtool.core.features.templates import parse_feature_name, parse_feature_names
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"
SLICES = {"crfsuite": "conll2000_train_head.txt", "default": "conll2002_esp_train_head.txt"}


def _reference(monkeypatch):
    monkeypatch.setattr(
        _BaseTable, "_encode_frozen", lambda self, units, features: self._encode_each(units, features, False)
    )


@pytest.mark.parametrize("feature_set", ["crfsuite", "default"])
def test_frozen_encoding_gives_the_reference_ids(feature_set, monkeypatch):
    sentences = list(read_corpus(DATA / SLICES[feature_set]))
    pos = "col1" if feature_set == "crfsuite" else None
    extractor = FeatureExtractor(feature_set, min_count=2, pos_column=pos).fit(sentences[:40])
    # the rest holds words and column values the vocabulary lacks: dropped on both paths
    fast = extractor.transform(sentences)
    reloaded = FeatureExtractor.from_dict(extractor.to_dict()).transform(sentences)
    _reference(monkeypatch)
    slow = extractor.transform(sentences)
    for got in (fast, reloaded):
        assert got[0].dtype == slow[0].dtype and got[1].dtype == slow[1].dtype
        np.testing.assert_array_equal(got[0], slow[0])
        np.testing.assert_array_equal(got[1], slow[1])


def test_a_unit_without_known_names_keeps_its_empty_row():
    extractor = FeatureExtractor("crfsuite", min_count=1).fit([["a", "b"]])
    table = extractor._table
    features = extractor._named_set().word_features
    units = ["zz", "a", "QQ", "b", "zz"]
    fast, slow = table._encode_frozen(units, features), table._encode_each(units, features, False)
    np.testing.assert_array_equal(fast.indptr, slow.indptr)
    np.testing.assert_array_equal(fast.ids, slow.ids)
    assert fast.ids.dtype == slow.ids.dtype


def test_parse_feature_names_agrees_with_parse_feature_name():
    sentences = list(read_corpus(DATA / SLICES["default"]))[:30]
    names = list(FeatureExtractor("default", window=2).fit(sentences).feature_names_)
    names += [
        "BOS",
        "EOS",
        "-1:BOS",
        "+2:EOS",
        "+0:BOS",
        "+0:x",
        "-x:y",
        "+:y",
        "",
        "+",
        "-12:lw=a:b",
        "lw=+1:x",
        "+1",
        "-٣:lw=a",
    ]  # odd spellings, an Arabic-Indic digit (\d matches it)
    bases, offsets = parse_feature_names(names)
    assert list(zip(bases, offsets)) == [parse_feature_name(n) for n in names]


def test_template_columns_give_the_names_of_the_word_function():
    """``crfsuite_word_columns`` (tagging's frozen path) spells exactly the names of ``crfsuite_word_features``."""
    from tagtool.core.features.templates import WORD_COLUMNS, crfsuite_word_features

    words = ["The", "a", "IBM", "ǅemal", "²³", "12", "x-ray", "ÉCOLE", "über", "I", "Hello,World", "ΣΑΣ", "ß"]
    columns = WORD_COLUMNS[crfsuite_word_features](words)
    for k, word in enumerate(words):
        names = []
        for name, values in columns:
            if values is None or (getattr(values, "dtype", None) == np.dtype(bool) and values[k]):
                names.append(name)
            elif getattr(values, "dtype", None) != np.dtype(bool):
                names.append(f"{name}={values[k]}")
        assert names == crfsuite_word_features(word), word


def test_frozen_template_columns_drop_unknown_names_as_the_reference_does():
    extractor = FeatureExtractor("crfsuite", min_count=1).fit([["The", "IBM", "12"], ["ǅemal", "x"]])
    table = extractor._table
    features = extractor._named_set().word_features
    units = ["The", "THE", "ibm", "12", "99", "ǅemal", "Ǆ", "x", "xx", "The"]
    fast, slow = table._encode_frozen(units, features), table._encode_each(units, features, False)
    np.testing.assert_array_equal(fast.indptr, slow.indptr)
    np.testing.assert_array_equal(fast.ids, slow.ids)
    assert fast.ids.dtype == slow.ids.dtype


@pytest.mark.parametrize("feature_set, window", [("crfsuite", 1), ("default", 1), ("default", 2), ("default", 0)])
def test_the_window_kernel_gives_the_numpy_columns(feature_set, window):
    """Long inputs take the numba kernel (:mod:`tagtool.core.features._window_kernel`), short ones numpy."""
    from tagtool.core.features.encoding import _encode_batch
    from tagtool.core.features.frozen import frozen_columns
    from tagtool.core.features.templates import BOS, EOS

    sentences = list(read_corpus(DATA / SLICES[feature_set]))
    pos = "col1" if feature_set == "crfsuite" else None
    extractor = FeatureExtractor(feature_set, window=window, min_count=2, pos_column=pos).fit(sentences[:40])
    table = extractor._table
    lengths, sources = _encode_batch(sentences, extractor._named_set(), extractor.columns_, table, grow=False)
    pads = (table.index[BOS], table.index[EOS])
    numpy_path = frozen_columns(lengths, sources, window, len(table), extractor._lookup, pads, kernel=False)
    kernel_path = frozen_columns(lengths, sources, window, len(table), extractor._lookup, pads, kernel=True)
    assert len(numpy_path[1]) > 1000
    for got, expected in zip(kernel_path, numpy_path):
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)

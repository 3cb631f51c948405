"""The vocabulary's table in a serialised extractor: loads without parsing names, and only when it spells them.

:func:`tagtool.core.features.serialised.to_dict` writes the vocabulary twice,
as names and as the in-memory table (base names and each column's key);
:func:`~tagtool.core.features.serialised.from_dict` builds the extractor
from the table when it gives exactly the stored names, else from the names
(the reference, with their checks).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureError, FeatureExtractor, serialised
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"
SLICES = {"crfsuite": "conll2000_train_head.txt", "default": "conll2002_esp_train_head.txt"}


def _fitted(feature_set: str, window: int = 1) -> tuple[FeatureExtractor, list]:
    sentences = list(read_corpus(DATA / SLICES[feature_set]).sentences)
    params = {"pos_column": "col1"} if feature_set == "crfsuite" else {"window": window}
    return FeatureExtractor(feature_set, min_count=1, **params).fit(sentences[:40]), sentences


def _same(a: FeatureExtractor, b: FeatureExtractor, sentences) -> None:
    assert list(a.feature_names_) == list(b.feature_names_) and a.n_features_ == b.n_features_
    assert np.array_equal(a.feature_group_, b.feature_group_)
    for x, y in zip(a.transform(sentences), b.transform(sentences)):
        assert np.array_equal(x, y)


def _keys(data: dict) -> np.ndarray:
    return np.frombuffer(base64.b64decode(data["table"]["columns"]), dtype="<i4").copy()


def _with_keys(data: dict, keys: np.ndarray) -> None:
    data["table"]["columns"] = base64.b64encode(keys.astype("<i4").tobytes()).decode("ascii")


@pytest.mark.parametrize("feature_set, window", [("crfsuite", 1), ("default", 2), ("default", 0)])
def test_the_table_gives_the_extractor_the_names_give(feature_set, window, monkeypatch):
    fx, sentences = _fitted(feature_set, window)
    data = json.loads(json.dumps(fx.to_dict()))
    assert data["vocabulary"] == list(fx.feature_names_) and len(_keys(data)) == fx.n_features_
    by_names = FeatureExtractor.from_dict({k: v for k, v in data.items() if k != "table"})
    calls = []
    monkeypatch.setattr(serialised, "set_vocabulary_from_names", lambda *a: calls.append(a))
    by_table = FeatureExtractor.from_dict(data)
    assert calls == []  # no name parsed
    _same(by_table, by_names, sentences)
    _same(by_table, fx, sentences)


def _edit_name(data):
    data["vocabulary"][3] = (
        "+1:" + data["vocabulary"][3].partition(":")[2]
        if ":" in data["vocabulary"][3]
        else ("-1:" + data["vocabulary"][3])
    )


def _swap_names(data):
    names = data["vocabulary"]
    names[0], names[7] = names[7], names[0]


def _swap_keys(data):
    keys = _keys(data)
    keys[[0, 5]] = keys[[5, 0]]
    _with_keys(data, keys)


@pytest.mark.parametrize(
    "damage",
    [
        _edit_name,
        _swap_names,
        _swap_keys,
        lambda d: _with_keys(d, _keys(d)[:-1]),
        lambda d: _with_keys(d, np.concatenate([_keys(d)[:-1], _keys(d)[:1]])),  # a column twice
        lambda d: _with_keys(d, _keys(d) + 10**6),  # outside the table
        lambda d: d["table"].update(columns="not base64!"),
        lambda d: d["table"].update(bases=d["table"]["bases"] + "\n" + d["table"]["bases"].split("\n")[0]),  # twice
        lambda d: d["table"].update(bases="BOS\n" + d["table"]["bases"].partition("\n")[2]),
        lambda d: d["table"].update(bases="bogus=1\n" + d["table"]["bases"].partition("\n")[2]),
        lambda d: d["table"].update(bases=d["table"]["bases"].split("\n")),
        lambda d: d.update(table=[1, 2]),
    ],
    ids=[
        "name",
        "names-swapped",
        "keys-swapped",
        "keys-short",
        "key-twice",
        "key-outside",
        "base64",
        "base-twice",
        "padding",
        "bogus",
        "not-str",
        "not-dict",
    ],
)
def test_a_table_that_does_not_spell_the_names_is_not_used(damage):
    fx, sentences = _fitted("default", 2)
    data = json.loads(json.dumps(fx.to_dict()))
    damage(data)
    reference = {k: v for k, v in data.items() if k != "table"}
    try:
        expected = FeatureExtractor.from_dict(reference)
    except FeatureError as exc:
        with pytest.raises(FeatureError, match=re.escape(str(exc))):
            FeatureExtractor.from_dict(data)
        return
    _same(FeatureExtractor.from_dict(data), expected, sentences)


def test_names_edited_beside_an_intact_table_meet_the_names_checks():
    fx, _ = _fitted("crfsuite")
    data = json.loads(json.dumps(fx.to_dict()))
    data["vocabulary"][-1] = "+5:" + data["vocabulary"][-1].partition(":")[2]
    with pytest.raises(FeatureError, match="window"):
        FeatureExtractor.from_dict(data)

"""Feature templates on hand-picked words, windows, columns and the extractor's contract."""

import doctest
import json
import os
import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tagtool.core.features as features_module
from tagtool.core.corpus import Sentence
from tagtool.core.features import (
    DEFAULT_FEATURE_SET,
    GROUP_SURFACE,
    GROUP_TOKEN,
    FeatureError,
    FeatureExtractor,
    NotFittedError,
    default_word_features,
    feature_name,
    has_greek,
    length_bucket,
    parse_feature_name,
    short_shape,
    word_shape,
)


def token_names(fx, sentences):
    """Feature names of every token, as sets."""
    indptr, indices = fx.transform(sentences)
    return [set(fx.feature_names_[indices[indptr[t] : indptr[t + 1]]]) for t in range(len(indptr) - 1)]


def own(names):
    """The features of the token itself (no offset prefix, no padding)."""
    return {n for n in names if ":" not in n.split("=")[0] and n not in ("BOS", "EOS")}


# --------------------------------------------------------------------------
# Word-level templates
# --------------------------------------------------------------------------


def test_il2_has_exactly_the_documented_base_features():
    assert set(default_word_features("IL-2")) == {
        "w=IL-2", "lw=il-2",
        "p1=I", "p2=IL", "p3=IL-", "p4=IL-2",
        "s1=2", "s2=-2", "s3=L-2", "s4=IL-2",
        "g2=<i", "g2=il", "g2=l-", "g2=-2", "g2=2>",
        "g3=<il", "g3=il-", "g3=l-2", "g3=-2>",
        "g4=<il-", "g4=il-2", "g4=l-2>",
        "shape=XX-d", "sshape=X-d",
        "init_cap", "all_caps", "has_digit", "digit_and_alpha", "digit_and_punct",
        "has_punct", "has_hyphen", "len=4",
    }  # fmt: skip


@pytest.mark.parametrize(
    "word, present, absent",
    [
        ("Mr.", {"w=Mr.", "lw=mr.", "shape=Xx.", "sshape=Xx.", "init_cap", "has_period", "has_punct", "len=3"},
         {"all_caps", "mixed_caps", "is_punct", "has_digit", "greek", "p4=Mr.", "s4=Mr."}),
        ("alpha-catenin", {"greek", "has_hyphen", "lw=alpha-catenin", "sshape=x-x", "len=10+", "p4=alph",
                           "s4=enin", "g4=<alp", "g2=n>"}, {"init_cap", "has_digit", "number"}),
        ("1999", {"all_digits", "has_digit", "number", "shape=dddd", "sshape=d", "len=4", "g4=1999"},
         {"init_cap", "all_caps", "digit_and_alpha", "has_punct", "is_punct"}),
        ("U.S.", {"init_cap", "all_caps", "has_period", "shape=X.X.", "sshape=X.X.", "lw=u.s."},
         {"mixed_caps", "is_punct", "number"}),
        ("ÉCOLE", {"init_cap", "all_caps", "lw=école", "shape=XXXXX", "sshape=X", "g2=<é", "p1=É", "len=5-6"},
         {"mixed_caps", "has_punct", "greek"}),
        (",", {"is_punct", "has_punct", "shape=,", "sshape=,", "w=,", "p1=,", "s1=,", "g2=<,", "g3=<,>", "len=1"},
         {"p2=,", "g4=<,>", "init_cap", "has_period"}),
        ("McDonald", {"init_cap", "mixed_caps", "sshape=XxXx"}, {"all_caps"}),
        ("1,000", {"number", "digit_and_punct", "has_punct", "shape=d,ddd"}, {"all_digits", "is_punct"}),
        ("$", {"is_punct", "has_punct"}, {"number"}),
    ],
)  # fmt: skip
def test_templates_on_hand_picked_words(word, present, absent):
    feats = default_word_features(word)
    assert len(feats) == len(set(feats))
    assert present <= set(feats)
    assert not absent & set(feats)


def test_repeated_ngrams_appear_once():
    feats = default_word_features("banana")
    assert feats.count("g2=an") == 1 and feats.count("g3=ana") == 1


@pytest.mark.parametrize(
    "word, greek",
    [("alpha-catenin", True), ("NF-kappaB", True), ("TNFalpha", True), ("IL2Ralpha", True),
     ("Beta", True), ("ALPHA", True), ("α-actin", True), ("ΔNp63", True), ("kappa", True),
     ("alphabet", False), ("Meta", False), ("PI3K", False), ("which", False), ("IL-2", False),
     ("betamax", False), ("", False)],
)  # fmt: skip
def test_greek(word, greek):
    assert has_greek(word) is greek


def test_shapes_and_lengths():
    assert word_shape("Ab-3é") == "Xx-dx" and short_shape("Xxxx") == "Xx"
    assert short_shape("aaBB11..") == "xXd."
    assert [length_bucket(n) for n in (0, 1, 4, 5, 6, 7, 9, 10, 40)] == [
        "0", "1", "4", "5-6", "5-6", "7-9", "7-9", "10+", "10+"
    ]  # fmt: skip


def test_template_groups_follow_the_token_vs_surface_split():
    token = {"w", "lw", "p1", "p4", "s2", "g2", "g3", "g4"}
    surface = {"shape", "sshape", "init_cap", "all_caps", "mixed_caps", "has_digit", "all_digits",
               "digit_and_alpha", "number", "is_punct", "has_punct", "has_hyphen", "greek", "len"}  # fmt: skip
    for tag in token:
        assert DEFAULT_FEATURE_SET.template_of(f"{tag}=x").group == GROUP_TOKEN
    for tag in surface:
        assert DEFAULT_FEATURE_SET.template_of(f"{tag}=x").group == GROUP_SURFACE
    assert DEFAULT_FEATURE_SET.template_of("col:col1[:2]=NN").group == GROUP_SURFACE
    with pytest.raises(FeatureError):
        DEFAULT_FEATURE_SET.template_of("nonsense=1")


@given(st.text(min_size=1, max_size=12), st.integers(-4, 4))
def test_feature_name_round_trip(base, offset):
    # Base names always start with a template tag, never with "+1:".
    base = "w=" + base
    assert parse_feature_name(feature_name(base, offset)) == (base, offset)


def test_padding_names():
    assert [feature_name("BOS", o) for o in (-1, -2)] == ["BOS", "-2:BOS"]
    assert [feature_name("EOS", o) for o in (1, 3)] == ["EOS", "+3:EOS"]
    assert parse_feature_name("BOS") == ("BOS", -1) and parse_feature_name("EOS") == ("EOS", 1)
    assert parse_feature_name("-1:lw=the") == ("lw=the", -1)


# --------------------------------------------------------------------------
# Windows and columns
# --------------------------------------------------------------------------


def test_window_marks_neighbours_and_sentence_ends():
    fx = FeatureExtractor(min_count=1).fit([["The", "cat", "sat"]])
    first, middle, last = token_names(fx, [["The", "cat", "sat"]])
    assert "BOS" in first and "EOS" not in first and "+1:lw=cat" in first
    assert {"-1:lw=the", "+1:lw=sat", "-1:init_cap", "lw=cat"} <= middle
    assert not {"BOS", "EOS"} & middle
    assert "EOS" in last and "-1:w=cat" in last and not any(n.startswith("+1:") for n in last)


def test_one_token_sentence_has_both_ends_and_no_neighbours():
    fx = FeatureExtractor(min_count=1).fit([["Hello"]])
    (names,) = token_names(fx, [["Hello"]])
    assert {"BOS", "EOS", "w=Hello"} <= names
    assert not any(n[0] in "+-" for n in names)


def test_wider_window_pads_every_missing_offset():
    fx = FeatureExtractor(window=2, min_count=1).fit([["a", "b", "c"]])
    a, b, c = token_names(fx, [["a", "b", "c"]])
    assert {"BOS", "-2:BOS", "+2:w=c"} <= a and "EOS" not in a
    assert {"-2:BOS", "+2:EOS", "-1:w=a", "+1:w=c"} <= b and "BOS" not in b
    assert {"EOS", "+2:EOS", "-2:w=a"} <= c


def test_window_zero_has_no_context():
    fx = FeatureExtractor(window=0, min_count=1).fit([["a", "b"]])
    for names in token_names(fx, [["a", "b"]]):
        assert names == own(names)


def test_extra_columns_become_surface_features():
    sent = Sentence(["He", "runs"], columns={"col1": ["PRP", "VBZ"], "col2": ["B-NP", "B-VP"]})
    fx = FeatureExtractor(min_count=1).fit([sent])
    assert fx.columns_ == ("col1", "col2")
    he, runs = token_names(fx, [sent])
    assert {"col:col1=PRP", "col:col1[:2]=PR", "col:col2=B-NP", "col:col2[:2]=B-", "+1:col:col1=VBZ"} <= he
    assert {"col:col1=VBZ", "col:col1[:2]=VB", "-1:col:col2[:2]=B-"} <= runs
    groups = dict(zip(fx.feature_names_, fx.feature_group_))
    assert groups["col:col1=PRP"] == GROUP_SURFACE and groups["-1:col:col1=PRP"] == GROUP_SURFACE
    assert groups["w=He"] == GROUP_TOKEN


def test_chosen_columns_and_sentences_without_them():
    with_pos = Sentence(["He", "runs"], columns={"col1": ["PRP", "VBZ"], "col2": ["x", "y"]})
    fx = FeatureExtractor(min_count=1, columns=["col1"]).fit([with_pos])
    assert fx.columns_ == ("col1",)
    assert not any(n.startswith("col:col2") for n in fx.feature_names_)
    plain = token_names(fx, [Sentence(["He", "runs"])])
    assert not any("col:" in n for names in plain for n in names)


# --------------------------------------------------------------------------
# Vocabulary: cut-off, frozen, determinism
# --------------------------------------------------------------------------

CORPUS = [["the", "cat", "sat"], ["the", "dog", "sat"], ["a", "cat"]]


def test_min_count_keeps_features_seen_often_enough():
    fx = FeatureExtractor(min_count=2).fit(CORPUS)
    names = set(fx.feature_names_)
    assert {"w=the", "w=cat", "w=sat", "+1:w=sat", "BOS", "EOS", "-1:w=the"} <= names
    assert not {"w=dog", "w=a", "+1:w=dog"} & names  # seen once
    assert "+1:w=cat" in names  # after "the" once and after "a" once: counted per occurrence
    assert "-1:w=a" not in names and "-1:w=dog" not in names
    counts = FeatureExtractor(min_count=1).fit(CORPUS)
    assert fx.n_features_ < counts.n_features_ and "w=dog" in set(counts.feature_names_)


def test_unknown_features_are_dropped_and_the_vocabulary_stays_frozen():
    fx = FeatureExtractor(min_count=1).fit(CORPUS)
    before = fx.feature_names_.copy()
    (names,) = token_names(fx, [["zebra"]])
    assert "w=zebra" not in names and {"BOS", "EOS"} <= names
    assert fx.n_features_ == len(before) and list(fx.feature_names_) == list(before)
    indptr, indices = fx.transform([["zebra", "quux"], ["the"]])
    assert indices.max() < fx.n_features_ and len(indptr) == 4


def test_fit_is_deterministic_and_fit_transform_equals_transform():
    a = FeatureExtractor().fit_transform(CORPUS * 3)
    fx = FeatureExtractor().fit(CORPUS * 3)
    b = fx.transform(CORPUS * 3)
    c = FeatureExtractor().fit(CORPUS * 3).transform(CORPUS * 3)
    for x, y in ((a, b), (b, c)):
        assert np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1])
    assert b[0].dtype == np.int64 and b[1].dtype == np.int32


@pytest.mark.parametrize(
    "params", [{}, {"window": 2, "min_count": 1}, {"feature_set": "crfsuite"}, {"hashing": True, "n_hash": 64}]
)
def test_indices_are_distinct_within_every_token(params):
    sentences = [Sentence(["IL-2", "alpha", "IL-2", ","], columns={"pos": ["NN", "NN", "NN", ","]})] * 3
    indptr, indices = FeatureExtractor(**params).fit_transform(sentences)
    for t in range(len(indptr) - 1):
        row = indices[indptr[t] : indptr[t + 1]]
        assert len(row) == len(set(row.tolist())) > 0


# --------------------------------------------------------------------------
# Serialisation and hashing
# --------------------------------------------------------------------------

SENTENCES = [
    Sentence(["Mr.", "Smith", "saw", "IL-2", "."], columns={"col1": ["NNP", "NNP", "VBD", "NN", "."]}),
    Sentence(["alpha-catenin", "binds", "IL-2", "."], columns={"col1": ["NN", "VBZ", "NN", "."]}),
    Sentence(["Smith", "saw", "1999"], columns={"col1": ["NNP", "VBD", "CD"]}),
]
NEW = [Sentence(["Mr.", "Jones", "saw", "ÉCOLE", "."], columns={"col1": ["NNP", "NNP", "VBD", "NN", "."]})]


@pytest.mark.parametrize(
    "params",
    [
        {"min_count": 1},
        {"window": 2},
        {"feature_set": "crfsuite", "min_count": 1},
        {"hashing": True, "n_hash": 1024},
    ],
)
def test_to_dict_from_dict_round_trip_gives_identical_transforms(params):
    fx = FeatureExtractor(**params).fit(SENTENCES)
    data = json.loads(json.dumps(fx.to_dict()))
    copy = FeatureExtractor.from_dict(data)
    assert copy.get_params() == fx.get_params() and copy.columns_ == fx.columns_
    for batch in (SENTENCES, NEW):
        for x, y in zip(fx.transform(batch), copy.transform(batch)):
            assert np.array_equal(x, y)
    assert np.array_equal(copy.feature_group_, fx.feature_group_)
    if not fx.hashing:
        assert list(copy.feature_names_) == list(fx.feature_names_)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.pop("vocabulary"), "missing"),
        (lambda d: d.update(format_version=99), "format"),
        (lambda d: d["params"].update(color="red"), "unknown"),
        (lambda d: d["vocabulary"].append("w=the"), "twice"),
        (lambda d: d["vocabulary"].append("+5:w=the"), "window"),
        (lambda d: d["vocabulary"].append("bogus=1"), "not a feature"),
    ],
)
def test_from_dict_refuses_damaged_data(mutate, message):
    data = FeatureExtractor(min_count=1).fit([["the", "cat"]]).to_dict()
    mutate(data)
    with pytest.raises(FeatureError, match=message):
        FeatureExtractor.from_dict(data)


def test_hashed_columns_follow_crc32_of_the_feature_name():
    n_hash = 2**10
    fx = FeatureExtractor(hashing=True, n_hash=n_hash).fit([["the"]])
    indptr, indices = fx.transform([["The", "cat"]])
    half = n_hash // 2
    # Computed by hand: token group in [0, half), surface group in [half, n_hash).
    expected = {zlib.crc32(b"lw=the") % half, zlib.crc32(b"+1:w=cat") % half, half + zlib.crc32(b"BOS") % half,
                half + zlib.crc32(b"shape=Xxx") % half}  # fmt: skip
    assert expected <= set(indices[indptr[0] : indptr[1]].tolist())
    assert fx.n_features_ == n_hash and fx.feature_names_ is None
    assert (fx.feature_group_[:half] == 0).all() and (fx.feature_group_[half:] == 1).all()
    assert zlib.crc32(b"lw=the") % half == 213  # pins the hash function itself


def test_hashing_is_the_same_in_another_process():
    code = (
        "from tagtool.core.features import FeatureExtractor\n"
        "fx = FeatureExtractor(hashing=True, n_hash=4096).fit([['x']])\n"
        "p, i = fx.transform([['Mr.', 'Smith', 'saw', 'IL-2']])\n"
        "print(p.tolist(), i.tolist())\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    fx = FeatureExtractor(hashing=True, n_hash=4096).fit([["x"]])
    p, i = fx.transform([["Mr.", "Smith", "saw", "IL-2"]])
    assert out.stdout.strip() == f"{p.tolist()} {i.tolist()}"


# --------------------------------------------------------------------------
# Settings and errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, message",
    [
        ({"feature_set": "fancy"}, "unknown feature set"),
        ({"window": -1}, "window"),
        ({"feature_set": "crfsuite", "window": 2}, "fixed window"),
        ({"min_count": 0}, "min_count"),
        ({"hashing": True, "n_hash": 7}, "n_hash"),
    ],
)
def test_bad_settings_are_refused_at_fit(params, message):
    fx = FeatureExtractor(**params)  # __init__ only stores
    with pytest.raises(FeatureError, match=message):
        fx.fit(CORPUS)


def test_unfitted_and_empty_inputs():
    with pytest.raises(NotFittedError):
        FeatureExtractor().transform(CORPUS)
    with pytest.raises(NotFittedError):
        FeatureExtractor().to_dict()
    with pytest.raises(FeatureError, match="no sentences"):
        FeatureExtractor().fit([])
    with pytest.raises(TypeError):
        FeatureExtractor().fit(["not a list of tokens"])
    indptr, indices = FeatureExtractor().fit(CORPUS).transform([])
    assert indptr.tolist() == [0] and len(indices) == 0


def test_params_scikit_learn_style():
    fx = FeatureExtractor(window=2)
    assert fx.get_params()["window"] == 2 and "window=2" in repr(fx)
    assert fx.set_params(min_count=3) is fx and fx.min_count == 3
    with pytest.raises(FeatureError):
        fx.set_params(colour="red")


def test_module_doctests():
    result = doctest.testmod(features_module)
    assert result.attempted > 0 and result.failed == 0

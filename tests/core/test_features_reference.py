"""The vectorised extractor equals a slow, obviously-correct per-token reference.

The reference builds each token's feature-name set directly from the
neighbours' base features, counts names for the cut-off with a Counter, and
spells names and padding by hand; only the per-word base features (tested on
hand-picked words in test_features.py) are shared with the code under test.
"""

import pathlib
import zlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.core.corpus import Sentence
from tagtool.core.features import (
    FeatureExtractor,
    crfsuite_column_features,
    crfsuite_word_features,
    default_column_features,
    default_word_features,
)

# The demo corpus: the first 400 sentences of CoNLL-2000 train (resources/README.md).
CONLL2000 = pathlib.Path(__file__).resolve().parents[2] / "resources" / "sample" / "conll2000-train-400.txt"
CRFSUITE_CONTEXT = {"word.lower()", "word.istitle()", "word.isupper()", "postag", "postag[:2]"}
TOKEN_TAGS = {"w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "g2", "g3", "g4",
              "word.lower()", "word[-3:]", "word[-2:]"}  # fmt: skip


def reference_names(sentences, feature_set, window, columns):
    """Per token, the set of feature names, built the slow way."""
    if feature_set == "default":
        word_fn, col_fn = default_word_features, default_column_features
        in_context = lambda base: True  # noqa: E731
    else:
        word_fn, col_fn = crfsuite_word_features, crfsuite_column_features
        in_context = lambda base: base.partition("=")[0] in CRFSUITE_CONTEXT  # noqa: E731
    out = []
    for sentence in sentences:
        n = len(sentence.tokens)
        base = [list(word_fn(w)) for w in sentence.tokens]
        for c in columns:
            if c in sentence.columns:
                for i, value in enumerate(sentence.columns[c]):
                    base[i] += col_fn(c, value)
        for i in range(n):
            names = set()
            for o in range(-window, window + 1):
                j = i + o
                if 0 <= j < n:
                    names |= {b if o == 0 else f"{o:+d}:{b}" for b in base[j] if o == 0 or in_context(b)}
                elif o == -1:
                    names.add("BOS")
                elif o == 1:
                    names.add("EOS")
                else:
                    names.add(f"{o:+d}:{'BOS' if o < 0 else 'EOS'}")
            out.append(names)
    return out


def random_corpus(seed, n_sentences, with_columns=True):
    """Sentences over hand-picked hard words and random strings (some rare, some frequent)."""
    rng = np.random.default_rng(seed)
    hard = ["Mr.", "IL-2", "alpha-catenin", "1999", "U.S.", "ÉCOLE", ",", "the", "The", "NF-kappaB", "a", "I",
            "banana", "McDonald", "1,000", "α-actin", "--", "$", "%", "<", "x>", "-1:", "BOS",
            "w=x"]  # fmt: skip
    alphabet = list("abcdeXYZ019.-,αé")
    pool = hard + ["".join(rng.choice(alphabet, size=rng.integers(1, 9))) for _ in range(120)]
    tags = ["NN", "NNP", "VBZ", "DT", ",", "JJ", "CD", "X"]
    sentences = []
    for _ in range(n_sentences):
        n = int(rng.integers(1, 14))
        words = [pool[k] for k in rng.zipf(1.6, size=n) % len(pool)]
        columns = {}
        if with_columns and rng.random() < 0.9:  # some sentences lack the column
            columns["col1"] = [tags[k] for k in rng.integers(0, len(tags), size=n)]
        if with_columns and rng.random() < 0.5:
            columns["col2"] = [f"B-{tags[k]}" for k in rng.integers(0, len(tags), size=n)]
        sentences.append(Sentence(words, columns=columns))
    return sentences


def read_conll2000(n_sentences):
    sentences, tokens, pos = [], [], []
    with CONLL2000.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                word, tag, _ = line.split()
                tokens.append(word)
                pos.append(tag)
            elif tokens:
                sentences.append(Sentence(tokens, columns={"col1": pos}))
                tokens, pos = [], []
                if len(sentences) == n_sentences:
                    break
    return sentences


def fast_names(fx, sentences):
    indptr, indices = fx.transform(sentences)
    return [set(fx.feature_names_[indices[indptr[t] : indptr[t + 1]]]) for t in range(len(indptr) - 1)]


def check_against_reference(train, test, params):
    fx = FeatureExtractor(**params)
    fitted = fx.fit_transform(train)
    feature_set, window = params.get("feature_set", "default"), params.get("window", 1)
    ref_train = reference_names(train, feature_set, window, fx.columns_)
    counts = Counter(name for names in ref_train for name in names)
    vocabulary = {name for name, c in counts.items() if c >= params.get("min_count", 2)}
    assert set(fx.feature_names_) == vocabulary
    assert len(fx.feature_names_) == fx.n_features_
    assert fast_names(fx, train) == [names & vocabulary for names in ref_train]
    assert np.array_equal(fitted[0], fx.transform(train)[0])
    ref_test = reference_names(test, feature_set, window, fx.columns_)
    assert fast_names(fx, test) == [names & vocabulary for names in ref_test]
    groups = dict(zip(fx.feature_names_, fx.feature_group_))
    for name, group in groups.items():
        base = name.split(":", 1)[1] if name[0] in "+-" else name
        assert group == (0 if base.partition("=")[0] in TOKEN_TAGS else 1), name


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"min_count": 1},
        {"window": 2, "min_count": 3},
        {"window": 0},
        {"columns": ["col2"]},
        {"feature_set": "crfsuite", "min_count": 1},
        {"feature_set": "crfsuite", "pos_column": "col2"},
    ],
)
def test_fast_path_equals_reference_on_random_corpus(params):
    check_against_reference(random_corpus(1, 300), random_corpus(2, 60), params)


@pytest.mark.parametrize("params", [{}, {"feature_set": "crfsuite", "min_count": 1}])
def test_fast_path_equals_reference_on_conll2000(params):
    sentences = read_conll2000(400)
    check_against_reference(sentences[:300], sentences[300:], params)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(["a", "B", "IL-2", "α", ",", "1999", "U.S."]), min_size=1, max_size=5),
             min_size=1, max_size=6),
    st.integers(0, 3),
    st.integers(1, 3),
)  # fmt: skip
def test_fast_path_equals_reference_property(token_lists, window, min_count):
    sentences = [Sentence(tokens) for tokens in token_lists]
    check_against_reference(sentences, sentences[::-1], {"window": window, "min_count": min_count})


def test_hashing_equals_hashed_reference_names():
    sentences = random_corpus(3, 120)
    n_hash = 2**12
    half = n_hash // 2
    fx = FeatureExtractor(hashing=True, n_hash=n_hash).fit(sentences)
    indptr, indices = fx.transform(sentences)
    ref = reference_names(sentences, "default", 1, fx.columns_)
    for t, names in enumerate(ref):
        expected = set()
        for name in names:
            base = name.split(":", 1)[1] if name[0] in "+-" and ":" in name else name
            group = 0 if base.partition("=")[0] in TOKEN_TAGS else 1
            expected.add(group * half + zlib.crc32(name.encode("utf-8")) % half)
        assert set(indices[indptr[t] : indptr[t + 1]].tolist()) == expected

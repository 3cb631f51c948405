"""The "crfsuite" feature set is exactly the sklearn-crfsuite tutorial's word2features.

``word2features`` below is a direct transcription of the tutorial
(https://sklearn-crfsuite.readthedocs.io/en/latest/tutorial.html);
``crfsuite_attributes`` turns its dict into the attribute names
python-crfsuite hands to CRFsuite: ``{"k": "v"}`` → ``k=v`` (weight 1),
``{"k": True}`` → ``k`` (weight 1), ``{"k": False}`` → weight 0 (no feature),
``{"k": 1.0}`` → ``k`` (weight 1).
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tagtool.core.corpus import Sentence
from tagtool.core.features import FeatureExtractor


def word2features(sent, i):
    word = sent[i][0]
    postag = sent[i][1]

    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "postag": postag,
        "postag[:2]": postag[:2],
    }
    if i > 0:
        word1 = sent[i - 1][0]
        postag1 = sent[i - 1][1]
        features.update(
            {
                "-1:word.lower()": word1.lower(),
                "-1:word.istitle()": word1.istitle(),
                "-1:word.isupper()": word1.isupper(),
                "-1:postag": postag1,
                "-1:postag[:2]": postag1[:2],
            }
        )
    else:
        features["BOS"] = True

    if i < len(sent) - 1:
        word1 = sent[i + 1][0]
        postag1 = sent[i + 1][1]
        features.update(
            {
                "+1:word.lower()": word1.lower(),
                "+1:word.istitle()": word1.istitle(),
                "+1:word.isupper()": word1.isupper(),
                "+1:postag": postag1,
                "+1:postag[:2]": postag1[:2],
            }
        )
    else:
        features["EOS"] = True

    return features


def crfsuite_attributes(features, with_pos=True):
    out = set()
    for key, value in features.items():
        if not with_pos and key.removeprefix("-1:").removeprefix("+1:").startswith("postag"):
            continue  # the tutorial without a POS column
        if isinstance(value, bool):
            if value:
                out.add(key)
        elif isinstance(value, str):
            out.add(f"{key}={value}")
        elif value == 1.0:
            out.add(key)
    return out


def our_names(fx, sentences):
    indptr, indices = fx.transform(sentences)
    return [set(fx.feature_names_[indices[indptr[t] : indptr[t + 1]]]) for t in range(len(indptr) - 1)]


def tutorial_names(sentences, pos_column, with_pos=True):
    out = []
    for s in sentences:
        pos = s.columns.get(pos_column, ("",) * len(s))
        sent = list(zip(s.tokens, pos))
        out += [crfsuite_attributes(word2features(sent, i), with_pos) for i in range(len(sent))]
    return out


SENTENCES = [
    Sentence(
        ["Mr.", "Smith", "SAW", "1999", "U.S.", "ÉCOLE", ","],
        columns={"col1": ["NNP", "NNP", "VBD", "CD", "NNP", "NN", ","]},
    ),
    Sentence(["Hello"], columns={"col1": ["UH"]}),
    Sentence(["IL-2", "binds"], columns={"col1": ["NN", "VBZ"]}),
]  # fmt: skip


def test_exact_tutorial_features_per_token():
    fx = FeatureExtractor("crfsuite", min_count=1).fit(SENTENCES)
    assert fx.columns_ == ("col1",)
    assert our_names(fx, SENTENCES) == tutorial_names(SENTENCES, "col1")


def test_spot_checks_of_names():
    fx = FeatureExtractor("crfsuite", min_count=1).fit(SENTENCES)
    names = our_names(fx, SENTENCES)
    assert {"bias", "BOS", "word.lower()=mr.", "word[-3:]=Mr.", "word[-2:]=r.", "word.istitle()",
            "postag=NNP", "postag[:2]=NN", "+1:word.lower()=smith", "+1:word.istitle()", "+1:postag=NNP",
            "+1:postag[:2]=NN"} == names[0]  # fmt: skip
    saw = names[2]  # "+1:word.isdigit()" is not in the tutorial: isdigit is for the current token only
    assert {"word.isupper()", "-1:word.istitle()"} <= saw and "+1:word.isdigit()" not in saw
    assert {"BOS", "EOS", "bias"} <= names[7] and not any(n[0] in "+-" for n in names[7])


def test_without_a_pos_column_the_pos_features_are_absent():
    plain = [Sentence(s.tokens) for s in SENTENCES]
    fx = FeatureExtractor("crfsuite", min_count=1).fit(plain)
    assert fx.columns_ == ()
    assert our_names(fx, plain) == tutorial_names(plain, None, with_pos=False)


def test_pos_column_is_configurable():
    sentences = [Sentence(s.tokens, columns={"chunk": ["B-NP"] * len(s), "tag": s.columns["col1"]}) for s in SENTENCES]
    fx = FeatureExtractor("crfsuite", min_count=1, pos_column="tag").fit(sentences)
    assert our_names(fx, sentences) == tutorial_names(sentences, "tag")
    first = FeatureExtractor("crfsuite", min_count=1).fit(sentences)  # default: the first extra column
    assert first.columns_ == ("chunk",) and "postag=B-NP" in set(first.feature_names_)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.text(min_size=1, max_size=6), st.sampled_from(["NN", "VBZ", "DT", "."])),
            min_size=1,
            max_size=6,
        ),
        min_size=1,
        max_size=5,
    )
)
def test_tutorial_equivalence_property(raw):
    sentences = [Sentence([w for w, _ in s], columns={"pos": [p for _, p in s]}) for s in raw]
    fx = FeatureExtractor("crfsuite", min_count=1).fit(sentences)
    assert our_names(fx, sentences) == tutorial_names(sentences, "pos")


def test_groups_of_the_crfsuite_set():
    fx = FeatureExtractor("crfsuite", min_count=1).fit(SENTENCES)
    groups = dict(zip(fx.feature_names_, fx.feature_group_.tolist()))
    assert groups["word.lower()=smith"] == groups["-1:word.lower()=mr."] == groups["word[-3:]=Mr."] == 0
    assert groups["bias"] == groups["postag=NNP"] == groups["word.istitle()"] == groups["BOS"] == 1


@pytest.mark.parametrize("window", [0, 2])
def test_the_crfsuite_window_is_fixed(window):
    from tagtool.core.features import FeatureError

    with pytest.raises(FeatureError, match="fixed window"):
        FeatureExtractor("crfsuite", window=window).fit(SENTENCES)

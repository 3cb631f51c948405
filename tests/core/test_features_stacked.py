"""Stacked feature sets (``"crfsuite+default"``) and the ``"feature-sets"`` view split."""

import json
import pathlib

import numpy as np
import pytest

from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.views import ViewSplit, ViewSplitError
from tagtool.learn import make_learner
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tagtool.tagger.model import load_tagger

DATA = pathlib.Path(__file__).parents[1] / "data" / "conll2002_esp_train_head.txt"


@pytest.fixture(scope="module")
def sentences():
    return list(read_corpus(DATA))


def rows(indptr, indices, names):
    return [sorted(names[indices[indptr[t] : indptr[t + 1]]]) for t in range(len(indptr) - 1)]


def test_a_stack_is_its_parts_side_by_side(sentences):
    fit, other = sentences[:60], sentences[60:]
    stacked = FeatureExtractor(feature_set="crfsuite+default").fit(fit)
    parts = [FeatureExtractor(feature_set="crfsuite").fit(fit), FeatureExtractor().fit(fit)]
    assert stacked.n_features_ == sum(p.n_features_ for p in parts)
    assert np.array_equal(stacked.feature_family_, np.repeat([0, 1], [p.n_features_ for p in parts]))
    got = rows(*stacked.transform(other), stacked.feature_names_)
    per_part = [
        rows(*part.transform(other), np.array([f"{part.feature_set}/{n}" for n in part.feature_names_]))
        for part in parts
    ]
    assert got == [sorted(a + b) for a, b in zip(*per_part)]
    # columns are distinct within every token and stay in range
    indptr, indices = stacked.transform(other)
    for t in range(len(indptr) - 1):
        cols = indices[indptr[t] : indptr[t + 1]]
        assert len(set(cols.tolist())) == len(cols) and cols.max() < stacked.n_features_


def test_stacked_serialisation_round_trip_through_json(sentences):
    fx = FeatureExtractor(feature_set="crfsuite+default", window=2, min_count=1).fit(sentences[:40])
    back = FeatureExtractor.from_dict(json.loads(json.dumps(fx.to_dict())))
    assert [p.window for p in back._parts] == [1, 2]  # crfsuite keeps its fixed window
    for a, b in zip(fx.transform(sentences[40:]), back.transform(sentences[40:])):
        assert np.array_equal(a, b)
    assert np.array_equal(back.feature_names_, fx.feature_names_)
    broken = fx.to_dict()
    broken["parts"] = broken["parts"][::-1]
    with pytest.raises(FeatureError, match="do not match"):
        FeatureExtractor.from_dict(broken)
    del broken["parts"]
    with pytest.raises(FeatureError, match="one serialised part per set"):
        FeatureExtractor.from_dict(broken)


@pytest.mark.parametrize("name", ["crfsuite+crfsuite", "crfsuite+nope", "crfsuite+"])
def test_bad_stacks_are_refused(name, sentences):
    with pytest.raises(FeatureError, match="stacked feature set"):
        FeatureExtractor(feature_set=name).fit(sentences[:5])


def test_no_hashing_for_stacks(sentences):
    with pytest.raises(FeatureError, match="hashing"):
        FeatureExtractor(feature_set="crfsuite+default", hashing=True).fit(sentences[:5])


def test_feature_sets_split_gives_each_set_one_view(sentences):
    fx = FeatureExtractor(feature_set="crfsuite+default").fit(sentences[:40])
    views = ViewSplit("feature-sets").assign(fx)
    names = fx.feature_names_
    assert all(n.startswith("crfsuite/") for n in names[views == 0])
    assert all(n.startswith("default/") for n in names[views == 1])
    single = FeatureExtractor().fit(sentences[:40])
    with pytest.raises(ViewSplitError, match="two feature sets"):
        ViewSplit("feature-sets").assign(single)
    # the spelling/context split still reads offsets through the set prefix
    sc = ViewSplit("spelling-context").assign(fx)
    base = [n.split("/", 1)[1] for n in names]
    context = np.array([b[:1] in "+-" or b in ("BOS", "EOS") for b in base])
    assert context.any() and (~context).any()
    assert np.array_equal(sc, context.astype(np.int8))


def test_two_view_tagger_on_stacked_sets_round_trips(sentences, tmp_path):
    learner = make_learner("mv-perceptron", max_iter=3)
    tagger = train_tagger(
        sentences[:40],
        learner,
        features={"feature_set": "crfsuite+default"},
        views={"kind": "feature-sets"},
        unlabeled=sentences[40:60],
    )
    path = tmp_path / "stacked.tagger"
    tagger.save(path)
    back = load_tagger(path)
    test = sentences[60:]  # with their POS column, which the tagger reads
    assert back.tag(test) == tagger.tag(test)


def test_a_set_named_twice_is_said_once_in_both_views():
    from tagtool.core.features.stacking import part_prefixes, stack_text

    assert stack_text("crfsuite+default+gaz+gaz") == "crfsuite+default+gaz (gaz in both views)"
    assert stack_text("crfsuite+default") == "crfsuite+default"
    assert part_prefixes(["crfsuite", "gaz", "default", "gaz"]) == ["crfsuite", "gaz", "default", "gaz#2"]

"""View splits: disjoint, covering, reproducible, stable under vocabulary growth."""

import json

import numpy as np
import pytest

from tagtool.core.corpus import Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.views import VIEW_SPLIT_KINDS, ViewSplit, ViewSplitError

WORDS = "the cat sat on the mat IL-2 binds alpha-catenin in 1999 , U.S. Mr. Smith said".split()


def corpus(n_sentences, seed=0):
    rng = np.random.default_rng(seed)
    return [Sentence([str(w) for w in rng.choice(WORDS, size=rng.integers(1, 9))]) for _ in range(n_sentences)]


@pytest.fixture(scope="module")
def fitted():
    return FeatureExtractor(min_count=1).fit(corpus(50))


@pytest.mark.parametrize(
    "kind", sorted(set(VIEW_SPLIT_KINDS) - {"feature-sets", "lexical-distributional"})
)  # stacks: test_features_stacked, tests/test_represent.py
def test_every_split_is_a_partition_with_two_non_empty_views(kind, fitted):
    views = ViewSplit(kind, seed=3).assign(fitted)
    assert views.dtype == np.int8 and views.shape == (fitted.n_features_,)
    assert set(np.unique(views).tolist()) == {0, 1}  # covers all features, each in exactly one view


def test_token_surface_follows_the_template_groups(fitted):
    views = ViewSplit("token-surface").assign(fitted)
    assert np.array_equal(views, fitted.feature_group_)
    names = dict(zip(fitted.feature_names_, views.tolist()))
    assert names["w=cat"] == names["-1:lw=the"] == names["g3=<ca"] == 0
    assert names["shape=xxx"] == names["greek"] == names["BOS"] == 1


def test_odd_even_alternates_by_column_index(fitted):
    views = ViewSplit("odd-even").assign(fitted)
    assert views[0] == 0 and views[1] == 1  # the paper's 1st (odd) feature goes to the first view
    assert np.array_equal(views, np.arange(fitted.n_features_) % 2)


def test_random_is_reproducible_and_depends_on_the_seed(fitted):
    a = ViewSplit("random", seed=7).assign(fitted)
    assert np.array_equal(a, ViewSplit("random", seed=7).assign(fitted))
    b = ViewSplit("random", seed=8).assign(fitted)
    assert 0.3 < np.mean(a != b) < 0.7  # seeds give unrelated coins
    assert 0.4 < a.mean() < 0.6  # fair coin on ~900 features (sd 0.017)


def test_random_split_is_stable_when_the_vocabulary_grows():
    small = FeatureExtractor(min_count=1).fit(corpus(5, seed=1))
    large = FeatureExtractor(min_count=1).fit(corpus(5, seed=1) + corpus(80, seed=2))
    assert large.n_features_ > small.n_features_
    split = ViewSplit("random", seed=11)
    in_small = dict(zip(small.feature_names_, split.assign(small).tolist()))
    in_large = dict(zip(large.feature_names_, split.assign(large).tolist()))
    assert all(in_large[name] == view for name, view in in_small.items())
    # The column of a name differs between the two vocabularies; its view does not.
    assert any(list(small.feature_names_).index(n) != list(large.feature_names_).index(n) for n in in_small)


def test_random_never_leaves_a_view_empty():
    for seed in range(64):  # with two features, half of the seeds would put both on one side
        views = ViewSplit("random", seed=seed).views(2, names=["a", "b"])
        assert sorted(views.tolist()) == [0, 1]


def test_hashing_extractors_can_be_split():
    fx = FeatureExtractor(hashing=True, n_hash=256).fit(corpus(5))
    for kind in sorted(set(VIEW_SPLIT_KINDS) - {"spelling-context", "feature-sets", "lexical-distributional"}):
        views = ViewSplit(kind, seed=1).assign(fx)
        assert views.shape == (256,) and set(views.tolist()) == {0, 1}
    assert np.array_equal(ViewSplit("token-surface").assign(fx), np.repeat([0, 1], 128))
    with pytest.raises(ViewSplitError, match="needs feature names"):
        ViewSplit("spelling-context").assign(fx)  # hashed columns carry no offset
    with pytest.raises(ViewSplitError, match="needs feature names"):
        ViewSplit("lexical-distributional").assign(fx)


def test_spelling_context_puts_the_token_itself_in_view_0_and_its_neighbours_in_view_1(fitted):
    views = dict(zip(fitted.feature_names_, ViewSplit("spelling-context").assign(fitted).tolist()))
    assert views["w=cat"] == views["shape=xxx"] == views["g3=<ca"] == 0
    assert views["-1:lw=the"] == views["+1:w=sat"] == views["BOS"] == views["EOS"] == 1
    window0 = FeatureExtractor(min_count=1, window=0).fit(corpus(5))
    names = [n for n in window0.feature_names_ if n not in ("BOS", "EOS")]
    with pytest.raises(ViewSplitError, match="context view empty"):
        ViewSplit("spelling-context").views(len(names), names=names)


def test_errors():
    with pytest.raises(ViewSplitError, match="unknown view split"):
        ViewSplit("halves")
    with pytest.raises(ViewSplitError, match="at least two"):
        ViewSplit("odd-even").views(1)
    with pytest.raises(ViewSplitError, match="surface view empty"):
        ViewSplit("token-surface").views(3, groups=np.zeros(3, np.int8))
    with pytest.raises(ViewSplitError, match="group"):
        ViewSplit("token-surface").views(3)
    with pytest.raises(ViewSplitError, match="seed"):
        ViewSplit("random", seed="1")


def test_serialisation_round_trip():
    split = ViewSplit("random", seed=42)
    assert ViewSplit.from_dict(json.loads(json.dumps(split.to_dict()))) == split
    with pytest.raises(ViewSplitError):
        ViewSplit.from_dict({"seed": 1})

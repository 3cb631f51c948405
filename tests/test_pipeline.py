"""train_tagger and the KEY=VALUE settings, with a small counting learner.

The counting learner is a test double for the plumbing (features, views,
warm start, notes, cancel); every real learner goes through the same path
in ``tests/learn/test_all_learners.py``.
"""

import pathlib

import numpy as np
import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.labels import LabelSet
from tagtool.core.params import Param, ParamTable, SettingError
from tagtool.core.views import ViewSplit
from tagtool.errors import Cancelled
from tagtool.learn import Learner
from tagtool.learn.chain import ChainModel
from tagtool.services.pipeline import train_tagger
from tagtool.services.settings import parse_settings
from tagtool.services.training_setup import TrainingSetupError, feature_column_warnings
from tagtool.store.formats import read_corpus

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


class CountLearner(Learner):
    """Emission weight = allowed-set mass of a feature per label (a naive scorer)."""

    name = "count"
    uses = frozenset({"full", "partial"})
    default_features = {"min_count": 1, "window": 0}
    params = ParamTable(
        Param("scale", float, 1.0, "weight of a count", low=0.0),
        Param("passes", int, 1, "passes", low=1),
        owner="count",
    )

    def __init__(self, scale: float = 1.0, passes: int = 1):
        self.scale = scale
        self.passes = passes

    def _fit(self, snapshot, warm_start, monitor):
        n_views = 2 if self.two_view else 1
        model = warm_start or ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views)
        tokens = np.repeat(np.arange(snapshot.n_tokens), np.diff(snapshot.feat_indptr))
        mass = snapshot.allowed / snapshot.allowed.sum(axis=1, keepdims=True)
        for p in range(self.passes):
            np.add.at(model.weights, snapshot.feat_indices, self.scale * mass[tokens])
            monitor.report((p + 1) / self.passes, "counting")
        model.info["warm_started"] = warm_start is not None
        return model


class TwoViewCountLearner(CountLearner):
    name = "count2"
    uses = frozenset({"full", "partial", "none"})
    two_view = True
    default_features = {}


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(DATA)


def _accuracy(tagger, sentences):
    pred = tagger.tag(sentences)
    gold = [[next(iter(a)) for a in s.annotations] for s in sentences]
    return np.mean([p == g for ps, gs in zip(pred, gold) for p, g in zip(ps, gs)])


def test_features_are_fitted_on_labeled_and_unlabeled_text(corpus):
    train, extra = corpus.sentences[:50], corpus.sentences[50:]
    tagger = train_tagger(Corpus.from_sentences(train, corpus.labels), CountLearner(), unlabeled=extra)
    words_only_in_extra = {w for s in extra for w in s.tokens} - {w for s in train for w in s.tokens}
    names = set(tagger.extractor.feature_names_)
    assert words_only_in_extra and all(f"w={w}" in names for w in words_only_in_extra)
    # CountLearner ignores unlabeled sentences, and says so
    assert any("unlabeled" in note for note in tagger.model.info["notes"])
    assert tagger.model.info["sentences"] == {"full": 50, "partial": 0, "none": 50}
    assert _accuracy(tagger, extra) > 0.5  # a naive scorer, but far above the majority label (~30 %)


def test_learner_default_features_apply_under_the_callers(corpus):
    tagger = train_tagger(corpus, CountLearner())
    assert (tagger.extractor.min_count, tagger.extractor.window) == (1, 0)
    tagger = train_tagger(corpus, CountLearner(), features={"window": 2})
    assert (tagger.extractor.min_count, tagger.extractor.window) == (1, 2)
    with pytest.raises(SettingError, match="unknown features setting 'features.colour'"):
        train_tagger(corpus, CountLearner(), features={"colour": "red"})


def test_views_default_random_for_two_view_learners_and_none_for_the_others(corpus):
    one = train_tagger(corpus, CountLearner())
    assert one.view_split is None and not one.model.feature_view.any() and one.model.n_views == 1
    two = train_tagger(corpus, TwoViewCountLearner(), seed=3)
    assert two.view_split == ViewSplit("random", 3) and two.model.n_views == 2
    np.testing.assert_array_equal(two.model.feature_view, ViewSplit("random", 3).assign(two.extractor))
    odd = train_tagger(corpus, TwoViewCountLearner(), views={"kind": "odd-even"})
    np.testing.assert_array_equal(odd.model.feature_view, np.arange(odd.model.n_features) % 2)
    with pytest.raises(SettingError, match="unknown views setting 'views.colour'"):
        train_tagger(corpus, TwoViewCountLearner(), views={"colour": 1})


def test_partial_labels_reach_the_learner_as_allowed_sets(corpus):
    labels = corpus.labels
    first = corpus.sentences[0]
    partial = first.with_annotations([set(a) | {"O"} for a in first.annotations])
    learner = CountLearner()
    tagger = train_tagger(Corpus.from_sentences([partial], labels), learner)
    assert tagger.model.info["sentences"]["partial"] == 1
    # each token's mass splits between gold and O (1/2 each) unless gold is O
    w_feature = tagger.extractor.feature_names_.tolist().index(f"w={first.tokens[0]}")
    row = tagger.model.weights[w_feature]
    gold = next(iter(first.annotations[0]))
    assert row[labels.index(gold)] == pytest.approx(0.5) and row[labels.index("O")] == pytest.approx(0.5)


def test_warm_start_reuses_features_and_model(corpus):
    first = train_tagger(Corpus.from_sentences(corpus.sentences[:30], corpus.labels), CountLearner())
    learner = CountLearner()
    second = train_tagger(corpus, learner, warm_start=first)
    assert second.model.info["warm_started"] and second.extractor is first.extractor
    assert second.model.n_features == first.model.n_features
    cold = train_tagger(corpus, CountLearner(), features=first.extractor)
    # counts add up: warm = first 30 sentences counted twice + the rest once
    again = train_tagger(
        Corpus.from_sentences(corpus.sentences[:30], corpus.labels), CountLearner(), features=first.extractor
    )
    np.testing.assert_allclose(second.model.weights, cold.model.weights + again.model.weights)
    np.testing.assert_array_equal(first.model.weights, again.model.weights)  # never modified in place


def test_warm_start_with_a_new_label_is_a_cold_start_with_a_note(corpus):
    small = Corpus.from_sentences(
        corpus.sentences[:5], LabelSet.from_observed(n for s in corpus.sentences[:5] for a in s.annotations for n in a)
    )
    first = train_tagger(small, CountLearner())
    learner = CountLearner()
    second = train_tagger(corpus, learner, warm_start=first)
    assert not second.model.info["warm_started"]
    assert any("warm start ignored" in n for n in second.model.info["notes"])
    with pytest.raises(TrainingSetupError, match="warm start keeps"):
        train_tagger(corpus, CountLearner(), warm_start=first, features={"min_count": 1})


def test_cancel_and_progress(corpus):
    reports = []
    train_tagger(corpus, CountLearner(passes=3), progress=lambda f, m: reports.append((f, m)))
    assert reports[0] == (0.0, "extracting features") and reports[-1][0] == 1.0
    with pytest.raises(Cancelled):
        train_tagger(corpus, CountLearner(), should_stop=lambda: True)


def test_no_sentences_or_no_labels_is_a_clear_error(corpus):
    with pytest.raises(TrainingSetupError, match="no sentences"):
        train_tagger([], CountLearner())
    unlabeled = Corpus.from_sentences([s.unlabeled() for s in corpus.sentences[:3]], LabelSet.empty())
    with pytest.raises(TrainingSetupError, match="no labels"):
        train_tagger(unlabeled, CountLearner())


def test_learner_by_registry_name(corpus):
    from tagtool.learn import available_learners

    if "hmm" not in available_learners():
        pytest.skip("hmm not available")
    tagger = train_tagger(corpus, "hmm")
    assert tagger.learner == "hmm" and _accuracy(tagger, corpus.sentences) > 0.8


# ---------------------------------------------------------------------------
# --set KEY=VALUE


def test_settings_are_split_and_typed_by_their_tables():
    s = parse_settings(
        CountLearner,
        [
            "scale=2.5",
            "learner.passes=3",
            "features.min_count=1",
            "features.feature_set=crfsuite",
            "features.hashing=yes",
            "features.columns=col1,col2",
            "features.pos_column=none",
            "views.kind=odd-even",
            "views.seed=7",
        ],
    )
    assert s.params == {"scale": 2.5, "passes": 3}
    assert s.features == {
        "min_count": 1,
        "feature_set": "crfsuite",
        "hashing": True,
        "columns": ["col1", "col2"],
        "pos_column": None,
    }
    assert s.views == {"kind": "odd-even", "random_state": 7}, "views.seed is read as views.random_state"
    assert isinstance(s.params["passes"], int) and isinstance(s.params["scale"], float)


@pytest.mark.parametrize(
    ("pair", "message"),
    [
        ("scale", "KEY=VALUE"),
        ("=3", "KEY=VALUE"),
        ("colour=red", "unknown count setting 'colour' .known: scale, passes"),
        ("features.colour=red", "unknown features setting 'features.colour'"),
        ("views.colour=1", "unknown views setting 'views.colour'"),
        ("passes=two", "count: passes: expected an int in \\[1, inf\\), got 'two'"),
        ("scale=fast", "count: scale: expected a number"),
        ("features.hashing=maybe", "features.hashing: expected true or false, got 'maybe'"),
        ("passes=none", "count: passes: expected an int in \\[1, inf\\), got 'none'"),
    ],
)
def test_bad_settings_are_named(pair, message):
    with pytest.raises(SettingError, match=message):
        parse_settings(CountLearner, [pair])


def test_extractor_instance_is_used_as_given(corpus):
    fx = FeatureExtractor(min_count=3).fit(corpus)
    tagger = train_tagger(Corpus.from_sentences(corpus.sentences[:10], corpus.labels), CountLearner(), features=fx)
    assert tagger.extractor is fx
    sentence = Sentence(("never", "seen"), columns={"col1": ("XX", "YY")})  # the tagger reads col1
    assert len(tagger.tag([sentence])[0]) == 2


# ---------------------------------------------------------------------------
# feature columns: inputs, not answers; the tagger records what it reads

UD = pathlib.Path(__file__).parent / "data" / "ud_en_ewt_train_head.conllu"


def test_conllu_training_reads_no_gold_field_unless_named():
    corpus = read_corpus(UD)
    tagger = train_tagger(corpus, CountLearner())
    assert tagger.extractor.columns_ == () and tagger.input_columns == {"required": [], "check": None}
    named = train_tagger(corpus, CountLearner(), features={"columns": ["xpos"]})
    assert named.extractor.columns_ == ("xpos",) and named.input_columns["required"] == ["xpos"]


class NeverFitted(CountLearner):
    def _fit(self, snapshot, warm_start, monitor):
        raise AssertionError("the learner ran")


def test_an_unknown_feature_column_stops_training_before_the_learner_runs():
    with pytest.raises(FeatureError, match=r"unknown column\(s\) 'pos' \(columns of the training data: lemma, xpos"):
        train_tagger(read_corpus(UD), NeverFitted(), features={"columns": ["pos"]})


def test_feature_column_warnings_name_the_annotation_layers():
    assert feature_column_warnings({"columns": ["col1"]}) == []
    assert feature_column_warnings(None) == []
    warnings = feature_column_warnings({"columns": ["xpos", "col1"], "pos_column": "upos"})
    assert [w.split("'")[1] for w in warnings] == ["xpos", "upos"]


def test_tagger_records_its_input_columns_and_the_loss_without_them(corpus):
    tagger = train_tagger(corpus, CountLearner())
    record = tagger.input_columns
    assert record["required"] == ["col1"]
    check = record["check"]
    assert check["sentences"] == 100 and check["tokens"] == sum(len(s) for s in corpus)
    assert 0.0 <= check["accuracy_without"]["col1"] < check["accuracy"] <= 1.0

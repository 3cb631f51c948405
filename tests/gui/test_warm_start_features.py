"""A warm start continues a model only when a cold start would fit the same feature set."""

from types import SimpleNamespace

from tagtool.core.features.gazetteers import Gazetteers
from tagtool.gui.warm_start import can_warm_start, cold_feature_set, cold_features

GAZ = Gazetteers({"PER": [["Ann", "Lee"]]}, {"PER": "people.txt"})
LABELS = ("O", "B-PER", "I-PER")


def model_in_use(feature_set: str, gazetteers=None):
    extractor = SimpleNamespace(feature_set=feature_set, gazetteers=gazetteers, vectors=None, representations=None)
    return SimpleNamespace(
        learner="mv-perceptron", params={}, tagger=SimpleNamespace(extractor=extractor, labels=LABELS)
    )


def test_a_model_with_the_cold_starts_feature_set_is_continued():
    features = cold_features("mv-perceptron", None, [], gazetteers=GAZ)
    assert cold_feature_set("mv-perceptron", features) == "crfsuite+default+gaz+gaz"
    result = model_in_use("crfsuite+default+gaz+gaz", GAZ)
    assert can_warm_start(result, "mv-perceptron", {}, LABELS, gazetteers=GAZ, features=features)


def test_a_model_of_an_older_feature_rule_starts_afresh():
    # stored by a version that gave two-view learners one dictionary copy: same dictionaries, other sets
    features = cold_features("mv-perceptron", None, [], gazetteers=GAZ)
    result = model_in_use("crfsuite+default+gaz", GAZ)
    assert not can_warm_start(result, "mv-perceptron", {}, LABELS, gazetteers=GAZ, features=features)


def test_without_knowledge_the_learners_default_set_is_compared():
    assert cold_feature_set("mv-perceptron", None) == "crfsuite+default"
    assert can_warm_start(model_in_use("crfsuite+default"), "mv-perceptron", {}, LABELS)
    assert not can_warm_start(model_in_use("default"), "mv-perceptron", {}, LABELS)

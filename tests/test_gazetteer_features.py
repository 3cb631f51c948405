"""The ``gaz`` feature set: dictionary matches as token features, in the extractor and the tagger file."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from tagtool.core.corpus import Sentence
from tagtool.core.features import FeatureError, FeatureExtractor
from tagtool.core.features.gazetteers import Gazetteers
from tagtool.services.pipeline import train_tagger
from tagtool.services.training_setup import TrainingSetupError, default_view_kind, with_gazetteers
from tagtool.tagger.file_format import GAZETTEERS_MEMBER, TaggerFileError
from tagtool.tagger.model import load_tagger

GAZ = Gazetteers({"PER": [["Ann", "Lee"], ["bob"]], "LOC": [["Paris"]]}, {"PER": "people.txt", "LOC": "places.txt"})


def sentence(text: str, labels: str = "") -> Sentence:
    tokens = text.split()
    if not labels:
        return Sentence(tokens)
    return Sentence(tokens, [frozenset((n,)) for n in labels.split()])


TRAIN = [
    sentence("Ann Lee lives in Paris", "B-PER I-PER O O B-LOC"),
    sentence("Bob went to Paris", "B-PER O O B-LOC"),
    sentence("the cat sat", "O O O"),
    sentence("Ann Lee and Bob met", "B-PER I-PER O B-PER O"),
] * 3


def names_of(fx, tokens, t):
    indptr, indices = fx.transform([tokens])
    return set(fx.feature_names_[indices[indptr[t] : indptr[t + 1]]])


def test_gaz_features_with_position_and_window_copies():
    fx = FeatureExtractor("gaz", window=1, min_count=1, gazetteers=GAZ).fit([s.tokens for s in TRAIN])
    tokens = "yesterday Ann Lee saw BOB in Paris".split()
    assert names_of(fx, tokens, 1) == {"g=PER:B", "+1:g=PER:I"}
    assert names_of(fx, tokens, 2) == {"g=PER:I", "-1:g=PER:B"}
    assert "g=PER:B" in names_of(fx, tokens, 4)  # "bob" written in lower case matches any case
    assert names_of(fx, tokens, 6) == {"g=LOC:B", "EOS"}


def test_gaz_stacks_with_other_sets_and_round_trips():
    fx = FeatureExtractor("crfsuite+default+gaz", min_count=1, gazetteers=GAZ)
    fx.fit(TRAIN)
    assert any(n.startswith("gaz/g=PER") for n in fx.feature_names_)
    assert set(np.unique(fx.feature_family_).tolist()) == {0, 1, 2}
    data = json.loads(json.dumps(fx.to_dict()))
    again = FeatureExtractor.from_dict(data, gazetteers=Gazetteers.from_json(json.loads(json.dumps(GAZ.to_json()))))
    for a, b in zip(fx.transform(TRAIN), again.transform(TRAIN)):
        np.testing.assert_array_equal(a, b)
    other = Gazetteers({"PER": [["Cy"]]})
    with pytest.raises(FeatureError, match="other dictionaries"):
        FeatureExtractor.from_dict(data, gazetteers=other)


def test_gaz_without_dictionaries_says_what_is_missing():
    with pytest.raises(FeatureError, match="needs dictionaries"):
        FeatureExtractor("default+gaz").fit(TRAIN)
    with pytest.raises(TrainingSetupError, match="--gazetteer"):
        train_tagger(TRAIN, "perceptron", features={"feature_set": "default+gaz"})


def test_with_gazetteers_adds_the_set_once_and_views_follow():
    from tagtool.learn import make_learner

    learner = make_learner("mv-perceptron")
    settings = with_gazetteers(learner)
    assert settings["feature_set"] == "crfsuite+default+gaz+gaz"  # one copy per view
    assert with_gazetteers(learner, settings)["feature_set"] == settings["feature_set"]
    assert with_gazetteers(make_learner("crf"))["feature_set"] == "default+gaz"  # one view: one copy
    fx = FeatureExtractor(settings["feature_set"], min_count=1, gazetteers=GAZ).fit(TRAIN)
    assert default_view_kind(fx) == "feature-sets"


def test_both_views_see_the_dictionary_through_two_copies():
    from tagtool.core.views import ViewSplit

    fx = FeatureExtractor("crfsuite+default+gaz+gaz", min_count=1, gazetteers=GAZ).fit(TRAIN)
    names = fx.feature_names_
    views = ViewSplit("feature-sets").assign(fx)
    first = {n.split("/", 1)[1] for n in names[views == 0] if n.startswith("gaz/")}
    second = {n.split("/", 1)[1] for n in names[views == 1] if n.startswith("gaz#2/")}
    assert first and first == second  # the same dictionary features, once in each view
    assert not any(n.startswith("gaz#2/") for n in names[views == 0])
    assert not any(n.startswith("gaz/") for n in names[views == 1])
    tokens = "Ann Lee lives in Paris".split()
    assert {n for n in names_of(fx, tokens, 0) if "g=" in n} >= {"gaz/g=PER:B", "gaz#2/g=PER:B"}
    # without the copy the dictionary is the first view's alone
    one = FeatureExtractor("crfsuite+default+gaz", min_count=1, gazetteers=GAZ).fit(TRAIN)
    one_views = ViewSplit("feature-sets").assign(one)
    assert all(one_views[i] == 0 for i, n in enumerate(one.feature_names_) if n.startswith("gaz/"))


@pytest.mark.parametrize("stack", ["crfsuite+default+gaz+gaz+gaz", "crfsuite+crfsuite+gaz"])
def test_only_sets_read_from_data_may_come_twice(stack):
    with pytest.raises(FeatureError, match="at most twice|may appear twice"):
        FeatureExtractor(stack, min_count=1, gazetteers=GAZ).fit(TRAIN)


def test_a_two_view_tagger_with_two_dictionary_copies_round_trips(tmp_path):
    from tagtool.learn import make_learner

    learner = make_learner("mv-perceptron", max_iter=3)
    tagger = train_tagger(TRAIN, learner, features=with_gazetteers(learner), gazetteers=GAZ, unlabeled=TRAIN[:2])
    assert tagger.extractor.feature_set == "crfsuite+default+gaz+gaz"
    path = tmp_path / "two.tagger"
    tagger.save(path)
    loaded = load_tagger(path)
    assert np.array_equal(loaded.extractor.feature_names_, tagger.extractor.feature_names_)
    assert np.array_equal(loaded.model.feature_view, tagger.model.feature_view)
    new = [sentence("Ann Lee flew to Paris"), sentence("bob and Ann Lee"), sentence("nothing")]
    assert loaded.tag(new) == tagger.tag(new)


def test_exported_tagger_tags_new_text_identically_after_reload(tmp_path):
    from tagtool.learn import make_learner

    learner = make_learner("mv-perceptron")
    tagger = train_tagger(TRAIN, learner, features=with_gazetteers(learner), gazetteers=GAZ)
    assert tagger.extractor.uses_gazetteers
    path = tmp_path / "t.tagger"
    tagger.save(path)
    with zipfile.ZipFile(path) as archive:
        stored = json.loads(archive.read(GAZETTEERS_MEMBER))  # plain JSON
    assert stored["types"]["PER"]["entries"] == [["Ann", "Lee"], ["bob"]]
    loaded = load_tagger(path)
    new = [sentence("Ann Lee flew to Paris"), sentence("bob and Ann Lee"), sentence("nothing")]
    assert loaded.tag(new) == tagger.tag(new)
    assert loaded.extractor.gazetteers.fingerprint == GAZ.fingerprint


def test_tagger_file_without_or_with_damaged_dictionaries_is_refused(tmp_path):
    tagger = train_tagger(TRAIN, "perceptron", features={"feature_set": "default+gaz"}, gazetteers=GAZ)
    data = tagger.to_bytes()
    for replacement, message in ((None, "is missing"), (b"{not json", "gazetteers.json: not valid JSON")):
        path = tmp_path / "broken.tagger"
        with zipfile.ZipFile(path, "w") as out, zipfile.ZipFile(io.BytesIO(data)) as src:
            for name in src.namelist():
                if name != GAZETTEERS_MEMBER:
                    out.writestr(name, src.read(name))
                elif replacement is not None:
                    out.writestr(name, replacement)
        with pytest.raises(TaggerFileError, match=message):
            load_tagger(path)

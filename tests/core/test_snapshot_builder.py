"""build_snapshot and Snapshot.subset: shapes, read-only arrays, allowed sets, sub-snapshots."""

import numpy as np
import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.errors import LabelError

LABELS = LabelSet(["O", "B-PER", "I-PER", "B-LOC"])
FULL = Sentence(["Mr.", "Smith", "left"], [{"B-PER"}, {"I-PER"}, {"O"}], columns={"col1": ["NNP", "NNP", "VBD"]})
PARTIAL = Sentence(["Paris", "is", "big"], [{"B-LOC", "B-PER"}, {"O"}, set()], columns={"col1": ["NNP", "VBZ", "JJ"]})
NONE = Sentence(["Smith", "saw", "Paris", "."], columns={"col1": ["NNP", "VBD", "NNP", "."]})
SENTENCES = [FULL, PARTIAL, NONE]


@pytest.fixture(scope="module")
def extractor():
    return FeatureExtractor(min_count=1).fit(SENTENCES)


@pytest.fixture(scope="module")
def snapshot(extractor):
    corpus = Corpus.from_sentences(SENTENCES, LABELS)
    return build_snapshot(corpus, LABELS, extractor, ViewSplit("odd-even"), [10, 20, 30])


def test_shapes_and_dtypes(snapshot, extractor):
    assert snapshot.labels == LABELS.names
    assert snapshot.offsets.tolist() == [0, 3, 6, 10]
    assert snapshot.n_tokens == 10 and snapshot.n_sentences == 3 and snapshot.n_labels == 4
    assert snapshot.allowed.shape == (10, 4) and snapshot.allowed.dtype == np.bool_
    assert snapshot.feat_indptr.dtype == np.int64 and snapshot.feat_indices.dtype == np.int32
    assert snapshot.n_features == extractor.n_features_
    assert snapshot.feature_view.tolist() == (np.arange(extractor.n_features_) % 2).tolist()
    assert snapshot.sentence_ids.tolist() == [10, 20, 30]
    indptr, indices = extractor.transform(SENTENCES)
    assert np.array_equal(snapshot.feat_indptr, indptr) and np.array_equal(snapshot.feat_indices, indices)


def test_arrays_are_read_only(snapshot):
    for name in ("offsets", "feat_indptr", "feat_indices", "allowed", "feature_view", "sentence_ids"):
        with pytest.raises(ValueError):
            getattr(snapshot, name)[0] = 0


def test_allowed_mask_for_full_partial_and_no_labels(snapshot):
    allowed = snapshot.allowed.astype(int).tolist()
    assert allowed[0:3] == [[0, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0]]  # full
    assert allowed[3:6] == [[0, 1, 0, 1], [1, 0, 0, 0], [1, 1, 1, 1]]  # partial, full, none
    assert all(row == [1, 1, 1, 1] for row in allowed[6:])  # unlabeled sentence
    assert snapshot.sentence_status().tolist() == [2, 1, 0]


def test_default_ids_plain_sentence_lists_and_view_arrays(extractor):
    views = np.ones(extractor.n_features_, dtype=np.int8)
    views[0] = 0
    snap = build_snapshot(SENTENCES, LABELS, extractor, views)
    assert snap.sentence_ids.tolist() == [0, 1, 2]
    assert np.array_equal(snap.feature_view, views)
    with pytest.raises(ValueError, match="feature_view"):
        build_snapshot(SENTENCES, LABELS, extractor, views[:-1])
    with pytest.raises(ValueError, match="feature_view"):
        build_snapshot(SENTENCES, LABELS, extractor, views * 2)


def test_unknown_label_is_refused(extractor):
    bad = Sentence(["x"], [{"B-ORG"}])
    with pytest.raises(LabelError):
        build_snapshot([bad], LABELS, extractor, ViewSplit("odd-even"))


def test_subset_equals_building_from_the_chosen_sentences(snapshot, extractor):
    sub = snapshot.subset([2, 0])
    direct = build_snapshot([NONE, FULL], LABELS, extractor, ViewSplit("odd-even"), [30, 10])
    for name in ("offsets", "feat_indptr", "feat_indices", "allowed", "feature_view", "sentence_ids"):
        assert np.array_equal(getattr(sub, name), getattr(direct, name)), name
    assert sub.labels == snapshot.labels and sub.n_features == snapshot.n_features
    assert not sub.feat_indices.flags.writeable


def test_subset_with_repeats_negative_and_empty(snapshot):
    twice = snapshot.subset(np.array([1, 1]))
    assert twice.offsets.tolist() == [0, 3, 6] and twice.sentence_ids.tolist() == [20, 20]
    assert np.array_equal(twice.token_features(0), twice.token_features(3))
    assert snapshot.subset([-1]).sentence_ids.tolist() == [30]
    empty = snapshot.subset([])
    assert empty.n_sentences == 0 and empty.n_tokens == 0 and empty.allowed.shape == (0, 4)
    with pytest.raises(IndexError):
        snapshot.subset([3])


def test_subset_by_mask(snapshot):
    labeled = snapshot.subset(snapshot.sentence_status() == 2)
    assert labeled.sentence_ids.tolist() == [10] and labeled.n_tokens == 3
    assert snapshot.subset(np.ones(3, dtype=bool)).sentence_ids.tolist() == [10, 20, 30]
    with pytest.raises(IndexError, match="mask"):
        snapshot.subset(np.ones(2, dtype=bool))


def test_snapshot_of_conll_like_corpus_keeps_token_features_aligned(extractor):
    snap = build_snapshot(SENTENCES, LABELS, extractor, ViewSplit("random", seed=1))
    names = extractor.feature_names_
    smith_in_none = set(names[snap.token_features(snap.sentence_slice(2).start)])
    assert {"w=Smith", "BOS", "col:col1=NNP", "+1:w=saw"} <= smith_in_none
    assert isinstance(snap, Snapshot)


def test_a_cold_fits_features_handed_over_equal_a_transform_and_a_wrong_length_is_refused():
    fresh = FeatureExtractor(feature_set="default", min_count=1)
    fitted = fresh.fit_transform(SENTENCES)
    views = ViewSplit(seed=0).assign(fresh)
    handed = build_snapshot(SENTENCES, LABELS, fresh, views, features=fitted)
    built = build_snapshot(SENTENCES, LABELS, fresh, views)
    assert np.array_equal(handed.feat_indptr, built.feat_indptr)
    assert np.array_equal(handed.feat_indices, built.feat_indices)
    shorter = fresh.transform(SENTENCES[:2])
    with pytest.raises(ValueError, match="features cover"):
        build_snapshot(SENTENCES, LABELS, fresh, views, features=shorter)

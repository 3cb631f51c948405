import math

import numpy as np
import pytest

from tagtool.core import (
    EMPTY,
    Corpus,
    LabelSet,
    Sentence,
    allowed_mask,
    annotation_status,
    format_annotation,
    parse_annotation,
    sentence_weight,
    token_information,
)
from tagtool.core.annotation import information_from_mask
from tagtool.errors import LabelError

NER = LabelSet(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])


def test_label_set_order_and_index():
    assert NER.index("B-LOC") == 3
    assert list(NER) == ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    with pytest.raises(LabelError, match="not in the label set"):
        NER.index("B-ORG")


@pytest.mark.parametrize("bad", ["", "_", "A|B", "B PER", "X\tY"])
def test_bad_label_names_are_refused(bad):
    with pytest.raises(LabelError):
        LabelSet(["O", bad])


def test_duplicates_refused():
    with pytest.raises(LabelError, match="duplicate"):
        LabelSet(["O", "O"])


def test_from_observed_is_stable_and_groups_spans():
    labels = LabelSet.from_observed(["I-PER", "O", "B-LOC", "B-PER", "I-LOC"])
    assert labels.names == ("O", "B-LOC", "I-LOC", "B-PER", "I-PER")
    assert labels.is_span_scheme and labels.span_types == ("LOC", "PER")
    pos = LabelSet.from_observed(["VB", "NN", "DT"])
    assert pos.names == ("DT", "NN", "VB") and not pos.is_span_scheme


def test_parse_and_format_annotations():
    assert parse_annotation("_") == EMPTY
    assert parse_annotation("B-PER") == {"B-PER"}
    assert parse_annotation("I-PER|B-PER", NER) == {"B-PER", "I-PER"}
    assert format_annotation(frozenset({"I-PER", "B-PER"}), NER) == "B-PER|I-PER"
    assert format_annotation(EMPTY) == "_"
    with pytest.raises(LabelError):
        parse_annotation("B-PER||I-PER")
    with pytest.raises(LabelError):
        parse_annotation("B-ORG", NER)


def test_candidate_set_of_every_label_means_no_label():
    assert parse_annotation("|".join(NER.names), NER) == EMPTY


def test_allowed_mask_rows():
    mask = allowed_mask([frozenset({"B-PER"}), frozenset({"B-PER", "B-LOC"}), EMPTY], NER)
    np.testing.assert_array_equal(
        mask,
        [[0, 1, 0, 0, 0], [0, 1, 0, 1, 0], [1, 1, 1, 1, 1]],
    )


def test_information_and_sentence_weight():
    assert token_information(1, 5) == 1.0
    assert token_information(5, 5) == 0.0
    assert token_information(2, 4) == pytest.approx(0.5)
    mask = allowed_mask([frozenset({"O"}), EMPTY], NER)
    np.testing.assert_allclose(information_from_mask(mask), [1.0, 0.0])
    assert sentence_weight(mask, 0.2) == pytest.approx(0.2 + 0.8 * 0.5)
    assert sentence_weight(allowed_mask([EMPTY] * 3, NER), 0.3) == pytest.approx(0.3)
    assert sentence_weight(allowed_mask([frozenset({"O"})] * 3, NER), 0.3) == pytest.approx(1.0)
    partial = allowed_mask([frozenset({"B-PER", "I-PER"})], NER)
    assert sentence_weight(partial, 0.0) == pytest.approx(1 - math.log(2) / math.log(5))


def test_status():
    assert annotation_status([frozenset({"O"})] * 2) == "full"
    assert annotation_status([EMPTY] * 2) == "none"
    assert annotation_status([frozenset({"O"}), EMPTY]) == "partial"
    assert annotation_status([frozenset({"O", "B-PER"})]) == "partial"


def test_sentence_and_corpus_validation():
    s = Sentence(["Mr", "Smith"], [{"O"}, {"B-PER", "I-PER"}], {"col1": ["NNP", "NNP"]})
    assert s.status == "partial" and s.columns["col1"] == ("NNP", "NNP")
    with pytest.raises(ValueError):
        Sentence(["a"], [{"O"}, {"O"}])
    with pytest.raises(ValueError):
        Sentence([], [])
    with pytest.raises(ValueError, match="column"):
        Sentence(["a", "b"], columns={"col1": ["x"]})
    with pytest.raises(LabelError):
        Corpus.from_sentences([s], LabelSet(["O"]))
    corpus = Corpus.from_sentences([s, Sentence(["x"])])
    assert corpus.labels.names == ("O", "B-PER", "I-PER")
    assert len(corpus) == 2 and corpus.n_tokens == 3 and corpus.column_names == ("col1",)
    assert corpus.sentences[1].status == "none"


def test_one_label_schema_keeps_full_labels():
    # File-safety case 1: with one label, {O} is what the annotator gave, not "no label".
    one = LabelSet(["O"])
    assert parse_annotation("O", one) == frozenset({"O"})
    assert format_annotation(parse_annotation("O", one), one) == "O"
    two = LabelSet(["O", "X"])
    assert parse_annotation("O|X", two) == EMPTY

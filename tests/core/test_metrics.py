import pytest

from tagtool.core import LabelSet
from tagtool.core.metrics import evaluate, format_report


def test_span_scores_follow_conlleval_rules():
    gold = [["B-PER", "I-PER", "O", "B-LOC"], ["O", "B-ORG", "I-ORG"]]
    pred = [["B-PER", "I-PER", "O", "B-PER"], ["O", "B-ORG", "O"]]
    e = evaluate(gold, pred)
    # gold spans: PER(0-1), LOC(3), ORG(1-2); predicted: PER(0-1), PER(3), ORG(1)
    assert e.precision == pytest.approx(1 / 3)
    assert e.recall == pytest.approx(1 / 3)
    assert e.f1 == pytest.approx(1 / 3)
    assert e.tokens == 7 and e.sentences == 2
    assert e.token_accuracy == pytest.approx(5 / 7)
    assert e.token_error == pytest.approx(2 / 7)
    assert e.per_type["PER"].support == 1 and e.per_type["PER"].precision == pytest.approx(0.5)


def test_iob1_chunks_start_at_type_changes():
    # IOB1: I- tags everywhere, B- only between adjacent chunks of one type.
    gold = [["I-NP", "I-NP", "B-NP", "I-VP"]]
    pred = [["I-NP", "I-NP", "I-NP", "I-VP"]]
    e = evaluate(gold, pred)
    assert e.per_type["NP"].support == 2
    assert e.recall == pytest.approx(1 / 3)  # only the VP chunk matches exactly


def test_non_span_labels_use_token_scores():
    e = evaluate([["NN", "VB", "DT"]], [["NN", "NN", "DT"]], LabelSet(["DT", "NN", "VB"]))
    assert not e.span_scheme
    assert e.f1 == pytest.approx(2 / 3) == e.precision == e.recall
    assert e.per_label["NN"].precision == pytest.approx(0.5)
    assert e.per_label["VB"].recall == 0.0
    assert "NN" in format_report(e)


def test_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="sentence 0"):
        evaluate([["O", "O"]], [["O"]])
    with pytest.raises(ValueError):
        evaluate([["O"]], [])

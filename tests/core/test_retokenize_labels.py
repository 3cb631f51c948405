"""Labels of split and merged tokens (tagtool.core.retokenize), checked against span decoding."""

from __future__ import annotations

import itertools

import pytest

from tagtool.core.labels import LabelSet
from tagtool.core.retokenize import merge_annotations, merge_label, split_annotation, split_label

BIO = LabelSet(["O", "B-PER", "I-PER", "B-LOC", "I-LOC"])
BIOES = LabelSet(["O", "B-PER", "I-PER", "E-PER", "S-PER"])
BILOU = LabelSet(["O", "B-PER", "I-PER", "L-PER", "U-PER"])
POS = LabelSet(["NN", "VB", "DT"])


def spans(tags: list[str]) -> set[tuple[int, int, str]]:
    """Spans ``(start, end, type)`` of a valid BIO/BIOES/BILOU tag sequence (token indexes)."""
    out, start = set(), None
    for t, tag in enumerate(tags + ["O"]):
        prefix, kind = (tag[0], tag[2:]) if tag != "O" else ("O", None)
        if start is not None and prefix in "OBSU":
            out.add((start[0], t, start[1]))
            start = None
        if prefix in "BSU":
            start = (t, kind)
        if prefix in "ELSU" and start is not None:
            out.add((start[0], t + 1, start[1]))
            start = None
    return out


@pytest.mark.parametrize("labels", [BIO, BIOES, BILOU])
def test_a_split_keeps_every_span_of_every_valid_sequence(labels):
    """Brute force: for every valid 3-token sequence, splitting any token leaves the same spans
    (shifted), so the halves' labels are the ones the span needs."""
    names = list(labels)
    for tags in itertools.product(names, repeat=3):
        tags = list(tags)
        if not _valid(tags, labels):
            continue
        for t in range(3):
            first, second = split_label(tags[t], labels)
            assert first is not None and second is not None, tags
            new = tags[:t] + [first, second] + tags[t + 1 :]
            shifted = {(s + (s > t), e + (e > t), k) for s, e, k in spans(tags)}
            assert spans(new) == shifted, (tags, t, new)


@pytest.mark.parametrize("labels", [BIO, BIOES, BILOU])
def test_a_merge_keeps_the_spans_when_the_two_tokens_agree(labels):
    """Brute force: where a merge gives a label, the merged sequence has the same spans
    (two tokens counted as one); where it gives none, the two tokens do not lie in one span."""
    names = list(labels)
    for tags in itertools.product(names, repeat=4):
        tags = list(tags)
        if not _valid(tags, labels):
            continue
        for t in range(3):
            merged = merge_label(tags[t], tags[t + 1], labels)
            before = spans(tags)
            same_span = any(s <= t and t + 1 < e for s, e, _ in before) or tags[t] == tags[t + 1] == "O"
            if merged is None:
                assert not same_span, (tags, t)
                continue
            new = tags[:t] + [merged] + tags[t + 2 :]
            squeezed = {(s - (s > t), e - (e > t + 1), k) for s, e, k in before}
            assert spans(new) == squeezed, (tags, t, new)


def _valid(tags: list[str], labels: LabelSet) -> bool:
    """A sequence the scheme allows: I/E/L continue a span of their type, B/I are followed by I/E/L in BIOES/BILOU."""
    closing = any(n[0] in "EL" for n in labels if n != "O")
    previous = "O"
    for tag in tags + ["O"]:
        prefix, kind = (tag[0], tag[2:]) if tag != "O" else ("O", None)
        open_kind = previous[2:] if previous != "O" and previous[0] in "BI" else None
        if prefix in "IEL" and open_kind != kind:
            return False
        if closing and open_kind is not None and not (prefix in "IEL" and kind == open_kind):
            return False
        previous = tag
    return True


def test_split_of_candidate_sets_and_labels_the_scheme_lacks():
    assert split_annotation(frozenset({"B-PER", "O"}), BIO) == ({"B-PER", "O"}, {"I-PER", "O"})
    assert split_annotation(frozenset(), BIO) == (frozenset(), frozenset())
    only_b = LabelSet(["O", "B-PER", "B-LOC"])
    assert split_annotation(frozenset({"B-PER"}), only_b) == ({"B-PER"}, frozenset())
    assert split_annotation(frozenset({"NN"}), POS) == ({"NN"}, {"NN"})


def test_merge_of_disagreeing_and_unlabeled_tokens():
    assert merge_annotations(frozenset({"B-PER"}), frozenset({"I-PER"}), BIO) == {"B-PER"}
    assert merge_annotations(frozenset({"O"}), frozenset({"B-PER"}), BIO) == {"O", "B-PER"}
    assert merge_annotations(frozenset({"B-PER"}), frozenset(), BIO) == frozenset()
    assert merge_annotations(frozenset({"NN"}), frozenset({"NN"}), POS) == {"NN"}
    assert merge_annotations(frozenset({"NN"}), frozenset({"VB"}), POS) == {"NN", "VB"}
    # every compatible pair of two candidate sets contributes
    assert merge_annotations(frozenset({"B-PER", "O"}), frozenset({"I-PER", "O"}), BIO) == {"B-PER", "O"}
    assert merge_annotations(frozenset({"B-PER"}), frozenset({"E-PER"}), BIOES) == {"S-PER"}
    assert merge_annotations(frozenset({"B-PER"}), frozenset({"L-PER"}), BILOU) == {"U-PER"}
    # a set naming every label is no label
    assert merge_annotations(frozenset({"NN", "VB"}), frozenset({"DT"}), POS) == frozenset()

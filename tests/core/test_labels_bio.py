"""BIO transition rules, the invalid-I count and the IOB1 evidence of tagtool.core.labels."""

import numpy as np
import pytest

from tagtool.core.labels import bio_transitions, chunk_starts, invalid_inside


def _allowed_pairs(names):
    start_ok, trans_ok = bio_transitions(names)
    starts = {names[b] for b in range(len(names)) if start_ok[b]}
    pairs = {(names[a], names[b]) for a in range(len(names)) for b in range(len(names)) if trans_ok[a, b]}
    return starts, pairs


def test_i_x_follows_only_b_x_or_i_x():
    names = ("O", "B-NP", "I-NP", "B-VP", "I-VP")
    starts, pairs = _allowed_pairs(names)
    assert starts == {"O", "B-NP", "B-VP"}
    for a in names:
        for b in names:
            ok = not b.startswith("I-") or a in ("B-" + b[2:], b)
            assert ((a, b) in pairs) == ok, (a, b)


def test_a_type_without_b_is_left_free_and_order_does_not_matter():
    names = ("I-LST", "O", "I-NP", "B-NP")
    starts, pairs = _allowed_pairs(names)
    assert starts == {"I-LST", "O", "B-NP"}
    assert ("O", "I-LST") in pairs and ("I-NP", "I-LST") in pairs
    assert ("O", "I-NP") not in pairs and ("I-LST", "I-NP") not in pairs and ("B-NP", "I-NP") in pairs


@pytest.mark.parametrize(
    "names",
    [
        ("NN", "VB", "DT"),  # part of speech
        ("O", "B-X", "I-X", "E-X", "S-X"),  # BIOES: not constrained here
        ("O", "B-X", "I-X", "MISC"),  # a label outside the scheme
        ("O", "I-X", "I-Y"),  # IOB1 without any B-: nothing to constrain
        ("O",),
    ],
)
def test_no_rules_for_other_label_sets(names):
    assert bio_transitions(names) is None


def test_invalid_inside_counts_i_tags_that_open_a_chunk():
    tags = ["I-NP", "B-NP", "I-NP", "O", "I-VP", "B-VP", "I-NP", "I-NP", "B-PP", "I-PP", "I-PP"]
    assert invalid_inside(tags) == [0, 4, 6]
    assert invalid_inside([]) == [] and invalid_inside(["O", "B-X"]) == []


def test_chunk_starts_counts_known_annotations_only():
    names = ("O", "B-NP", "I-NP", "B-VP", "I-VP")
    # sentence 1: I-NP B-NP I-NP O I-VP B-VP I-NP | sentence 2: I-NP ? I-NP
    gold = np.array([2, 1, 2, 0, 4, 3, 2, 2, -1, 2])
    offsets = np.array([0, 7, 10])
    # B: B-NP, B-VP; I opening: 0 (sentence start), 4 (after O), 6 (after B-VP), 7 (start); 9 follows an unknown
    assert chunk_starts(names, gold, offsets) == (2, 4)
    assert chunk_starts(("NN", "VB"), np.array([0, 1]), np.array([0, 2])) == (0, 0)

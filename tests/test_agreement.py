"""Agreement measures (tagtool.services.agreement) against hand-computed values, the krippendorff
package's own tests and Krippendorff's textbook example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from seqeval.metrics import f1_score, precision_score, recall_score

from tagtool.errors import Cancelled
from tagtool.services.agreement import collect, compute, from_table
from tagtool.services.agreement.measures import cohen_kappa, segments

nan = np.nan

# A small case computed by hand (module docstring of each test gives the arithmetic).
HAND_A = ["O", "O", "O", "B-X", "B-X", "I-X", "O", "B-X", "I-X", "O"]
HAND_B = ["O", "O", "B-X", "B-X", "B-X", "I-X", "O", "O", "I-X", "O"]


def test_cohen_kappa_and_alpha_by_hand():
    """Confusion (a rows O, B-X, I-X): O→O 4, O→B 1, B→B 2, B→O 1, I→I 2.

    p_o = 8/10; marginals a (5, 3, 2), b (5, 3, 2): p_e = (25 + 9 + 4)/100 = 0.38;
    kappa = (0.8 - 0.38) / 0.62.  Alpha (Krippendorff 2011, nominal): 20 values,
    n_O = 10, n_B = 6, n_I = 4; disagreeing coincidences o_OB + o_BO = 4;
    alpha = 1 - 19 · 4 / (2 · (10·6 + 10·4 + 6·4)) = 1 - 76/248.
    """
    result = compute(from_table([HAND_A, HAND_B], ["a", "b"]), span_scheme=True)
    (pair,) = result.pairs
    assert (pair.tokens, pair.compared) == (10, 10)
    assert pair.observed == pytest.approx(0.8)
    assert pair.kappa == pytest.approx(0.42 / 0.62)
    assert pair.alpha == pytest.approx(1 - 76 / 248)
    assert result.kappa == pytest.approx(pair.kappa) and result.alpha == pytest.approx(pair.alpha)
    assert pair.confusion == {("O", "O"): 4, ("O", "B-X"): 1, ("B-X", "B-X"): 2, ("B-X", "O"): 1, ("I-X", "I-X"): 2}
    assert result.confusion[("B-X", "O")] == 2  # overall: unordered pairs


def test_spans_by_hand_and_as_seqeval_scores_them():
    """Spans a: [3], [4-5], [7-8]; b: [2], [3], [4-5], [8] (I-X after O opens a chunk, conlleval).

    Matched 2: precision of b against a 2/4, recall 2/3, F1 2·2/(3+4)."""
    spans = compute(from_table([HAND_A, HAND_B], ["a", "b"]), span_scheme=True).pairs[0].spans
    assert (spans.spans_a, spans.spans_b, spans.matched) == (3, 4, 2)
    assert spans.precision == pytest.approx(0.5) and spans.recall == pytest.approx(2 / 3)
    assert spans.f1 == pytest.approx(4 / 7)
    assert spans.precision == pytest.approx(precision_score([HAND_A], [HAND_B]))
    assert spans.recall == pytest.approx(recall_score([HAND_A], [HAND_B]))
    assert spans.f1 == pytest.approx(f1_score([HAND_A], [HAND_B]))


def test_classic_cohen_kappa_example():
    """Two raters, 50 items yes/no: both yes 20, a yes b no 5, a no b yes 10, both no 15
    (the standard worked example): p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, kappa = 0.4."""
    a = ["yes"] * 25 + ["no"] * 25
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    result = compute(from_table([a, b]), span_scheme=False)
    assert result.pairs[0].kappa == pytest.approx(0.4)
    assert result.pairs[0].spans is None and result.spans is None  # not a span scheme


# Values from the krippendorff package's own tests (pln-fing-udelar/fast-krippendorff,
# tests/test_krippendorff.py: test_nominal_metric_reliability_data, test_string_labels_nominal).
PACKAGE_NOMINAL = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]
PACKAGE_STRINGS = [["pos", "neg", "neu", nan], ["pos", "neg", "neu", "pos"], ["pos", "neg", "pos", "pos"]]
# Krippendorff (2011), Computing Krippendorff's alpha-reliability, C: nominal data, four
# observers, twelve units, missing data; alpha = 0.743.
TEXTBOOK = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]


@pytest.mark.parametrize(
    "table, expected, digits",
    [
        (PACKAGE_NOMINAL, 0.691358, 6),
        (PACKAGE_STRINGS, 0.722222, 6),
        (TEXTBOOK, 0.743, 3),
    ],
)
def test_overall_alpha_matches_published_values(table, expected, digits):
    assert round(compute(from_table(table), span_scheme=False).alpha, digits) == expected


def test_textbook_pairs_count_only_tokens_both_answered():
    result = compute(from_table(TEXTBOOK, ["A", "B", "C", "D"]), span_scheme=False)
    pairs = {(p.a, p.b): p for p in result.pairs}
    assert pairs[("A", "B")].tokens == 9 and pairs[("A", "C")].tokens == 8 and pairs[("B", "C")].tokens == 9
    # A and B: 9 tokens, one disagreement (unit 6: 1 vs 2)
    assert pairs[("A", "B")].observed == pytest.approx(8 / 9)
    assert result.kappa == pytest.approx(np.mean([p.kappa for p in result.pairs]))  # Light's kappa


def test_candidate_sets_are_left_out_and_counted_apart():
    a = ["O", {"B-X", "B-Y"}, "I-X", "O", "B-Y"]
    b = ["O", "B-X", "I-X", {"B-X", "I-X"}, "B-X"]  # token 1 compatible, token 3 not
    answers = from_table([a, b], ["a", "b"])
    pair = compute(answers, span_scheme=True).pairs[0]
    assert (pair.tokens, pair.compared, pair.set_tokens, pair.sets_compatible) == (5, 3, 2, 1)
    assert sum(pair.confusion.values()) == 3
    # Spans over the stretches both labeled in full: [0], [2], [4]
    assert segments(answers, 0, 1) == [(0, 1), (2, 3), (4, 5)]
    # a: X [2], Y [4]; b: X [2] (I-X opens a chunk after the cut), X [4]
    assert (pair.spans.spans_a, pair.spans.spans_b, pair.spans.matched) == (2, 2, 1)


def test_stretches_do_not_cross_sentences_or_gaps():
    rows = [
        (1, 0, "a", {"B-X"}),
        (1, 0, "b", {"B-X"}),
        (1, 1, "a", {"I-X"}),
        (1, 1, "b", {"I-X"}),
        (2, 0, "a", {"I-X"}),
        (2, 0, "b", {"I-X"}),
        (2, 2, "a", {"B-X"}),
        (2, 2, "b", {"B-X"}),
        (2, 3, "a", {"O"}),
    ]
    answers = collect([(s, t, n, frozenset(x)) for s, t, n, x in rows], ["O", "B-X", "I-X"])
    assert segments(answers, 0, 1) == [(0, 2), (2, 3), (3, 4)]
    pair = compute(answers, span_scheme=True).pairs[0]
    assert pair.tokens == 4 and pair.spans.matched == pair.spans.spans_a == 3


def test_undefined_coefficients_are_none():
    result = compute(from_table([["O", "O"], ["O", "O"]]), span_scheme=True)
    assert result.pairs[0].kappa is None and result.alpha is None and result.kappa is None
    assert result.pairs[0].observed == 1.0 and result.f1 is None  # no span at all
    assert cohen_kappa(np.zeros((2, 2), dtype=int)) is None


def test_pairs_without_common_tokens_are_not_listed():
    result = compute(from_table([["A", "B", nan, nan], [nan, nan, "A", "B"], ["A", "B", "A", "A"]]), False)
    assert [(p.a, p.b) for p in result.pairs] == [("annotator 1", "annotator 3"), ("annotator 2", "annotator 3")]


def test_a_checkpoint_can_stop_it():
    with pytest.raises(Cancelled):
        compute(from_table([HAND_A, HAND_B]), span_scheme=True, checkpoint=lambda: True)


def test_random_answers_agree_with_direct_formulas():
    """Kappa from the definition and alpha from the krippendorff package's reliability-data
    form, on random answers with gaps."""
    import krippendorff

    rng = np.random.default_rng(3)
    table = rng.integers(0, 4, size=(3, 200)).astype(float)
    table[rng.random(table.shape) < 0.3] = nan
    result = compute(from_table(table.tolist()), span_scheme=False)
    expected = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    assert result.alpha == pytest.approx(expected)
    a, b = table[0], table[1]
    both = ~np.isnan(a) & ~np.isnan(b)
    p_o = np.mean(a[both] == b[both])
    p_e = sum(np.mean(a[both] == k) * np.mean(b[both] == k) for k in range(4))
    assert result.pairs[0].kappa == pytest.approx((p_o - p_e) / (1 - p_e))
    assert not math.isnan(result.kappa)


def test_rows_in_any_order_and_labels_the_project_lacks():
    rows = [
        (1, 0, "zoe", {"Q"}),
        (1, 0, "bo", {"A"}),
        (1, 1, "bo", {"P", "A"}),
        (0, 3, "zoe", {"A"}),
        (0, 3, "bo", set()),
    ]  # an empty answer is no answer
    answers = collect([(s, t, n, frozenset(x)) for s, t, n, x in rows], ["A", "B"])
    assert answers.annotators == ("bo", "zoe") and answers.labels == ("A", "B", "Q")
    assert answers.sentence.tolist() == [0, 1, 1] and answers.token.tolist() == [3, 0, 1]
    assert answers.codes.tolist() == [[-1, 0], [0, 2], [-2, -1]]
    assert answers.sets == {(2, 0): frozenset({"A", "P"})}
    assert collect([]).annotators == () and collect([]).n_units == 0


def test_big_inputs_take_the_coincidence_path_with_the_same_alpha(monkeypatch):
    import tagtool.services.agreement.measures as measures

    rng = np.random.default_rng(5)
    table = rng.integers(0, 6, size=(3, 400)).astype(float)
    table[rng.random(table.shape) < 0.3] = nan
    cases = [PACKAGE_NOMINAL, PACKAGE_STRINGS, TEXTBOOK, table.tolist()]
    by_package = [compute(from_table(t), span_scheme=False).alpha for t in cases]
    monkeypatch.setattr(measures, "PACKAGE_CELLS", 0)
    by_coincidences = [compute(from_table(t), span_scheme=False).alpha for t in cases]
    assert by_coincidences == pytest.approx(by_package, abs=1e-12)
    assert round(by_coincidences[2], 3) == 0.743


def test_span_counts_are_seqevals_entities_on_random_answers():
    """Every stretch scored by seqeval's get_entities, spans and types counted, against span_counts."""
    from seqeval.metrics.sequence_labeling import get_entities

    from tagtool.services.agreement.measures import span_counts

    rng = np.random.default_rng(8)
    labels = ["O", "B-PER", "I-PER", "B-LOC", "I-LOC"]
    rows = []
    for sid in range(60):
        for t in range(int(rng.integers(1, 15))):
            for name in ("a", "b"):
                draw = rng.random()
                if draw < 0.05:
                    continue  # no answer
                ann = {labels[rng.integers(5)], labels[rng.integers(5)]} if draw < 0.1 else {labels[rng.integers(5)]}
                rows.append((sid, t, name, frozenset(ann)))
    answers = collect(rows, labels)
    got = span_counts(answers, 0, 1)
    spans_a = spans_b = matched = 0
    by_type = {}
    for start, stop in segments(answers, 0, 1):
        ea = set(get_entities([answers.labels[c] for c in answers.codes[start:stop, 0]]))
        eb = set(get_entities([answers.labels[c] for c in answers.codes[start:stop, 1]]))
        spans_a, spans_b, matched = spans_a + len(ea), spans_b + len(eb), matched + len(ea & eb)
        for column, group in enumerate((ea, eb, ea & eb)):
            for kind, *_ in group:
                by_type.setdefault(kind, [0, 0, 0])[column] += 1
    assert (got.spans_a, got.spans_b, got.matched) == (spans_a, spans_b, matched) and matched > 10
    assert got.by_type == by_type

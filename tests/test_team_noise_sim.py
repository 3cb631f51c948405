"""The simulated annotators and aggregation rules of benchmarks/team_noise.py (docs/design.md#team-answers).

The noise rates must come out as stated on a large sample, and every
aggregation rule must give the annotations its docstring promises on small
cases.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _team_noise_sim import (
    Annotator,
    aggregate,
    annotate,
    classify_errors,
    simulate_team,
    team,
)

CONFUSION = {"ORG": {"LOC": 0.75, "MISC": 0.25}, "LOC": {"ORG": 1.0}}


def synthetic(n_sentences: int, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """Sentences ``O X O Y O`` with an entity of one or two tokens (ORG or LOC), every surface unique."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n_sentences):
        tokens, tags = ["a"], ["O"]
        for j in range(2):
            entity_type = "ORG" if rng.random() < 0.5 else "LOC"
            length = 1 + int(rng.random() < 0.5)
            tokens += [f"w{i}_{j}_{t}" for t in range(length)] + ["o"]
            tags += [f"B-{entity_type}"] + [f"I-{entity_type}"] * (length - 1) + ["O"]
        out.append((tokens, tags))
    return out


def error_counts(sentences, answers) -> Counter:
    counts = Counter()
    for (_, gold), tags in zip(sentences, answers):
        counts.update(classify_errors(gold, tags))
    return counts


def within(observed: int, n: int, p: float) -> bool:
    """``observed`` of ``n`` is within 4.5 binomial SE of ``n · p``."""
    return abs(observed - n * p) <= 4.5 * np.sqrt(n * p * (1 - p)) + 1


def test_rates_come_out_as_stated_on_a_large_sample():
    sentences = synthetic(10000)
    annotator = Annotator("x", miss=0.05, type_error=0.08, boundary=0.10, widen=0.5, confusion=CONFUSION)
    (answers,) = simulate_team(sentences, [annotator], seed=3)
    counts = error_counts(sentences, answers)
    n = sum(counts[k] for k in ("exact", "type", "boundary", "both", "missed"))
    assert n == 20000 and counts["spurious"] == 0
    assert within(counts["missed"], n, 0.05)
    # A kept entity has a wrong type with 0.08 and a moved boundary with 0.10, independently.
    kept = n - counts["missed"]
    assert within(counts["type"] + counts["both"], kept, 0.08)
    assert within(counts["boundary"] + counts["both"], kept, 0.10)
    assert within(counts["both"], kept, 0.08 * 0.10)


def test_type_confusions_follow_the_matrix_and_the_type_factor():
    sentences = synthetic(10000, seed=1)
    annotator = Annotator("x", 0.0, 0.2, 0.0, confusion=CONFUSION, type_factor={"LOC": 0.5})
    (answers,) = simulate_team(sentences, [annotator], seed=0)
    moves, totals = Counter(), Counter()
    for (_, gold), tags in zip(sentences, answers):
        for g, a in zip(gold, tags):
            if g.startswith("B-"):
                totals[g[2:]] += 1
                moves[(g[2:], a[2:])] += a != g
    assert within(moves[("ORG", "LOC")] + moves[("ORG", "MISC")], totals["ORG"], 0.2)
    assert within(moves[("LOC", "ORG")], totals["LOC"], 0.1)  # factor 0.5
    org_errors = moves[("ORG", "LOC")] + moves[("ORG", "MISC")]
    assert within(moves[("ORG", "MISC")], org_errors, 0.25)


def test_type_errors_are_systematic_per_surface_string():
    tokens, gold = ["Real", "Madrid", "ganó", "."], ["B-ORG", "I-ORG", "O", "O"]
    annotator = Annotator("x", 0.0, 0.5, 0.0, confusion=CONFUSION)
    given = {annotate(tokens, gold, annotator, np.random.default_rng(i), seed=7)[0] for i in range(50)}
    assert len(given) == 1  # the same answer every time this annotator meets this string
    seen = {annotate(tokens, gold, annotator, np.random.default_rng(0), seed=s)[0] for s in range(60)}
    assert seen > {"B-ORG"}  # ... while over seeds (other annotators' draws) both answers occur


def test_boundary_moves_widen_and_shrink_as_stated():
    from seqeval.metrics.sequence_labeling import get_entities

    sentences = synthetic(5000, seed=2)
    annotator = Annotator("x", 0.0, 0.0, 1.0, widen=0.8)
    (answers,) = simulate_team(sentences, [annotator], seed=0)
    lengths = Counter()  # (gold length, answer length) per entity; every entity has O neighbours
    for (_, gold), tags in zip(sentences, answers):
        for (_, gs, ge), (_, s, e) in zip(get_entities(gold), get_entities(tags)):
            assert abs(s - gs) + abs(e - ge) == 1  # exactly one boundary moved by one token
            lengths[(ge - gs + 1, e - s + 1)] += 1
    assert lengths[(1, 0)] == 0 and lengths[(1, 2)] > 0  # one token: only widening is possible
    two = lengths[(2, 3)] + lengths[(2, 1)]
    assert within(lengths[(2, 3)], two, 0.8)


def test_widening_never_runs_into_another_entity():
    tokens, gold = ["A", "B"], ["B-PER", "B-LOC"]
    annotator = Annotator("x", 0.0, 0.0, 1.0, widen=1.0)
    for i in range(30):
        tags = annotate(tokens, gold, annotator, np.random.default_rng(i))
        assert tags == gold  # single tokens, no free neighbour: nothing can move


def test_team_profiles_and_independence():
    annotators = team("conll2002-es", 3)
    assert [a.name for a in annotators] == ["A1 typical", "A2 hasty", "A3 inclusive"]
    assert annotators[1].confusion["ORG"]["LOC"] > annotators[0].confusion["ORG"]["LOC"]
    assert all(a.type_rate("PER") == 0.0 for a in team("ncbi-disease", 2))
    sentences = synthetic(300)
    three = simulate_team(sentences, team("conll2002-es", 3), seed=5)
    two = simulate_team(sentences, team("conll2002-es", 2), seed=5)
    assert three[:2] == two  # an annotator's answers do not depend on who else is on the team
    with pytest.raises(ValueError):
        team("conll2002-es", 4)


A = ["B-ORG", "I-ORG", "O", "B-PER"]
B = ["B-LOC", "I-LOC", "O", "B-PER"]
C = ["B-ORG", "O", "O", "O"]


def test_first_and_majority():
    assert aggregate([A, B, C], "first") == tuple(frozenset({t}) for t in A)
    assert aggregate([B, A, C], "majority") == (
        frozenset({"B-ORG"}),
        frozenset({"I-LOC"}),
        frozenset({"O"}),
        frozenset({"B-PER"}),
    )  # I-: a 3-way tie
    assert aggregate([B, A], "majority") == aggregate([B, A], "first")  # two annotators: ties to the first


def test_drop_and_candidates():
    assert aggregate([A, B], "drop") == (frozenset(), frozenset(), frozenset({"O"}), frozenset({"B-PER"}))
    assert aggregate([A, B, C], "candidates") == (
        frozenset({"B-ORG", "B-LOC"}),
        frozenset({"I-ORG", "I-LOC", "O"}),
        frozenset({"O"}),
        frozenset({"B-PER", "O"}),
    )


def test_majority_then_candidates():
    assert aggregate([A, B, C], "majority+candidates") == (
        frozenset({"B-ORG"}),
        frozenset({"I-ORG", "I-LOC", "O"}),
        frozenset({"O"}),
        frozenset({"B-PER"}),
    )
    assert aggregate([A, B], "majority+candidates") == aggregate([A, B], "candidates")


def test_candidates_without_o():
    assert aggregate([A, B, C], "candidates-no-O") == (
        frozenset({"B-ORG", "B-LOC"}),
        frozenset({"I-ORG", "I-LOC"}),
        frozenset({"O"}),
        frozenset({"B-PER"}),
    )
    assert aggregate([["O"], ["O"]], "candidates-no-O") == (frozenset({"O"}),)


def test_aggregate_rejects_bad_input():
    with pytest.raises(ValueError):
        aggregate([A, B], "vote")
    with pytest.raises(ValueError):
        aggregate([A, A[:2]], "majority")


def test_classify_errors_small_cases():
    gold = ["B-ORG", "I-ORG", "O", "B-PER", "O", "B-LOC"]
    answer = ["B-LOC", "I-LOC", "B-PER", "I-PER", "B-MISC", "O"]
    counts = classify_errors(gold, answer)
    assert (counts["type"], counts["boundary"], counts["missed"], counts["spurious"], counts["exact"]) == (
        1,
        1,
        1,
        1,
        0,
    )

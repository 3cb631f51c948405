"""Simulated annotators and the aggregation of their answers, for benchmarks/team_noise.py.

Qt-free and independent of the learners: a gold IOB2 sequence goes in, each
simulated annotator's IOB2 sequence comes out, and :func:`aggregate` turns
the answers of a team into per-token annotations (allowed sets, docs/design.md#allowed-sets).

The noise model works on entities, as the errors people make do (Reiss et
al. 2020 and Rücker & Akbik 2023 classify the errors of CoNLL-2003 as
wrong type, wrong boundary and missing mention).  Per gold entity and
annotator:

1. the entity is *missed* (left ``O``) with probability ``miss``;
2. otherwise its type is *confused* with probability ``type_error`` times
   the type's ``type_factor``, the wrong type drawn from the row of
   ``confusion``; the decision is a function of the annotator and the
   entity's surface string, so an annotator who calls "Real Madrid" a
   location does so every time (NoiseBench, Merdjanovska et al. 2024:
   real annotation noise is systematic, and harder than independent
   flips);
3. independently, one *boundary* is moved by one token with probability
   ``boundary``: the span widens (into a neighbouring ``O`` token) with
   probability ``widen`` and shrinks (a span of two or more tokens loses
   its first or last one) otherwise; where only one kind of move is
   possible that one is made, and where none is the entity is kept.

Misses and boundary moves are drawn independently per occurrence.
Different annotators draw independently of each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from seqeval.metrics.sequence_labeling import get_entities

#: Annotation rules of the comparison: (b) ``majority``, (c) ``drop``, (d) ``candidates``,
#: ``majority+candidates`` (majority where one exists, the candidate set where none does) and
#: ``candidates-no-O`` (the candidate set without ``O`` where anyone marked an entity).
RULES = ("first", "majority", "drop", "candidates", "majority+candidates", "candidates-no-O")


@dataclass(frozen=True)
class Annotator:
    """One simulated annotator's error rates (per gold entity) and biases.

    Parameters
    ----------
    name : str
        Shown in the tables; also seeds the annotator's systematic type errors.
    miss, type_error, boundary : float
        Probabilities per gold entity (module docstring).
    widen : float
        Share of boundary errors that widen the span rather than shrink it.
    confusion : mapping of str to mapping of str to float
        Row-stochastic: ``confusion[gold type][wrong type]``; types without a
        row are never confused (a one-type corpus has none).
    type_factor : mapping of str to float
        Per-type multiplier of ``type_error`` (missing types: 1).
    """

    name: str
    miss: float
    type_error: float
    boundary: float
    widen: float = 0.5
    confusion: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    type_factor: Mapping[str, float] = field(default_factory=dict)

    def type_rate(self, entity_type: str) -> float:
        """Probability that an entity of ``entity_type`` gets a wrong type (0 without a confusion row)."""
        if entity_type not in self.confusion:
            return 0.0
        return min(1.0, self.type_error * self.type_factor.get(entity_type, 1.0))


def _unit(*key: object) -> float:
    """A number in [0, 1) that is a fixed function of ``key`` (stable across runs and processes)."""
    digest = hashlib.blake2b("\x1f".join(map(str, key)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2.0**64


def _wrong_type(annotator: Annotator, entity_type: str, surface: str, seed: int) -> str | None:
    """The type ``annotator`` gives this surface string instead of ``entity_type``, or None (no error)."""
    if _unit(seed, annotator.name, "type?", entity_type, surface) >= annotator.type_rate(entity_type):
        return None
    row = annotator.confusion[entity_type]
    names = sorted(row)
    cumulative = np.cumsum([row[n] for n in names]) / sum(row.values())
    u = _unit(seed, annotator.name, "type->", entity_type, surface)
    return names[min(int(np.searchsorted(cumulative, u, side="right")), len(names) - 1)]


def _moved(
    start: int, end: int, gold_tags: Sequence[str], taken: np.ndarray, widen: float, rng: np.random.Generator
) -> tuple[int, int]:
    """The span ``[start, end]`` with one boundary moved by one token (module docstring, step 3)."""
    n = len(gold_tags)
    grow = [
        (s, e)
        for s, e, new in ((start - 1, end, start - 1), (start, end + 1, end + 1))
        if 0 <= new < n and gold_tags[new] == "O" and not taken[new]
    ]
    shrink = [(start + 1, end), (start, end - 1)] if end > start else []
    if grow and shrink:
        pool = grow if rng.random() < widen else shrink
    else:
        pool = grow or shrink
    if not pool:
        return start, end
    return pool[int(rng.integers(len(pool)))]


def annotate(
    tokens: Sequence[str], gold_tags: Sequence[str], annotator: Annotator, rng: np.random.Generator, seed: int = 0
) -> list[str]:
    """One annotator's IOB2 tags for a sentence whose gold tags are ``gold_tags``.

    ``rng`` draws the misses and boundary moves (pass one generator per
    annotator); ``seed`` keys the systematic type errors.
    """
    out = ["O"] * len(gold_tags)
    taken = np.zeros(len(gold_tags), dtype=bool)
    for entity_type, start, end in get_entities(list(gold_tags)):
        missed = rng.random() < annotator.miss
        moved = rng.random() < annotator.boundary
        if missed:
            continue
        surface = " ".join(tokens[start : end + 1])
        new_type = _wrong_type(annotator, entity_type, surface, seed) or entity_type
        if moved:
            start, end = _moved(start, end, gold_tags, taken, annotator.widen, rng)
        taken[start : end + 1] = True
        out[start] = f"B-{new_type}"
        for t in range(start + 1, end + 1):
            out[t] = f"I-{new_type}"
    return out


def classify_errors(gold_tags: Sequence[str], tags: Sequence[str]) -> dict[str, int]:
    """Count each gold entity of one sentence as ``exact``, ``type``, ``boundary``, ``both`` or ``missed``.

    ``type``: same span, other type; ``boundary``: an overlapping answer span
    with other limits and the same type; ``both``: other limits and type;
    ``missed``: no answer span overlaps it.  ``spurious``: answer spans that
    overlap no gold entity.
    """
    counts = dict.fromkeys(("exact", "type", "boundary", "both", "missed", "spurious"), 0)
    answer = get_entities(list(tags))
    used = set()
    for g_type, g_start, g_end in get_entities(list(gold_tags)):
        overlapping = [a for a in answer if a[1] <= g_end and a[2] >= g_start]
        used.update(overlapping)
        if not overlapping:
            counts["missed"] += 1
            continue
        a_type, a_start, a_end = overlapping[0]
        same_span = (a_start, a_end) == (g_start, g_end)
        kind = ("exact" if a_type == g_type else "type") if same_span else ("boundary" if a_type == g_type else "both")
        counts[kind] += 1
    counts["spurious"] = sum(1 for a in answer if a not in used)
    return counts


def aggregate(answers: Sequence[Sequence[str]], rule: str) -> tuple[frozenset[str], ...]:
    """Per-token annotations of one sentence from the team's answers (one tag sequence per annotator).

    ``first``: the first annotator's tags.  ``majority``: the most frequent
    answer per token, ties to the first annotator (with two annotators this
    is ``first``).  ``drop``: the answer where everyone agrees, no label
    (the empty set) elsewhere.  ``candidates``: the set of the answers
    (a full label where everyone agrees).  ``majority+candidates``: the
    answer a strict majority gave, the set of the answers where no answer
    has one.  ``candidates-no-O``: the set of the answers, ``O`` left out
    where someone gave an entity label — a disagreement between ``O`` and
    an entity is read as a missed entity, the most frequent kind of error
    in audited NER corpora (Reiss et al. 2020; Merdjanovska et al. 2024).
    """
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; one of {', '.join(RULES)}")
    if len({len(a) for a in answers}) != 1:
        raise ValueError("the annotators' answers differ in length")
    out = []
    for column in zip(*answers):
        votes = {label: column.count(label) for label in dict.fromkeys(column)}  # first-seen order
        top = max(votes, key=votes.get)  # max keeps the first of equal counts: ties go to the first annotator
        if rule == "first":
            out.append(frozenset({column[0]}))
        elif rule == "majority":
            out.append(frozenset({top}))
        elif len(votes) == 1:
            out.append(frozenset(votes))
        elif rule == "drop":
            out.append(frozenset())
        elif rule == "candidates-no-O":
            out.append(frozenset(votes) - {"O"})
        elif rule == "candidates" or 2 * votes[top] <= len(column):
            out.append(frozenset(votes))
        else:
            out.append(frozenset({top}))
    return tuple(out)


#: CoNLL-2002 type confusions, ``CONFUSION[gold][wrong]`` given a type error: ORG<->LOC dominates
#: (metonymy: a city or country standing for its team or government), then MISC<->ORG (events,
#: products and nationalities named after organisations); PER is rarely involved.
CONLL_CONFUSION = {
    "ORG": {"LOC": 0.55, "MISC": 0.30, "PER": 0.15},
    "LOC": {"ORG": 0.65, "MISC": 0.20, "PER": 0.15},
    "MISC": {"ORG": 0.50, "LOC": 0.25, "PER": 0.25},
    "PER": {"ORG": 0.45, "LOC": 0.25, "MISC": 0.30},
}
#: Per-type multiplier of the type-error rate: persons are the easy type, MISC the hard one.
CONLL_TYPE_FACTOR = {"PER": 0.5, "LOC": 0.8, "ORG": 1.3, "MISC": 1.5}
#: Base rates per gold entity (miss, type error, boundary move) per corpus, before the profiles' multipliers.
BASE_RATES = {"conll2002-es": (0.02, 0.035, 0.025), "ncbi-disease": (0.035, 0.0, 0.05)}
#: Annotator profiles: multipliers of (miss, type error, boundary), the share of boundary moves that
#: widen, and an extra ORG->LOC weight (a systematic metonymy bias).
PROFILES = (
    ("A1 typical", (1.0, 1.0, 1.0), 0.5, 0.0),
    ("A2 hasty", (1.6, 1.2, 0.8), 0.3, 0.6),
    ("A3 inclusive", (0.6, 0.8, 1.5), 0.85, 0.0),
)


def team(corpus: str, size: int, scale: float = 1.0) -> list[Annotator]:
    """The first ``size`` annotators of :data:`PROFILES` for ``corpus``, every rate times ``scale``."""
    if not 1 <= size <= len(PROFILES):
        raise ValueError(f"1 to {len(PROFILES)} annotators, not {size}")
    miss, type_error, boundary = BASE_RATES[corpus]
    confusion = CONLL_CONFUSION if type_error > 0 else {}
    out = []
    for name, (m_miss, m_type, m_boundary), widen, org_to_loc in PROFILES[:size]:
        rows = {gold: dict(row) for gold, row in confusion.items()}
        if org_to_loc and "ORG" in rows:
            rows["ORG"]["LOC"] += org_to_loc
        out.append(
            Annotator(
                name,
                min(1.0, scale * m_miss * miss),
                min(1.0, scale * m_type * type_error),
                min(1.0, scale * m_boundary * boundary),
                widen,
                rows,
                CONLL_TYPE_FACTOR,
            )
        )
    return out


def simulate_team(
    sentences: Sequence[tuple[Sequence[str], Sequence[str]]], annotators: Sequence[Annotator], seed: int
) -> list[list[list[str]]]:
    """Every annotator's tags for every ``(tokens, gold tags)`` sentence: ``out[annotator][sentence]``.

    Each annotator draws from a generator of its own (seeded by ``seed``
    and its position), so its answers do not depend on the others.
    """
    out = []
    for position, annotator in enumerate(annotators):
        rng = np.random.default_rng([seed, position])
        out.append([annotate(tokens, gold, annotator, rng, seed) for tokens, gold in sentences])
    return out

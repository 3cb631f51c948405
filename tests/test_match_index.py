"""The app's string-match index agrees with the one-pass string matches after any edits."""

from __future__ import annotations

import random

from tagtool.core.corpus import Sentence
from tagtool.services.match_index import MatchIndex
from tagtool.services.string_matches import string_matches

NAMES = ["O", "B-ORG", "I-ORG", "B-PER", "I-PER", "B-LOC", "I-LOC"]
WORDS = ["Acme", "Corp", "said", "the", "John", "Smith", "in", "Paris", "acme", "."]


def _sentence(rng: random.Random) -> Sentence:
    tokens = tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
    return Sentence(tokens, (frozenset(),) * len(tokens))


def _label(rng: random.Random, sentence: Sentence) -> dict[int, frozenset]:
    changes = {}
    for t in range(len(sentence.tokens)):
        if rng.random() < 0.5:
            changes[t] = frozenset() if rng.random() < 0.2 else frozenset([rng.choice(NAMES)])
    return changes


def _same(index: MatchIndex, sentences: list[Sentence]) -> None:
    expected = string_matches(sentences, NAMES)
    got = [m for i in range(len(sentences)) for m in index.matches(i)]
    assert got == expected


def test_index_follows_every_edit_as_a_fresh_scan_would():
    rng = random.Random(7)
    sentences = [_sentence(rng) for _ in range(40)]
    index = MatchIndex(sentences, NAMES, fixed_ends=True)
    _same(index, sentences)
    for _step in range(150):
        i = rng.randrange(len(sentences))
        changes = _label(rng, sentences[i])
        anns = list(sentences[i].annotations)
        for t, a in changes.items():
            anns[t] = a
        sentences[i] = Sentence(sentences[i].tokens, tuple(anns))
        index.set_annotations(i, changes)
        _same(index, sentences)


def test_replaced_tokens_and_a_fresh_index_agree():
    rng = random.Random(3)
    sentences = [_sentence(rng) for _ in range(30)]
    for i in range(0, 30, 3):
        changes = _label(rng, sentences[i])
        sentences[i] = Sentence(
            sentences[i].tokens, tuple(changes.get(t, a) for t, a in enumerate(sentences[i].annotations))
        )
    index = MatchIndex(sentences, NAMES, fixed_ends=True)
    _same(index, sentences)
    sentences[4] = _sentence(rng)
    index.replace(4, sentences[4])
    _same(index, sentences)


def test_occurrences_skip_labeled_tokens_and_match_a_start_lowercased():
    def s(text, labels=None):
        tokens = tuple(text.split())
        return Sentence(tokens, tuple(frozenset([x]) if x else frozenset() for x in (labels or [None] * len(tokens))))

    sentences = [
        s("Aspirin helps", ["B-ORG", "O"]),
        s("take aspirin now"),
        s("aspirin aspirin"),
        s("no aspirin", [None, "O"]),
    ]
    index = MatchIndex(sentences, NAMES, fixed_ends=True)
    assert index.occurrences([("Aspirin",), ("aspirin",)]) == {1: [1], 2: [0, 1]}
    assert [(m.sentence, m.start, m.note) for m in index.matches(1)] == [
        (1, 1, "same text labeled O in 1 sentence, ORG in 1 sentence")
    ]


def test_the_app_counts_a_span_whose_neighbours_are_unlabeled():
    labeled = Sentence(
        ("Acme", "Corp", "hired", "John"), (frozenset({"B-ORG"}), frozenset({"I-ORG"}), frozenset(), frozenset())
    )
    other = Sentence(("at", "Acme", "Corp"), (frozenset(),) * 3)
    assert MatchIndex([labeled, other], NAMES, fixed_ends=True).matches(1) == []
    (match,) = MatchIndex([labeled, other], NAMES).matches(1)
    assert (match.start, match.end, match.allowed) == (1, 3, (frozenset({"B-ORG"}), frozenset({"I-ORG"})))

"""String-match suggestions on small hand-made projects."""

from __future__ import annotations

import time

from tagtool.core.corpus import Sentence
from tagtool.services.string_matches import SpanIndex, labeled_spans, span_labels, string_matches


def labeled(text: str, labels: str) -> Sentence:
    tokens, names = text.split(), labels.split()
    return Sentence(tokens, [frozenset() if n == "_" else frozenset(n.split("|")) for n in names])


def raw(text: str) -> Sentence:
    return Sentence(text.split())


def by_sentence(matches):
    return {(m.sentence, m.start, m.end): m for m in matches}


def test_recurrence_found_in_other_sentences_with_note():
    project = [
        labeled("Acme Corp hired Ann", "B-ORG I-ORG O B-PER"),
        labeled("Ann left Acme Corp", "B-PER O B-ORG I-ORG"),
        raw("Yesterday Acme Corp said"),
        raw("Ann and Bob"),
    ]
    got = by_sentence(string_matches(project))
    acme = got[(2, 1, 3)]
    assert acme.allowed == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    assert acme.note == "same text labeled ORG in 2 sentences"
    assert not acme.conflicting
    assert got[(3, 0, 1)].allowed == (frozenset({"B-PER"}),)
    assert set(got) == {(2, 1, 3), (3, 0, 1)}


def test_conflicting_types_become_a_candidate_set():
    project = [
        labeled("Jordan won", "B-PER O"),
        labeled("Jordan is hot", "B-LOC O O"),
        labeled("Jordan scored", "B-PER O"),
        raw("I saw Jordan"),
    ]
    (match,) = string_matches(project)
    assert match.allowed == (frozenset({"B-PER", "B-LOC"}),)
    assert match.conflicting
    assert match.evidence == (("PER", 2), ("LOC", 1))
    assert match.note == "same text labeled PER in 2 sentences, LOC in 1 sentence"


def test_outside_occurrences_are_counter_evidence():
    project = [
        labeled("Apple sells phones", "B-ORG O O"),
        labeled("an Apple a day", "O O O O"),
        raw("buy Apple shares"),
    ]
    (match,) = string_matches(project)
    assert match.allowed == (frozenset({"B-ORG", "O"}),)
    assert dict(match.evidence) == {"ORG": 1, "O": 1}
    # multiword: O counts only where every token of the string is O
    project = [
        labeled("New York grew", "B-LOC I-LOC O"),
        labeled("New York times", "O O O"),
        labeled("New ideas", "O O"),
        raw("to New York"),
    ]
    (match,) = string_matches(project)
    assert match.allowed == (frozenset({"B-LOC", "O"}), frozenset({"I-LOC", "O"}))
    assert dict(match.evidence) == {"LOC": 1, "O": 1}


def test_labeled_tokens_are_never_touched():
    project = [
        labeled("Acme Corp hired Ann", "B-ORG I-ORG O B-PER"),
        labeled("Acme Corp and Ann", "_ _ O _"),  # partly labeled: only the unlabeled tokens are suggested
        labeled("Acme Corp x", "B-ORG|B-LOC _ _"),  # a candidate set is the person's label too
        labeled("Ann", "B-PER"),
    ]
    got = by_sentence(string_matches(project))
    assert set(got) == {(1, 0, 2), (1, 3, 4)}


def test_a_match_stays_on_the_rest_of_a_span_while_its_labeled_tokens_agree():
    from tagtool.services.match_index import MatchIndex

    project = [
        labeled("Acme Corp hired Ann", "B-ORG I-ORG O B-PER"),
        labeled("Acme Corp rose", "B-ORG _ _"),  # its first token accepted: "Corp" keeps I-ORG
        labeled("Acme Corp fell", "O _ _"),  # labeled otherwise: the match is gone
        labeled("Acme Corp", "B-ORG I-ORG"),  # nothing left to suggest
    ]
    got = by_sentence(string_matches(project))
    assert set(got) == {(1, 0, 2)} and got[(1, 0, 2)].allowed == (frozenset({"B-ORG"}), frozenset({"I-ORG"}))
    index = MatchIndex(project)
    assert [(m.start, m.end, m.allowed) for i in range(4) for m in index.matches(i)] == [(0, 2, got[(1, 0, 2)].allowed)]


def test_overlapping_matches_longest_first():
    project = [
        labeled("New York is big", "B-LOC I-LOC O O"),
        labeled("York is old", "B-LOC O O"),
        labeled("New York Times wrote", "B-ORG I-ORG I-ORG O"),
        raw("the New York Times in New York and York"),
    ]
    got = by_sentence(string_matches(project))
    assert set(got) == {(3, 1, 4), (3, 5, 7), (3, 8, 9)}
    assert got[(3, 1, 4)].allowed == (frozenset({"B-ORG"}), frozenset({"I-ORG"}), frozenset({"I-ORG"}))
    assert got[(3, 5, 7)].allowed == (frozenset({"B-LOC"}), frozenset({"I-LOC"}))


def test_nested_span_inside_a_longer_labeled_one_is_not_counter_evidence():
    project = [
        labeled("York won", "B-ORG O"),
        labeled("New York grew", "B-LOC I-LOC O"),
        raw("York lost"),
    ]
    (match,) = string_matches(project)
    assert match.evidence == (("ORG", 1),)


def test_spans_at_sentence_boundaries_and_case_rule():
    project = [
        labeled("Aspirin helps", "B-DRUG O"),  # labeled at a start: also indexed as "aspirin"
        labeled("we took ibuprofen", "O O B-DRUG"),  # labeled at the end
        raw("Ibuprofen and aspirin"),  # a start matches the lowercased-initial form
        raw("take Aspirin"),
        raw("IBUPROFEN ibuprofen"),  # mid-sentence matching is case-sensitive
    ]
    got = by_sentence(string_matches(project))
    assert set(got) == {(2, 0, 1), (2, 2, 3), (3, 1, 2), (4, 1, 2)}


def test_case_sensitive_in_mid_sentence():
    project = [labeled("in May", "O B-DATE"), raw("you may go"), raw("since May")]
    assert [(m.sentence, m.start) for m in string_matches(project)] == [(2, 1)]


def test_spans_need_fixed_ends():
    # the token after the span is unlabeled: the span could go on, so it is not used
    assert labeled_spans(labeled("Acme Corp Inc", "B-ORG I-ORG _")) == []
    assert labeled_spans(labeled("Acme Corp Inc", "B-ORG I-ORG O")) == [("ORG", 0, 2)]
    assert labeled_spans(labeled("x Acme", "_ I-ORG")) == []


def test_schemes_and_min_support():
    assert span_labels("ORG", 3, ["O", "B-ORG", "I-ORG", "E-ORG", "S-ORG"]) == ["B-ORG", "I-ORG", "E-ORG"]
    assert span_labels("ORG", 1, ["O", "B-ORG", "I-ORG", "E-ORG", "S-ORG"]) == ["S-ORG"]
    assert span_labels("NP", 2, ["O", "I-NP"]) == ["I-NP", "I-NP"]
    project = [labeled("Acme won", "B-ORG O"), raw("Acme lost")]
    assert string_matches(project, min_support=2) == []
    assert len(string_matches(project)) == 1


def test_scales_to_many_sentences():
    words = [f"w{i}" for i in range(500)]
    project = [labeled(f"{words[i]} {words[i + 1]} x", "B-ORG I-ORG O") for i in range(200)]
    project += [raw(" ".join(words[(i * 13 + k) % 500] for k in range(20))) for i in range(10000)]
    t0 = time.perf_counter()
    matches = string_matches(project)
    assert matches and time.perf_counter() - t0 < 20
    assert len(SpanIndex(project)) == 200


def test_word_classes_make_no_spans_and_no_matches():
    from tagtool.services.match_index import MatchIndex

    # seqeval would read NOUN as a span of type OUN: a part-of-speech project gets no string matches
    project = [labeled("the dog runs", "DET NOUN VERB"), raw("a dog runs fast")]
    assert labeled_spans(project[0]) == [] and string_matches(project) == []
    assert MatchIndex(project).matches(1) == []

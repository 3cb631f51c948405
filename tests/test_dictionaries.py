"""Dictionaries and patterns: reading the files, project storage, suggestions before any model."""

from __future__ import annotations

import json
import logging

import pytest

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.services.dictionaries import (
    Dictionary,
    KnowledgeFileError,
    gazetteers_of,
    knowledge_matches,
    project_dictionaries,
    project_gazetteers,
    project_patterns,
    read_dictionary,
    read_patterns,
    remove_dictionary,
    remove_patterns,
    store_dictionary,
    store_patterns,
)
from tagtool.store.project import Project

NAMES = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"]


def raw(text: str) -> Sentence:
    return Sentence(text.split())


def labeled(text: str, labels: str) -> Sentence:
    tokens, names = text.split(), labels.split()
    return Sentence(tokens, [frozenset() if n == "_" else frozenset(n.split("|")) for n in names])


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_dictionary_file_multiword_comments_and_blank_lines(tmp_path):
    path = write(tmp_path, "places.txt", "# cities\nNew York\n\n  Boston  \nNew York-based\nBoston\n")
    d = read_dictionary(path, "LOC")
    assert d.entity_type == "LOC" and d.source == "places.txt"
    assert d.entries == (("New", "York"), ("Boston",), ("New", "York-based"))  # repeats dropped


def test_dictionary_errors_name_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"Ann\nBob\n\xff\xfeX\n")
    with pytest.raises(KnowledgeFileError, match=r"bad\.txt:3: not UTF-8"):
        read_dictionary(path, "PER")
    with pytest.raises(KnowledgeFileError, match="no entry"):
        read_dictionary(write(tmp_path, "empty.txt", "# nothing\n\n"), "PER")
    with pytest.raises(KnowledgeFileError, match="not an entity type"):
        read_dictionary(write(tmp_path, "p.txt", "Ann\n"), "B-PER")
    with pytest.raises(KnowledgeFileError, match="cannot read"):
        read_dictionary(tmp_path / "missing.txt", "PER")


def test_case_rule_exact_unless_lower_case_and_sentence_start():
    g = gazetteers_of(
        [
            Dictionary("MISC", (("May",),), "m.txt"),
            Dictionary("DIS", (("breast", "cancer"),), "d.txt"),
            Dictionary("ORG", (("de", "Beers"),), "o.txt"),
        ]
    )
    assert g.matches("in May".split()) == [("MISC", 1, 2)]
    assert g.matches("you may go".split()) == []  # "May" is exact
    assert g.matches("Breast Cancer and BREAST CANCER".split()) == [("DIS", 0, 2), ("DIS", 3, 5)]
    assert g.matches("De Beers sold".split()) == [("ORG", 0, 2)]  # the first token decapitalised
    assert g.matches("at De Beers".split()) == []


def test_longest_match_first_within_a_type_features_stack_across_types():
    g = gazetteers_of(
        [
            Dictionary("LOC", (("New", "York"), ("York",), ("New", "York", "City")), "l.txt"),
            Dictionary("ORG", (("York",),), "o.txt"),
        ]
    )
    assert g.matches("in New York City now".split()) == [("LOC", 1, 4), ("ORG", 2, 3)]
    feats = g.sentence_features("in New York City now".split())
    assert feats == [(), ("g=LOC:B",), ("g=LOC:I", "g=ORG:B"), ("g=LOC:I",), ()]


def test_patterns_file_phrases_and_token_patterns(tmp_path):
    lines = [
        {"label": "ORG", "pattern": "Acme Corp"},
        {"label": "ORG", "pattern": [{"LOWER": "acme"}, {"lower": "inc", "op": "?"}]},
        {"label": "MONEY", "pattern": [{"orth": "$"}, {"is_digit": True, "op": "+"}]},
        {"label": "PER", "pattern": [{"is_title": True}, {"shape": "Xxxxx"}], "id": "names"},
        {"label": "LOC", "pattern": [{"text": {"IN": ["Paris", "Rome"]}}]},
    ]
    path = write(tmp_path, "p.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n\n")
    patterns = read_patterns(path)
    assert patterns.name == "p.jsonl" and len(patterns) == 5
    assert patterns.labels == ("LOC", "MONEY", "ORG", "PER")
    assert patterns.patterns[0].phrase == ("Acme", "Corp")
    p = patterns.patterns[1]
    assert p.ends(["ACME", "Inc", "x"], 0) == {1, 2}
    assert patterns.patterns[2].ends(["$", "3", "4", "x"], 0) == {2, 3}
    assert patterns.patterns[3].ends(["Ann", "Smith"], 0) == {2}
    assert patterns.patterns[4].ends(["Rome"], 0) == {1}


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"label": "ORG", "pattern": [{"pos": "NOUN"}]}', "attribute 'pos' is not supported"),
        ('{"label": "ORG", "pattern": [{"lower": "x", "op": "{2}"}]}', "op"),
        ('{"label": "ORG", "pattern": 3}', "pattern"),
        ('{"pattern": "x"}', "label"),
        ('{"label": "ORG", "pattern": "x", "extra": 1}', "unknown key"),
        ("not json", "not a JSON object"),
        ('{"label": "ORG", "pattern": [{"lower": "x", "op": "?"}]}', "no token at all"),
        ('{"label": "ORG", "pattern": [{"is_digit": "yes"}]}', "true or false"),
    ],
)
def test_bad_pattern_lines_name_file_and_line(tmp_path, line, message):
    path = write(tmp_path, "bad.jsonl", '{"label": "ORG", "pattern": "ok"}\n' + line + "\n")
    with pytest.raises(KnowledgeFileError, match=r"bad\.jsonl:2") as info:
        read_patterns(path)
    assert message in str(info.value)


def test_knowledge_matches_never_touch_labeled_tokens_and_name_their_source(tmp_path):
    people = Dictionary("PER", (("Ann",), ("Ann", "Lee")), "people.txt")
    path = write(
        tmp_path,
        "patterns.jsonl",
        '{"label": "ORG", "pattern": "Acme Corp"}\n{"label": "ORG", "pattern": [{"lower": "acme"}]}\n',
    )
    sentences = [
        raw("Ann Lee joined Acme Corp"),
        labeled("Ann went to Acme", "B-PER O O _"),
        raw("nothing here"),
    ]
    got = {
        (m.sentence, m.start, m.end): m for m in knowledge_matches(sentences, [people], [read_patterns(path)], NAMES)
    }
    assert set(got) == {(0, 0, 2), (0, 3, 5), (1, 3, 4)}
    assert got[(0, 0, 2)].allowed == (frozenset({"B-PER"}), frozenset({"I-PER"}))
    assert got[(0, 0, 2)].note == "in the dictionary PER (people.txt)"
    assert got[(0, 3, 5)].note == "pattern ORG (patterns.jsonl line 1)"  # longest first: the phrase
    assert got[(1, 3, 4)].note == "pattern ORG (patterns.jsonl line 2)"
    assert got[(1, 3, 4)].evidence == (("ORG", 1),)


def test_conflicting_types_give_a_candidate_set_and_unknown_types_are_skipped(caplog):
    a = Dictionary("PER", (("Jordan",),), "people.txt")
    b = Dictionary("LOC", (("Jordan",),), "places.txt")
    c = Dictionary("DRUG", (("aspirin",),), "drugs.txt")
    with caplog.at_level(logging.WARNING):
        (m,) = knowledge_matches([raw("Jordan took aspirin")], [a, b, c], [], NAMES)
    assert m.allowed == (frozenset({"B-PER", "B-LOC"}),)
    assert m.conflicting and "people.txt" in m.note and "places.txt" in m.note
    assert "DRUG" in caplog.text


def test_label_scheme_follows_the_label_set():
    d = Dictionary("ORG", (("Acme", "Big", "Corp"), ("Acme",)), "o.txt")
    names = ["O", "B-ORG", "I-ORG", "E-ORG", "S-ORG"]
    got = knowledge_matches([raw("Acme Big Corp and Acme")], [d], [], names)
    assert [m.allowed for m in got] == [
        (frozenset({"B-ORG"}), frozenset({"I-ORG"}), frozenset({"E-ORG"})),
        (frozenset({"S-ORG"}),),
    ]


def test_project_storage_round_trip_add_replace_remove(tmp_path):
    corpus = Corpus(LabelSet(NAMES), (Document("d", (raw("Ann met Bob"),)),))
    people = read_dictionary(write(tmp_path, "people.txt", "Ann\n# c\nBob Lee\n"), "PER")
    patterns = read_patterns(write(tmp_path, "org.jsonl", '{"label": "ORG", "pattern": "Acme"}\n'))
    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus) as project:
        store_dictionary(project.stored, people)
        store_patterns(project.stored, patterns)
    with Project.open(path, readonly=True) as project:
        (d,) = project_dictionaries(project.stored)
        (p,) = project_patterns(project.stored)
        gaz = project_gazetteers(project.stored)
    assert (d.entity_type, d.entries, d.source) == ("PER", (("Ann",), ("Bob", "Lee")), "people.txt")
    assert p.name == "org.jsonl" and p.patterns[0].phrase == ("Acme",)
    assert gaz.entries == {"PER": (("Ann",), ("Bob", "Lee"))} and gaz.sources == {"PER": "people.txt"}
    with Project.open(path) as project:
        store_dictionary(project.stored, read_dictionary(write(tmp_path, "p2.txt", "Cy\n"), "PER"))
        assert [d.entries for d in project_dictionaries(project.stored)] == [(("Cy",),)]
        assert remove_dictionary(project.stored, "PER") and not remove_dictionary(project.stored, "PER")
        assert remove_patterns(project.stored, "org.jsonl") and not remove_patterns(project.stored, "org.jsonl")
        assert project_dictionaries(project.stored) == [] and project_gazetteers(project.stored) is None


def test_token_patterns_indexed_or_not_find_the_same_matches(tmp_path):
    lines = [
        {"label": "ORG", "pattern": [{"is_title": True, "op": "+"}, {"lower": "inc"}]},  # tried everywhere
        {"label": "ORG", "pattern": [{"lower": {"IN": ["banco", "grupo"]}}, {"is_title": True, "op": "*"}]},
        {"label": "PER", "pattern": [{"orth": "Dr."}, {"is_punct": True, "op": "!"}]},
    ]
    path = write(tmp_path, "p.jsonl", "\n".join(json.dumps(x) for x in lines))
    sentences = [raw("the Big Blue Inc said"), raw("el Banco Santander y grupo Prisa"), raw("Dr. Who and Dr. ,")]
    got = [(m.sentence, m.start, m.end, m.note) for m in knowledge_matches(sentences, [], [read_patterns(path)], NAMES)]
    assert got == [
        (0, 1, 4, "pattern ORG (p.jsonl line 1)"),
        (1, 1, 3, "pattern ORG (p.jsonl line 2)"),
        (1, 4, 6, "pattern ORG (p.jsonl line 2)"),
        (2, 0, 2, "pattern PER (p.jsonl line 3)"),
    ]


def test_a_worker_thread_stores_the_same_resource_through_put_in_file(tmp_path):
    from tagtool.services.dictionaries import resource_of
    from tagtool.store.resources import put_in_file

    corpus = Corpus(LabelSet(NAMES), (Document("d", (raw("Ann met Bob"),)),))
    path = tmp_path / "p.tagproj"
    Project.create(path, corpus).close()
    put_in_file(path, *resource_of(read_dictionary(write(tmp_path, "people.txt", "Ann\n"), "PER")))
    put_in_file(path, *resource_of(read_patterns(write(tmp_path, "o.jsonl", '{"label": "ORG", "pattern": "X"}'))))
    with Project.open(path, readonly=True) as project:
        assert [d.entries for d in project_dictionaries(project.stored)] == [(("Ann",),)]
        assert [p.labels for p in project_patterns(project.stored)] == [("ORG",)]

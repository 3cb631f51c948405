"""Span records attached to a project's text by character offsets, sentences joined, texts already held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.core import Corpus
from tagtool.core.corpus import Document
from tagtool.store.duplicates import held_texts
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tagtool.store.project_attach import NewLabelsError
from tagtool.store.project_texts import align, project_texts
from tagtool.store.span_attach import is_span_file, read_span_records

LABELS = "O B-PER I-PER B-LOC I-LOC B-ORG I-ORG".split()
PARAGRAPHS = [
    "Dr. Smith flew to Paris. The next day he met Anna Berg at the Louvre.",
    "The Hot Pot, which opened in New Haven, Conn. last May, is great! Try it.",
    "Nothing to see here. Really nothing.",
]


def span(text: str, words: str, label: str, nth: int = 0) -> list:
    at = -1
    for _ in range(nth + 1):
        at = text.index(words, at + 1)
    return [at, at + len(words), label]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def make_project(tmp_path: Path, tokenizer: str = "default") -> Path:
    """A project made from the paragraphs as ``{"text": ...}`` records (tokenized and split)."""
    source = write_jsonl(tmp_path / "raw.jsonl", [{"text": t} for t in PARAGRAPHS])
    corpus = read_corpus(source, tokenizer=tokenizer)
    path = tmp_path / "p.tagproj"
    from tagtool.core import LabelSet

    Project.create(path, Corpus(LabelSet(LABELS), corpus.documents)).close()
    return path


def two_annotators(tmp_path: Path) -> Path:
    """doccano: alice and bob each labeled paragraphs 1 and 2 (bob's span crosses "Paris. The")."""
    a, b = PARAGRAPHS[0], PARAGRAPHS[1]
    return write_jsonl(
        tmp_path / "doccano.jsonl",
        [
            {
                "text": a,
                "label": [span(a, "Smith", "PER"), span(a, "Anna Berg", "PER"), span(a, "Louvre", "LOC")],
                "user": "alice",
            },
            {"text": a, "label": [span(a, "Dr. Smith", "PER"), span(a, "Paris. The", "LOC")], "user": "bob"},
            {"text": b, "label": [span(b, "Hot Pot", "ORG"), span(b, "New Haven, Conn", "LOC")], "user": "alice"},
            {"text": b, "label": [span(b, "Hot Po", "ORG")], "user": "bob"},
        ],
    )


def tokens_of(project: Project, sid: int, labels) -> list[str]:
    sentence = project.sentence(sid)
    return [tok for tok, ann in zip(sentence.tokens, labels) if ann and ann != {"O"}]


def test_tokens_are_found_in_their_text_whatever_the_spaces():
    assert align(("U.S", ".", "is"), "the U.S . is", 4) == [(4, 7), (8, 9), (10, 12)]
    assert align(("U.S.",), "U.S .") == [(0, 5)]  # merged across a space
    assert align(("X",), "abc") is None


def test_project_texts_put_the_split_records_back_together(tmp_path):
    with Project.open(make_project(tmp_path)) as p:
        texts = project_texts(p._db)
    assert [t.text for t in texts] == PARAGRAPHS
    first = texts[0]
    assert len(first.sentences) == 2
    assert all(first.text[s:e] == tok for sent in first.sentences for tok, (s, e) in zip(sent.tokens, sent.offsets))


def test_two_annotators_spans_become_their_answers_by_offsets(tmp_path):
    path, file = make_project(tmp_path), two_annotators(tmp_path)
    assert is_span_file(file) and not is_span_file(tmp_path / "missing.jsonl")
    with Project.open(path) as p:
        done = p.spans.attach(file, read_span_records(file), answers=True)
        first, second = p.sentence_ids()[:2]
        own = p.team.annotator_labels(first)
        assert set(own) == {"alice", "bob"}
        assert tokens_of(p, first, own["alice"]) == ["Smith"]
        assert tokens_of(p, first, own["bob"]) == ["Dr.", "Smith"]  # "Paris. The" crossed: left out
        assert tokens_of(p, second, p.team.annotator_labels(second)["alice"]) == ["Anna", "Berg", "Louvre"]
    assert done.placed.found == 4 and len(done.placed.crossing) == 1
    crossing = [n for n in done.placed.notes if "crosses" in n]
    assert crossing and crossing[0].startswith(f"{file}:2: span [") and "'Paris. The' by bob" in crossing[0]
    snapped = [n for n in done.placed.notes if "inside a token" in n]
    assert any("'Hot Po' by bob" in n and "'Hot Pot'" in n for n in snapped)


def test_the_crossed_sentences_are_joined_on_request(tmp_path):
    path, file = make_project(tmp_path), two_annotators(tmp_path)
    with Project.open(path) as p:
        before = p.n_sentences
        first = p.sentence_ids()[0]
        p.set_annotation(p.sentence_ids()[1], 0, "O", annotator="carol")  # moves with its sentence
        p.review.flag(p.sentence_ids()[1], "look again")
        done = p.spans.attach(file, read_span_records(file), answers=True, merge_crossing=True)
        assert done.joined == 1 and not done.placed.crossing
        assert p.n_sentences == before - 1
        sentence = p.sentence(first)
        assert sentence.meta["text"] == PARAGRAPHS[0]
        bob = p.team.annotator_labels(first)["bob"]
        assert tokens_of(p, first, bob) == ["Dr.", "Smith", "Paris", ".", "The"]
        assert p.review.get(first).comment == "look again"
        positions = [row[0] for row in p._db.execute("SELECT position FROM sentences ORDER BY document_id, position")]
        assert positions == list(range(len(positions)))
        # the joined text is still one record: an export writes it back as it was
        assert [t.text for t in project_texts(p._db)] == PARAGRAPHS


def test_training_labels_fill_and_replace_only_what_the_file_covers(tmp_path):
    path = make_project(tmp_path)
    a = PARAGRAPHS[0]
    one = write_jsonl(
        tmp_path / "one.jsonl", [{"text": "Anna Berg at the Louvre.", "label": [[0, 9, "PER"]]}]
    )  # a part of paragraph 1
    with Project.open(path) as p:
        first, second = p.sentence_ids()[:2]
        p.set_annotation(first, 0, "B-ORG")
        p.set_annotation(second, 0, "B-ORG")  # "The": outside the record's text
        done = p.spans.attach(one, read_span_records(one), mode="fill")
        anns = p.annotations(second)
        assert anns[0] == {"B-ORG"} and done.changed > 0
        berg = p.sentence(second).tokens.index("Anna")
        assert anns[berg] == {"B-PER"} and anns[berg + 1] == {"I-PER"}
        assert p.annotations(first)[0] == {"B-ORG"}  # not covered: kept
        whole = write_jsonl(tmp_path / "whole.jsonl", [{"text": a, "label": []}])
        p.spans.attach(whole, read_span_records(whole), mode="fill")
        assert p.annotations(second)[0] == {"B-ORG"}
        p.spans.attach(whole, read_span_records(whole), mode="replace")
        assert p.annotations(second)[0] == {"O"} and p.annotations(first)[0] == {"O"}


def test_a_file_of_one_whole_text_attaches_to_a_project_of_paragraphs(tmp_path):
    path = make_project(tmp_path)
    whole = "\n\n".join(PARAGRAPHS)
    file = write_jsonl(tmp_path / "whole.jsonl", [{"text": whole, "label": [span(whole, "Really", "ORG")]}])
    with Project.open(path) as p:
        done = p.spans.attach(file, read_span_records(file), mode="fill")
        last = p.sentence_ids()[-1]
        assert tokens_of(p, last, p.annotations(last)) == ["Really"]
    assert done.placed.found == 1


def test_records_the_project_lacks_and_new_labels_are_reported(tmp_path):
    path = make_project(tmp_path)
    file = write_jsonl(
        tmp_path / "x.jsonl",
        [{"text": "Not in the project.", "label": []}, {"text": PARAGRAPHS[2], "label": [[0, 7, "MISC"]]}],
    )
    with Project.open(path) as p:
        with pytest.raises(NewLabelsError) as caught:
            p.spans.attach(file, read_span_records(file), mode="fill")
        assert caught.value.labels == ["B-MISC"]
        assert "B-MISC" not in p.labels
        done = p.spans.attach(file, read_span_records(file), mode="fill", add_labels=True)
    assert done.placed.found == 1
    assert any(n.startswith(f"{file}:1: the project holds no text 'Not in the project.'") for n in done.placed.notes)


def test_unnamed_answers_need_an_owner(tmp_path):
    path = make_project(tmp_path)
    file = write_jsonl(tmp_path / "x.jsonl", [{"text": PARAGRAPHS[2], "label": []}])
    with Project.open(path) as p:
        with pytest.raises(Exception, match="--annotator NAME"):
            p.spans.attach(file, read_span_records(file), answers=True)
        done = p.spans.attach(file, read_span_records(file), answers=True, owner="dora")
        assert done.counts.sentences == 2 and set(p.team.annotator_labels(p.sentence_ids()[-1])) == {"dora"}


def test_held_texts_find_records_and_whole_documents(tmp_path):
    path = make_project(tmp_path)
    raw = tmp_path / "raw.jsonl"
    more = write_jsonl(tmp_path / "more.jsonl", [{"text": PARAGRAPHS[1]}, {"text": "A new text."}])
    with Project.open(path) as p:
        held = held_texts(p, read_corpus(raw))
        assert (held.texts, held.total, len(held.rest)) == (3, 3, 0)
        held = held_texts(p, read_corpus(more))
        assert (held.texts, held.total) == (1, 2)
        assert [s.meta["text"] for s in held.rest] == ["A new text."]


DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.mark.parametrize("name", ["labelstudio_min.json", "labelstudio_full.json"])
def test_a_label_studio_file_s_annotators_stay_their_own_answers(tmp_path, name):
    """A project of the file's text split at whitespace only (other tokens than the file's reader makes)."""
    source = DATA / name
    corpus = read_corpus(source, tokenizer="whitespace")
    path = tmp_path / "ls.tagproj"
    unlabeled = [Document(d.name, [s.unlabeled() for s in d.sentences]) for d in corpus.documents]
    Project.create(path, Corpus(corpus.labels, unlabeled), name="ls").close()
    with Project.open(path) as p:
        assert not p.team.answering_annotators()
        records = read_span_records(source)
        done = p.spans.attach(source, records, answers=True)
        names = set(p.team.answering_annotators())
        assert done.placed.found == done.placed.records
    assert len(names) >= 2 and names == {n for r in records for n in r.sources if n is not None}


def test_a_refused_attach_leaves_the_sentences_unjoined(tmp_path):
    path = make_project(tmp_path)
    a = PARAGRAPHS[0]
    file = write_jsonl(tmp_path / "x.jsonl", [{"text": a, "label": [span(a, "Paris. The", "MISC")]}])
    with Project.open(path) as p:
        n = p.n_sentences
        with pytest.raises(NewLabelsError):
            p.spans.attach(file, read_span_records(file), mode="fill", merge_crossing=True)
        assert p.n_sentences == n  # the join happened in the transaction the refusal rolled back
        done = p.spans.attach(file, read_span_records(file), mode="fill", merge_crossing=True, add_labels=True)
        assert done.joined == 1 and p.n_sentences == n - 1


def test_an_overlapping_span_leaves_the_first_span_s_labels(tmp_path):
    path = make_project(tmp_path)
    c = PARAGRAPHS[2]
    file = write_jsonl(tmp_path / "x.jsonl", [{"text": c, "label": [[0, 7, "ORG"], [0, 10, "PER"]]}])
    with Project.open(path) as p:
        done = p.spans.attach(file, read_span_records(file), mode="fill")
        first = p.sentence_ids()[-2]
        # "to", under the span left out only, stays unlabeled (the reader's rule), "see" is O
        assert p.annotations(first)[:3] == ({"B-ORG"}, frozenset(), {"O"})
    assert any("overlaps another span; left out" in n for n in done.placed.notes)


def test_a_span_over_three_sentences_joins_them_into_one(tmp_path):
    text = "It rains all day. It pours at night. It stops by morning."
    source = write_jsonl(tmp_path / "three.jsonl", [{"text": text}, {"text": "After that, sun."}])
    corpus = read_corpus(source)
    path = tmp_path / "t.tagproj"
    from tagtool.core import LabelSet

    Project.create(path, Corpus(LabelSet(LABELS), corpus.documents)).close()
    file = write_jsonl(
        tmp_path / "x.jsonl", [{"text": text, "label": [span(text, "day. It pours at night. It", "ORG")]}]
    )
    with Project.open(path) as p:
        assert p.n_sentences == 4
        done = p.spans.attach(file, read_span_records(file), mode="fill", merge_crossing=True)
        assert done.joined == 2 and p.n_sentences == 2
        first = p.sentence_ids()[0]
        assert p.sentence(first).meta["text"] == text
        labeled = [t for t, a in zip(p.sentence(first).tokens, p.annotations(first)) if a != {"O"}]
        assert labeled == ["day", ".", "It", "pours", "at", "night", ".", "It"]
        assert p.sentence(p.sentence_ids()[1]).tokens[0] == "After"


def test_an_exported_partly_labeled_record_attaches_back_unlabeled_where_it_was(tmp_path):
    """A doccano export keeps unlabeled tokens in its ``tagtool`` metadata; attaching it must not make them O."""
    path = make_project(tmp_path)
    a = PARAGRAPHS[0]
    out = write_jsonl(
        tmp_path / "export.jsonl",
        [
            {
                "text": a,
                "label": [span(a, "Dr. Smith", "PER")],
                "tagtool": {"state": "partial", "unlabeled": [[a.index("The next"), len(a)]]},
            },
            {"text": PARAGRAPHS[2], "label": [], "tagtool": {"state": "none", "unlabeled": [[0, len(PARAGRAPHS[2])]]}},
        ],
    )
    with Project.open(path) as p:
        p.spans.attach(out, read_span_records(out), mode="fill")
        ids = p.sentence_ids()
        assert list(p.annotations(ids[0])[:2]) == [{"B-PER"}, {"I-PER"}]
        assert all(not ann for ann in p.annotations(ids[1]))  # "The next day ...": unlabeled in the export
        for sid in ids[-2:]:  # the third paragraph: nobody labeled it
            assert all(not ann for ann in p.annotations(sid))


def test_an_unfinished_label_studio_task_attaches_its_labels_from_the_metadata(tmp_path):
    """A partly labeled project's Label Studio export keeps an unfinished task's labels in ``meta``, not in
    annotations; attached by offsets they are the training labels again, unlabeled where they were."""
    path = make_project(tmp_path)
    a = PARAGRAPHS[0]
    task = {
        "data": {"text": a},
        "annotations": [],
        "meta": {
            "tagtool": {
                "state": "partial",
                "labels": {"spans": [span(a, "Dr. Smith", "PER")], "unlabeled": [[a.index("flew"), len(a)]]},
            }
        },
    }
    file = tmp_path / "tasks.json"
    file.write_text(json.dumps([task]), encoding="utf-8")
    with Project.open(path) as p:
        p.spans.attach(file, read_span_records(file), mode="fill")
        ids = p.sentence_ids()
        assert [set(x) for x in p.annotations(ids[0])[:2]] == [{"B-PER"}, {"I-PER"}]
        assert not p.annotations(ids[0])[2] and all(not ann for ann in p.annotations(ids[1]))


def test_an_exported_record_s_candidate_sets_attach_as_candidate_sets(tmp_path):
    path = make_project(tmp_path)
    a = PARAGRAPHS[0]
    paris = span(a, "Paris", "LOC")[:2]
    out = write_jsonl(
        tmp_path / "export.jsonl",
        [
            {
                "text": a,
                "label": [span(a, "Dr. Smith", "PER")],
                "tagtool": {"state": "partial", "candidates": [[*paris, ["B-LOC", "B-ORG"]]]},
            }
        ],
    )
    with Project.open(path) as p:
        p.spans.attach(out, read_span_records(out), mode="fill")
        first = p.sentence_ids()[0]
        at = p.sentence(first).tokens.index("Paris")
        assert p.annotations(first)[at] == {"B-LOC", "B-ORG"}


def test_a_tagtool_doccano_export_brings_its_annotators_answers_beside_its_training_labels(tmp_path):
    """The export keeps alice's and bob's spans in each record's metadata, its own spans being the training
    labels: attached as training labels, the answers come too (not as votes on the training labels)."""
    a = PARAGRAPHS[0]
    file = write_jsonl(
        tmp_path / "team.jsonl",
        [
            {
                "text": a,
                "label": [span(a, "Anna Berg", "PER")],
                "tagtool": {
                    "state": "full",
                    "annotators": {
                        "alice": {"spans": [span(a, "Anna Berg", "PER"), span(a, "Louvre", "LOC")]},
                        "bob": {"spans": [span(a, "Anna", "PER")]},
                    },
                },
            }
        ],
    )
    path = make_project(tmp_path)
    with Project.open(path) as p:
        done = p.spans.attach(file, read_span_records(file), mode="fill")
        assert done.counts is not None and done.counts.sentences == 2
        second = p.sentence_ids()[1]
        tokens = p.sentence(second).tokens
        anna, louvre = tokens.index("Anna"), tokens.index("Louvre")
        own = p.team.annotator_labels(second)
        assert set(own) == {"alice", "bob"} == set(p.team.answering_annotators())
        assert own["alice"][anna : anna + 2] == ({"B-PER"}, {"I-PER"})
        assert own["bob"][anna : anna + 2] == ({"B-PER"}, {"O"})
        assert own["alice"][louvre] == {"B-LOC"}
        # the training labels are the export's own spans: Louvre O (alice alone said LOC), Berg I-PER
        labels = p.annotations(second)
        assert labels[anna : anna + 2] == ({"B-PER"}, {"I-PER"}) and labels[louvre] == {"O"}
    (tmp_path / "only").mkdir()
    with Project.open(make_project(tmp_path / "only")) as p:  # one annotator of it, as answers
        p.spans.attach(file, read_span_records(file, annotator="bob"), answers=True)
        assert p.team.answering_annotators() == ["bob"]

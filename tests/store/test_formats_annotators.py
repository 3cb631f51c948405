"""Annotator identity in the readers and writers: doccano and Label Studio names, JSONL
"annotators", Label Studio tasks written back, and each token's line."""

from __future__ import annotations

import json
import pathlib

import pytest

from tagtool.core import Corpus, LabelSet
from tagtool.core.corpus import Sentence
from tagtool.errors import FormatError
from tagtool.store.formats import iter_located, read_corpus, write_corpus
from tagtool.store.project import Project

DATA = pathlib.Path(__file__).parent.parent / "data"
LABELS = LabelSet(["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"])


def _ann(*names):
    return frozenset(names)


def _jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_doccano_record_user_names_the_annotator():
    corpus = read_corpus(DATA / "doccano_v1.jsonl")
    users = [set(s.annotator_labels) for s in corpus]
    assert users == [{"1"}, {"1"}, {"1"}, {"2"}]  # the first record is two sentences
    assert corpus.sentences[0].annotator_labels["1"] == corpus.sentences[0].annotations
    assert "annotation_approver" in json.loads(corpus.sentences[2].meta["record"])  # metadata, not a name


def test_doccano_record_without_a_name_is_the_chosen_annotators(tmp_path):
    source = _jsonl(
        tmp_path / "alice.jsonl", [{"text": "Ann met Bob", "label": [[0, 3, "PER"]]}, {"text": "Nothing here"}]
    )
    assert not read_corpus(source).sentences[0].annotator_labels
    labeled, unlabeled = read_corpus(source, annotator="alice").sentences
    assert labeled.annotator_labels == {"alice": (_ann("B-PER"), _ann("O"), _ann("O"))}
    assert not unlabeled.annotator_labels
    with pytest.raises(FormatError, match="no annotations by 'zoe'; annotators in the file: 1, 2"):
        read_corpus(DATA / "doccano_v1.jsonl", annotator="zoe")
    assert {n for s in read_corpus(DATA / "doccano_v1.jsonl", annotator="2") for n in s.annotator_labels} == {"2"}
    mixed = _jsonl(
        tmp_path / "mixed.jsonl",
        [{"text": "Ann left", "label": [[0, 3, "PER"]], "user": "bob"}, {"text": "Cy left", "label": [[0, 2, "PER"]]}],
    )
    bob, unnamed = read_corpus(mixed, annotator="zoe").sentences
    assert not bob.annotator_labels and set(unnamed.annotator_labels) == {"zoe"}


def test_label_studio_task_of_one_annotator_keeps_the_name_in_the_project(tmp_path):
    corpus = read_corpus(DATA / "labelstudio_full.json")
    with Project.create(tmp_path / "p.tagproj", corpus) as p:
        _, nile = p.sentence_ids()
        assert set(p.team.annotator_labels(nile)) == {"1"}
        givers = {who for (who,) in p._db.execute("SELECT annotator FROM annotations WHERE sentence_id = ?", (nile,))}
        assert givers == {"1"}


def test_jsonl_token_records_carry_each_annotators_labels(tmp_path):
    sentence = Sentence(
        ("Ann", "met", "Acme"),
        [_ann("B-PER"), _ann("O"), _ann("B-ORG")],
        annotator_labels={
            "alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG", "B-LOC")],
            "bob b.": [_ann("B-PER"), _ann(), _ann("B-ORG")],
        },
    )
    corpus = Corpus.from_sentences([sentence, Sentence(("x",), [_ann("O")])], LABELS, name="out.jsonl")
    out = tmp_path / "out.jsonl"
    write_corpus(corpus, out)
    first, second = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    assert first["labels"] == ["B-PER", "O", "B-ORG"]
    assert first["annotators"] == {"alice": ["B-PER", "O", ["B-ORG", "B-LOC"]], "bob b.": ["B-PER", None, "B-ORG"]}
    assert "annotators" not in second
    assert read_corpus(out, labels=LABELS) == corpus


@pytest.mark.parametrize(
    "value, message",
    [
        ([1], '"annotators" must be an object'),
        ({"alice": ["O"]}, "'alice' must have a list of 2 labels"),
        ({" ": ["O", "O"]}, "name must not be empty"),
        ({"alice": ["O", 3]}, "a label must be a string"),
    ],
)
def test_jsonl_annotators_errors_name_the_line(tmp_path, value, message):
    source = _jsonl(
        tmp_path / "bad.jsonl",
        [{"tokens": ["a"], "labels": ["O"]}, {"tokens": ["a", "b"], "labels": ["O", "O"], "annotators": value}],
    )
    with pytest.raises(FormatError, match=message) as info:
        read_corpus(source)
    assert info.value.line == 2


def test_each_token_has_its_line(tmp_path):
    conll = tmp_path / "a.conll"
    conll.write_text("-DOCSTART- O\n\nAnn B-PER\nmet O\n\n\nBob B-PER\n", encoding="utf-8")
    assert [lines for _, _, lines in iter_located(conll)] == [(3, 4), (7,)]
    conllu = [lines for _, _, lines in iter_located(DATA / "ewt_test_slice.conllu")]
    assert conllu[0] == tuple(range(3, 10))
    records = _jsonl(tmp_path / "r.jsonl", [{"tokens": ["a"]}, {"text": "One. Two here."}])
    # "One ." and "Two here ." of the record on line 2
    assert [lines for _, _, lines in iter_located(records)] == [(1,), (2, 2), (2, 2, 2)]


def _two_annotators(tmp_path):
    """A Label Studio export whose tasks two annotators labeled (alice: PER, 7: ORG) and the project from it."""
    tasks = [
        {
            "id": 11,
            "data": {"text": "Ann Lee left. Then Acme came.", "source": "web"},
            "project": 4,
            "annotations": [
                {
                    "completed_by": {"id": 3, "email": "alice"},
                    "result": [
                        {"type": "labels", "value": {"start": 0, "end": 7, "text": "Ann Lee", "labels": ["PER"]}},
                        {"type": "labels", "value": {"start": 19, "end": 23, "text": "Acme", "labels": ["ORG"]}},
                    ],
                },
                {
                    "completed_by": 7,
                    "result": [{"type": "labels", "value": {"start": 0, "end": 3, "text": "Ann", "labels": ["ORG"]}}],
                },
            ],
        },
        {"id": 12, "data": {"text": "Unlabeled text"}, "annotations": []},
    ]
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps(tasks), encoding="utf-8")
    return source, tasks


def test_label_studio_tasks_written_back_with_one_annotation_per_annotator(tmp_path):
    source, tasks = _two_annotators(tmp_path)
    corpus = read_corpus(source, labels=LABELS)
    assert [set(s.annotator_labels) for s in corpus] == [{"alice", "7"}, {"alice", "7"}, set()]
    out = tmp_path / "out.json"
    write_corpus(corpus, out, format="labelstudio")
    written = json.loads(out.read_text(encoding="utf-8"))
    assert len(written) == 2  # the two sentences of task 11 are one task again
    first = written[0]
    assert first["id"] == 11 and first["project"] == 4
    assert first["data"] == {"text": "Ann Lee left. Then Acme came.", "source": "web"}
    assert [a["completed_by"] for a in first["annotations"]] == ["alice", 7]
    values = [[r["value"] for r in a["result"]] for a in first["annotations"]]
    assert values == [[r["value"] for r in a["result"]] for a in tasks[0]["annotations"]]
    assert written[1]["annotations"] == []
    again = read_corpus(out, labels=LABELS)
    assert [s.annotator_labels for s in again] == [s.annotator_labels for s in corpus]
    assert [s.annotations for s in again] == [s.annotations for s in corpus]


def test_label_studio_tasks_keep_an_annotators_candidate_set(tmp_path):
    sentence = Sentence(
        ("Ann", "left"),
        [_ann("B-PER"), _ann("O")],
        annotator_labels={"alice": [_ann("B-PER"), _ann("O")], "bob": [_ann("B-PER", "B-ORG"), _ann("O")]},
    )
    single = Sentence(("Bob",), [_ann("B-PER")])
    out = tmp_path / "x.json"
    write_corpus(Corpus.from_sentences([sentence, single], LABELS), out, format="labelstudio")
    first, second = json.loads(out.read_text(encoding="utf-8"))
    assert first["meta"]["tagtool"]["annotators"] == {"bob": {"candidates": [[0, 3, ["B-ORG", "B-PER"]]]}}
    assert [a["completed_by"] for a in first["annotations"]] == ["alice", "bob"]
    assert second["annotations"] == [
        {
            "result": [
                {
                    "from_name": "label",
                    "to_name": "text",
                    "type": "labels",
                    "value": {"start": 0, "end": 3, "text": "Bob", "labels": ["PER"]},
                }
            ]
        }
    ]
    again = read_corpus(out, labels=LABELS)
    assert [s.annotator_labels for s in again] == [sentence.annotator_labels, {}]
    assert [s.annotations for s in again] == [sentence.annotations, single.annotations]


def test_a_set_of_every_observed_label_is_no_label_but_the_sentence_keeps_the_rest(tmp_path):
    source = _jsonl(
        tmp_path / "a.jsonl",
        [
            {
                "tokens": ["New", "York", "x"],
                "labels": ["O", ["O", "B-PER"], "O"],
                "flag": "x",
                "annotators": {"ana": ["O", "O", "O"], "ben": ["O", ["O", "B-PER"], "O"]},
            }
        ],
    )
    (sentence,) = read_corpus(source).sentences
    assert sentence.annotations == (_ann("O"), _ann(), _ann("O"))  # O|B-PER allows every label observed
    assert sentence.annotator_labels == {"ana": (_ann("O"),) * 3, "ben": (_ann("O"), _ann(), _ann("O"))}
    assert sentence.meta["flag"] == "x"
    (kept,) = read_corpus(source, keep_full_sets=True).sentences  # for a caller with a larger label set
    assert kept.annotations[1] == {"O", "B-PER"} and kept.annotator_labels["ben"][1] == {"O", "B-PER"}

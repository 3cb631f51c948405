"""``tagtool export --spans`` / ``--format doccano|labelstudio`` of a partly labeled project, imported
again into a new project: the same labels; and JSONL token records write a record's text once."""

from __future__ import annotations

import json

import pytest

from tagtool.cli.main import main
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

RECORDS = [
    {
        "id": 1,
        "text": "Hot Pot, which opened in New Haven, Conn. last May, is great! The staff were kind.",
        "label": [[25, 34, "LOC"], [36, 41, "LOC"]],
    },
    {
        "id": 2,
        "text": "I ate at Joe's Diner in Boston. It was fine. Dr. Smith agreed.",
        "label": [[9, 20, "ORG"], [24, 30, "LOC"], [45, 54, "PER"]],
    },
    {"id": 3, "text": "Nothing special here. Would not return."},  # nobody labeled it
]


@pytest.fixture
def project(tmp_path):
    source = tmp_path / "reviews.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    path = tmp_path / "p.tagproj"
    assert main(["import", str(source), "-p", str(path)]) == 0
    with Project.open(path) as p:  # half of a sentence labeled, one token a candidate set
        ids = p.sentence_ids()
        p.set_annotations(ids[5], {0: "O", 1: "O"})
        p.set_annotations(ids[1], {1: "O|B-ORG"})
    return path


def _labels(path):
    with Project.open(path, readonly=True) as p:
        return [(s.tokens, s.annotations) for s in p.review.export_corpus()]


@pytest.mark.parametrize(
    "options, name",
    [(["--spans"], "out.jsonl"), (["--format", "doccano"], "out.txt"), (["--format", "labelstudio"], "out.json")],
)
def test_a_partly_labeled_project_goes_out_and_back(project, tmp_path, capsys, options, name):
    out = tmp_path / name
    assert main(["export", str(project), "-o", str(out), *options]) == 0, capsys.readouterr().err
    again = tmp_path / "again.tagproj"
    assert main(["import", str(out), "-p", str(again)]) == 0, capsys.readouterr().err
    assert _labels(again) == _labels(project)


def test_the_doccano_export_says_each_records_state(project, tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["export", str(project), "-o", str(out), "--spans"]) == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == [1, 2, 3]  # one record per record read, its sentences inside
    assert [r.get("tagtool", {}).get("state", "full") for r in records] == ["partial", "full", "partial"]
    # "here ." and the whole next sentence: one run of unlabeled tokens
    assert records[2]["label"] == [] and records[2]["tagtool"]["unlabeled"] == [[16, 39]]


def test_an_export_error_names_the_sentence_and_token(project, tmp_path, capsys):
    with Project.open(project) as p:
        p.set_annotations(p.sentence_ids()[4], {2: "I-PER"})  # "agreed" after "Smith" (I-PER) is fine
        p.set_annotations(p.sentence_ids()[3], {2: "I-LOC"})  # "fine" after "was" (O) is not BIO
    assert main(["export", str(project), "-o", str(tmp_path / "x.jsonl"), "--spans"]) == 1
    err = capsys.readouterr().err
    assert "sentence 4: label 'I-LOC' of token 3 does not fit the BIO scheme" in err


def test_token_records_write_a_records_text_once_and_read_back_the_same(project, tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["export", str(project), "-o", str(out)]) == 0
    written = out.read_text(encoding="utf-8")
    for record in RECORDS:
        assert written.count(record["text"].split(".")[0]) == 1
    records = [json.loads(line) for line in written.splitlines()]
    assert "labels" not in records[6] and "text" not in records[1]
    with Project.open(project, readonly=True) as p:
        assert list(read_corpus(out)) == list(p.review.export_corpus())


def test_token_records_written_before_read_the_same(project, tmp_path):
    out = tmp_path / "out.jsonl"
    assert main(["export", str(project), "-o", str(out)]) == 0
    with Project.open(project, readonly=True) as p:
        sentences = list(p.review.export_corpus())
    old = tmp_path / "old.jsonl"  # each sentence's text and every labels list, as the writer wrote them before
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for record, sentence in zip(records, sentences, strict=True):
        record.setdefault("labels", [None] * len(sentence))
        record.setdefault("text", sentence.meta["text"])
    old.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert list(read_corpus(old)) == list(read_corpus(out)) == sentences

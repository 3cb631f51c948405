"""The command line on doccano and Label Studio exports: skipped spans listed,
--strict, --tokenizer, --no-sentence-split, --annotator/--annotators."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from tagtool.cli.inputs import TOKENIZER_CHOICES
from tagtool.cli.main import main
from tagtool.core.tokenize import TOKENIZERS
from tagtool.store.project import Project

DATA = pathlib.Path(__file__).parent / "data"


def test_import_lists_skipped_spans_and_says_how_many(tmp_path, capsys):
    source = DATA / "doccano_entities.jsonl"
    project = tmp_path / "p.tagproj"
    assert main(["import", str(source), "-p", str(project)]) == 0
    err = capsys.readouterr().err
    assert f"{source}:2: span [48, 54) 'ORG' 'Madrid'" in err and "overlaps another span; skipped" in err
    assert "1 span(s) could not be placed and were skipped" in err
    with Project.open(project, readonly=True) as p:
        assert len(p.sentence_ids()) == 3


def test_strict_import_refuses_the_file_in_one_line(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(DATA / "doccano_entities.jsonl"), "-p", str(project), "--strict"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "doccano_entities.jsonl:2: span [48, 54)" in err
    assert not project.exists()


def test_tokenizer_and_sentence_split_options(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    args = [
        "import",
        str(DATA / "doccano_v1.jsonl"),
        "-p",
        str(project),
        "--tokenizer",
        "whitespace",
        "--no-sentence-split",
    ]
    assert main(args) == 0
    with Project.open(project, readonly=True) as p:
        corpus = p.corpus()
    assert len(corpus) == 3 and corpus.sentences[0].tokens[-1] == "said."


def test_export_spans_writes_the_records_back(tmp_path, capsys):
    source = DATA / "doccano_v1.jsonl"
    project = tmp_path / "p.tagproj"
    assert main(["import", str(source), "-p", str(project)]) == 0
    out = tmp_path / source.name
    assert main(["export", str(project), "-o", str(out), "--spans"]) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    original = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    original[1]["label"][2][1] += len("ing")  # "Silver Spr" snapped to the whole token
    assert written == original


def test_label_studio_annotators_all_or_one(tmp_path, capsys):
    source = DATA / "labelstudio_full.json"
    both, ben = tmp_path / "both.tagproj", tmp_path / "ben.tagproj"
    assert main(["import", str(source), "-p", str(both), "--annotators", "all"]) == 0
    err = capsys.readouterr().err
    assert "annotators 1, ben@example.com" in err and "1 token(s) where they differ got the candidate set" in err
    assert main(["import", str(source), "-p", str(ben), "--annotator", "ben@example.com"]) == 0
    with Project.open(both, readonly=True) as p:
        first = p.sentence_ids()[0]
        assert p.annotations(first)[5] == {"B-LOC", "B-ORG"}
        assert set(p.team.annotator_labels(first)) == {"1", "ben@example.com"}
    with Project.open(ben, readonly=True) as p:
        first, second = p.sentence_ids()
        assert p.annotations(first)[5] == {"B-ORG"}
        assert p.annotations(second) == (frozenset(),) * 6
    assert main(["import", str(source), "-p", str(tmp_path / "x.tagproj"), "--annotator", "zoe"]) == 1
    assert "no annotations by 'zoe'; annotators in the file: 1, ben@example.com" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["import", "train", "tag", "evaluate", "experiment", "simulate"])
def test_every_command_that_reads_files_takes_the_span_options(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for option in ("--tokenizer", "--no-sentence-split", "--strict"):
        assert option in text
    assert ("--annotator" in text) == (command != "tag")  # tag reads no labels


def test_tokenizer_choices_match_the_tokenizers():
    assert TOKENIZER_CHOICES == tuple(TOKENIZERS)


def test_train_reads_span_records_with_the_options(tmp_path, capsys):
    data = tmp_path / "train.jsonl"
    shutil.copy(DATA / "doccano_v1.jsonl", data)
    model = tmp_path / "m.tagger"
    assert main(["train", str(data), "-o", str(model), "--learner", "perceptron", "--strict"]) == 0
    assert model.exists()


def test_tag_progress_counts_the_sentences_of_split_records(tmp_path):
    from tagtool.services.batch import tag_file
    from tagtool.store.formats import read_corpus

    source = DATA / "doccano_entities.jsonl"  # 2 records, 3 sentences
    seen = []
    model = tmp_path / "m.tagger"
    assert main(["train", str(DATA / "doccano_v1.jsonl"), "-o", str(model), "--learner", "perceptron"]) == 0
    result = tag_file(model, source, tmp_path / "out.jsonl", progress=lambda f, m: seen.append((f, m)))
    assert result.n_sentences == 3 == len(read_corpus(source))
    assert seen[-1] == (1.0, "3 of 3 sentences") and all(f <= 1.0 for f, _ in seen)


def test_export_spans_to_standard_output_or_any_name(tmp_path, capsys):
    # --spans to -o - (or out.txt) used to end in a TypeError traceback: the
    # format came from the name, and column formats know no "spans".
    project = tmp_path / "p.tagproj"
    assert main(["import", str(DATA / "doccano_v1.jsonl"), "-p", str(project)]) == 0
    capsys.readouterr()
    assert main(["export", str(project), "-o", "-", "--spans"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(records) == 3 and records[0]["label"][0] == [0, 13, "PER"]
    assert main(["export", str(project), "-o", str(tmp_path / "out.txt"), "--spans"]) == 0
    assert json.loads((tmp_path / "out.txt").read_text(encoding="utf-8").splitlines()[0])["label"]
    assert main(["export", str(project), "-o", "-", "--spans", "--format", "conll"]) == 1
    assert "--spans writes JSON Lines" in capsys.readouterr().err


def test_import_of_a_file_without_labels_names_the_file(tmp_path, capsys):
    # It said "a label set needs at least one label", naming no file.
    source = tmp_path / "tasks.json"
    source.write_text(
        json.dumps([{"id": 1, "data": {"text": "Nobody labeled this."}, "annotations": []}]), encoding="utf-8"
    )
    assert main(["import", str(source), "-p", str(tmp_path / "p.tagproj")]) == 1
    err = capsys.readouterr().err
    assert f"{source}: holds no labels" in err and "--labels" in err and "\n" not in err.strip()
    assert not (tmp_path / "p.tagproj").exists()


def test_the_skipped_span_count_is_by_kind_not_by_text(tmp_path, capsys):
    # It counted every warning holding "skipped": here the path's folder name.
    folder = tmp_path / "skipped"
    folder.mkdir()
    source = folder / "one.jsonl"
    source.write_text('{"text": "Apple hired Tim Cook.", "label": [[0, 4, "ORG"]]}\n', encoding="utf-8")
    assert main(["import", str(source), "-p", str(tmp_path / "p.tagproj")]) == 0
    err = capsys.readouterr().err
    assert "snapped outward" in err and "could not be placed" not in err


def test_label_studio_edge_cases_are_imported_with_a_word(tmp_path, capsys):
    text = "Anna met Ben ."
    span = {"type": "labels", "value": {"start": 0, "end": 4, "text": "Anna", "labels": ["PER"]}}
    html = {
        "type": "hypertextlabels",
        "value": {
            "start": "/p[1]/text()[1]",
            "end": "/p[1]/text()[1]",
            "startOffset": 9,
            "endOffset": 12,
            "globalOffsets": {"start": 9, "end": 12},
            "text": "Ben",
            "hypertextlabels": ["PER"],
        },
    }
    tasks = [
        {
            "id": 1,
            "data": {"text": text},
            "annotations": [
                {"id": 1, "completed_by": "unknown", "result": [span], "updated_at": "2024-01-02T00:00:00Z"},
                {"id": 2, "completed_by": "unknown", "result": [], "updated_at": "2024-01-01T00:00:00Z"},
                {"id": 3, "result": [{"type": "labels", "value": {"start": 9, "end": 12, "labels": ["LOC"]}}]},
            ],
        },
        {"id": 2, "data": {"html": f"<p>{text}</p>"}, "annotations": [{"id": 4, "completed_by": 5, "result": [html]}]},
    ]
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps(tasks), encoding="utf-8")
    project = tmp_path / "p.tagproj"
    assert main(["import", str(source), "-p", str(project)]) == 0
    err = capsys.readouterr().err
    assert f"{source}:1: task 1: annotator 'unknown' has 2 annotations; kept id 1" in err
    assert "task 1: 1 annotation(s) without completed_by beside others, kept as annotator(s) '(anonymous)'" in err
    with Project.open(project, readonly=True) as p:
        first, second = p.sentence_ids()
        assert set(p.team.annotator_labels(first)) == {"unknown", "(anonymous)"}
        assert p.team.annotator_labels(first)["unknown"][0] == {"B-PER"}
        assert p.annotations(second)[2] == {"B-PER"}

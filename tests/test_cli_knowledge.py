"""``tagtool dictionary``, ``tagtool patterns`` and ``tagtool train --gazetteer``."""

from __future__ import annotations

import json
import pathlib
import zipfile

import pytest

from tagtool.cli.main import main
from tagtool.services.dictionaries import project_dictionaries, project_patterns
from tagtool.store.project import Project
from tagtool.tagger.file_format import GAZETTEERS_MEMBER
from tagtool.tagger.model import load_tagger

CONLL = pathlib.Path(__file__).parent / "data" / "conll2002_esp_train_head.txt"


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "ner.tagproj"
    assert main(["import", str(CONLL), "-p", str(path)]) == 0
    return path


@pytest.fixture
def places(tmp_path):
    path = tmp_path / "places.txt"
    path.write_text("# some places\nMelbourne\nAustralia\nSan Sebastián\n", encoding="utf-8")
    return path


def test_dictionary_add_list_replace_remove(project, places, tmp_path, capsys):
    assert main(["dictionary", str(project), "LOC", str(places)]) == 0
    assert "3 entries" in capsys.readouterr().out
    assert main(["dictionary", str(project)]) == 0
    assert "LOC\t3 entries\tplaces.txt" in capsys.readouterr().out
    drugs = tmp_path / "drugs.txt"
    drugs.write_text("aspirin\n", encoding="utf-8")
    assert main(["dictionary", str(project), "DRUG", str(drugs)]) == 0
    assert "no label of the type DRUG" in capsys.readouterr().err
    with Project.open(project, readonly=True) as p:
        assert [d.entity_type for d in project_dictionaries(p.stored)] == ["DRUG", "LOC"]
    assert main(["dictionary", str(project), "DRUG", "--remove"]) == 0
    assert main(["dictionary", str(project), "DRUG", "--remove"]) == 1
    assert "no dictionary of the type DRUG" in capsys.readouterr().err


def test_bad_dictionary_leaves_the_project_unchanged(project, tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\n\xff\n")
    assert main(["dictionary", str(project), "LOC", str(bad)]) == 1
    assert "bad.txt:2" in capsys.readouterr().err
    with Project.open(project, readonly=True) as p:
        assert project_dictionaries(p.stored) == []


def test_patterns_add_list_remove(project, tmp_path, capsys):
    path = tmp_path / "orgs.jsonl"
    path.write_text('{"label": "ORG", "pattern": [{"lower": "efe"}]}\n', encoding="utf-8")
    assert main(["patterns", str(project), str(path)]) == 0
    assert "1 patterns (ORG)" in capsys.readouterr().out
    assert main(["patterns", str(project)]) == 0
    assert "orgs.jsonl\t1 patterns\tORG" in capsys.readouterr().out
    with Project.open(project, readonly=True) as p:
        assert [f.name for f in project_patterns(p.stored)] == ["orgs.jsonl"]
    path.write_text('{"label": "ORG", "pattern": [{"lemma": "efe"}]}\n', encoding="utf-8")
    assert main(["patterns", str(project), str(path)]) == 1
    assert "orgs.jsonl:1" in capsys.readouterr().err
    assert main(["patterns", str(project), "orgs.jsonl", "--remove"]) == 0
    with Project.open(project, readonly=True) as p:
        assert project_patterns(p.stored) == []


def _gazetteers_member(model):
    with zipfile.ZipFile(model) as archive:
        return json.loads(archive.read(GAZETTEERS_MEMBER)) if GAZETTEERS_MEMBER in archive.namelist() else None


def test_train_with_gazetteer_file(places, tmp_path):
    model = tmp_path / "m.tagger"
    args = ["train", str(CONLL), "--learner", "perceptron", "--gazetteer", f"LOC={places}", "-o", str(model)]
    assert main(args) == 0
    assert _gazetteers_member(model)["types"]["LOC"]["entries"][-1] == ["San", "Sebastián"]
    tagger = load_tagger(model)
    assert tagger.extractor.feature_set == "default+gaz"
    assert main(["evaluate", str(model), str(CONLL)]) == 0


def test_train_on_a_project_uses_its_dictionaries(project, places, tmp_path):
    model = tmp_path / "m.tagger"
    assert main(["train", str(project), "--learner", "perceptron", "-o", str(model)]) == 0
    assert _gazetteers_member(model) is None
    assert main(["dictionary", str(project), "LOC", str(places)]) == 0
    assert main(["train", str(project), "--learner", "perceptron", "-o", str(model)]) == 0
    assert _gazetteers_member(model)["types"]["LOC"]["source"] == "places.txt"


def test_gazetteer_option_errors(places, tmp_path, capsys):
    model = tmp_path / "m.tagger"
    assert main(["train", str(CONLL), "--learner", "perceptron", "--gazetteer", str(places), "-o", str(model)]) == 1
    assert "TYPE=FILE" in capsys.readouterr().err
    assert main(["train", str(CONLL), "--learner", "perceptron", "-o", str(model)]) == 0
    warm = ["--warm-start", str(model), "--gazetteer", f"LOC={places}"]
    assert main(["train", str(CONLL), "--learner", "perceptron", *warm, "-o", str(tmp_path / "n.tagger")]) == 1
    assert "warm start" in capsys.readouterr().err

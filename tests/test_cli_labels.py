"""Label sets that do not grow by accident, and are complete from the start."""

import json

from tagtool.cli.main import main
from tagtool.core.labels import LabelSet, complete_scheme, suspicious_labels
from tagtool.store.project import Project


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def _labels(project):
    with Project.open(project, readonly=True) as p:
        return list(p.labels)


def test_import_into_a_project_refuses_unknown_labels_without_add_labels(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(_write(tmp_path / "a.txt", "He B-NP\nran B-VP\n")), "-p", str(project)]) == 0
    before = _labels(project)
    typo = _write(tmp_path / "b.txt", "She B-NP\nsat B-NP,I-NP\n")
    capsys.readouterr()
    assert main(["import", str(typo), "-p", str(project)]) == 1
    err = capsys.readouterr().err
    assert "B-NP,I-NP" in err and "--add-labels" in err and "looks like a candidate set" in err
    assert _labels(project) == before
    main(["info", str(project), "--json"])
    assert json.loads(capsys.readouterr().out)["sentences"] == 1  # nothing imported
    assert main(["import", str(typo), "-p", str(project), "--add-labels"]) == 0
    assert "added labels: B-NP,I-NP" in capsys.readouterr().out
    assert _labels(project) == before + ["B-NP,I-NP"]


def test_new_project_from_a_partly_labeled_file_gets_the_whole_scheme(tmp_path, capsys):
    data = _write(tmp_path / "ner.txt", "Ann B-PER\nvisited O\nRome B-LOC\n\nBob _\nsat _\n")
    project = tmp_path / "ner.tagproj"
    assert main(["import", str(data), "-p", str(project)]) == 0
    out = capsys.readouterr().out
    assert "completed the label scheme with: I-LOC I-PER" in out
    assert _labels(project) == ["O", "B-LOC", "I-LOC", "B-PER", "I-PER"]


def test_given_labels_are_not_completed(tmp_path):
    data = _write(tmp_path / "ner.txt", "Ann B-PER\nvisited O\n")
    project = tmp_path / "ner.tagproj"
    assert main(["import", str(data), "-p", str(project), "--labels", "O,B-PER"]) == 0
    assert _labels(project) == ["O", "B-PER"]


def test_complete_scheme_by_scheme():
    assert complete_scheme(LabelSet(["NN", "VB"])) == (LabelSet(["NN", "VB"]), [])
    assert complete_scheme(LabelSet(["I-NP"]))[0] == LabelSet(["O", "B-NP", "I-NP"])
    bioes, added = complete_scheme(LabelSet(["O", "S-LOC", "B-PER", "E-PER"]))
    assert set(bioes) == {"O"} | {p + t for p in "BIES" for t in ("-LOC", "-PER")}
    assert "I-PER" in added and "S-PER" in added
    bilou, _ = complete_scheme(LabelSet(["U-X"]))
    assert set(bilou) == {"O", "B-X", "I-X", "L-X", "U-X"}


def test_suspicious_labels():
    assert suspicious_labels(["O", "B-NP", "B-NP,I-NP", "N/A", "NN;VB"]) == ["B-NP,I-NP"]


def test_a_typo_completes_nothing():
    completed, added = complete_scheme(LabelSet(["O", "B-NP", "B-NP,I-NP"]))
    assert added == ["I-NP"] and "B-NP,I-NP" in completed

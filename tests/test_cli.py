"""The command line: import, info, export, errors, and the no-argument start."""

import json
import pathlib

import pytest

from tagtool.cli.main import main
from tagtool.store.formats import read_corpus

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


def test_import_info_export_round_trip(tmp_path, capsys):
    project = tmp_path / "chunks.tagproj"
    assert main(["import", str(CONLL), "-p", str(project)]) == 0
    assert "created" in capsys.readouterr().out
    assert main(["info", str(project), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    original = read_corpus(CONLL)
    assert info["sentences"] == len(original) and info["tokens"] == original.n_tokens
    assert info["sentence_status"]["full"] == len(original)
    out = tmp_path / "out.txt"
    assert main(["export", str(project), "-o", str(out), "--format", "conll"]) == 0
    assert out.read_bytes() == CONLL.read_bytes()


def test_import_into_existing_project_adds_documents(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(CONLL), "-p", str(project)]) == 0
    # The same file again is refused unless --duplicates says what to do with it.
    assert main(["import", str(CONLL), "-p", str(project), "--no-labels"]) == 1
    assert "--duplicates" in capsys.readouterr().err
    assert main(["import", str(CONLL), "-p", str(project), "--no-labels", "--duplicates", "add"]) == 0
    main(["info", str(project), "--json"])
    info = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    n = len(read_corpus(CONLL))
    assert info["sentences"] == 2 * n and info["documents"] == 2
    assert info["sentence_status"] == {"full": n, "partial": 0, "none": n}


def test_bad_input_is_one_line_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("a DT B-NP\nb NN\n", encoding="utf-8")
    project = tmp_path / "p.tagproj"
    assert main(["import", str(bad), "-p", str(project)]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{bad}:2" in err
    assert not project.exists()


def test_label_outside_given_schema_is_refused(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(CONLL), "-p", str(project), "--labels", "O,B-NP,I-NP"]) == 1
    assert "conll2000_train_head.txt:" in capsys.readouterr().err
    assert not project.exists()


def test_no_arguments_opens_the_sample_project(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "CoNLL-2000 sample" in out and "sentences: 400" in out
    assert (tmp_path / "tagtool" / "sample.tagproj").exists()
    assert main([]) == 0  # reopening the existing sample works too


@pytest.mark.parametrize("argv", [["info", "missing.tagproj"], ["export", "missing.tagproj", "-o", "x.txt"]])
def test_missing_project_is_an_error_not_a_traceback(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith("tagtool: error:")


def test_no_labels_warns_of_a_column_that_holds_labels(tmp_path, capsys):
    # --no-labels reads every column but the token as input: chunk tags there would be features
    project = tmp_path / "p.tagproj"
    assert main(["import", str(CONLL), "-p", str(project), "--no-labels", "--labels", "O,B-NP,I-NP"]) == 0
    err = capsys.readouterr().err
    assert f"{CONLL}: column col2 holds labels (B-ADJP" in err and "remove the column" in err
    assert "col1" not in err  # part of speech is not label-like
    plain = tmp_path / "plain.txt"
    plain.write_text("The DT\ncat NN\n\n", encoding="utf-8")
    assert main(["import", str(plain), "-p", str(project), "--no-labels"]) == 0
    assert "holds labels" not in capsys.readouterr().err


def test_label_like_columns():
    from tagtool.core.corpus import Sentence
    from tagtool.core.labels import label_like_columns

    sentences = [
        Sentence(["a", "b"], columns={"pos": ("DT", "NN"), "tags": ("B-X", "O"), "all_o": ("O", "O")}),
        Sentence(["c"], columns={"pos": ("VB",), "tags": ("I-X",), "all_o": ("O",)}),
    ]
    assert label_like_columns(sentences) == {"tags": ["B-X", "I-X", "O"]}

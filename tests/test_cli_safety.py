"""File safety of the commands: no output over an input, missing inputs in one line."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest

from tagtool.cli.main import main
from tagtool.store.outputs import OutputError, check_not_input

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def files(tmp_path_factory, tagger):
    """A project, a corpus, a plain-text input and a tagger file, with their bytes."""
    from tagtool.store.project import Project

    folder = tmp_path_factory.mktemp("inputs")
    data = folder / "data.conll"
    shutil.copy(CONLL, data)
    text = folder / "in.conll"
    # with the POS column (col1) the shared tagger was trained with
    text.write_text("Confidence NN\nin IN\nthe DT\npound NN\n\nIt PRP\nrose VBD\n", encoding="utf-8")
    model = folder / "m.tagger"
    tagger.save(model)
    project = folder / "P.tagproj"
    assert main(["import", str(data), "-p", str(project)]) == 0
    Project.open(project).close()  # no side files left beside it
    return {"data": data, "text": text, "model": model, "project": project}


def _refused(capsys, files, argv, victim, *roles):
    before = victim.read_bytes()
    code, out, err = run(capsys, *argv)
    assert code == 1, (out, err)
    assert err.startswith("tagtool: error: ") and err.count("\n") == 1, err
    assert "would overwrite" in err and all(role in err for role in roles), err
    assert victim.read_bytes() == before


def test_export_over_its_project_is_refused(files, capsys):
    p = files["project"]
    _refused(capsys, files, ["export", p, "-o", p], p, "output", "project")


def test_export_over_a_hard_link_or_symlink_of_its_project_is_refused(files, tmp_path, capsys):
    p = files["project"]
    hard, soft = tmp_path / "hard.conll", tmp_path / "soft.conll"
    os.link(p, hard)
    os.symlink(p, soft)
    for output in (hard, soft):
        _refused(capsys, files, ["export", p, "-o", output], p, "project")


def test_train_over_any_of_its_inputs_is_refused(files, capsys):
    d, t, m = files["data"], files["text"], files["model"]
    base = ["train", d, "--learner", "perceptron", "--unlabeled", t, "--warm-start", m, "-o"]
    _refused(capsys, files, [*base, d], d, "tagger file", "training data")
    _refused(capsys, files, [*base, t], t, "unlabeled data")
    _refused(capsys, files, [*base, m], m, "warm-start tagger")


def test_tag_over_its_tagger_or_its_input_is_refused(files, capsys):
    m, t = files["model"], files["text"]
    _refused(capsys, files, ["tag", m, t, "-o", m], m, "tagger")
    _refused(capsys, files, ["tag", m, t, "-o", t], t, "input")


def test_experiment_and_simulate_outputs_over_their_inputs_are_refused(files, tmp_path, capsys):
    d = files["data"]
    _refused(
        capsys, files, ["experiment", "--learner", "perceptron", "--data", d, "--json", d], d, "JSON output", "data"
    )
    sim = ["simulate", "--learner", "perceptron", "--data", d, "--test", files["text"], "--strategy", "random"]
    _refused(capsys, files, [*sim, "--json", d], d, "JSON output")
    _refused(capsys, files, [*sim, "--plot", d], d, "plot")
    same = tmp_path / "out.json"
    same.write_text("{}")
    _refused(capsys, files, [*sim, "--json", same, "--plot", same], same, "plot", "JSON output")


def test_import_into_one_of_its_corpus_files_is_refused(files, capsys):
    d = files["data"]
    _refused(capsys, files, ["import", d, "-p", d], d, "project", "corpus file")


def test_tag_without_output_still_writes_to_stdout(files, capsys):
    code, out, err = run(capsys, "tag", files["model"], files["text"])
    assert code == 0 and out.startswith("Confidence"), err


def test_an_output_folder_is_refused_before_any_work(files, tmp_path, capsys):
    code, _, err = run(capsys, "tag", files["model"], files["text"], "-o", tmp_path)
    assert code == 1 and err.count("\n") == 1 and "is a folder" in err


@pytest.mark.parametrize("command", ["tag", "train", "evaluate", "experiment", "simulate"])
def test_a_missing_input_is_the_one_line_error_of_import(files, tmp_path, capsys, command):
    missing = tmp_path / "missing.txt"
    argv = {
        "tag": ["tag", files["model"], missing, "-o", tmp_path / "out.txt"],
        "train": ["train", missing, "--learner", "perceptron", "-o", tmp_path / "m.tagger"],
        "evaluate": ["evaluate", files["model"], missing],
        "experiment": ["experiment", "--learner", "perceptron", "--data", missing],
        "simulate": [
            "simulate",
            "--learner",
            "perceptron",
            "--data",
            missing,
            "--test",
            missing,
            "--strategy",
            "random",
        ],
    }[command]
    code, _, err = run(capsys, *argv)
    _, _, import_err = run(capsys, "import", missing, "-p", tmp_path / "p.tagproj")
    assert code == 1 and err == import_err == f"tagtool: error: {missing}: no such file\n"


def test_check_not_input_compares_files_not_spellings(tmp_path, monkeypatch):
    a = tmp_path / "a.txt"
    a.write_text("x")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match=r"out.*would overwrite the input \(a.txt\)"):
        check_not_input("sub/../a.txt", {"input": "a.txt"}, "out")
    check_not_input(tmp_path / "b.txt", {"input": a, "nothing": None})
    check_not_input("-", {"input": "-"})
    check_not_input(None, {"input": a})


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod of a device needs root")
def test_tag_to_a_device_node_writes_to_it_and_keeps_it(files, tmp_path, capsys):
    import stat

    null = tmp_path / "null"  # never /dev/null: a node of its own inside tmp_path
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    code, _, err = run(capsys, "tag", files["model"], files["text"], "-o", null)
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.listdir(tmp_path) == ["null"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod of a device needs root")
def test_train_to_a_device_node_writes_the_tagger_to_it_and_keeps_it(files, tmp_path, capsys):
    """A device seeks but always says it is at 0: the zip writer must treat it as a stream."""
    import stat

    null = tmp_path / "null"  # never /dev/null: a node of its own inside tmp_path
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    code, _, err = run(capsys, "train", files["text"], "--learner", "perceptron", "--set", "max_iter=1", "-o", null)
    assert code == 0, err
    assert stat.S_ISCHR(os.lstat(null).st_mode) and os.listdir(tmp_path) == ["null"]

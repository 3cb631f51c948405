"""No bare tracebacks: a project edited outside tagtool, and a disk that fills while
a project is created, end in a ProjectError naming the file (and the sentence)."""

from __future__ import annotations

import os
import sqlite3

import pytest
from project_samples import plain_corpus

from tagtool.cli.main import main
from tagtool.errors import ProjectError
from tagtool.store import lifecycle
from tagtool.store.project import Project

EDITS = {
    "integer tokens": "UPDATE sentences SET tokens = '[1, 2, 3, 4, 5, 6]' WHERE id = 2",
    "an annotation past its sentence": "INSERT INTO annotations VALUES (2, 99, 'O', 'someone', 0)",
    "a number as an extra column": "UPDATE sentences SET columns = '{\"pos\": 5}' WHERE id = 2",
    "numbers in an extra column": "UPDATE sentences SET columns = '{\"pos\": [1, 2, 3, 4, 5, 6]}' WHERE id = 2",
    "a list as attributes": "UPDATE sentences SET meta = '[]' WHERE id = 2",
}


@pytest.fixture
def edited(tmp_path, request):
    path = tmp_path / "edited.tagproj"
    Project.create(path, plain_corpus(4, 6)).close()
    conn = sqlite3.connect(path)
    conn.execute(EDITS[request.param])
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("edited", [k for k in EDITS if k != "a list as attributes"], indirect=True)
def test_every_read_of_a_broken_sentence_is_a_project_error_naming_file_and_sentence(edited):
    with Project.open(edited, readonly=True) as p:
        for read in (p.corpus, p.snapshot, lambda: p.sentences(p.sentence_ids()), lambda: p.sentence(2)):
            with pytest.raises(ProjectError, match=rf"{edited}.*sentence 2 holds broken data"):
                read()


def test_attributes_that_are_not_an_object_are_refused_at_opening(tmp_path):
    path = tmp_path / "meta.tagproj"
    Project.create(path, plain_corpus(4, 6)).close()
    conn = sqlite3.connect(path)
    conn.execute(EDITS["a list as attributes"])
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="damaged"):
        Project.open(path)


@pytest.mark.parametrize("edited", ["integer tokens", "an annotation past its sentence"], indirect=True)
def test_export_of_an_edited_project_is_one_line(edited, tmp_path, capsys):
    assert main(["export", str(edited), "-o", str(tmp_path / "out.conll")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tagtool: error: {edited} is damaged: sentence 2") and err.count("\n") == 1
    assert not (tmp_path / "out.conll").exists()


@pytest.fixture
def disk_fills(monkeypatch):
    """The disk fills while the new project's rows are written (SQLITE_FULL, as a real full disk)."""
    real = lifecycle.insert_corpus

    def insert(conn, *args, **kwargs):
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        conn.execute(f"PRAGMA max_page_count = {pages}")
        return real(conn, *args, **kwargs)

    monkeypatch.setattr(lifecycle, "insert_corpus", insert)


def test_a_full_disk_while_creating_a_project_is_a_project_error_and_leaves_nothing(tmp_path, disk_fills):
    path = tmp_path / "new.tagproj"
    with pytest.raises(ProjectError, match=rf"{path}: the project could not be created \(the disk is full\)"):
        Project.create(path, plain_corpus(300, 12))
    assert os.listdir(tmp_path) == []


def test_a_full_disk_during_import_to_a_new_project_is_one_line(tmp_path, disk_fills, capsys):
    corpus = tmp_path / "c.conll"
    corpus.write_text("".join(f"w{i} O\n" + ("\n" if i % 10 == 9 else "") for i in range(3000)))
    assert main(["import", str(corpus), "-p", str(tmp_path / "new.tagproj")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tagtool: error: ") and "disk is full" in err and err.count("\n") == 1
    assert os.listdir(tmp_path) == ["c.conll"]


def test_a_failing_disk_at_the_final_sync_is_a_project_error(tmp_path, monkeypatch):
    path = tmp_path / "new.tagproj"

    def fail(_path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lifecycle.dbfile, "fsync_path", fail)
    with pytest.raises(ProjectError, match="could not be created .the disk is full"):
        Project.create(path, plain_corpus(3, 4))
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "edit",
    [
        "UPDATE annotations SET labels = 'ZZZ' WHERE sentence_id = 2",
        "DELETE FROM labels WHERE name = 'B-NP'",
    ],
)
def test_a_label_outside_the_label_set_is_a_project_error_naming_file_and_sentence(tmp_path, capsys, edit):
    path = tmp_path / "labels.tagproj"
    with Project.create(path, plain_corpus(4, 6)) as p:
        p.set_annotation(2, 1, ["B-NP"])
    conn = sqlite3.connect(path)
    conn.execute(edit)
    conn.commit()
    conn.close()
    with Project.open(path, readonly=True) as p:
        with pytest.raises(ProjectError, match=rf"{path} is damaged: sentence 2 holds .* not in the label set"):
            p.corpus()
    assert main(["export", str(path), "-o", str(tmp_path / "out.conll")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tagtool: error: {path} is damaged: sentence 2") and err.count("\n") == 1
    assert not (tmp_path / "out.conll").exists()


def test_a_label_row_renamed_to_an_invalid_name_is_a_project_error_naming_the_file(tmp_path, capsys):
    path = tmp_path / "names.tagproj"
    Project.create(path, plain_corpus(4, 6)).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE labels SET name = 'O|B-NP' WHERE name = 'I-NP'")
    conn.commit()
    conn.close()
    with Project.open(path, readonly=True) as p:
        with pytest.raises(ProjectError, match=rf"{path} is damaged: its label set .*'O\|B-NP'"):
            _ = p.labels
    assert main(["export", str(path), "-o", str(tmp_path / "out.conll")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tagtool: error: {path} is damaged") and err.count("\n") == 1

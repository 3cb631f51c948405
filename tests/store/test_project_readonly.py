"""A healthy project in a place that cannot be written opens read-only (not "damaged"),
and read-only opens leave no ``-wal``/``-shm`` files behind.

The tests run as root, which ignores file modes: a read-only folder is
simulated through the writability probe (``dbfile.writable``, ``os.access``).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from project_damage import digest
from project_samples import sample_corpus

from tagtool.errors import ProjectError
from tagtool.store import dbfile
from tagtool.store.project import Project


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    assert os.listdir(tmp_path) == ["p.tagproj"]
    return path


def _cli(*argv: str, prefix: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = " ".join([sys.executable, "-m", "tagtool.cli", *argv])
    return subprocess.run(["sh", "-c", prefix + command], env=env, capture_output=True, text=True, timeout=120)


def test_read_only_info_and_export_leave_no_side_files(project, tmp_path):
    before = digest(project)
    for argv in (["info", str(project)], ["export", str(project), "-o", str(tmp_path / "out.jsonl")]):
        done = _cli(*argv)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert sorted(os.listdir(tmp_path)) in (["p.tagproj"], ["out.jsonl", "p.tagproj"])
    assert digest(project) == before


def test_closing_a_read_only_open_keeps_the_side_files_another_connection_uses(project):
    reader = Project.open(project, readonly=True)
    writer = Project.open(project)
    sid = writer.sentence_ids()[0]
    writer.set_annotation(sid, 0, ["O"])
    reader.close()  # tidying must not pull the WAL from under the writer
    writer.set_annotation(sid, 1, ["O"])
    assert project.with_name("p.tagproj-wal").exists()
    writer.close()
    with Project.open(project, readonly=True) as again:
        assert again.annotations(sid)[:2] == ({"O"}, {"O"})


def test_a_project_in_a_read_only_folder_opens_read_only_and_says_why(project, monkeypatch):
    monkeypatch.setattr(dbfile, "writable", lambda path: False)
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: mode != os.W_OK)
    before = digest(project)
    with Project.open(project) as p:
        assert p.readonly and not p.newer_schema
        assert "folder" in p.readonly_reason and "cannot be written" in p.readonly_reason
        assert len(p.corpus()) == len(sample_corpus())
        with pytest.raises(ProjectError, match="open read-only .its folder .* cannot be written"):
            p.set_annotation(p.sentence_ids()[0], 0, ["O"])
    with Project.open(project, readonly=True) as p:
        assert p.readonly_reason is None  # asked for: nothing to explain
    assert os.listdir(project.parent) == ["p.tagproj"] and digest(project) == before

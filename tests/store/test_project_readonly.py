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
from sqlite_faults import statvfs_read_only_under

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


@pytest.mark.skipif(not hasattr(os, "statvfs"), reason="statvfs: POSIX")
def test_root_on_a_read_only_mount_opens_read_only(project, monkeypatch):
    """os.access says yes to root whatever the mount; the file system is asked instead."""
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert os.access(project, os.W_OK) and os.access(project.parent, os.W_OK)
    statvfs_read_only_under(project.parent, monkeypatch)
    before = digest(project)
    with Project.open(project) as p:
        assert p.readonly and "read-only file system" in p.readonly_reason
        assert len(p.corpus()) == len(sample_corpus())
    assert os.listdir(project.parent) == ["p.tagproj"] and digest(project) == before


def test_root_in_a_folder_that_refuses_new_files_opens_read_only(project, monkeypatch):
    """Root mapped to nobody (NFS root_squash), an immutable folder: a file cannot be created there."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    monkeypatch.setattr(dbfile.tempfile, "TemporaryFile", refuse)
    with Project.open(project) as p:
        assert p.readonly and p.readonly_reason.endswith("cannot be written")
    assert os.listdir(project.parent) == ["p.tagproj"]


def test_the_probe_leaves_nothing_in_a_writable_folder(project, monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0, raising=False)
    assert dbfile.writable(project)
    assert os.listdir(project.parent) == ["p.tagproj"]

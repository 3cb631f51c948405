"""Leftovers of killed writes: temp files of a killed creation and the partial backup
of a killed schema upgrade are removed the next time the project is opened."""

from __future__ import annotations

import os
import subprocess
import sys

from project_samples import sample_corpus, write_v1_project

from tagtool.store.project import Project


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_opening_a_project_removes_the_temp_files_of_a_killed_creation(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    dead = tmp_path / f".p.tagproj.{_dead_pid()}.0badf00d.tmp"
    live = tmp_path / f".p.tagproj.{os.getppid()}.0badf00d.tmp"  # a writer that still runs
    for leftover in (dead, dead.with_name(dead.name + "-journal"), live):
        leftover.write_bytes(b"half a project")
    with Project.open(path, readonly=True):
        pass
    assert dead.exists(), "a read-only open changes nothing in the folder"
    with Project.open(path):
        pass
    assert sorted(os.listdir(tmp_path)) == sorted(["p.tagproj", live.name])


KILLED_UPGRADE = """
import os, sys, time
from tagtool.store import dbfile
from tagtool.store.project import Project

def stall(path):  # the backup copy is written: be killed before it is complete on disk
    print("ready", flush=True)
    time.sleep(60)

dbfile.fsync_path = stall
Project.open(sys.argv[1])
"""


def test_a_killed_upgrade_leaves_no_partial_backup_after_the_next_open(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_UPGRADE, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert child.stdout.readline() == "ready\n"
    finally:
        child.kill()
        child.wait()
    assert not path.with_name("old.tagproj.bak-v1").exists(), "no backup name until the copy is complete"
    with Project.open(path) as p:
        assert p.migrated_from == 1 and p.backup_path.name == "old.tagproj.bak-v1"
    assert sorted(os.listdir(tmp_path)) == ["old.tagproj", "old.tagproj.bak-v1"]
    with Project.open(tmp_path / "old.tagproj.bak-v1", readonly=True) as backup:
        assert backup.migrated_from == 1 and backup.corpus() == sample_corpus()

"""What a full or read-only disk is called (tagtool.store.disk), and the side files a reader
on a full disk leaves: removed once nobody uses the file, kept while anybody does."""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from project_samples import sample_corpus

from tagtool.store import dbfile, disk
from tagtool.store.project import Project


def _sqlite_error(name: str, message: str) -> sqlite3.Error:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorname = name
    return error


def test_full_disks_in_every_form_are_called_full(tmp_path, monkeypatch):
    path = tmp_path / "p.tagproj"
    assert disk.problem(OSError(errno.ENOSPC, "No space left on device"), path) == disk.FULL
    assert disk.problem(_sqlite_error("SQLITE_FULL", "database or disk is full"), path) == disk.FULL
    assert disk.problem(_sqlite_error("SQLITE_IOERR_SHMSIZE", "disk I/O error"), path) == disk.FULL
    io_error = _sqlite_error("SQLITE_IOERR_WRITE", "disk I/O error")
    assert disk.problem(io_error, path) is None  # a failing disk with room left is not full
    monkeypatch.setattr(disk, "free_bytes", lambda folder: 4096)
    assert disk.problem(io_error, path) == disk.FULL
    assert disk.problem(OSError(errno.EIO, "Input/output error"), path) is None


def test_read_only_places_are_named(tmp_path):
    out = tmp_path / "out.txt"
    rofs = OSError(errno.EROFS, os.strerror(errno.EROFS), str(tmp_path / ".out.txt.1.x.tmp"))
    assert disk.problem(rofs, out) == f"the folder {tmp_path} is read-only (read-only file system)"
    out.write_text("x")
    denied = OSError(errno.EACCES, os.strerror(errno.EACCES), str(out))
    assert disk.problem(denied, out) == f"the file {out} is read-only"
    missing = tmp_path / "a" / "b" / "c.txt"
    assert (
        disk.problem(OSError(errno.EACCES, "Permission denied", str(missing.parent)), missing)
        == f"the folder {tmp_path} is read-only (permission denied)"
    )


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    return path


def _holder(path: Path) -> subprocess.Popen:
    """Another program with ``path`` open in WAL mode (it holds SQLite's SHARED lock)."""
    code = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
        "c.execute('select count(*) from sqlite_master').fetchone(); print('open', flush=True); sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline() == "open\n"
    return child


def test_empty_side_files_go_only_when_nobody_has_the_file_open(project):
    wal, shm = dbfile.side_files(project)[:2]
    child = _holder(project)
    try:
        assert wal.exists() and shm.exists()
        assert not dbfile.remove_unused_empty_sides(project)
        assert wal.exists() and shm.exists(), "another program's side files were removed"
    finally:
        child.stdin.close()
        child.wait(timeout=60)
    wal.write_bytes(b"")
    shm.write_bytes(b"\0" * 3)  # a reader that could not grow it
    assert dbfile.remove_unused_empty_sides(project)
    assert not wal.exists() and not shm.exists()


def test_a_wal_holding_data_is_never_removed(project):
    wal, shm = dbfile.side_files(project)[:2]
    wal.write_bytes(b"committed pages")
    shm.write_bytes(b"")
    assert dbfile.remove_unused_empty_sides(project)
    assert wal.read_bytes() == b"committed pages" and shm.exists()

"""Disk faults simulated with SQLite itself (the tests may run as root, which ignores file modes).

* a full disk: ``PRAGMA max_page_count`` caps the file at its current size,
  so the first statement that needs a new page fails with SQLITE_FULL;
* a disk that fails at COMMIT (or at BEGIN, or whose ROLLBACK fails too):
  :class:`FaultyConnection` stands in for the project's connection and
  raises ``sqlite3.OperationalError('database or disk is full')`` there;
* a read-only disk: ``PRAGMA query_only`` makes every write fail with
  SQLITE_READONLY ("attempt to write a readonly database"); a read-only
  mount as the file system reports it: :func:`statvfs_read_only_under`.

Imported by ``test_project_faults.py`` and the GUI fault tests.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager

DISK_FULL = "database or disk is full"


def fill_disk(project) -> None:
    """From now on the project's file cannot grow (SQLITE_FULL on the next new page)."""
    conn = project._db
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")


def free_disk(project) -> None:
    project._db.execute("PRAGMA max_page_count = 1073741823")


@contextmanager
def read_only_disk(project):
    """Every write fails as on a disk remounted read-only."""
    project._db.execute("PRAGMA query_only = ON")
    try:
        yield
    finally:
        project._db.execute("PRAGMA query_only = OFF")


class FaultyConnection:
    """The project's connection, failing the statements named in ``fail_on``.

    Parameters
    ----------
    conn : sqlite3.Connection
    fail_on : set of str
        Statements (``"BEGIN IMMEDIATE"``, ``"COMMIT"``, ``"ROLLBACK"``) that
        raise ``OperationalError(message)`` instead of running.
    """

    def __init__(self, conn: sqlite3.Connection, fail_on: set[str], message: str = DISK_FULL):
        self._conn, self.fail_on, self.message = conn, set(fail_on), message
        self.failures = 0

    def execute(self, sql: str, *args):
        if sql.strip().upper() in self.fail_on:
            self.failures += 1
            raise sqlite3.OperationalError(self.message)
        return self._conn.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._conn, name)


@contextmanager
def failing(project, *statements: str, message: str = DISK_FULL):
    """Make ``statements`` of the project's connection fail for the duration."""
    real = project.db._conn
    faulty = project.db._conn = FaultyConnection(real, set(statements), message)
    try:
        yield faulty
    finally:
        project.db._conn = real


def statvfs_read_only_under(folder, monkeypatch):
    """``os.statvfs`` reports ``folder`` (and what is in it) on a read-only mount."""
    real = os.statvfs

    class ReadOnly:
        def __init__(self, result):
            self._result = result

        def __getattr__(self, name):
            return getattr(self._result, name)

        @property
        def f_flag(self):
            return self._result.f_flag | os.ST_RDONLY

    def statvfs(path):
        inside = os.path.realpath(path).startswith(os.path.realpath(folder))
        return ReadOnly(real(path)) if inside else real(path)

    monkeypatch.setattr(os, "statvfs", statvfs)

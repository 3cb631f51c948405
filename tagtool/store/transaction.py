"""One write or read transaction on a project's connection, and SQLite's failures in words.

A project edit is one ``BEGIN IMMEDIATE`` ... ``COMMIT``: applied entirely or
not at all (the kill tests of tests/store check it).  A failure of SQLite (a
lock held too long by another program, a full disk) becomes a
:class:`~tagtool.errors.ProjectError` that says why, and the project is then
unchanged.  Every check an edit depends on (a sentence's length, its tokens)
is made inside the edit's transaction: another program may retokenize a
sentence between a check made before and the write.

Reads that must agree with each other (a sentence's tokens and its labels,
the whole corpus an export writes) run in one read transaction
(:func:`read`): in WAL mode it sees the file as it was at its first query,
whatever other connections commit meanwhile.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tagtool.errors import ProjectError
from tagtool.store import disk

log = logging.getLogger(__name__)

#: What SQLite's error codes mean to someone editing a project.
_REASONS = (
    ("SQLITE_FULL", "the disk is full"),
    ("SQLITE_READONLY", "the file or its disk is read-only"),
    ("SQLITE_BUSY", "another program is writing to it"),
    ("SQLITE_LOCKED", "another program is writing to it"),
    ("SQLITE_IOERR", "the disk reported an error"),
    ("SQLITE_CANTOPEN", "the file cannot be reached"),
    ("SQLITE_CORRUPT", "the file is damaged"),
)


def reason(error: sqlite3.Error, path: Path | None = None) -> str:
    """A sqlite3 error in words (extended codes such as SQLITE_IOERR_WRITE included); given the
    file's ``path``, an I/O or read-only error on a disk with no room left is a full disk."""
    if path is not None and disk.is_full(error, path):
        return disk.FULL
    name = getattr(error, "sqlite_errorname", "") or ""
    message = str(error).lower()
    for code, words in _REASONS:
        if name.startswith(code):
            return words
    # errors raised by hand (tests) carry no code, only SQLite's message
    if "disk is full" in message:
        return "the disk is full"
    if "readonly" in message or "read-only" in message:
        return "the file or its disk is read-only"
    return "the database refused the change"


@contextmanager
def write(
    conn: sqlite3.Connection, path: Path, locked: Callable[[], None], aborted: Callable[[], None]
) -> Iterator[sqlite3.Connection]:
    """One write transaction: committed on success, rolled back on any error.

    ``locked`` runs once the write lock is held (the project re-reads a label
    set another process changed); ``aborted`` after a rollback (the project
    forgets what it cached during the transaction).
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as e:
        raise ProjectError(f"{path} cannot be changed now: {reason(e, path)} ({e})") from e
    try:
        locked()
        yield conn
        conn.execute("COMMIT")
    except BaseException as e:
        _rollback(conn, path)
        aborted()
        if isinstance(e, sqlite3.Error):
            raise ProjectError(f"{path}: the change could not be saved: {reason(e, path)} ({e})") from e
        raise


@contextmanager
def read(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One read transaction: every query inside sees one snapshot of the file.

    A deferred ``BEGIN``: it takes no lock a writer waits for (WAL), and
    its snapshot is the file as committed at its first query.  Inside a
    transaction already (a write, or an outer read) it adds nothing: that
    one is the snapshot.  Nothing may be written inside it.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        # Nothing was written: a COMMIT only releases the snapshot (as the snapshot read
        # always did; a ROLLBACK may abort other cursors' statements on older SQLite).
        if conn.in_transaction:
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as e:  # pragma: no cover - an interrupted or failing connection
                log.warning("ending a read transaction failed (%s)", e)


def _rollback(conn: sqlite3.Connection, path: Path) -> None:
    # SQLite may have rolled back already (a full disk, an I/O error);
    # a failing ROLLBACK must not hide the error that caused it.
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error as e:
        log.warning("%s: rollback failed (%s)", path, e)

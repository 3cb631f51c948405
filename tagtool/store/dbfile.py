"""File-level handling of project databases: recognise, check, connect, back up.

Everything here protects the user's file: a file is recognised from its
header bytes before SQLite touches it, checked through a read-only
connection, and only then opened for writing.  Nothing in this module writes
to a file it has not created, except the read-write connection it returns.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import tempfile
import threading
import weakref
from collections import Counter
from pathlib import Path

from tagtool.errors import ProjectError
from tagtool.store import disk, sqlite_locks
from tagtool.store.schema import APPLICATION_ID

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
_HEADER_SIZE = 100
_APPLICATION_ID_OFFSET = 68


# Files this process holds open through SQLite connections, by (device,
# inode), with how many connections hold each.  Closing *any* descriptor of a
# file drops every POSIX lock the process holds on it (fcntl semantics), and
# SQLite's locks are POSIX locks: reading a held project's header with
# ``open()``/``close()`` would let another program, closing its own
# connection, believe it was the last one and delete the ``-wal``/``-shm``
# files the editing connection still uses.  SQLite itself defers such closes;
# Python's ``open`` cannot, so a held file is not read outside SQLite.
_held: Counter = Counter()
_held_lock = threading.Lock()


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


class _HeldConnection(sqlite3.Connection):
    """A connection that stops counting as holding its file once closed (module note on POSIX locks)."""

    _release = None
    _after_close = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._release is not None:
                self._release()
            if self._after_close is not None:
                after, self._after_close = self._after_close, None
                after()


def _connect_held(uri: str, path: Path) -> sqlite3.Connection:
    """``sqlite3.connect(uri)`` counted as holding ``path`` until closed or collected."""
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, factory=_HeldConnection)
    key = _file_key(path)
    if key is not None:
        with _held_lock:
            _held[key] += 1
        conn._release = weakref.finalize(conn, _release, key)
    return conn


def _release(key: tuple[int, int]) -> None:
    with _held_lock:
        _held[key] -= 1
        if _held[key] <= 0:
            del _held[key]


def held_by_this_process(path: Path) -> bool:
    """Whether a connection of this process has ``path`` open (module note on POSIX locks)."""
    key = _file_key(path)
    with _held_lock:
        return key is not None and _held.get(key, 0) > 0


def side_files(path: Path) -> list[Path]:
    """The files SQLite may keep next to ``path`` (WAL, shared memory, journal)."""
    return [path.with_name(path.name + suffix) for suffix in SIDE_SUFFIXES]


def check_header(path: Path) -> None:
    """Refuse ``path`` unless it exists and its header says it is a project.

    Reads only the first 100 bytes, so a file of another kind is recognised
    without SQLite opening it (and creating side files next to it).  A file
    this process already holds open through SQLite was checked when it was
    opened and is not read again (the note on POSIX locks above).
    """
    if not path.exists():
        raise ProjectError(f"{path}: no such project file")
    if not path.is_file():
        raise ProjectError(f"{path}: not a file")
    if held_by_this_process(path):
        return
    try:
        with open(path, "rb") as f:
            header = f.read(_HEADER_SIZE)
    except OSError as e:
        raise ProjectError(f"{path}: cannot read the file ({e.strerror})") from e
    if len(header) < _HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
        raise ProjectError(f"{path} is not a tagtool project (not an SQLite database)")
    app_id = int.from_bytes(header[_APPLICATION_ID_OFFSET : _APPLICATION_ID_OFFSET + 4], "big")
    if app_id != APPLICATION_ID:
        raise ProjectError(f"{path} is not a tagtool project (an SQLite database of another application)")


def _uri(path: Path, mode: str) -> str:
    return f"{path.absolute().as_uri()}?mode={mode}"


def writable(path: Path) -> bool:
    """Whether ``path`` and its folder can be written (SQLite needs both for
    its side files); False on a read-only disk or folder (see :func:`why_unwritable`)."""
    return why_unwritable(path) is None


def why_unwritable(path: Path) -> str | None:
    """Why ``path`` or its folder cannot be written, or None if both can.

    ``os.access`` answers from the file modes, and for root always yes; so
    a read-only mount is asked of the file system itself (``statvfs``), and
    for root, whom no mode stops, the folder is probed by creating an
    unnamed temporary file in it (an NFS export that maps root to nobody,
    an immutable folder).
    """
    folder = path.parent
    if not os.access(folder, os.W_OK):
        return f"its folder {folder} cannot be written"
    if not os.access(path, os.W_OK):
        return "the file cannot be written"
    if _read_only_mount(path):
        return f"its folder {folder} is on a read-only file system"
    if getattr(os, "geteuid", lambda: None)() == 0 and not _can_create_in(folder):
        return f"its folder {folder} cannot be written"
    return None


def _read_only_mount(path: Path) -> bool:
    if not hasattr(os, "statvfs"):  # Windows: os.access sees a read-only volume
        return False
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _can_create_in(folder: Path) -> bool:
    # O_TMPFILE where the file system has it: no name ever appears in the folder
    try:
        with tempfile.TemporaryFile(dir=folder, prefix=".tagtool-probe-"):
            return True
    except OSError:
        return False


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write, not even by mistake (``mode=ro``).

    Where the file or its folder cannot be written and no WAL lies beside
    it, the file is opened ``immutable=1``: a WAL-mode reader would
    otherwise need to create ``-wal``/``-shm`` files and fail ("unable to
    open database file").  Nobody can be writing the file then: a writer
    would need that WAL.  On a full disk, where the ``-shm`` index cannot
    grow, see :func:`_connect_on_full_disk`.
    """
    uri = _uri(path, "ro")
    if not writable(path) and not side_files(path)[0].exists():
        uri += "&immutable=1"
    conn = _connect_held(uri, path)
    conn.execute("PRAGMA query_only = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the WAL and its index
    except sqlite3.Error as e:
        if not disk.is_full(e, path):
            return conn  # a damaged file: the caller's checks say so
        conn.close()
        return _connect_on_full_disk(path)
    return conn


def _connect_on_full_disk(path: Path) -> sqlite3.Connection:
    """A reader of ``path`` whose ``-shm`` index could not grow: the disk is full.

    SQLite's ``readonly_shm=1`` opens the index read-only and, when no
    other connection maintains it, reads the WAL into memory (SQLite's own
    way of reading WAL files on read-only media); it needs the ``-shm``
    file to exist, and an empty one costs no space.  The empty side files
    are removed again when the connection closes, if nobody else uses the
    file (:func:`remove_unused_empty_sides`).
    """
    shm, conn = side_files(path)[1], None
    try:
        if not os.path.lexists(shm):  # never opened if there: it may be a FIFO, or a link
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            os.close(os.open(shm, flags, os.stat(path).st_mode & 0o666))
        conn = _connect_held(_uri(path, "ro") + "&readonly_shm=1", path)
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except (OSError, sqlite3.Error) as e:
        if conn is not None:
            conn.close()
        raise ProjectError(
            f"{path} cannot be read: {disk.FULL}, and SQLite needs room for the index "
            f"file {shm.name} beside it ({e}); free some space and try again"
        ) from e
    conn._after_close = lambda: remove_unused_empty_sides(path)
    log.info("%s: the disk is full; read through a read-only WAL index", path)
    return conn


def remove_unused_empty_sides(path: Path) -> bool:
    """Remove an empty ``-wal`` and its ``-shm`` beside ``path`` if no connection has it
    open (:func:`tagtool.store.sqlite_locks.remove_unused_sides`); not where this process
    holds the file (closing a descriptor of it would drop its locks).  Whether it ran."""
    return not held_by_this_process(path) and sqlite_locks.remove_unused_sides(path, *side_files(path)[:2])


def connect_readwrite(path: Path) -> sqlite3.Connection:
    """The editing connection: WAL, foreign keys, ``synchronous=FULL``.

    Autocommit mode (``isolation_level=None``): the store opens every
    transaction itself with ``BEGIN IMMEDIATE``.  ``mode=rw`` never creates a
    missing file.
    """
    conn = _connect_held(_uri(path, "rw"), path)
    try:
        conn.execute("PRAGMA busy_timeout = 5000")
        conn.execute("PRAGMA foreign_keys = ON")
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            log.warning("%s: journal mode is %s, not WAL", path, mode)
        conn.execute("PRAGMA synchronous = FULL")
    except BaseException:
        conn.close()
        raise
    return conn


def write_in_own_transaction(path: Path, what: str, work):
    """Run ``work(conn)`` in one ``BEGIN IMMEDIATE`` transaction on a connection of the caller's own.

    For the app's worker threads: a write of megabytes on the project's
    connection (the GUI thread's) would stall the window.  SQLite serialises
    this writer with the project's connection as with another program's.
    Returns what ``work`` returns.

    Raises
    ------
    ProjectError
        ``"<path>: <what> could not be saved (...)"``; the file is unchanged.
    """
    try:
        conn = connect_readwrite(Path(path))
    except sqlite3.Error as e:
        raise ProjectError(f"{path}: {what} could not be saved ({e})") from e
    try:
        conn.execute("BEGIN IMMEDIATE")
        result = work(conn)
        conn.execute("COMMIT")
        return result
    except sqlite3.Error as e:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise ProjectError(f"{path}: {what} could not be saved ({e})") from e
    finally:
        conn.close()


def remove_new_side_files(absent_before: set[Path]) -> None:
    """Delete the side files in ``absent_before`` that exist now.

    Used after refusing a file, once our connection is closed: SQLite may
    have created a WAL index next to it while we looked, and the user's
    folder should stay as it was.  Files that existed before are left alone
    (another program may be using the database).
    """
    for side in absent_before:
        try:
            side.unlink(missing_ok=True)
        except OSError:  # pragma: no cover - best effort
            pass


def tidy_side_files(path: Path) -> None:
    """Remove the ``-wal``/``-shm`` files a read-only connection left beside ``path``.

    A read-only connection cannot remove them when it closes.  A
    read-write connection that opens and closes without writing does, when
    it is the last one on the file: SQLite checks that under its own locks,
    so files another program is using stay.  The main file is not changed
    (there is nothing to checkpoint from a WAL nobody wrote).
    """
    if not writable(path):
        return
    if remove_unused_empty_sides(path) and not any(side.exists() for side in side_files(path)[:2]):
        return  # also where the disk is full, which a read-write connection would need room on
    try:
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, isolation_level=None)
        try:
            conn.execute("PRAGMA busy_timeout = 1000")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.Error as e:  # best effort: a leftover is no damage
        log.info("%s: side files not removed (%s)", path, e)


def backup_path(path: Path, version: int) -> Path:
    """``<file>.bak-v<N>``, or ``<file>.bak-v<N>-<k>`` if that exists already."""
    candidate = path.with_name(f"{path.name}.bak-v{version}")
    k = 1
    while candidate.exists():
        k += 1
        candidate = path.with_name(f"{path.name}.bak-v{version}-{k}")
    return candidate


def write_backup(conn: sqlite3.Connection, dest: Path) -> None:
    """Copy the database behind ``conn`` (WAL content included) to ``dest``.

    Uses SQLite's online backup, so the copy is consistent even when the
    source has committed pages still in its WAL; ``dest`` is synced to disk
    before returning.
    """
    target = sqlite3.connect(dest)
    try:
        conn.backup(target)
    finally:
        target.close()
    fsync_path(dest)


def fsync_path(path: Path) -> None:
    """Flush a file's data to disk."""
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def fsync_dir(path: Path) -> None:
    """Flush a directory entry change (a rename) to disk, where the OS allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some filesystems refuse
        pass
    finally:
        os.close(fd)

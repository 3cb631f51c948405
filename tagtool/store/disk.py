"""What a failed read or write says about the disk, in words that name the place.

A full disk and a read-only folder are not damage: the user frees space or
picks another folder, and the project is intact.  SQLite reports a full disk
as ``SQLITE_FULL``, but also as an I/O error where the file that could not
grow is its shared-memory index (``-shm``, ``SQLITE_IOERR_SHMSIZE``); Python
as ``OSError`` ``ENOSPC``.  :func:`is_full` recognises them all,
:func:`problem` says which it is ("the disk is full", "the folder ... is
read-only") or None for an error of another kind, :func:`describe` says why
any write failed (the one wording every writer of a file uses).
"""

from __future__ import annotations

import errno
import os
import sqlite3
from pathlib import Path

#: ``errno`` values of a disk (or a quota) with no room left.
FULL_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
#: Below this many free bytes, an I/O error of SQLite's is taken for a full disk.
LOW_SPACE = 1 << 20

FULL = "the disk is full"


def free_bytes(folder: Path) -> int | None:
    """Bytes this process may still write in ``folder``'s file system, or None where not known."""
    if not hasattr(os, "statvfs"):
        return None
    try:
        st = os.statvfs(nearest_existing(folder))
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:  # read-only media often report no free blocks: not full
        return None
    # root may use the blocks kept back for it; anyone else only the available ones
    blocks = st.f_bfree if getattr(os, "geteuid", lambda: None)() == 0 else st.f_bavail
    return blocks * st.f_frsize


def nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (a folder not yet created is on its parent's disk)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path.parent != path:
        path = path.parent
    return path


def is_full(error: BaseException, path: Path) -> bool:
    """Whether ``error`` (met reading or writing ``path``) means the disk has no room left."""
    if isinstance(error, OSError):
        return error.errno in FULL_ERRNOS
    if not isinstance(error, sqlite3.Error):
        return False
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_FULL") or name == "SQLITE_IOERR_SHMSIZE" or "disk is full" in str(error):
        return True
    # an I/O error, or a write refused by an index that could not grow, on a disk with no room
    if name.startswith("SQLITE_IOERR") or name == "SQLITE_READONLY" or str(error) == "disk I/O error":
        free = free_bytes(Path(path).parent)
        return free is not None and free < LOW_SPACE
    return False


def problem(error: BaseException, path: Path) -> str | None:
    """``error`` met writing ``path`` in words, when the disk or the folder caused it; else None.

    "the disk is full", "the folder F is read-only", "the file F is
    read-only", "the file is larger than this system's file size limit".
    """
    path = Path(path)
    if is_full(error, path):
        return FULL
    if isinstance(error, sqlite3.Error):
        name = getattr(error, "sqlite_errorname", "") or ""
        if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")):
            return _unwritable_folder(nearest_existing(path.parent))
        return None
    if not isinstance(error, OSError):
        return None
    if error.errno == errno.EFBIG:
        return "the file is larger than this system's file size limit (ulimit -f)"
    if error.errno not in READ_ONLY_ERRNOS:
        return None
    where = Path(error.filename) if isinstance(error.filename, (str, os.PathLike)) else path
    if where.is_file() and where == path:
        return f"the file {path} is read-only"
    folder = where if where.is_dir() else nearest_existing(where.parent)
    kind = "read-only file system" if error.errno == errno.EROFS else "permission denied"
    return f"the folder {folder} is read-only ({kind})"


def describe(error: BaseException, path: Path) -> str:
    """Why writing ``path`` failed, in words: :func:`problem` where the disk or the folder
    caused it, else the error's own message (an ``OSError``'s without its number)."""
    why = problem(error, path)
    if why:
        return why
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def _unwritable_folder(folder: Path) -> str | None:
    if hasattr(os, "statvfs"):
        try:
            if os.statvfs(folder).f_flag & os.ST_RDONLY:
                return f"the folder {folder} is read-only (read-only file system)"
        except OSError:
            pass
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is read-only (permission denied)"
    return None

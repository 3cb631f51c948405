"""SQLite's own file locks, taken from outside SQLite to tidy its side files safely.

Every connection to a database in WAL mode holds a read lock on the SHARED
range of the file's lock bytes for as long as it is open
(https://sqlite.org/fileformat.html, "the lock-byte page"; os_unix.c).  A
write lock on that range (SQLite's EXCLUSIVE lock) is therefore held only
when no connection of any program has the file open, and a connection
opening meanwhile waits for it: SQLite removes its ``-wal`` and ``-shm``
files under this lock too.  POSIX locks only: where there are none
(Windows), nothing is done.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from types import ModuleType

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows: no POSIX locks
    fcntl = None

log = logging.getLogger(__name__)

_PENDING_BYTE = 0x40000000
_SHARED_FIRST, _SHARED_SIZE = _PENDING_BYTE + 2, 510


def remove_unused_sides(path: Path, wal: Path, shm: Path) -> bool:
    """Remove an empty ``wal`` and its ``shm`` beside the database ``path`` if no
    connection has it open.  Returns whether the lock was held (whatever was removed).

    A WAL that holds data is never removed, nor its index: its committed
    transactions are replayed by the next connection.  An index beside no
    WAL holds nothing (the next connection rebuilds it), and a reader that
    could not grow it on a full disk may have left it part-sized.

    The caller must hold no SQLite connection to ``path`` in this process:
    closing the descriptor opened here drops every POSIX lock the process
    holds on the file.
    """
    if fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, _SHARED_SIZE, _SHARED_FIRST, os.SEEK_SET)
        if _size(wal) not in (None, 0):
            return True
        for side in (wal, shm):
            if _size(side) is not None:
                side.unlink()
        return True
    except OSError as e:  # another connection holds the file open: it keeps its side files
        log.debug("%s: side files kept (%s)", path, e)
        return False
    finally:
        os.close(fd)  # and with it the lock


def _size(path: Path) -> int | None:
    """Size of a regular file; None if absent or not a regular file (never removed)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None

"""Which project a tagtool window has open: a second window on the same project opens it read-only.

The project file itself copes with several writers (every edit is its own
SQLite transaction, and the command line's writers rely on that), but two
windows editing one project overwrite each other's work without a word:
each shows what it read and stores what its person does.  So the window
that opens a project first holds a lock, and a window that finds it held
opens the project read-only and says which process holds it.

The lock is an exclusive ``flock`` on a small file under the user's state
folder (:func:`tagtool.paths.user_state_dir`), named after the project's
resolved path, holding the holder's process id.  ``flock`` locks belong to
the open file, not to the process: the kernel drops them when the holder
exits or crashes, so a lock is never stale, and SQLite's own POSIX locks
on the project file are not touched.  Only windows take it; the command
line keeps its semantics.  Where the locks folder cannot be written (or
there is no ``flock``: Windows), windows are not told about each other.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tagtool.paths import user_state_dir

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

log = logging.getLogger(__name__)


def lock_path(project: Path) -> Path:
    """The lock file of a project: its resolved path's digest, under the state folder's ``open/``."""
    digest = hashlib.sha256(str(Path(project).resolve()).encode()).hexdigest()[:32]
    return user_state_dir() / "open" / f"{digest}.lock"


@dataclass
class WindowLock:
    """The outcome of :func:`acquire`: held (release it when the window closes) or held elsewhere."""

    path: Path
    fd: int | None = None
    #: Another window (of this process or another) has the project open.
    elsewhere: bool = False
    #: The process id of that window, once it has written it.
    holder: int | None = None

    @property
    def held(self) -> bool:
        return self.fd is not None

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the file releases its flock
            self.fd = None


def acquire(project: Path) -> WindowLock:
    """Take the window lock of ``project``; ``elsewhere`` when another window holds it."""
    path = lock_path(project)
    if fcntl is None:
        return WindowLock(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        log.info("%s: cannot keep the open-project lock (%s); other windows will not know", path, e)
        return WindowLock(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _holder(fd)
        os.close(fd)
        return WindowLock(path, elsewhere=True, holder=holder)
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    return WindowLock(path, fd=fd)


def _holder(fd: int) -> int | None:
    """The process id the holder wrote (None if not yet written)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None

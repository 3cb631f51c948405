"""Where an output may be written: never over an input, never replacing what
is not a regular file, and no temporary files of a killed write left behind.

Every command of the CLI and the app's Export and Batch-tag call
:func:`check_not_input` before they write;
:func:`~tagtool.store.atomic.atomic_write` (corpora, tagger files,
JSON results) asks :func:`write_target` how to write and
:func:`remove_stale_temps` to clean up after a killed earlier write.
"""

from __future__ import annotations

import io
import logging
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from os import PathLike
from pathlib import Path

from tagtool.errors import TagtoolError

logger = logging.getLogger(__name__)

#: A temporary file without a writer pid in its name (written by an older
#: tagtool) is a leftover once it is this many seconds old.
STALE_SECONDS = 10.0
#: A temporary file whose writer's pid cannot be checked (no way to ask the
#: system) is a leftover once it has not changed for this many seconds: a
#: live writer adds to its file batch after batch.
UNKNOWN_WRITER_SECONDS = 600.0
TEMP_SUFFIX = ".tmp"

Inputs = Mapping[str, "str | PathLike | Iterable[str | PathLike] | None"]


class OutputError(TagtoolError):
    """An output that would destroy an input or something that is not a regular file."""


def _is_stdout(output) -> bool:
    return output is None or hasattr(output, "write") or str(output) == "-"


def same_file(a: str | PathLike, b: str | PathLike) -> bool:
    """Whether ``a`` and ``b`` are one file: the same inode where both exist
    (hard links and symlinks included), else the same resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


def _flatten(inputs: Inputs) -> Iterable[tuple[str, Path]]:
    for role, paths in inputs.items():
        if paths is None:
            continue
        if isinstance(paths, (str, PathLike)):
            paths = [paths]
        for path in paths:
            if path is not None and not _is_stdout(path):
                yield role, Path(path)


def check_not_input(output, inputs: Inputs, output_role: str = "output") -> None:
    """Refuse to write ``output`` over any of ``inputs``.

    Parameters
    ----------
    output : path, stream, "-" or None
        Streams, ``-`` and None (standard output) are never an input.
    inputs : mapping of role to path or paths
        E.g. ``{"project": p}`` or ``{"training data": [a, b], "warm-start tagger": m}``.
    output_role : str
        What the output is, for the message.

    Raises
    ------
    OutputError
        Naming both roles and both paths.
    """
    if _is_stdout(output):
        return
    if os.path.isdir(output):
        raise OutputError(f"{output}: the {output_role} is a folder; choose a file to write")
    for role, path in _flatten(inputs):
        if same_file(output, path):
            raise OutputError(
                f"{output}: the {output_role} would overwrite the {role} ({path}); choose another {output_role}"
            )


def write_target(path: str | PathLike) -> tuple[Path, bool]:
    """Where to write ``path`` and whether to write it directly.

    Returns ``(target, direct)``: a symlink's resolved target (the link stays
    a link), and ``direct=True`` for devices and FIFOs, which are opened and
    written in place (no temporary file, no rename).  A regular or missing
    file is written through a temporary file beside ``target``.

    Raises
    ------
    OutputError
        ``path`` is a folder (or a socket).
    """
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return target, False
    if stat.S_ISREG(mode):
        return target, False
    if stat.S_ISDIR(mode):
        raise OutputError(f"{path}: is a folder; choose a file to write")
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode):
        return target, True
    raise OutputError(f"{path}: not a regular file, device or pipe; it cannot be written")


class _Stream(io.BufferedWriter):
    """A device or FIFO written as a stream: no seek, no tell.

    A character device accepts ``lseek`` but stays at 0, so a writer that
    seeks back (``zipfile`` patching its headers) would compute offsets from
    a position that never moves; refusing both makes it write a stream.
    """

    def seekable(self) -> bool:
        return False

    def seek(self, *args):
        raise io.UnsupportedOperation("a device or pipe is written as a stream")

    def tell(self):
        raise io.UnsupportedOperation("a device or pipe is written as a stream")


def open_direct(target: Path, encoding: str | None):
    """Open a device or FIFO for writing in place (a FIFO blocks until a reader opens it)."""
    if encoding is None:
        return _Stream(io.FileIO(target, "wb"))
    return open(target, "w", encoding=encoding, newline="")


def temp_prefix(target: Path) -> str:
    """``.NAME.PID.``: the start of this process's temporary files for ``target``."""
    return f".{target.name}.{os.getpid()}."


def _pid_alive(pid: int) -> bool | None:
    """Whether process ``pid`` runs; None when that cannot be told here."""
    if pid <= 0:
        return False
    if sys.platform == "win32":
        # Never os.kill(pid, 0) on Windows: signal 0 is CTRL_C_EVENT there,
        # sent to a whole console process group.
        return _windows_pid_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by another user
        return True
    except OSError:
        return None
    return True


def _windows_pid_alive(pid: int) -> bool | None:
    """:func:`_pid_alive` on Windows: OpenProcess and GetExitCodeProcess (kernel32)."""
    import ctypes
    from ctypes import wintypes

    try:
        kernel32 = _kernel32()
    except (AttributeError, OSError):  # no kernel32: not really Windows
        return None
    handle = kernel32.OpenProcess(_PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        error = _last_error()
        if error == _ERROR_ACCESS_DENIED:  # alive, another user's
            return True
        return False if error == _ERROR_INVALID_PARAMETER else None  # no such process
    try:
        code = wintypes.DWORD()
        if not kernel32.GetExitCodeProcess(handle, ctypes.byref(code)):
            return None
        return code.value == _STILL_ACTIVE
    finally:
        kernel32.CloseHandle(handle)


_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
_STILL_ACTIVE = 259
_ERROR_ACCESS_DENIED = 5
_ERROR_INVALID_PARAMETER = 87


def _last_error() -> int:
    """The Windows error code of the last kernel32 call (:func:`ctypes.get_last_error`)."""
    import ctypes

    return ctypes.get_last_error()


def _kernel32():
    """Windows' kernel32, with errors kept for :func:`ctypes.get_last_error`."""
    import ctypes

    return ctypes.WinDLL("kernel32", use_last_error=True)


def _is_stale(entry: os.DirEntry, middle: str, now: float) -> bool:
    """``middle`` is what lies between ``.NAME.`` and ``.tmp``: ``PID.RANDOM``
    (this tagtool) or ``RANDOM`` (an older one, no pid).

    A writer whose pid cannot be checked counts as alive until its file is
    :data:`UNKNOWN_WRITER_SECONDS` old.
    """
    pid, dot, random_part = middle.partition(".")
    if dot and pid.isdigit() and random_part and "." not in random_part:
        alive = _pid_alive(int(pid))
        if alive is not None:
            return not alive
        return _older_than(entry, now, UNKNOWN_WRITER_SECONDS)
    if not dot and middle:
        return _older_than(entry, now, STALE_SECONDS)
    return False


def _older_than(entry: os.DirEntry, now: float, seconds: float) -> bool:
    try:
        return now - entry.stat(follow_symlinks=False).st_mtime > seconds
    except OSError:
        return False


def stale_temps(target: str | PathLike, extra_suffixes: tuple[str, ...] = ()) -> list[Path]:
    """Temporary files of killed writes of ``target``: ``.NAME.*.tmp`` beside it
    (plus ``.NAME.*.tmp<suffix>``) whose writer is dead, or without a pid and
    older than :data:`STALE_SECONDS`.  Only regular files are listed."""
    target = Path(target)
    head = f".{target.name}."
    now = time.time()
    found = []
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    for entry in entries:
        name = entry.name
        if not name.startswith(head) or not entry.is_file(follow_symlinks=False):
            continue
        for suffix in (TEMP_SUFFIX, *(TEMP_SUFFIX + s for s in extra_suffixes)):
            if name.endswith(suffix) and _is_stale(entry, name[len(head) : -len(suffix)], now):
                found.append(Path(entry.path))
                break
    return found


def remove_stale_temps(target: str | PathLike, extra_suffixes: tuple[str, ...] = ()) -> int:
    """Remove what :func:`stale_temps` lists; returns how many were removed.
    Best effort: a file that cannot be removed is logged and left."""
    removed = 0
    for path in stale_temps(target, extra_suffixes):
        try:
            path.unlink()
        except OSError as e:
            logger.warning("cannot remove the leftover temporary file %s (%s)", path, e)
        else:
            logger.info("removed the leftover temporary file %s", path)
            removed += 1
    return removed

"""Atomic file writes: a temporary file beside the output, renamed over it on success.

Every writer of corpora, tagger files and JSON results goes through
:func:`atomic_write`, so a crash or a cancel never leaves half a file;
:mod:`tagtool.store.outputs` decides what may be written and cleans up after a
killed earlier write.
"""

from __future__ import annotations

import codecs
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO

from tagtool.errors import FormatError
from tagtool.store import disk, outputs


def _default_mode() -> int:
    # The umask can only be read by setting it, which races with other
    # threads; Linux exposes it read-only in /proc.
    with suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return 0o666 & ~int(line.split()[1], 8)
    return 0o644


@contextmanager
def atomic_write(path: Path, encoding: str | None) -> Iterator[IO]:
    """Open a temporary file beside ``path``; replace ``path`` on success.

    A writer that fails leaves the old file, if any, untouched and no
    temporary file behind. The new file gets the old file's permissions
    (or the umask's default). ``encoding=None`` opens the temporary file
    in binary mode ("wb"); otherwise it is a text file in ``encoding``
    with newlines written as given.

    Only regular files are replaced: a symlink is written through (its
    target is replaced, the link stays), a device or FIFO is written
    directly (no temporary file, no rename), a folder is refused
    (:func:`tagtool.store.outputs.write_target`).  Temporary files
    (``.NAME.PID.RANDOM.tmp``) of an earlier write of the same file that
    was killed are removed first.
    """
    path = Path(path)
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise FormatError(path, None, f"unknown encoding {encoding!r}") from None
    target, direct = outputs.write_target(path)
    if direct:
        with _encode_errors(path, encoding), outputs.open_direct(target, encoding) as fh:
            yield fh
        return
    outputs.remove_stale_temps(target)
    mode = target.stat().st_mode & 0o7777 if target.exists() else _default_mode()
    try:
        fd, tmp = tempfile.mkstemp(prefix=outputs.temp_prefix(target), suffix=outputs.TEMP_SUFFIX, dir=target.parent)
    except OSError as exc:  # a read-only or missing folder: name the output, not our temp file
        why = disk.describe(exc, target)
        raise outputs.OutputError(f"{path}: cannot be written: {why}") from None
    existed = target.exists()
    try:
        with _encode_errors(path, encoding), _disk_errors(path, target, tmp, existed):
            text = {} if encoding is None else {"encoding": encoding, "newline": ""}
            with os.fdopen(fd, "wb" if encoding is None else "w", **text) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, target)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextmanager
def _disk_errors(path: Path, target: Path, tmp: str, existed: bool) -> Iterator[None]:
    """A full disk or a read-only file met writing the output becomes an
    :class:`~tagtool.store.outputs.OutputError` naming ``path`` and saying which.

    An error naming another file (an input the writer reads) passes unchanged:
    writes to the temporary file raise errors without a file name.
    """
    try:
        yield
    except OSError as exc:
        ours = exc.filename is None or str(exc.filename) in (tmp, str(target))
        why = disk.problem(exc, target) if ours else None
        if why is None:
            raise
        kept = f"{path} was left as it was" if existed else "nothing was written"
        raise outputs.OutputError(f"{path}: cannot be written: {why}; {kept}") from exc


@contextmanager
def _encode_errors(path: Path, encoding: str | None) -> Iterator[None]:
    """A text the encoding cannot hold becomes a :class:`FormatError` naming ``path``."""
    try:
        yield
    except UnicodeEncodeError as exc:
        if encoding is None:  # not from the file: a binary writer's own error
            raise
        raise FormatError(path, None, f"cannot encode {exc.object[exc.start : exc.end]!r} as {encoding}") from None

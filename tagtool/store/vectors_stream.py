"""Streaming readers of word-vector files in the word2vec text and binary layouts.

One pass over the file, keeping only the rows of wanted words, so a 1–2 GB
file of pretrained vectors (Mikolov et al. 2013's word2vec format, GloVe's
header-less text of Pennington et al. 2014, fastText's ``.vec`` of
Bojanowski et al. 2017) is read in memory bounded by the vocabulary kept,
not by the file.  Rows of unwanted words are skipped unparsed.  Plain or
gzip-compressed files are recognised by their first bytes, not their names.

The progress contract is the project's (:mod:`tagtool.learn.progress`):
``progress(fraction, message)`` reports, ``should_stop()`` is polled and a
stop raises :class:`~tagtool.errors.Cancelled`.
"""

from __future__ import annotations

import gzip
import io
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import IO

import numpy as np

from tagtool.errors import Cancelled, FormatError

GZIP_MAGIC = b"\x1f\x8b"
#: Rows between two polls of ``should_stop`` (a poll every few milliseconds on a 300-dim file).
POLL_ROWS = 2048
#: Seconds between two progress reports.
REPORT_INTERVAL = 0.1
#: Bytes read at a time from a binary file.
CHUNK = 1 << 20
_CONTROL = bytes(range(9)) + bytes(range(14, 32))


@dataclass
class Header:
    """What the start of a vectors file says: its layout, size and dimension.

    ``count`` is None for a file without a header line (GloVe); ``binary``
    is True for word2vec's binary layout.
    """

    count: int | None
    dim: int
    binary: bool


class Ticker:
    """Rate-limited progress reports and cancel polls for one pass over a file."""

    def __init__(self, raw: IO[bytes], size: int, progress=None, should_stop=None, label: str = ""):
        self._raw, self._size = raw, max(size, 1)
        self._progress, self._should_stop, self._label = progress, should_stop, label
        self._last = -float("inf")

    def tick(self) -> None:
        """Poll ``should_stop`` (True raises Cancelled) and report the fraction of the file read."""
        if self._should_stop is not None and self._should_stop():
            raise Cancelled(f"reading {self._label} cancelled")
        now = time.monotonic()
        if self._progress is not None and now - self._last >= REPORT_INTERVAL:
            self._last = now
            self._progress(min(self._raw.tell() / self._size, 1.0), f"reading {self._label}")


@contextmanager
def open_stream(path: str | os.PathLike) -> Iterator[tuple[IO[bytes], IO[bytes]]]:
    """``(stream, raw)``: the file's bytes (decompressed if gzip) and the file itself (for progress)."""
    with open(path, "rb") as raw:
        compressed = raw.read(2) == GZIP_MAGIC
        raw.seek(0)
        if not compressed:
            yield io.BufferedReader(raw, CHUNK), raw  # type: ignore[arg-type]
            return
        with gzip.GzipFile(fileobj=raw, mode="rb") as unzipped:
            yield io.BufferedReader(unzipped, CHUNK), raw  # type: ignore[arg-type]


def read_header(path: str | os.PathLike) -> Header:
    """The layout of a word2vec-style file, from its first line and the bytes after it.

    A first line of two integers is word2vec's header ``count dim``; any other
    first line is a GloVe row (word and values), whose number of values is the
    dimension.  After a header, bytes that are not control-free UTF-8 text mean
    the binary layout.
    """
    try:
        with open_stream(path) as (stream, _):
            first = stream.readline(1 << 20)
            parts = first.split()
            if len(parts) == 2 and all(p.isdigit() for p in parts):
                count, dim = int(parts[0]), int(parts[1])
                if dim < 1:
                    raise FormatError(path, 1, f"the header gives dimension {dim}; it must be at least 1")
                return Header(count, dim, _looks_binary(stream.read(8 * dim + 4096)))
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise FormatError(path, None, f"cannot be read as a vectors file ({e})") from e
    if len(parts) < 2:
        raise FormatError(path, 1, "is not a vectors file: no header 'count dim' and no 'word value ...' row")
    return Header(None, len(parts) - 1, False)


def _looks_binary(sample: bytes) -> bool:
    text = sample[: sample.rfind(b"\n") + 1] or sample
    try:
        decoded = text.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(text) - 3:  # not merely a character cut at the sample's end
            return True
        decoded = text[: e.start].decode("utf-8")
    return any(chr(c) in decoded for c in _CONTROL)


def _parse_row(path, lineno: int, line: bytes, dim: int) -> np.ndarray:
    values = line.rstrip(b"\r\n ").split(b" ")[1:]
    if len(values) != dim:
        raise FormatError(path, lineno, f"has {len(values)} values where the file's vectors have {dim}")
    try:
        return np.array([float(v) for v in values], dtype=np.float32)
    except ValueError:
        bad = next(v for v in values if not _is_float(v))
        raise FormatError(path, lineno, f"{bad.decode('utf-8', 'replace')!r} is not a number") from None


def _binary_row(row: bytes) -> np.ndarray:
    return np.frombuffer(row, dtype="<f4").astype(np.float32)


def _is_float(value: bytes) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


Keep = Callable[[bytes, Callable[[], np.ndarray]], None]


def stream_text(path, header: Header, wanted: set[bytes], keep: Keep, progress=None, should_stop=None) -> int:
    """Pass over a text file, calling ``keep(word, parse)`` for each row whose word is in ``wanted``.

    ``parse()`` returns the row's values (float32) or raises a
    :class:`FormatError` naming the line.  Returns the number of rows read.
    A header's count that the file falls short of is an error (a truncated
    file); rows beyond it are not read, as gensim does.
    """
    skip = 0 if header.count is None else 1
    limit = header.count if header.count is not None else -1
    rows = 0
    with open_stream(path) as (stream, raw):
        ticker = Ticker(raw, os.fstat(raw.fileno()).st_size, progress, should_stop, os.path.basename(path))
        if skip:
            stream.readline()
        for lineno, line in enumerate(stream, start=1 + skip):
            if rows == limit:
                break
            if rows % POLL_ROWS == 0:
                ticker.tick()
            end = line.find(b" ")
            if end < 0:
                if line.strip():
                    raise FormatError(path, lineno, f"has no values (expected a word and {header.dim} numbers)")
                continue
            rows += 1
            word = line[:end]
            if word in wanted:
                keep(word, partial(_parse_row, path, lineno, line, header.dim))
    if header.count is not None and rows < header.count:
        raise FormatError(path, None, f"is truncated: its header promises {header.count} vectors, it has {rows}")
    return rows


def stream_binary(path, header: Header, wanted: set[bytes], keep: Keep, progress=None, should_stop=None) -> int:
    """Pass over a word2vec binary file (``word`` space, ``dim`` little-endian float32, optional newline).

    Calls ``keep(word, parse)`` like :func:`stream_text`; a file that ends
    inside an entry is reported as truncated, naming the entry.
    """
    assert header.count is not None
    nbytes = 4 * header.dim
    buf, pos = b"", 0
    with open_stream(path) as (stream, raw):
        ticker = Ticker(raw, os.fstat(raw.fileno()).st_size, progress, should_stop, os.path.basename(path))
        stream.readline()
        for entry in range(1, header.count + 1):
            if entry % POLL_ROWS == 0:
                ticker.tick()
            while (space := buf.find(b" ", pos)) < 0 or len(buf) - space - 1 < nbytes:
                more = stream.read(CHUNK)
                if not more:
                    raise FormatError(
                        path, None, f"is truncated: it ends inside vector {entry} of the {header.count} it promises"
                    )
                buf, pos = buf[pos:] + more, 0
            word = buf[pos:space].lstrip(b"\r\n")
            if word in wanted:
                keep(word, partial(_binary_row, buf[space + 1 : space + 1 + nbytes]))
            pos = space + 1 + nbytes
    return header.count

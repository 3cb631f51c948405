"""The progress bar's total of :func:`tagtool.services.batch.tag_file`: an input's sentences, counted.

:func:`quick_count` counts them from the file's characters alone, by its
format's rule (:data:`tagtool.store.format_catalog.CATALOG`'s
``counted_by``), a block of a million characters at a time with numpy over
the block's code points, so no Python code runs per line.
:func:`count_sentences` counts what a reader yields, for the inputs that
only a reader can split (JSONL span records split into sentences).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from tagtool.errors import Cancelled
from tagtool.store import format_catalog

#: A column file's document boundary (``tagtool.store.formats.conll.DOCSTART``), as it starts a line.
DOCSTART_PREFIX = "-DOCSTART-"

#: Sentences read between two polls of ``should_stop`` in :func:`count_sentences`.
COUNT_POLL = 1000

#: Characters read per block.
_BLOCK = 1 << 20

#: Past the last code point that ``str.strip()`` removes (U+3000).
_SPACE_END = 0x3001


@functools.cache
def _space() -> np.ndarray:
    """True at the code points that ``str.strip()`` removes, up to :data:`_SPACE_END` (made on first use)."""
    return np.array([chr(c).isspace() for c in range(_SPACE_END + 1)], dtype=bool)


def count_sentences(sentences: Iterable, should_stop: Callable[[], bool] | None) -> int:
    """How many ``sentences`` there are, polling ``should_stop`` every :data:`COUNT_POLL`."""
    total = 0
    for total, _ in enumerate(sentences, 1):
        if total % COUNT_POLL == 0 and should_stop is not None and should_stop():
            raise Cancelled("batch tagging cancelled")
    return total


def quick_count(path: Path, in_format: str, encoding: str) -> int | None:
    """Sentences of a file from its lines alone, without parsing them, by its format's ``counted_by``.

    A sentence of a column file is a run of non-blank lines (``-DOCSTART-``
    lines end one and are not one in a CoNLL file; CoNLL-U has none), of a
    text or JSONL file a non-blank line — the readers' own rules (a blank
    line: nothing but what ``str.strip()`` removes).  Malformed input is
    reported by the tagging pass, not here.  A 100 MB line is never held
    whole: past a block only its first characters are kept, to tell a
    ``-DOCSTART-`` line.  None for the formats not counted.
    """
    info = format_catalog.CATALOG.get(in_format)
    rule = None if info is None else info.counted_by
    if rule is None:
        return None
    counter = _Counter(rule == "line", rule == "block-docstart")
    with open(path, encoding=encoding, errors="replace") as fh:
        while block := fh.read(_BLOCK):
            counter.add(block)
    return counter.finish()


class _Counter:
    """Sentences of a text fed block by block; the line a block ends inside is carried to the next."""

    def __init__(self, per_line: bool, docstart: bool):
        self.per_line, self.docstart = per_line, docstart
        self.total = 0
        self.after_content = False  # the last whole line belongs to a sentence
        self.open_ink = False  # the unfinished line holds a non-space character
        self.open_head = ""  # its start (at least 64 characters of it, when it has them)

    def add(self, block: str) -> None:
        """Count the lines that ``block`` finishes."""
        codes = _code_points(block)
        newlines = np.flatnonzero(codes == 0x0A)
        # Each line piece runs from a line start up to and including its newline.
        bounds = np.concatenate(([0], newlines + 1, [len(block)]))
        content = _inked(codes, bounds)
        content[0] |= self.open_ink
        first_end = int(bounds[1]) if len(newlines) else len(block)
        head = self.open_head + block[: min(first_end, 64)] if len(self.open_head) < 64 else self.open_head
        if self.docstart:
            self._drop_docstarts(block, content, bounds, head)
        whole = content[:-1]  # the lines this block finishes
        if len(whole):
            self._count(whole)
            self.open_head = block[int(bounds[-2]) :]
        elif len(self.open_head) < 64:
            self.open_head = head
        self.open_ink = bool(content[-1]) if len(whole) else bool(content[0])

    def finish(self) -> int:
        """The total, the unfinished last line (a file without a final newline) counted."""
        if self.open_head:
            content = np.array([self.open_ink])
            if self.docstart and _is_docstart(self.open_head):
                content[0] = False
            self._count(content)
        return self.total

    def _count(self, content: np.ndarray) -> None:
        if self.per_line:
            self.total += int(content.sum())
            return
        previous = np.concatenate(([self.after_content], content[:-1]))
        self.total += int((content & ~previous).sum())
        self.after_content = bool(content[-1])

    @staticmethod
    def _drop_docstarts(block: str, content: np.ndarray, bounds: np.ndarray, head: str) -> None:
        """Mark the ``-DOCSTART-`` lines as no sentence's (they start with it, after byte order marks)."""
        content[0] &= not _is_docstart(head)
        at = block.find(DOCSTART_PREFIX, 1)
        while at >= 0:
            line = int(np.searchsorted(bounds, at, side="right")) - 1
            if line > 0 and not block[int(bounds[line]) : at].strip("\ufeff"):
                content[line] = False
            at = block.find(DOCSTART_PREFIX, at + 1)


def _inked(codes: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Whether each piece ``codes[bounds[i]:bounds[i + 1]]`` holds a character ``str.strip()`` keeps.

    One boolean a character and one a piece: a block's memory, not a
    running count per character.
    """
    ink = ~_space()[codes if codes.dtype == np.uint8 else np.minimum(codes, _SPACE_END)]
    content = np.zeros(len(bounds) - 1, dtype=bool)
    starts = bounds[:-1]
    filled = starts < bounds[1:]  # only the piece after a final newline can be empty
    if filled.any():
        content[filled] = np.logical_or.reduceat(ink, starts[filled])
    return content


def _is_docstart(head: str) -> bool:
    return head.lstrip("\ufeff").startswith(DOCSTART_PREFIX)


def _code_points(text: str) -> np.ndarray:
    """The code points of ``text`` as an integer array (bytes when it is ASCII)."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)

"""A block of a whitespace-separated column file split into fields, lines and sentences at once.

The fast path of :func:`tagtool.store.formats.conll.read` (``sep=None``):
the fields of a whole block come from one ``str.split`` (one regex
``findall`` if the block is not ASCII), the number of fields of every line
from numpy over the block's code points, and a sentence's columns are
slices of the field list with a step, so no Python code runs per line.
The reader checks the results (column counts, sentence lengths) and hands
a block with anything to report to its line-by-line reference, which
raises the error with its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

#: The column separators of ``split_fields`` (ASCII whitespace): True at their code points.
_SEPARATOR = np.zeros(256, dtype=bool)
_SEPARATOR[[0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20]] = True
# Only ASCII whitespace separates columns (as in conll.split_fields).
_FIELD = re.compile(r"[^\t\n\x0b\x0c\r\x1c-\x1f ]+")


@dataclass(frozen=True)
class BlockLines:
    """The fields of a block of whole lines and where each line's fields start.

    Attributes
    ----------
    fields : list of str
        Every field of the block, in order.
    counts : int64 array, shape (n_lines,)
        Fields of each line (0: a blank line).
    first : int64 array, shape (n_lines,)
        Index in ``fields`` of each line's first field.
    line_starts : int64 array, shape (n_lines,)
        Character offset of each line in the block.
    """

    fields: list[str]
    counts: np.ndarray
    first: np.ndarray
    line_starts: np.ndarray

    def lines_starting_with(self, text: str, value: str) -> np.ndarray:
        """Lines whose first field is ``value`` (``-DOCSTART-``), ascending."""
        if value not in text:
            return np.zeros(0, dtype=np.int64)
        lines = []
        at = text.find(value)
        while at >= 0:
            line = int(np.searchsorted(self.line_starts, at, side="right")) - 1
            if self.counts[line] and self.fields[self.first[line]] == value:
                lines.append(line)
            at = text.find(value, at + len(value))
        return np.unique(np.asarray(lines, dtype=np.int64))


def split_block(text: str) -> BlockLines:
    """Fields and per-line field counts of ``text``, as ``split_fields(line)`` of each line gives them."""
    if text.isascii():
        codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        fields = text.split()  # on ASCII text, str.split() cuts at exactly the separators
    else:
        codes = np.minimum(np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32), 255)
        fields = _FIELD.findall(text)
    separator = _SEPARATOR[codes]
    newlines = np.flatnonzero(codes == 0x0A)
    n_lines = len(newlines) + (not text.endswith("\n"))
    # A field starts at a non-separator after a separator (or at the start).
    starts = np.flatnonzero(~separator & np.concatenate(([True], separator[:-1])))
    counts = np.bincount(np.searchsorted(newlines, starts), minlength=n_lines)[:n_lines]
    first = np.zeros(n_lines, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    line_starts = np.concatenate(([0], newlines + 1))[:n_lines]
    if len(fields) != len(starts):  # cannot happen: both cut at the same characters
        raise AssertionError("column block split disagrees with its field count")
    return BlockLines(fields, counts.astype(np.int64), first, line_starts.astype(np.int64))


def runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, stops)`` of the runs of True in ``mask`` (stops exclusive)."""
    edges = np.diff(np.concatenate(([0], mask.view(np.int8), [0])))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)

"""Whole lines of a text file read in large blocks, with the checks and errors of line-by-line reading.

Column files are read this way (:mod:`tagtool.store.formats.column_blocks`
splits a block into sentences with string and numpy operations): a
``readline`` per line and a Python step per line cost more than everything
else of reading a CoNLL file.

A block is refused by the same rules as
:func:`~tagtool.store.formats._common.iter_lines` (a NUL byte, a line of
more than ``max_line_chars`` characters, bytes the encoding cannot decode);
from a refused block on, the lines come from ``iter_lines`` itself, one at a
time, so the error is its own and every line before it is delivered first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tagtool.store.formats._common import _nul_is_text, check_not_binary, iter_lines, text_encoding

#: Characters read per block: large enough that per-block costs vanish, small enough to stream.
BLOCK_CHARS = 1 << 20


def iter_blocks(
    path: Path, encoding: str, max_line_chars: int, where=None, chars: int = BLOCK_CHARS
) -> Iterator[tuple[int, str]]:
    """Yield ``(number of the first line, text)`` of blocks of whole lines.

    Every line of a block ends with ``"\\n"`` except the file's last line
    when the file does not end with one; newlines are universal, as in
    ``iter_lines``.  A line is never held beyond ``max_line_chars`` plus a
    block: a longer one hands over to ``iter_lines``, which refuses it.

    Parameters
    ----------
    path : Path
    encoding : str
    max_line_chars : int
        :attr:`~tagtool.store.formats.limits.ReadLimits.max_line_chars`.
    where : ReadContext, optional
        Passed to ``iter_lines`` once it takes over (its ``line``).
    chars : int
        Characters per read (tests make it small).
    """
    opened = text_encoding(path, encoding)
    check_not_binary(path, encoding)
    check_nul = not _nul_is_text(encoding)
    lineno, tail = 1, ""
    with open(path, encoding=opened, newline=None) as fh:
        while True:
            try:
                # A long carried line makes the next read as long: the total stays linear.
                chunk = fh.read(max(chars, len(tail)))
            except UnicodeError:
                break  # iter_lines raises the error, at its line
            text = tail + chunk
            cut = len(text) if not chunk else text.rfind("\n") + 1
            body, tail = text[:cut], text[cut:]
            if _refused(body, check_nul, max_line_chars) or len(tail) > max_line_chars:
                break
            if body:
                yield lineno, body
                lineno += body.count("\n")
            if not chunk:
                return
    for n, line in iter_lines(path, encoding, max_line_chars, where):
        if n >= lineno:
            yield n, line


def _refused(body: str, check_nul: bool, max_line_chars: int) -> bool:
    """Whether ``iter_lines`` would raise on a line of ``body``."""
    if check_nul and "\x00" in body:
        return True
    return len(body) > max_line_chars and max(map(len, body.split("\n"))) > max_line_chars

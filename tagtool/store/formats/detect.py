"""Which format a file is in, from its name and, failing that, its content.

Rules, in order:

1. Extension: ``.conllu`` → conllu; ``.jsonl``, ``.ndjson``, ``.json`` →
   jsonl; ``.csv`` → csv; ``.conll``, ``.iob``, ``.iob2``, ``.bio``,
   ``.bioes`` → conll; ``.tsv`` → tsv when its first line is a header naming
   a table column (``token``, ``sentence``), else sniffed as below when that
   finds CoNLL or CoNLL-U (a headerless ``token<TAB>label`` file is a column
   file), else tsv.
2. Anything else (``.txt``, ``.train``, no extension, …) is sniffed from its
   first 64 KiB (decoded leniently: the reader reports bad bytes):

   - first non-blank character ``{`` or ``[`` → jsonl;
   - most token lines have exactly 10 tab-separated fields with a numeric
     ID → conllu;
   - most (≥ 90 %) non-blank lines have the same number of whitespace
     columns and there is a blank line between sentences (or a
     ``-DOCSTART-`` line), unless most lines hold prose (below) → conll.
     A single column counts when lines are
     grouped in blocks of several lines (one token a line, tokens only);
   - at least two lines and every line has 2 to 5 fields → conll too
     (a one-sentence file, or a ragged one: the reader then names the bad
     line, and its error suggests format "text" for sniffed files), unless
     a field after the first is a word with punctuation glued to its end
     (``food,`` ``review.``): prose, which no label or tag column holds;
   - else → text (one sentence a line).

   Plain text whose every line has 2–5 words thus reads as CoNLL: pass
   ``format="text"``.
"""

from __future__ import annotations

import re
from collections import Counter
from os import PathLike
from pathlib import Path

from tagtool.store.dbfile import held_by_this_process
from tagtool.store.format_catalog import extension_formats
from tagtool.store.formats._common import HEAD_BYTES

#: Extension → format, from :data:`tagtool.store.format_catalog.CATALOG`.
EXTENSIONS = extension_formats()

_CONLLU_ID = re.compile(r"\d+(?:[.-]\d+)?")
#: Share of lines that must agree on the column count.
AGREEMENT = 0.9
#: Most fields a line can have to pass for a token line without other evidence.
SHORT_LINE = 5


def detect_format(path: str | PathLike) -> str:
    """Name of the format of ``path`` (a key of ``FORMATS``); see the module docstring."""
    path = Path(path)
    known = EXTENSIONS.get(path.suffix.lower())
    if known == "tsv":
        return _sniff_tsv(_head_lines(path))
    if known is not None:
        return known
    return sniff(_head_lines(path))


#: Header cells that make a ``.tsv`` file a table (:mod:`.table`).
TABLE_HEADERS = frozenset(("token", "sentence"))


def _sniff_tsv(lines: list[str]) -> str:
    content = [line for line in lines if line.strip()]
    if not content:
        return "tsv"
    header = {cell.strip().lower() for cell in content[0].lstrip("\ufeff").split("\t")}
    if header & TABLE_HEADERS:
        return "tsv"
    sniffed = sniff(lines)
    return sniffed if sniffed in ("conll", "conllu") else "tsv"


def _head_lines(path: Path) -> list[str]:
    if held_by_this_process(path):
        return []  # an open project: not read outside SQLite (tagtool.store.dbfile); reading it is refused
    with open(path, "rb") as fh:
        head = fh.read(HEAD_BYTES)
    lines = head.decode("utf-8", errors="replace").splitlines()
    if len(head) == HEAD_BYTES and lines:
        lines.pop()  # cut in the middle
    return lines


def sniff(lines: list[str]) -> str:
    """Format name from the first lines of a file."""
    content = [line for line in lines if line.strip()]
    if not content:
        return "text"
    if content[0].lstrip("\ufeff \t").startswith(("{", "[")):
        return "jsonl"
    if _looks_like_conllu(content):
        return "conllu"
    if _looks_like_conll(lines):
        return "conll"
    return "text"


def _looks_like_conllu(content: list[str]) -> bool:
    if "\t" not in "".join(content):
        return False  # no row of ten tab-separated fields (a space-separated column file)
    rows = [line.rstrip("\r\n").split("\t") for line in content if not line.startswith("#")]
    good = sum(len(r) == 10 and _CONLLU_ID.fullmatch(r[0]) is not None for r in rows)
    return bool(rows) and good >= AGREEMENT * len(rows)


def _looks_like_conll(lines: list[str]) -> bool:
    counts: Counter[int] = Counter()
    blocks, in_block, docstart = 0, False, False
    for line in lines:
        fields = line.split()
        if fields and fields[0] == "-DOCSTART-":
            docstart, in_block = True, False
        elif fields:
            counts[len(fields)] += 1
            blocks += not in_block
            in_block = True
        else:
            in_block = False
    if not counts:
        return False
    n_columns, agreeing = counts.most_common(1)[0]
    total = sum(counts.values())
    separated = blocks > 1 or docstart or (blocks == 1 and not lines[-1].strip())
    if agreeing >= AGREEMENT * total and n_columns == 1:
        # Tokens only: needs blocks of several lines, unlike one-word sentences.
        return separated and total >= 2 * blocks
    if agreeing >= AGREEMENT * total and separated:
        # Paragraphs of equal word counts agree on their "columns" too; prose
        # in most lines tells them apart (a lemma column rarely holds ``etc.``).
        return not _mostly_prose(lines)
    # Lines of a few fields each are token lines, not sentences, even in a
    # file of one sentence or with a ragged line (the reader names it).
    return total >= 2 and all(2 <= n <= SHORT_LINE for n in counts) and not _prose(lines)


#: A word with sentence punctuation glued to its end.
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}[.,!?;:]")


def _prose(lines: list[str]) -> bool:
    """Whether a field after a line's first is a word with punctuation glued on (``food,``): text, not columns."""
    return any(_PROSE_WORD.fullmatch(field) for line in lines for field in line.split()[1:])


def _mostly_prose(lines: list[str]) -> bool:
    """Whether at least half the non-blank lines have a prose field (see :func:`_prose`)."""
    content = [line for line in lines if line.strip()]
    return 2 * sum(_prose([line]) for line in content) >= len(content)

"""The bytes of a CoNLL-U file that are not in its lines: line endings and the byte-order mark.

A file read and written again is the same byte for byte
(:mod:`tagtool.store.formats.conllu`), also when it was written on Windows:

* each sentence records the line ending of its first line when it is not
  ``\\n`` (``meta["conllu:newline"]``: ``"CRLF"`` or ``"CR"``) and is written
  back with it, the blank line after it included; a line of the sentence
  that ends otherwise is written back with the sentence's ending, and the
  reader says so in a warning naming the line;
* the first sentence of a UTF-8 file that starts with a byte-order mark
  records it (``meta["conllu:bom"] = "yes"``), and a UTF-8 export whose
  first sentence has it starts with one.
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import TextIO

from tagtool.core.corpus import Corpus
from tagtool.store.formats._common import ReadContext

NEWLINE_KEY = "conllu:newline"
BOM_KEY = "conllu:bom"
_NAMES = {"\r\n": "CRLF", "\r": "CR", "\n": "LF"}


class Endings:
    """The line endings of the sentence being read."""

    def __init__(self) -> None:
        self.first: str | None = None

    def note(self, ending: str, lineno: int, ctx: ReadContext) -> None:
        """One more line's ending (``""``: the file's last line, without one)."""
        if not ending:
            return
        if self.first is None:
            self.first = ending
        elif ending != self.first:
            ctx.warn(
                lineno,
                f"line ends with {_NAMES[ending]} where the sentence's first line ends with "
                f"{_NAMES[self.first]}; it is written back with {_NAMES[self.first]}",
            )

    def record(self, meta: dict) -> None:
        """Put a sentence ending other than ``\\n`` into ``meta``."""
        if self.first in ("\r\n", "\r"):
            meta[NEWLINE_KEY] = _NAMES[self.first]


def newline(meta: Mapping[str, object]) -> str:
    """The line ending a sentence was read with (``\\n`` unless it recorded another)."""
    recorded = meta.get(NEWLINE_KEY)
    return next((e for e, name in _NAMES.items() if name == recorded), "\n")


def write_bom(corpus: Corpus, fh: TextIO) -> None:
    """Start a UTF-8 output with a byte-order mark when the file its first sentence came from had one."""
    first = next((d.sentences[0] for d in corpus.documents if d.sentences), None)
    if first is None or first.meta.get(BOM_KEY) != "yes":
        return
    try:  # an encoding with a BOM of its own (utf-16, utf-8-sig) writes it itself
        utf8 = codecs.lookup(getattr(fh, "encoding", None) or "").name == "utf-8"
    except LookupError:
        utf8 = False
    if utf8:
        fh.write("\ufeff")

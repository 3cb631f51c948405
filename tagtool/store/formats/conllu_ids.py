"""The ID column of a CoNLL-U sentence checked as it is read.

:mod:`tagtool.store.formats.conllu` keeps multiword-token ranges and empty
nodes verbatim and writes them back where their IDs say; so their IDs must
say a place, as the CoNLL-U format (and the UD validator, which calls each
of these an error) requires:

* words are numbered 1, 2, … (checked by the reader);
* a multiword token ``a-b`` spans two or more words (``a < b``), stands
  right before its first word ``a``, does not overlap or nest in another,
  and ends at or before the sentence's last word;
* an empty node ``a.k`` follows word ``a`` (``0.k`` comes before the first
  word), not between a multiword token's line and its first word, and the
  empty nodes after one word are numbered ``a.1``, ``a.2``, …;
* no field is empty (``_`` is the empty value).

Each violation is a :class:`~tagtool.errors.FormatError` naming the file
and the line.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tagtool.store.formats._common import ReadContext

#: CoNLL-U's field names, for messages about an empty field.
_FIELD_NAMES = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


@dataclass
class IdChecks:
    """What the ID lines of the sentence being read said so far."""

    words: int = 0
    #: ``(start, end, line)`` of each multiword token.
    ranges: list[tuple[int, int, int]] = field(default_factory=list)
    #: The multiword token whose first word has not come yet: ``(its ID, line)``.
    pending: tuple[str, int] | None = None
    #: Last empty node: ``(word it follows, its number)``.
    node: tuple[int, int] = (0, 0)

    def word(self) -> None:
        """A word line (numbered ``self.words + 1``: the reader checks that)."""
        self.words += 1
        self.pending = None

    def multiword(self, ident: str, start: int, end: int, lineno: int, ctx: ReadContext) -> None:
        if start >= end:
            raise ctx.error(lineno, f"multiword token {ident} must span two or more words ({start}-N, N > {start})")
        last = max((r[1] for r in self.ranges), default=0)
        if start <= last:
            other = next(f"{a}-{b}" for a, b, _ in self.ranges if b == last)
            raise ctx.error(
                lineno, f"multiword token {ident} overlaps multiword token {other} (they may neither overlap nor nest)"
            )
        if start != self.words + 1 or self.pending is not None:
            raise ctx.error(
                lineno,
                f"multiword token {ident} is out of place: it must stand right before its "
                f"first word {start}, and the next word is {self.words + 1}",
            )
        self.ranges.append((start, end, lineno))
        self.pending = (ident, lineno)

    def empty_node(self, ident: str, major: int, minor: int, lineno: int, ctx: ReadContext) -> None:
        if self.pending is not None:
            raise ctx.error(
                lineno,
                f"empty node {ident} between multiword token {self.pending[0]} and its "
                "first word; a multiword token's line must be followed by its words",
            )
        if major != self.words:
            raise ctx.error(
                lineno,
                f"empty node {ident} after word {self.words}: an empty node's ID names the "
                f"word it follows ({self.words}.1, {self.words}.2, …)",
            )
        expected = self.node[1] + 1 if self.node[0] == major else 1
        if minor != expected:
            raise ctx.error(lineno, f"empty node {ident} where {major}.{expected} was expected")
        self.node = (major, minor)

    def end(self, ctx: ReadContext) -> None:
        """At the sentence's end: every multiword token within its words."""
        if self.pending is not None:
            raise ctx.error(
                self.pending[1],
                f"multiword token {self.pending[0]} at the end of the sentence, with none of its words after it",
            )
        for start, end, lineno in self.ranges:
            if end > self.words:
                raise ctx.error(
                    lineno, f"multiword token {start}-{end} goes past the sentence's last word {self.words}"
                )


def check_fields(fields: list[str], lineno: int, ctx: ReadContext) -> None:
    """No field of a token line is empty."""
    for name, value in zip(_FIELD_NAMES, fields):
        if not value:
            raise ctx.error(lineno, f"empty {name} field (CoNLL-U writes _ for no value)")

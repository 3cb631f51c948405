"""The word ids of a CoNLL-U sentence kept in the store, and the text its words spell.

A sentence read from CoNLL-U (:mod:`tagtool.store.formats.conllu`) keeps
what is not a word verbatim in ``meta["conllu:lines"]``: comment lines that
must be written as they were, multiword-token ranges (``3-4``) and empty
nodes (``8.1``).  :class:`Extras` holds those lines parsed, so that a split
or a merge (:mod:`tagtool.store.retokenize_conllu`) can renumber them and
write them back in file order; :func:`surface` is the text the words and
ranges spell with their ``SpaceAfter``, which is what ``# text`` must say.

The module does not import the ``conllu`` library (the store stays light);
its key names are those of :mod:`tagtool.store.formats.conllu` (a test
checks).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

LINES_KEY = "conllu:lines"
MISC_AT_KEY = "conllu:misc_at"
SPACE_AFTER = "SpaceAfter="
SPACE_AFTER_NO = "SpaceAfter=No"

#: ``word(old 1-based id) -> (first, last) new id`` of what the word became.
Renumber = Callable[[int], tuple[int, int]]


def split_ids(t: int) -> Renumber:
    """New ids after the word at 0-based ``t`` is split in two."""

    def new(i: int) -> tuple[int, int]:
        if i <= t:
            return i, i
        if i == t + 1:
            return i, i + 1
        return i + 1, i + 1

    return new


def merge_ids(t: int) -> Renumber:
    """New ids after the words at 0-based ``t`` and ``t + 1`` are merged."""

    def new(i: int) -> tuple[int, int]:
        if i <= t + 1:
            return i, i
        if i == t + 2:
            return t + 1, t + 1
        return i - 1, i - 1

    return new


@dataclass
class Ids:
    """How references change: words by :attr:`word`, empty nodes by :attr:`nodes` where given.

    An empty node ``a.b`` not in :attr:`nodes` follows its word ``a`` (to
    the last word ``a`` became); ``0`` (the root) stays.
    """

    word: Renumber
    nodes: dict[str, str] = field(default_factory=dict)

    def ref(self, value: str) -> str:
        """A word or empty-node id renumbered; any other text as it is."""
        whole, dot, minor = value.partition(".")
        if not whole.isdigit() or (dot and not minor.isdigit()):
            return value
        if dot:
            return self.nodes.get(value) or f"{self.word(int(whole))[1] if int(whole) else 0}.{minor}"
        return value if int(whole) == 0 else str(self.word(int(whole))[0])

    def deps(self, value: str) -> str:
        """An enhanced DEPS cell (``head:rel|head:rel``) renumbered, repeated entries once."""
        if value in ("", "_"):
            return value
        out: list[str] = []
        for dep in value.split("|"):
            head, colon, rel = dep.partition(":")
            entry = self.ref(head) + colon + rel
            if entry not in out:
                out.append(entry)
        return "|".join(out)


@dataclass
class Range:
    """A multiword token ``start-end`` (1-based word ids) and its line's fields."""

    start: int
    end: int
    fields: list[str]

    @property
    def form(self) -> str:
        return self.fields[1]

    @property
    def misc(self) -> str:
        return self.fields[9] if len(self.fields) > 9 else "_"


@dataclass
class Node:
    """An empty node ``major.minor`` (it follows word ``major``) and its line's fields."""

    major: int
    minor: int
    fields: list[str]


@dataclass
class Extras:
    """``meta["conllu:lines"]`` parsed: comment lines, ranges, empty nodes, and lines none of these."""

    comments: list[str] = field(default_factory=list)
    ranges: list[Range] = field(default_factory=list)
    nodes: list[Node] = field(default_factory=list)
    other: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, meta: dict) -> Extras:
        extras = cls()
        for line in str(meta.get(LINES_KEY) or "").split("\n"):
            if not line:
                continue
            fields = line.split("\t")
            start, dash, end = fields[0].partition("-")
            major, dot, minor = fields[0].partition(".")
            if line.startswith("#"):
                extras.comments.append(line)
            elif dash and start.isdigit() and end.isdigit():
                extras.ranges.append(Range(int(start), int(end), fields))
            elif dot and major.isdigit() and minor.isdigit():
                extras.nodes.append(Node(int(major), int(minor), fields))
            else:
                extras.other.append(line)  # the writer names it; not ours to drop
        return extras

    def range_of(self, word: int) -> Range | None:
        """The multiword token holding 1-based ``word``, if any."""
        return next((r for r in self.ranges if r.start <= word <= r.end), None)

    def renumber(self, ids: Ids) -> None:
        """Rewrite every range's and empty node's id, and the nodes' DEPS, in place."""
        for r in self.ranges:
            r.start, r.end = ids.word(r.start)[0], ids.word(r.end)[1]
            r.fields[0] = f"{r.start}-{r.end}"
        for node in self.nodes:
            new = ids.ref(f"{node.major}.{node.minor}")
            major, _, minor = new.partition(".")
            node.major, node.minor = int(major), int(minor)
            node.fields[0] = new
            if len(node.fields) > 8:
                node.fields[8] = ids.deps(node.fields[8])

    def store(self, meta: dict) -> None:
        """Put the lines back into ``meta``: comments first, then ranges and nodes in file order."""
        placed = [((r.start, 0, 0), r.fields) for r in self.ranges]
        placed += [((n.major, 2, n.minor), n.fields) for n in self.nodes]
        lines = [*self.comments, *("\t".join(f) for _, f in sorted(placed, key=lambda p: p[0])), *self.other]
        meta[LINES_KEY] = "\n".join(lines)


def entries(misc: str) -> list[str]:
    """The entries of a MISC cell (none for ``_``)."""
    return [] if misc in ("", "_") else misc.split("|")


def with_space_after(misc: str, source: str) -> str:
    """``misc`` with the ``SpaceAfter`` entry of ``source`` (none if ``source`` has none)."""
    kept = [e for e in entries(misc) if not e.startswith(SPACE_AFTER)]
    kept += [e for e in entries(source) if e.startswith(SPACE_AFTER)]
    return "|".join(kept) or "_"


def _gap(misc: str) -> str:
    return "" if SPACE_AFTER_NO in entries(misc) else " "


def surface(tokens: Sequence[str], misc: Sequence[str] | None, extras: Extras) -> str:
    """The text the sentence spells: each multiword token's form or each word's, with their ``SpaceAfter``."""
    starts = {r.start: r for r in extras.ranges}
    out, i = [], 1
    while i <= len(tokens):
        r = starts.get(i)
        if r is not None and r.end > r.start:
            out += [r.form, _gap(r.misc)]
            i = r.end + 1
            continue
        out += [tokens[i - 1], _gap(misc[i - 1]) if misc is not None else " "]
        i += 1
    return "".join(out[:-1])

"""Keep a CoNLL-U sentence's word ids right when one of its tokens is split or merged.

A sentence read from CoNLL-U (:mod:`tagtool.store.formats.conllu`) refers
to its words by 1-based id in several places besides their order: the
``head`` and ``deps`` columns, the kept multiword-token ranges (``3-4``)
and empty nodes (``8.1``, whose own DEPS refer to words) in
``meta["conllu:lines"]``, and the MISC label positions in
``meta["conllu:misc_at"]`` (0-based).  A split or a merge renumbers them
all, so the exported file stays valid:

* a reference to the split word points to its first half; a range that
  holds it covers both halves; an empty node after it comes after both;
* a reference to either merged word points to the merged one; a merged
  word whose head was its partner takes the partner's head; a range that
  shrinks to one word is dropped (the merged word is the surface form), and
  so is one that held only one of the two (its surface form no longer
  covers whole words);
* MISC: the first half of a split word gets ``SpaceAfter=No`` (the halves
  were written together); a merged word keeps the first word's MISC with
  the second word's ``SpaceAfter``, so ``# text`` still matches.

Everything else of the columns follows the store's rule (a split copies the
token's values to both halves, a merge keeps the first's).  The module does
not import the ``conllu`` library (the store stays light); its key names
are those of :mod:`tagtool.store.formats.conllu` (a test checks).
"""

from __future__ import annotations

from collections.abc import Callable

LINES_KEY = "conllu:lines"
MISC_AT_KEY = "conllu:misc_at"
SPACE_AFTER_NO = "SpaceAfter=No"

#: ``renumber(old 1-based word id) -> (first, last) new id`` of what the word became.
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


def is_conllu(meta: dict) -> bool:
    """The sentence was read from CoNLL-U (every such sentence has the kept-lines key)."""
    return LINES_KEY in meta


def renumber_columns(columns: dict[str, list[str]], new: Renumber) -> None:
    """Rewrite ``head`` and ``deps`` in place (columns already split or merged)."""
    if "head" in columns:
        columns["head"] = [renumber_ref(v, new) for v in columns["head"]]
    if "deps" in columns:
        columns["deps"] = [_deps(v, new) for v in columns["deps"]]


def fix_merged_head(columns: dict[str, list[str]], t: int, partner_head: str) -> None:
    """A merged word whose head was its partner (now itself) takes the partner's head."""
    heads = columns.get("head")
    if heads is not None and heads[t] == str(t + 1):
        heads[t] = partner_head


def renumber_meta(meta: dict, new: Renumber, split_at: int | None = None, merged_at: int | None = None) -> None:
    """Rewrite the kept ranges and empty nodes, and the MISC label positions, in place."""
    lines = [_line(line, new, merged_at) for line in (meta.get(LINES_KEY) or "").split("\n") if line]
    meta[LINES_KEY] = "\n".join(line for line in lines if line is not None)
    if meta.get(MISC_AT_KEY):
        meta[MISC_AT_KEY] = _misc_at(str(meta[MISC_AT_KEY]), split_at, merged_at)


def split_misc(misc: str) -> str:
    """MISC of a split word's first half: the halves were written together."""
    entries = [e for e in _entries(misc) if not e.startswith("SpaceAfter=")]
    return "|".join([*entries, SPACE_AFTER_NO])


def merged_misc(first: str, second: str) -> str:
    """MISC of a merged word: the first word's, with the second word's ``SpaceAfter``."""
    entries = [e for e in _entries(first) if not e.startswith("SpaceAfter=")]
    entries += [e for e in _entries(second) if e.startswith("SpaceAfter=")]
    return "|".join(entries) or "_"


def _entries(misc: str) -> list[str]:
    return [] if misc in ("", "_") else misc.split("|")


def renumber_ref(value: str, new: Renumber) -> str:
    """A word id (``0`` is the root; ``8.1`` an empty node after word 8); other text as it is."""
    whole, dot, minor = value.partition(".")
    if not whole.isdigit() or (dot and not minor.isdigit()):
        return value
    i = int(whole)
    if i == 0:
        return value
    first, last = new(i)
    return f"{last}.{minor}" if dot else str(first)


def _deps(value: str, new: Renumber) -> str:
    if value in ("", "_"):
        return value
    out = []
    for dep in value.split("|"):
        head, colon, rel = dep.partition(":")
        out.append(renumber_ref(head, new) + colon + rel)
    return "|".join(out)


def _line(line: str, new: Renumber, merged_at: int | None) -> str | None:
    """A kept range or empty-node line renumbered; None for a range a merge broke."""
    fields = line.split("\t")
    token_id = fields[0]
    if "-" in token_id:
        start, _, end = token_id.partition("-")
        if not (start.isdigit() and end.isdigit()):
            return line
        if merged_at is not None and (int(end) == merged_at + 1 or int(start) == merged_at + 2):
            return None  # the merged pair straddles the range's edge
        first, last = new(int(start))[0], new(int(end))[1]
        if first == last:
            return None
        fields[0] = f"{first}-{last}"
    elif "." in token_id:
        fields[0] = renumber_ref(token_id, new)
        if len(fields) > 8:
            fields[8] = _deps(fields[8], new)
    return "\t".join(fields)


def _misc_at(value: str, split_at: int | None, merged_at: int | None) -> str:
    """``token:entry`` pairs (0-based tokens) after a split (both halves keep it) or a merge (the first's)."""
    out = []
    for pair in value.split():
        token, colon, entry = pair.partition(":")
        if not token.isdigit():
            out.append(pair)
            continue
        t = int(token)
        if split_at is not None:
            targets = [t] if t < split_at else [split_at, split_at + 1] if t == split_at else [t + 1]
        elif merged_at is not None:
            targets = [t] if t <= merged_at else [] if t == merged_at + 1 else [t - 1]
        else:
            targets = [t]
        out += [f"{n}{colon}{entry}" for n in targets]
    return " ".join(out)

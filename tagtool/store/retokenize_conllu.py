"""Keep a CoNLL-U sentence a valid tree, with a true ``# text``, when one of its tokens is split or merged.

A sentence read from CoNLL-U (:mod:`tagtool.store.formats.conllu`) refers
to its words by 1-based id besides their order: HEAD and DEPS, the
multiword-token ranges (``3-4``) and empty nodes (``8.1``) kept in
``meta["conllu:lines"]`` (:mod:`tagtool.store.conllu_words`), and the MISC
label positions in ``meta["conllu:misc_at"]``.  The store splits and merges
the token's row as for any file (a split copies the token's values to both
halves, a merge keeps the first's); this module then applies the rules
below, so that the exported sentence is a tree with one root and no cycle,
and its ``# text`` reads as its words do.

Split of word *w* into *w₁ w₂*
    *w₁* takes *w*'s place in the tree: its HEAD, DEPREL and DEPS, and
    every word, empty node and enhanced dependency that pointed at *w* now
    points at *w₁*.  *w₂* is attached to *w₁* with the relation
    :data:`SPLIT_RELATION` (``dep``, UD's "unspecified dependency": the
    tool cannot know the true relation, and ``goeswith``, ``flat`` or
    ``compound`` would each claim something about the words it does not
    know; an annotator relabels it), in HEAD, DEPREL and DEPS alike.  A
    split of the root therefore leaves one root.  *w₁* gets
    ``SpaceAfter=No`` (the halves were written together), so ``# text`` is
    unchanged; inside a multiword token the token's own line carries the
    spacing, and the range grows to hold both halves.  An empty node after
    *w* comes after *w₂*.
Merge of words *a b* into *m*
    *m* takes the place of the one of the two nearer the root (the one the
    other depends on, if it does; the first on a tie or when neither
    reaches the root through its heads): its HEAD, DEPREL, DEPS, LEMMA, tags and
    features.  The other word's dependents are re-attached to *m*; its own
    attachment goes (it is part of *m* now).  Since the word kept is no
    deeper than the other, its head is not below either of them and no
    cycle can form.  Self-references and repeated entries left in DEPS are
    dropped.  MISC is the first word's, with the second word's
    ``SpaceAfter``.  Empty nodes after *b* follow those after *a*
    (``3.1 4.1`` become ``3.1 3.2``).
Merge and multiword tokens
    Two words of one multiword token shrink it by one word; a multiword
    token left with one word is dropped, the word taking its
    ``SpaceAfter``.  A merge across a multiword token's edge makes the
    merged word part of it: the token grows to cover the other word (or the
    other multiword token) and its form is the two surface forms joined,
    as the words are.
``# text``
    The tokens are what the annotator says the text is: a merge joins two
    tokens with nothing between them, so a merge of ``in`` + ``Mosul``
    makes the text ``inMosul`` too.  After every split or merge, a ``# text``
    that matched the words before (:func:`~tagtool.store.conllu_words.surface`)
    is rewritten from the words after; one that did not match (the file
    had it so) is left as it is.

For users: ``docs/retokenizing-conllu.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tagtool.store import conllu_words as words
from tagtool.store.conllu_words import LINES_KEY, MISC_AT_KEY, SPACE_AFTER_NO, Extras, Ids

__all__ = ["LINES_KEY", "MISC_AT_KEY", "SPLIT_RELATION", "is_conllu", "merge", "split"]

#: DEPREL (and DEPS relation) of the second half of a split word, attached to the first.
SPLIT_RELATION = "dep"


def is_conllu(meta: dict) -> bool:
    """The sentence was read from CoNLL-U (every such sentence has the kept-lines key)."""
    return LINES_KEY in meta


def split(
    before_tokens: Sequence[str],
    before: dict[str, list[str]],
    tokens: Sequence[str],
    columns: dict[str, list[str]],
    meta: dict,
    t: int,
) -> None:
    """Apply the split rules in place: word ``t`` (0-based) became ``t`` and ``t + 1``.

    ``columns`` and ``meta`` are the store's split of ``before`` (both
    halves with the word's values) and ``meta``'s copy.
    """
    extras = Extras.of(meta)
    was = words.surface(before_tokens, before.get("misc"), extras)
    inside = extras.range_of(t + 1) is not None
    ids = Ids(words.split_ids(t))
    _renumber_columns(columns, ids)
    heads = columns.get("head")
    if heads is not None and heads[t + 1].isdigit():
        heads[t + 1] = str(t + 1)
        if "deprel" in columns:
            columns["deprel"][t + 1] = SPLIT_RELATION
        if "deps" in columns and columns["deps"][t + 1] not in ("", "_"):
            columns["deps"][t + 1] = f"{t + 1}:{SPLIT_RELATION}"
    if "misc" in columns and not inside:
        columns["misc"][t] = split_misc(columns["misc"][t])
    extras.renumber(ids)
    extras.store(meta)
    if meta.get(MISC_AT_KEY):
        meta[MISC_AT_KEY] = _misc_at(
            str(meta[MISC_AT_KEY]), lambda i: [i] if i < t else [i, i + 1] if i == t else [i + 1]
        )
    _retext(meta, was, tokens, columns, extras)


def merge(
    before_tokens: Sequence[str],
    before: dict[str, list[str]],
    tokens: Sequence[str],
    columns: dict[str, list[str]],
    meta: dict,
    t: int,
) -> None:
    """Apply the merge rules in place: words ``t`` and ``t + 1`` (0-based) became ``t``.

    ``columns`` and ``meta`` are the store's merge of ``before`` (the first
    word's values) and ``meta``'s copy.
    """
    extras = Extras.of(meta)
    was = words.surface(before_tokens, before.get("misc"), extras)
    keep = t + nearer_root(before.get("head"), t)
    for name, values in before.items():
        if name != "misc":
            columns[name][t] = values[keep]
    after_first = sum(1 for n in extras.nodes if n.major == t + 1)
    ids = Ids(
        words.merge_ids(t),
        {f"{t + 2}.{n.minor}": f"{t + 1}.{n.minor + after_first}" for n in extras.nodes if n.major == t + 2},
    )
    _renumber_columns(columns, ids)
    other = 2 * t + 1 - keep
    _no_self_reference(columns, t, ids.ref(before["head"][other]) if "head" in before else "_")
    if "misc" in columns:
        columns["misc"][t] = with_space_after(before["misc"][t], before["misc"][t + 1])
    _merge_ranges(extras, t, before_tokens, before.get("misc"), columns)
    extras.renumber(ids)
    extras.ranges = [r for r in extras.ranges if r.end > r.start]
    extras.store(meta)
    if meta.get(MISC_AT_KEY):
        meta[MISC_AT_KEY] = _misc_at(str(meta[MISC_AT_KEY]), lambda i: [i] if i <= t else [] if i == t + 1 else [i - 1])
    _retext(meta, was, tokens, columns, extras)


def nearer_root(heads: Sequence[str] | None, t: int) -> int:
    """0 if word ``t`` (0-based) is no deeper in the tree than word ``t + 1``, else 1.

    A word whose chain of heads does not reach the root (no HEAD column,
    ``_``, a head out of range, a cycle) counts as deepest.
    """
    if heads is None:
        return 0
    a, b = _depth(heads, t), _depth(heads, t + 1)
    return int(b is not None and (a is None or b < a))


def _depth(heads: Sequence[str], t: int) -> int | None:
    steps, word = 0, t + 1
    while word != 0:
        head = heads[word - 1]
        if not head.isdigit() or int(head) > len(heads) or steps > len(heads):
            return None
        word, steps = int(head), steps + 1
    return steps


def _renumber_columns(columns: dict[str, list[str]], ids: Ids) -> None:
    if "head" in columns:
        columns["head"] = [ids.ref(v) for v in columns["head"]]
    if "deps" in columns:
        columns["deps"] = [ids.deps(v) for v in columns["deps"]]


def _no_self_reference(columns: dict[str, list[str]], t: int, other_head: str) -> None:
    """The merged word ``t`` points at itself only where the input was no tree: it takes the other's head."""
    me = str(t + 1)
    heads = columns.get("head")
    if heads is not None and heads[t] == me:
        heads[t] = other_head if other_head != me else "_"
    deps = columns.get("deps")
    if deps is None or deps[t] in ("", "_"):
        return
    kept = [d for d in deps[t].split("|") if d.partition(":")[0] != me]
    fallback = f"{heads[t]}:{columns['deprel'][t]}" if heads and "deprel" in columns and heads[t] != "_" else "_"
    deps[t] = "|".join(kept) or fallback


def _merge_ranges(
    extras: Extras, t: int, tokens: Sequence[str], misc: Sequence[str] | None, columns: dict[str, list[str]]
) -> None:
    """Multiword tokens after merging words ``t + 1`` and ``t + 2`` (1-based, ids not yet renumbered).

    Renumbering does the ids (a token inside shrinks, one across the edge
    reaches the merged word); this joins two tokens the merge made one and
    sets forms and ``SpaceAfter``.
    """
    first, second = extras.range_of(t + 1), extras.range_of(t + 2)
    if first is None and second is None:
        return
    merged_misc = columns.get("misc")
    if first is second:
        if first.end - first.start == 1 and merged_misc is not None:  # one word left: it is the surface
            merged_misc[t] = with_space_after(merged_misc[t], first.misc)
        return
    left = first.form if first is not None else tokens[t]
    right = second.form if second is not None else tokens[t + 1]
    right_misc = second.misc if second is not None else (misc[t + 1] if misc is not None else "_")
    keeper = first if first is not None else second
    own = [
        e
        for r in (first, second)
        if r is not None
        for e in words.entries(r.misc)
        if not e.startswith(words.SPACE_AFTER)
    ]
    keeper.fields[1] = left + right
    keeper.fields[9] = with_space_after("|".join(own) or "_", right_misc)
    if first is not None and second is not None:
        first.end = second.end
        extras.ranges.remove(second)
    elif first is not None:
        first.end = t + 2  # covers the merged word once renumbered
    if merged_misc is not None:  # a word inside a multiword token leaves spacing to the token
        merged_misc[t] = with_space_after(merged_misc[t], "_")


def split_misc(misc: str) -> str:
    """MISC of a split word's first half: the halves were written together."""
    return "|".join([*(e for e in words.entries(misc) if not e.startswith(words.SPACE_AFTER)), SPACE_AFTER_NO])


with_space_after = words.with_space_after


def _retext(meta: dict, was: str, tokens: Sequence[str], columns: dict[str, list[str]], extras: Extras) -> None:
    """``# text`` from the words now, if it read as the words did before."""
    if "text" in meta and meta["text"] == was:
        meta["text"] = words.surface(tokens, columns.get("misc"), extras)


def _misc_at(value: str, targets) -> str:
    """``token:entry`` pairs (0-based tokens) moved to the tokens ``targets(token)`` says."""
    out = []
    for pair in value.split():
        token, colon, entry = pair.partition(":")
        if not token.isdigit():
            out.append(pair)
            continue
        out += [f"{n}{colon}{entry}" for n in targets(int(token))]
    return " ".join(out)

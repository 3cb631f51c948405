"""What a token's label becomes when the token is split in two or merged with the next.

A tokenization error fixed in the app must not throw away the
annotator's work on the sentence, nor invent labels the annotator never
gave.  The rules:

Split (a token ``t`` becomes ``t₁ t₂``)
    Each label becomes the pair of labels its span needs on two tokens:
    ``B-X`` → ``B-X I-X``, ``I-X`` → ``I-X I-X``, ``E-X`` → ``I-X E-X``,
    ``S-X`` → ``B-X E-X`` (``L-``/``U-`` alike in BILOU), and ``O`` or a label
    outside a span scheme (a POS tag) stays on both halves.  A candidate
    set maps candidate by candidate.  When the scheme lacks a label the
    pair needs (``I-X`` for a ``B-X`` in a scheme without it), that half gets
    no label rather than a wrong one.
Merge (tokens ``a b`` become one)
    The label of the merged token is what the two labels say together:
    ``B-X I-X`` → ``B-X``, ``I-X I-X`` → ``I-X``, ``I-X E-X`` → ``E-X``,
    ``B-X E-X`` → ``S-X`` (``U-X`` in BILOU), the same label twice → that
    label.  For candidate sets every compatible pair contributes.  Where
    nothing is compatible (``O B-X``, two span starts, two different POS
    tags), the merged token gets the candidate set of both tokens' labels:
    it is one of them, and the annotator picks which.  A token without a
    label makes the merged token unlabeled (nothing was said about it).

Every result is normalised against the label set (a set naming every label
is no label, :func:`~tagtool.core.annotation.make_annotation`).
"""

from __future__ import annotations

from tagtool.core.annotation import EMPTY, make_annotation
from tagtool.core.labels import LabelSet

#: Span-label prefixes of the labels on which a span begins, and on which it ends.
_BEGINS, _ENDS = frozenset("BSU"), frozenset("ESLU")
_PREFIXES = frozenset("BIESLU")


def _parts(name: str) -> tuple[str, str] | None:
    """``("B", "X")`` for ``B-X``; None for ``O`` and labels outside span schemes."""
    if len(name) > 2 and name[1] == "-" and name[0] in _PREFIXES:
        return name[0], name[2:]
    return None


def split_label(name: str, labels: LabelSet) -> tuple[str | None, str | None]:
    """The labels of the two halves of a token labeled ``name`` (None: the scheme lacks it)."""
    parts = _parts(name) if labels.is_span_scheme else None
    if parts is None:
        return name, name
    prefix, kind = parts
    first, second = {
        "B": ("B", "I"),
        "I": ("I", "I"),
        "E": ("I", "E"),
        "L": ("I", "L"),
        "S": ("B", "E"),
        "U": ("B", "L"),
    }[prefix]

    def have(p: str) -> str | None:
        return f"{p}-{kind}" if f"{p}-{kind}" in labels else None

    return have(first), have(second)


def split_annotation(ann: frozenset, labels: LabelSet) -> tuple[frozenset, frozenset]:
    """The annotations of the two halves of a token annotated ``ann`` (see the module docstring)."""
    if not ann:
        return EMPTY, EMPTY
    pairs = [split_label(name, labels) for name in ann]
    halves = []
    for side in (0, 1):
        names = [pair[side] for pair in pairs]
        halves.append(EMPTY if None in names else make_annotation(names, labels))
    return halves[0], halves[1]


def merge_label(first: str, second: str, labels: LabelSet) -> str | None:
    """The label of one token made of a token labeled ``first`` and the next labeled ``second``.

    None when the two do not describe one token (``O`` then ``B-X``).
    """
    if first == second and (_parts(first) is None or not labels.is_span_scheme):
        return first
    a, b = _parts(first), _parts(second)
    if not labels.is_span_scheme or a is None or b is None or a[1] != b[1]:
        return None
    (pa, kind), pb = a, b[0]
    # a span that ends at ``first`` or begins at ``second`` is not one token's
    if pa in _ENDS or pb in _BEGINS:
        return None
    begins, ends = pa in _BEGINS, pb in _ENDS
    if begins and ends:
        options = ("U", "S") if pb == "L" else ("S", "U")
        options += ("B",)  # BIO: a one-token span is a B
    elif begins:
        options = ("B",)
    elif ends:
        options = (pb, "I")  # BIO has no E: the span's last token is an I
    else:
        options = ("I",)
    return next((f"{p}-{kind}" for p in options if f"{p}-{kind}" in labels), None)


def merge_annotations(first: frozenset, second: frozenset, labels: LabelSet) -> frozenset:
    """The annotation of a token merged from two annotated ``first`` and ``second``."""
    if not first or not second:
        return EMPTY
    merged = {merge_label(a, b, labels) for a in first for b in second} - {None}
    return make_annotation(merged or first | second, labels)

"""Default label colours and shortcuts, and checks of user-given ones.

Colours are light qualitative tones (ColorBrewer Set3, then Pastel1) so that
dark token text stays readable on them; ``O`` (outside any span) is a neutral
grey.  In a span scheme ``B-X`` and ``I-X`` share the colour of their type
``X``, so a chunk reads as one coloured run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError

#: Background colours in the order they are handed out.
PALETTE: tuple[str, ...] = (
    # ColorBrewer Set3 without its grey
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
    "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f",
    # ColorBrewer Pastel1, minus tones Set3 already has
    "#fbb4ae", "#b3cde3", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec",
)  # fmt: skip

#: Colour of the ``O`` label of a span scheme.
OUTSIDE_COLOR = "#e0e0e0"

#: Digit shortcuts handed out by :func:`default_shortcuts`.
DEFAULT_SHORTCUTS: tuple[str, ...] = tuple(str(i) for i in range(1, 10))

_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def check_color(color: str) -> str:
    """``color`` in lower case if it is ``#rrggbb``, else :class:`LabelError`."""
    if not isinstance(color, str) or not _HEX.fullmatch(color):
        raise LabelError(f"colour must be written #rrggbb, got {color!r}")
    return color.lower()


def check_shortcut(shortcut: str | None) -> str | None:
    """``shortcut`` if it is None or a non-empty key name without outer spaces."""
    if shortcut is None:
        return None
    if not isinstance(shortcut, str) or not shortcut or shortcut != shortcut.strip():
        raise LabelError(f"a shortcut must be a non-empty key name, got {shortcut!r}")
    return shortcut


def _span_type(name: str) -> str | None:
    if len(name) > 2 and name[1] == "-" and name[0] in "BIESLU":
        return name[2:]
    return None


def default_colors(labels: Sequence[str]) -> list[str]:
    """One colour per label, in order (see the module docstring for the rule)."""
    span_scheme = LabelSet(labels).is_span_scheme
    colors: list[str] = []
    by_type: dict[str, str] = {}
    for name in labels:
        if span_scheme and name == "O":
            colors.append(OUTSIDE_COLOR)
            continue
        kind = _span_type(name) if span_scheme else None
        if kind is not None and kind in by_type:
            colors.append(by_type[kind])
            continue
        color = next_color(colors)
        if kind is not None:
            by_type[kind] = color
        colors.append(color)
    return colors


def next_color(used: Iterable[str]) -> str:
    """The first palette colour not in ``used``; the palette cycles when all are."""
    used = list(used)
    for color in PALETTE:
        if color not in used:
            return color
    return PALETTE[len(used) % len(PALETTE)]


def color_for_new_label(name: str, existing: Mapping[str, str]) -> str:
    """Colour for a label added to a project whose labels have ``existing`` colours."""
    kind = _span_type(name)
    if kind is not None:
        for other, color in existing.items():
            if _span_type(other) == kind:
                return color
    if name == "O":
        return OUTSIDE_COLOR
    return next_color(existing.values())


def _span_starters(names: Sequence[str]) -> set[str]:
    """``O`` and the label that starts a span of each type (``B-X``, else the type's first label)."""
    starters, first_of_type = {"O"} & set(names), {}
    for name in names:
        kind = _span_type(name)
        if kind is not None:
            first_of_type.setdefault(kind, name)
    for kind, first in first_of_type.items():
        starters.add(f"B-{kind}" if f"B-{kind}" in names else first)
    return starters


def default_shortcuts(labels: Sequence[str] | LabelSet,
                      counts: Mapping[str, int] | None = None) -> list[str | None]:
    """Digit shortcuts ``"1"`` … ``"9"`` for the nine labels most worth a key.

    In a span scheme ``O`` and the ``B-X`` labels come first: labeling a
    selection with ``B-X`` already makes the span ``B-X, I-X, …``, so a
    digit for ``I-X`` is rarely needed (chunking has more than nine labels,
    and ``B-NP``, ``B-VP``, ``B-PP`` must not be left without a key).  Within
    that group, and for every label of other schemes, the most frequent
    labels in ``counts`` (full annotations of the corpus) come first; ties
    and a corpus without annotations keep label order.  Digits left over go
    to the remaining labels by the same rule.

    Parameters
    ----------
    labels : sequence of str or LabelSet
    counts : mapping of str to int, optional
        How many tokens carry each label as their full label.

    Returns
    -------
    list of str or None
        One entry per label, in label order; the digit is the label's rank
        (``"1"`` for the first chosen label).
    """
    names = list(labels.names if isinstance(labels, LabelSet) else labels)
    counts = counts or {}
    first = _span_starters(names) if names and LabelSet(names).is_span_scheme else set(names)
    ranked = sorted(range(len(names)), key=lambda i: (names[i] not in first, -counts.get(names[i], 0), i))
    shortcuts: list[str | None] = [None] * len(names)
    for digit, i in zip(DEFAULT_SHORTCUTS, ranked):
        shortcuts[i] = digit
    return shortcuts

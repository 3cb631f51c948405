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

#: Shortcuts given to the first nine labels.
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


def default_shortcuts(n_labels: int) -> list[str | None]:
    """``"1"`` … ``"9"`` for the first nine labels, None for the rest."""
    return [DEFAULT_SHORTCUTS[i] if i < len(DEFAULT_SHORTCUTS) else None for i in range(n_labels)]

"""Default label colours and keys, and checks of user-given ones.

Both are a function of the label set alone, never of the corpus or of the
order labels were first seen in, so every project with the same labels
gets the same digits and colours.  :func:`key_groups` puts the labels in one fixed order:
``O`` first, then the types of a span scheme in alphabetical order, each
with its ``B-``/``I-``/… labels; outside span schemes the labels in
alphabetical order.

Keys (shown in the legend, the label picker and Help › Keyboard shortcuts):

* the nine first groups get the digits ``1``–``9``: ``1`` is ``O``, ``2`` the
  first type, …;
* in a span scheme the digit gives the type's ``B-X`` (a selection of
  several tokens becomes the span ``B-X I-X …``, :mod:`tagtool.gui.edits`)
  and **Shift** + the digit its ``I-X``, so every label of a BIO scheme with
  up to eight types has a key;
* types after the ninth group take a letter of their name the editor does
  not use for a command (:data:`COMMAND_KEYS`), e.g. ``v`` for chunking's
  ``VP``, again with Shift for ``I-``;
* what is left (E-/S- labels of BIOES, the 10th tag on of a POS tag set)
  comes from the searchable label picker (``/``).

Colours are light qualitative tones (ColorBrewer Set3, then Pastel1) so that
dark token text stays readable on them, handed out in the same group order;
``O`` (outside any span) is a neutral grey.  In a span scheme ``B-X`` and
``I-X`` share the colour of their type ``X``, so a chunk reads as one
coloured run.
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

#: Digit shortcuts handed out by :func:`default_shortcuts`, in order.
DEFAULT_SHORTCUTS: tuple[str, ...] = tuple(str(i) for i in range(1, 10))

#: The editor's command keys (:data:`tagtool.gui.editor.RESERVED_KEYS`, a
#: test checks they agree): no label gets them by default.
COMMAND_KEYS = frozenset("0npj/")

#: Prefix of a key pressed with Shift: ``"Shift+2"`` is the I- label of the type on ``2``.
SHIFT = "Shift+"

#: Order of a type's labels in its group: the first gets the plain key, ``I-`` the shifted one.
_PREFIX_ORDER = "BIESLU"

_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def check_color(color: str) -> str:
    """``color`` in lower case if it is ``#rrggbb``, else :class:`LabelError`."""
    if not isinstance(color, str) or not _HEX.fullmatch(color):
        raise LabelError(f"colour must be written #rrggbb, got {color!r}")
    return color.lower()


def check_shortcut(shortcut: str | None) -> str | None:
    """``shortcut`` in its stored form if it is None or a non-empty key name without outer spaces.

    Keys are stored as the editor reads them: a letter in lower case (the
    editor does not tell ``V`` from ``v``), ``Shift+`` spelled so.
    """
    if shortcut is None:
        return None
    if not isinstance(shortcut, str) or not shortcut or shortcut != shortcut.strip():
        raise LabelError(f"a shortcut must be a non-empty key name, got {shortcut!r}")
    shifted = shortcut[: len(SHIFT)].lower() == SHIFT.lower() and len(shortcut) > len(SHIFT)
    base = shortcut[len(SHIFT) :] if shifted else shortcut
    base = base.lower() if len(base) == 1 else base
    return SHIFT + base if shifted else base


def base_key(shortcut: str) -> str:
    """The key of a shortcut without Shift (``"Shift+2"`` → ``"2"``)."""
    return shortcut[len(SHIFT) :] if shortcut.startswith(SHIFT) else shortcut


def _span_type(name: str) -> str | None:
    if len(name) > 2 and name[1] == "-" and name[0] in "BIESLU":
        return name[2:]
    return None


def _name_order(name: str) -> tuple[str, str]:
    return name.casefold(), name


def key_groups(labels: Sequence[str]) -> list[list[str]]:
    """The labels in key and colour order, grouped by what shares a key and a colour.

    ``O`` first; in a span scheme one group per type (alphabetical), its
    labels in the order B, I, E, S, L, U; otherwise one label per group,
    alphabetical.  Only the set of names matters, not their order.
    """
    names = list(labels)
    if not names:
        return []
    outside = [["O"]] if "O" in names else []
    if not LabelSet(names).is_span_scheme:
        return outside + [[n] for n in sorted((n for n in names if n != "O"), key=_name_order)]
    by_type: dict[str, list[str]] = {}
    for name in names:
        if name != "O":
            by_type.setdefault(name[2:], []).append(name)
    return outside + [
        sorted(by_type[kind], key=lambda n: _PREFIX_ORDER.index(n[0])) for kind in sorted(by_type, key=_name_order)
    ]


def default_colors(labels: Sequence[str]) -> list[str]:
    """One colour per label, in the order of ``labels`` (see the module docstring for the rule)."""
    names = list(labels)
    span_scheme = bool(names) and LabelSet(names).is_span_scheme
    color: dict[str, str] = {}
    index = 0
    for group in key_groups(names):
        if span_scheme and group == ["O"]:
            color["O"] = OUTSIDE_COLOR
            continue
        for name in group:
            color[name] = PALETTE[index % len(PALETTE)]
        index += 1
    return [color[n] for n in names]


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


def _group_letter(group: list[str], taken: set[str], reserved: frozenset[str]) -> str | None:
    """A letter of the group's type (its name's letters in order) that is neither taken nor reserved."""
    kind = _span_type(group[0])
    for char in (kind or "").lower():
        if "a" <= char <= "z" and char not in taken and char not in reserved:
            return char
    return None


def default_shortcuts(labels: Sequence[str] | LabelSet, reserved: frozenset[str] = COMMAND_KEYS) -> list[str | None]:
    """The default key of every label (see the module docstring), None for labels left to the picker.

    Parameters
    ----------
    labels : sequence of str or LabelSet
    reserved : frozenset of str
        Keys the editor keeps for commands.

    Returns
    -------
    list of str or None
        One entry per label, in the order of ``labels``: ``"1"`` … ``"9"``, a
        letter, or that key with ``"Shift+"`` for a type's ``I-`` label.
    """
    names = list(labels.names if isinstance(labels, LabelSet) else labels)
    keys: dict[str, str] = {}
    taken: set[str] = set()
    for number, group in enumerate(key_groups(names)):
        if number < len(DEFAULT_SHORTCUTS):
            key = DEFAULT_SHORTCUTS[number]
        else:
            key = _group_letter(group, taken, reserved)
        if key is None:
            continue
        taken.add(key)
        keys[group[0]] = key
        inside = next((n for n in group[1:] if n.startswith("I-")), None)
        if inside is not None:
            keys[inside] = SHIFT + key
    return [keys.get(n) for n in names]


def shortcut_for_new_label(name: str, existing: Mapping[str, str | None]) -> str | None:
    """Key for a label added to a project whose labels have the keys ``existing``.

    A span label takes its type's key (``I-X`` with Shift) when another
    label of the type has one and the key is free; otherwise the lowest free
    digit, if any.
    """
    taken = {key for key in existing.values() if key is not None}
    kind = _span_type(name)
    if kind is not None:
        for other, key in existing.items():
            if key is not None and _span_type(other) == kind:
                wanted = SHIFT + base_key(key) if name.startswith("I-") else base_key(key)
                if wanted not in taken:
                    return wanted
    return next((k for k in DEFAULT_SHORTCUTS if k not in taken), None)

"""Which label key a key press is (the key scheme: :mod:`tagtool.store.colors`).

A label key is a digit or a letter, alone or with Shift (``"2"``, ``"Shift+2"``
for the I- label of the type on 2).  Qt reports Shift + a digit as the
symbol the layout puts there (``!`` for Shift+1 on a US layout, ``/`` for
Shift+7 on a German one), so the digit is read from the physical key: the
digit row's scan codes (Linux: evdev codes, X11 and Wayland alike) or
virtual keys (Windows, macOS), which do not depend on the layout.
"""

from __future__ import annotations

import string
import sys

from PySide6.QtCore import QKeyCombination, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence

from tagtool.gui.keys import KEYS
from tagtool.store.colors import SHIFT

_DIGIT_KEYS = {getattr(Qt, f"Key_{i}"): str(i) for i in range(10)}
_LETTER_KEYS = {getattr(Qt, f"Key_{c}"): c.lower() for c in string.ascii_uppercase}
#: The digit row 1 … 9, 0 by physical key.
_LINUX_SCAN_CODES = {10 + i: str((i + 1) % 10) for i in range(10)}
_WINDOWS_VIRTUAL_KEYS = {0x30 + i: str(i) for i in range(10)}
_MAC_VIRTUAL_KEYS = {
    0x12: "1",
    0x13: "2",
    0x14: "3",
    0x15: "4",
    0x17: "5",
    0x16: "6",
    0x1A: "7",
    0x1C: "8",
    0x19: "9",
    0x1D: "0",
}


def _physical_digit(event: QKeyEvent) -> str | None:
    if sys.platform.startswith("linux"):
        return _LINUX_SCAN_CODES.get(event.nativeScanCode())
    if sys.platform == "win32":
        return _WINDOWS_VIRTUAL_KEYS.get(event.nativeVirtualKey())
    if sys.platform == "darwin":
        return _MAC_VIRTUAL_KEYS.get(event.nativeVirtualKey())
    return None


def key_names(event: QKeyEvent, toggle: bool) -> list[str]:
    """The shortcut names a key press may mean, the scheme's first.

    ``toggle`` (Ctrl or Alt held: a candidate toggle) reads digits only:
    Ctrl/Alt + a letter belong to the menus.  The typed text comes last,
    for a key a user gave a label by hand (Edit › Labels…).
    """
    shift = bool(event.modifiers() & Qt.ShiftModifier)
    base = _DIGIT_KEYS.get(event.key()) or (_physical_digit(event) if shift else None)
    if base is None and not toggle:
        base = _LETTER_KEYS.get(event.key())
    names = [] if base is None else [SHIFT + base if shift else base]
    text = event.text()
    if not toggle and text and text.isprintable() and not text.isspace():
        names.append(text.lower())
    return names


def portable(text: str) -> str:
    """A key in Qt's portable text as Qt writes it back (``"Delete"`` is ``"Del"``)."""
    return QKeySequence(text).toString(QKeySequence.PortableText)


def chord(event: QKeyEvent) -> str:
    """A key press in Qt's portable text (``"Shift+Left"``); the keypad counts as the main keys."""
    modifiers = event.modifiers() & ~Qt.KeypadModifier
    combination = QKeyCombination(Qt.KeyboardModifier(modifiers.value), Qt.Key(event.key()))
    return QKeySequence(combination).toString(QKeySequence.PortableText)


def commands(where: str) -> dict[str, str]:
    """``{key: command}`` of the key table's rows bound by ``where`` (:mod:`tagtool.gui.keys`)."""
    return {portable(k): row.command for row in KEYS if where in row.by for k in row.keys}

"""The one key table (tagtool.gui.keys): the editor and the menus bind exactly its keys, Help lists every row."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence

from tagtool.gui.help import shortcuts_html
from tagtool.gui.keys import EDITOR, KEYS, MENU
from tagtool.gui.label_keys import chord, portable

#: The keys pressed: every letter and digit, the function keys and the keys that move, edit or confirm.
KEYS_PRESSED = (
    [getattr(Qt, f"Key_{c}") for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"]
    + [getattr(Qt, f"Key_F{i}") for i in range(1, 13)]
    + [
        Qt.Key_Left,
        Qt.Key_Right,
        Qt.Key_Up,
        Qt.Key_Down,
        Qt.Key_Home,
        Qt.Key_End,
        Qt.Key_PageUp,
        Qt.Key_PageDown,
        Qt.Key_Return,
        Qt.Key_Enter,
        Qt.Key_Space,
        Qt.Key_Tab,
        Qt.Key_Backtab,
        Qt.Key_Backspace,
        Qt.Key_Delete,
        Qt.Key_Escape,
        Qt.Key_Slash,
        Qt.Key_Insert,
        Qt.Key_Period,
        Qt.Key_Comma,
        Qt.Key_Minus,
    ]
)
MODIFIERS = (
    Qt.NoModifier,
    Qt.ShiftModifier,
    Qt.ControlModifier,
    Qt.AltModifier,
    Qt.ControlModifier | Qt.ShiftModifier,
    Qt.AltModifier | Qt.ShiftModifier,
)


def _label_chords(style) -> set[str]:
    """The keys the project's label keys take: the key, Shift + it, and Ctrl/Alt + a digit (a candidate toggle)."""
    chords = set()
    for info in style.infos:
        if not info.shortcut:
            continue
        shifted = info.shortcut.startswith("Shift+")
        base = info.shortcut.removeprefix("Shift+").upper()
        prefix = "Shift+" if shifted else ""
        chords.add(prefix + base)
        if base.isdigit():
            chords |= {f"Ctrl+{prefix}{base}", f"Alt+{prefix}{base}"}
    return {portable(c) for c in chords}


def _handled(editor, key, modifiers) -> bool:
    event = QKeyEvent(QEvent.KeyPress, key, modifiers, "")
    editor.event(event)
    if editor.picker is not None:
        editor.picker.hide()
    return event.isAccepted()


def test_the_editor_handles_exactly_the_keys_of_the_table(window):
    editor = window.editor
    table = {portable(k) for row in KEYS if EDITOR in row.by for k in row.keys}
    expected = table | _label_chords(window.session.style)
    handled = set()
    for key in KEYS_PRESSED:
        for modifiers in MODIFIERS:
            if _handled(editor, key, modifiers):
                handled.add(chord(QKeyEvent(QEvent.KeyPress, key, modifiers, "")))
    assert handled == expected, (sorted(handled - expected), sorted(expected - handled))


def test_the_menus_bind_exactly_the_keys_of_the_table(window):
    bound = [portable(s.toString()) for action in window.findChildren(QAction) for s in action.shortcuts()]
    table = {portable(k) for row in KEYS if MENU in row.by for k in row.keys}
    # A standard key (Undo, Find, ...) also takes the platform's own bindings (Ctrl+Y, Alt+Backspace, ...).
    table |= {
        portable(s.toString())
        for row in KEYS
        if row.standard
        for s in QKeySequence.keyBindings(getattr(QKeySequence, row.standard))
    }
    assert set(bound) == table, (sorted(set(bound) - table), sorted(table - set(bound)))
    assert len(bound) == len(set(bound)), "a key bound to two actions does nothing"


def test_help_lists_every_row_of_the_table(window):
    text = shortcuts_html(window.session.style)
    for row in KEYS:
        assert html.escape(row.label) in text and html.escape(row.what) in text, row.name

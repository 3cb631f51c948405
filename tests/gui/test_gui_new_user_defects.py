"""Defects seen when the app was tried as a new user would (issue 13), each with its test."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from tagtool.gui import main_window
from tests.gui.helpers import go_unlabeled, stored


def _portable(sequences) -> list[str]:
    return [s.toString(QKeySequence.PortableText) for s in sequences]


def test_redo_key_redoes_where_the_platform_binds_redo_to_ctrl_shift_z(monkeypatch, open_window, chunk_project,
                                                                      qtbot):
    """Linux binds QKeySequence.Redo to Ctrl+Shift+Z: the extra Ctrl+Shift+Z made the key ambiguous (nothing
    happened). The offscreen platform binds Ctrl+Y first, so X11's list is put in place here."""
    offscreen = _portable(QKeySequence.keyBindings(QKeySequence.Redo))
    x11 = [QKeySequence("Ctrl+Shift+Z")]
    real = QKeySequence.keyBindings
    monkeypatch.setattr(QKeySequence, "keyBindings",
                        lambda key: list(x11) if key == QKeySequence.Redo else real(key))
    window = open_window(chunk_project)
    keys = _portable(window.redo_action.shortcuts())
    assert keys == ["Ctrl+Shift+Z"], "each key once"
    monkeypatch.undo()
    assert _portable(main_window.key_sequences(QKeySequence.Redo, "Ctrl+Shift+Z")) == list(
        dict.fromkeys([*offscreen, "Ctrl+Shift+Z"])), "every platform binding kept, and Ctrl+Shift+Z"

    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # window shortcuts need the active window
    editor = go_unlabeled(window)
    sid = window.session.current_id
    before = stored(chunk_project, sid)
    editor.apply_full("B-NP")
    after = stored(chunk_project, sid)
    QTest.keyClick(editor, Qt.Key_Z, Qt.ControlModifier)
    assert stored(chunk_project, sid) == before
    QTest.keyClick(editor, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert stored(chunk_project, sid) == after, "the Redo key redoes"

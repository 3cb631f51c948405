"""Helpers shared by the GUI tests."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.store.project import Project

#: Sentences of the test project that keep their gold chunk labels.
LABELED = 3


def stored(path: Path, sentence_id: int) -> tuple:
    """Annotations of a sentence as the project file holds them (a fresh connection)."""
    with Project.open(path, readonly=True) as project:
        return project.annotations(sentence_id)


def key_of(window, label: str):
    """The Qt key of a label's key (a digit or a letter, without Shift)."""
    key, modifier = label_keys(window, label)
    assert modifier == Qt.NoModifier, f"{label}'s key is {window.session.style.shortcut(label)}: use label_keys"
    return key


def label_keys(window, label: str) -> tuple:
    """``(Qt key, modifier)`` that gives ``label``: ``qtbot.keyClick(editor, *label_keys(window, "I-NP"))``."""
    shortcut = window.session.style.shortcut(label)
    assert shortcut is not None, f"{label} has no key"
    shifted = shortcut.startswith("Shift+")
    base = shortcut.removeprefix("Shift+")
    assert len(base) == 1 and base.isalnum(), f"{label}'s key {shortcut} is not a digit or a letter"
    return getattr(Qt, f"Key_{base.upper()}"), Qt.ShiftModifier if shifted else Qt.NoModifier


def go_unlabeled(window):
    """Jump (J) from the first sentence to the first one not fully labeled."""
    editor = window.editor
    editor.setFocus()
    window.session.go_to(window.session.project.sentence_ids()[0])
    QTest.keyClick(editor, Qt.Key_J)
    assert window.session.index_of(window.session.current_id) == LABELED
    return editor


DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def statistics_shown(window):
    """The statistics panel, its dock shown and raised, with automatic retraining off."""
    window.model_loop.auto = False
    window.stats_dock.show()
    window.stats_dock.raise_()
    return window.stats_panel

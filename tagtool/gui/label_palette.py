"""The label palette: a button per label above the editor, for the mouse.

A click labels the editor's selection as the label's key does (a span in
span schemes: ``B-X`` on its first token, ``I-X`` on the others); each
button shows its key (:mod:`tagtool.store.colors`' key scheme), so the
palette also teaches the keys.

In span schemes a type has one button (``NP  2``): a click gives the span
its ``B-`` label (as the digit does), Shift+click the ``I-`` label (as
Shift + the digit: a token that continues a span).  Ctrl+click (or
Alt+click) adds the label to the selection's candidate sets, or removes it,
as Ctrl + the key does (partial labels).  **Clear** (0) removes the
selection's labels.  Labels of other schemes have a button each.

The buttons take no keyboard focus: the editor keeps it, so the keys go on
working after a click.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QLabel, QToolButton, QWidget

from tagtool.gui.edits import span_type
from tagtool.gui.flow_layout import FlowLayout

#: The clear button's key (the editor's own: :data:`tagtool.gui.editor.RESERVED_KEYS`).
CLEAR_KEY = "0"
_TOGGLE = Qt.ControlModifier | Qt.AltModifier


@dataclass(frozen=True)
class PaletteEntry:
    """One button: its text and key, the label a click gives and the one a Shift+click gives."""

    text: str
    label: str
    inside: str | None
    key: str | None


def palette_entries(
    names: Sequence[str], shortcut: Callable[[str], str | None], span_scheme: bool
) -> list[PaletteEntry]:
    """The palette's buttons in label-set order: a span type once (its ``B-``), other labels each."""
    entries, types = [], set()
    for name in names:
        kind = span_type(name) if span_scheme else None
        if kind is None:
            entries.append(PaletteEntry(name, name, None, shortcut(name)))
        elif kind not in types:
            types.add(kind)
            main = f"B-{kind}" if f"B-{kind}" in names else name
            inside = f"I-{kind}" if f"I-{kind}" in names and f"I-{kind}" != main else None
            entries.append(PaletteEntry(kind, main, inside, shortcut(main)))
    return entries


class PaletteButton(QToolButton):
    """A label button that remembers the modifiers of the click that pressed it."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.modifiers = Qt.NoModifier
        self.setFocusPolicy(Qt.NoFocus)
        self.setCursor(Qt.PointingHandCursor)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self.modifiers = event.modifiers()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        self.modifiers |= event.modifiers()
        super().mouseReleaseEvent(event)


class LabelPalette(QWidget):
    """The label buttons of ``editor``'s (a :class:`~tagtool.gui.editor.TokenEditor`) project, wrapping to the width."""

    def __init__(self, editor, parent: QWidget | None = None):
        super().__init__(parent)
        self.editor = editor
        self.buttons: dict[str, PaletteButton] = {}  # by the entry's label (and "" for Clear)
        self.flow = FlowLayout(self, spacing=4)
        editor.session.labelsChanged.connect(self.rebuild)
        self.rebuild()

    def rebuild(self) -> None:
        """Buttons for the project's labels as they are now (after Edit › Labels…)."""
        while self.flow.count():
            item = self.flow.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.buttons = {}
        caption = QLabel("Label the selection:", self)
        caption.setToolTip("Drag over the tokens (or click, then Shift+click) to select a span")
        self.flow.addWidget(caption)
        session = self.editor.session
        style, labels = session.style, session.project.labels
        for entry in palette_entries(style.names, style.shortcut, labels.is_span_scheme):
            self._add(entry, style)
        clear = self._button(f"Clear  {CLEAR_KEY}", "Remove the selection's labels (key 0, Delete)")
        clear.clicked.connect(self._clear)
        self.buttons[""] = clear
        caption.setFixedHeight(clear.sizeHint().height())  # on the buttons' middle line
        caption.setAlignment(Qt.AlignVCenter)
        self.updateGeometry()

    def _add(self, entry: PaletteEntry, style) -> None:
        key = f"  {entry.key}" if entry.key else ""
        tip = [
            f"Click: {entry.label} on the selection"
            + (" (several tokens: the whole span)" if entry.inside else "")
            + (f" — key {entry.key}" if entry.key else "")
        ]
        if entry.inside:
            tip.append(f"Shift+click: {entry.inside}, a token inside a span")
        tip.append("Ctrl+click: add it to the candidate set, or remove it (a partial label)")
        button = self._button(entry.text + key, "\n".join(tip))
        color, text = style.color(entry.label), style.text_color(entry.label)
        button.setStyleSheet(
            f"QToolButton {{ background: {color.name()}; color: {text.name()}; border: 1px solid "
            f"{color.darker(140).name()}; border-radius: 4px; padding: 2px 8px; }}"
            f"QToolButton:pressed {{ background: {color.darker(120).name()}; }}"
        )
        button.clicked.connect(lambda _=False, b=button, e=entry: self._clicked(e, b.modifiers))
        self.buttons[entry.label] = button

    def _button(self, text: str, tip: str) -> PaletteButton:
        button = PaletteButton(self)
        button.setText(text)
        button.setToolTip(tip)
        self.flow.addWidget(button)
        return button

    def _clicked(self, entry: PaletteEntry, modifiers) -> None:
        label = entry.inside if entry.inside and modifiers & Qt.ShiftModifier else entry.label
        if modifiers & _TOGGLE:
            self.editor.toggle_candidate(label)
        else:
            self.editor.apply_full(label)
        self.editor.setFocus()

    def _clear(self) -> None:
        self.editor.clear_selection()
        self.editor.setFocus()

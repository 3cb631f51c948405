"""Edit › Preferences: the annotator's name, set once and recorded with every edit; what Enter does after.

Every label, review flag, split or merge, resolution and action the app
writes carries the name (``annotations.annotator``, ``annotation_log``,
``sentence_review``, ``adjudicated``, ``actions``); it is kept in the
per-user settings (:attr:`tagtool.gui.settings.GuiSettings.annotator`), so
each annotator of a team sets it once on their machine.  Until then it is
``user``.

*Next sentence after Enter* (on by default): once Enter has accepted the
suggestions and the sentence is fully labeled, the editor opens the
queue's next unfinished sentence, as J would (the list follows).
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QWidget

from tagtool.gui.settings import GuiSettings


class PreferencesDialog(QDialog):
    """The annotator's name and Enter's move; OK stores them (an empty name cannot be accepted)."""

    def __init__(self, settings: GuiSettings, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        self.settings = settings
        self.name = QLineEdit(settings.annotator, self)
        self.name.setPlaceholderText("your name, e.g. maria")
        self.name.setToolTip(
            "Recorded with every label, flag and resolution you make: agreement and merges tell annotators apart by it."
        )
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, parent=self)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name.textChanged.connect(self._update)
        form = QFormLayout(self)
        form.addRow("Annotator name", self.name)
        form.addRow(QLabel("Every edit you make is recorded with this name.", self))
        self.advance = QCheckBox("Next sentence after Enter", self)
        self.advance.setChecked(settings.advance_after_accept)
        self.advance.setToolTip(
            "Once Enter has accepted the suggestions and the sentence is fully labeled, "
            "open the queue's next unfinished sentence (as J)"
        )
        form.addRow(self.advance)
        form.addRow(self.buttons)

    def _update(self, text: str) -> None:
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(bool(text.strip()))

    def accept(self) -> None:
        if not self.name.text().strip():
            return
        self.settings.annotator = self.name.text()
        self.settings.advance_after_accept = self.advance.isChecked()
        super().accept()


def edit_preferences(window) -> None:
    """Show the dialog; a new name applies to the open project's next edits at once."""
    if PreferencesDialog(window.settings, window).exec() and window.session is not None:
        window.session.annotator = window.settings.annotator
        window.editor.advance_after_accept = window.settings.advance_after_accept
        window.statusBar().showMessage(f"Edits are recorded as {window.session.annotator}.", 5000)

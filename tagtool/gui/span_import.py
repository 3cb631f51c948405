"""Reader options of span records in the app's imports, and what they skipped.

doccano and Label Studio files hold raw text: the user picks the tokenizer
and whether long texts are split into sentences, and, for a Label Studio
export with several annotators, one annotator or all of them (their
candidate sets where they differ). Spans that could not be placed are
listed in an information box after the import.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QMessageBox,
    QWidget,
)

from tagtool.core.corpus import skipped_spans
from tagtool.core.tokenize import TOKENIZERS
from tagtool.errors import TagtoolError
from tagtool.store.formats.labelstudio import annotators_in

logger = logging.getLogger(__name__)

#: Extensions whose files may hold span records.
SPAN_SUFFIXES = (".json", ".jsonl", ".ndjson")
TOKENIZER_TEXT = {
    "default": "Words and punctuation (U.S., 3.5 and don't kept sensible)",
    "whitespace": "Whitespace only",
}
#: Most skipped spans listed in the box itself; all of them go to its details.
SHOWN = 12


def may_hold_spans(path: Path) -> bool:
    return path.suffix.lower() in SPAN_SUFFIXES


class SpanOptionsForm:
    """Tokenizer, sentence splitting and annotator rows added to a form."""

    ALL = "all"

    def __init__(self, parent: QWidget, form: QFormLayout):
        self.tokenizer = QComboBox(parent)
        for name in TOKENIZERS:
            self.tokenizer.addItem(TOKENIZER_TEXT.get(name, name), name)
        self.split = QCheckBox("Split long texts into sentences", parent)
        self.split.setChecked(True)
        self.annotator = QComboBox(parent)
        self._form = form
        form.addRow("Tokenizer", self.tokenizer)
        form.addRow("", self.split)
        form.addRow("Annotators", self.annotator)
        self.set_file(None)

    def _show(self, widget: QWidget, visible: bool) -> None:
        widget.setVisible(visible)
        label = self._form.labelForField(widget)
        if label is not None:
            label.setVisible(visible)

    def set_file(self, path: Path | None) -> None:
        """Show the rows that concern ``path``; list its annotators if it has several."""
        spans = path is not None and may_hold_spans(path) and path.is_file()
        names: list[str] = []
        if spans:
            try:
                names = annotators_in(path)
            except (TagtoolError, OSError) as exc:  # the import itself reports it
                logger.info("no annotators listed for %s: %s", path, exc)
        self.annotator.clear()
        if len(names) > 1:
            self.annotator.addItem(f"All {len(names)} (candidate sets where they differ)", self.ALL)
            for name in names:
                self.annotator.addItem(f"Only {name}", name)
        for widget in (self.tokenizer, self.split):
            self._show(widget, spans)
        self._show(self.annotator, len(names) > 1)

    def options(self) -> dict:
        """Keyword options for ``read_corpus``."""
        return {
            "tokenizer": self.tokenizer.currentData(),
            "sentence_split": self.split.isChecked(),
            "annotator": self.annotator.currentData() if self.annotator.count() else None,
        }


class SpanOptionsDialog(QDialog):
    """The options alone, for importing annotations from a span file."""

    def __init__(self, path: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Read {path.name}")
        form = QFormLayout(self)
        self.form = SpanOptionsForm(self, form)
        self.form.set_file(path)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


def warnings_box(parent: QWidget | None, title: str, warnings: list[str]) -> QMessageBox | None:
    """An information box listing what the reader skipped; None if nothing was.

    ``warnings`` are ``Corpus.warnings``: the skipped spans among them are
    counted by their kind (:class:`~tagtool.core.corpus.ReadWarning`).
    """
    if not warnings:
        return None
    skipped = skipped_spans(warnings)
    head = (f"{skipped} span(s) could not be placed and were skipped." if skipped
            else "The file was read with these notes.")
    shown = "\n".join(warnings[:SHOWN]) + (f"\n… and {len(warnings) - SHOWN} more" if len(warnings) > SHOWN else "")
    box = QMessageBox(QMessageBox.Information, title, f"{head}\n\n{shown}", parent=parent)
    box.setDetailedText("\n".join(warnings))
    return box

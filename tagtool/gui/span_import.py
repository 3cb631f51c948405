"""Reader options of raw text and span records in the app's imports, and what they skipped.

Plain text files, doccano and Label Studio files hold raw text: the user
picks the tokenizer and whether texts are split into sentences; for plain
text also what a document is (a line or a paragraph; "whitespace only"
without sentence splitting reads text that is already tokenised, one
sentence a line); for a Label Studio export with several annotators, one
annotator or all of them (their candidate sets where they differ). Spans
that could not be placed are listed in an information box after the
import.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
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
from tagtool.store.formats.detect import detect_format
from tagtool.store.formats.labelstudio import annotators_in
from tagtool.store.formats.text import DOCUMENT_UNITS

logger = logging.getLogger(__name__)

#: Extensions whose files may hold span records.
SPAN_SUFFIXES = (".json", ".jsonl", ".ndjson")
TOKENIZER_TEXT = {
    "default": "Words and punctuation (U.S., 3.5, don't, URLs, e-mail addresses kept sensible)",
    "whitespace": "Whitespace only (text already tokenised)",
}
#: What a document of a plain text file is (:data:`tagtool.store.formats.text.DOCUMENT_UNITS`).
DOCUMENT_TEXT = {
    "auto": "Paragraphs if the text has blank lines, else lines",
    "line": "Each line",
    "paragraph": "Each paragraph (between blank lines)",
}
#: Most skipped spans listed in the box itself; all of them go to its details.
SHOWN = 12


def may_hold_spans(path: Path) -> bool:
    return path.suffix.lower() in SPAN_SUFFIXES


def is_plain_text(path: Path, format: str | None) -> bool:
    """Whether ``path`` is read as plain text (``format``, else detected)."""
    if format is not None:
        return format == "text"
    try:
        return path.is_file() and detect_format(path) == "text"
    except OSError:
        return False


class SpanOptionsForm:
    """Tokenizer, sentence splitting, document unit and annotator rows added to a form."""

    ALL = "all"

    def __init__(self, parent: QWidget, form: QFormLayout):
        self.tokenizer = QComboBox(parent)
        for name in TOKENIZERS:
            self.tokenizer.addItem(TOKENIZER_TEXT.get(name, name), name)
        self.split = QCheckBox("Split texts into sentences", parent)
        self.split.setChecked(True)
        self.document = QComboBox(parent)
        for name in DOCUMENT_UNITS:
            self.document.addItem(DOCUMENT_TEXT[name], name)
        self.annotator = QComboBox(parent)
        self._form = form
        form.addRow("Tokenizer", self.tokenizer)
        form.addRow("", self.split)
        form.addRow("A document is", self.document)
        form.addRow("Annotators", self.annotator)
        self.set_file(None)

    def _show(self, widget: QWidget, visible: bool) -> None:
        widget.setVisible(visible)
        label = self._form.labelForField(widget)
        if label is not None:
            label.setVisible(visible)

    def set_file(self, path: Path | None, format: str | None = None, pasted: bool = False) -> None:
        """Show the rows that concern ``path`` read as ``format`` (None: detected), or pasted text.

        A file with several annotators gets their list.
        """
        spans = path is not None and may_hold_spans(path) and path.is_file() and format in (None, "jsonl")
        text = pasted or (path is not None and is_plain_text(path, format))
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
            self._show(widget, spans or text)
        self._show(self.document, text)
        self._show(self.annotator, len(names) > 1)

    def show_taken(self, taken: Collection[str]) -> None:
        """Show the rows of the reader options in ``taken`` only (no annotators: an input that is tagged).

        ``taken`` is :func:`tagtool.store.sources.options_taken` of the
        input's format, the rule by which the CLI refuses an option.
        """
        self.annotator.clear()
        for widget, option in (
            (self.tokenizer, "tokenizer"),
            (self.split, "sentence_split"),
            (self.document, "document_unit"),
            (self.annotator, ""),
        ):
            self._show(widget, option in taken)

    def set_options(self, options: dict) -> None:
        """Show ``options`` (raw-text reader options, e.g. those a project was made with) as chosen."""
        for combo, name in ((self.tokenizer, "tokenizer"), (self.document, "document_unit")):
            at = combo.findData(options.get(name))
            if at >= 0:
                combo.setCurrentIndex(at)
        if isinstance(options.get("sentence_split"), bool):
            self.split.setChecked(options["sentence_split"])

    def options(self) -> dict:
        """Keyword options for ``read_corpus`` (the document unit only for plain text)."""
        options = {
            "tokenizer": self.tokenizer.currentData(),
            "sentence_split": self.split.isChecked(),
            "annotator": self.annotator.currentData() if self.annotator.count() else None,
        }
        if not self.document.isHidden():
            options["document_unit"] = self.document.currentData()
        return options


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


def ask_span_options(path: Path, parent: QWidget | None, defaults: dict | None = None) -> dict | None:
    """The reading options of ``path`` (asked in a :class:`SpanOptionsDialog` if it is plain text or may
    hold span records), ``defaults`` shown first (the project's own: :func:`tagtool.store.sources.stored_text_options`).

    Returns
    -------
    dict or None
        ``{}`` for a file of tokens (nothing to ask), the options chosen,
        or None if the person cancelled.
    """
    if not may_hold_spans(path) and not is_plain_text(path, None):
        return {}
    dialog = SpanOptionsDialog(path, parent)
    dialog.form.set_options(defaults or {})
    return dialog.form.options() if dialog.exec() else None


def warnings_box(parent: QWidget | None, title: str, warnings: list[str]) -> QMessageBox | None:
    """An information box listing what the reader skipped; None if nothing was.

    ``warnings`` are ``Corpus.warnings``: the skipped spans among them are
    counted by their kind (:class:`~tagtool.core.corpus.ReadWarning`).
    """
    if not warnings:
        return None
    skipped = skipped_spans(warnings)
    head = (
        f"{skipped} span(s) could not be placed and were skipped." if skipped else "The file was read with these notes."
    )
    shown = "\n".join(warnings[:SHOWN]) + (f"\n… and {len(warnings) - SHOWN} more" if len(warnings) > SHOWN else "")
    box = QMessageBox(QMessageBox.Information, title, f"{head}\n\n{shown}", parent=parent)
    box.setDetailedText("\n".join(warnings))
    return box

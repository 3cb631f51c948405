"""File-path fields shared by the dialogs: a line edit with a Browse… button."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget

#: File-dialog filter for every corpus format tagtool reads.
CORPUS_FILTER = "Corpus files (*.txt *.conll *.conllu *.tsv *.csv *.jsonl *.json);;All files (*)"


def with_browse(parent: QWidget, edit: QLineEdit, slot, text: str = "Browse…") -> QWidget:
    """``edit`` followed by a button (Browse… by default) that calls ``slot``, as one row widget."""
    row = QWidget(parent)
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(edit, 1)
    button = QPushButton(text, row)
    button.clicked.connect(slot)
    layout.addWidget(button)
    return row

"""File › New project: a project made from a corpus file.

The label set is read from the file, or typed by the user (needed for
unlabeled text; the labels typed then also check a labeled file's labels).
doccano and Label Studio files get the span options (tokenizer, sentence
splitting, annotators; :mod:`.span_import`), and the spans they skipped are
listed after the project is made.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMessageBox,
    QWidget,
)

from tagtool.core.labels import LabelSet
from tagtool.errors import TagtoolError
from tagtool.store.formats import FORMATS, read_corpus
from tagtool.store.project import SUFFIX, Project
from tagtool.gui.file_fields import CORPUS_FILTER, with_browse
from tagtool.gui.span_import import SpanOptionsForm, warnings_box



def parse_labels(text: str) -> LabelSet | None:
    """Labels typed as ``A, B, C`` or ``A B C``; None when nothing is typed."""
    names = [n for n in re.split(r"[,\s]+", text.strip()) if n]
    return LabelSet(dict.fromkeys(names)) if names else None


def create_project(corpus_path: Path, project_path: Path, format: str | None,
                   labels: LabelSet | None, read_labels: bool, reader_options: dict | None = None,
                   warnings: list[str] | None = None) -> Path:
    """Read the corpus and write the project; raises on bad input (nothing written).

    ``reader_options`` go to ``read_corpus`` (span records: tokenizer,
    sentence_split, annotator); what the reader skipped is appended to
    ``warnings``.
    """
    corpus = read_corpus(corpus_path, format, labels=labels,
                         label_column=-1 if read_labels else None, **(reader_options or {}))
    if warnings is not None:
        warnings.extend(corpus.warnings)
    if len(corpus.labels) == 0:
        raise TagtoolError(f"{corpus_path} holds no labels; type the label set")
    Project.create(project_path, corpus, name=project_path.stem).close()
    return project_path


class NewProjectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New project")
        self.corpus = QLineEdit(self)
        self.project = QLineEdit(self)
        self.format = QComboBox(self)
        self.format.addItem("Detect from the file", None)
        for name, fmt in FORMATS.items():
            self.format.addItem(f"{name} — {fmt.description}", name)
        self.read_labels = QCheckBox("Read labels from the file", self)
        self.read_labels.setChecked(True)
        self.labels = QLineEdit(self)
        self.labels.setPlaceholderText("e.g. O B-PER I-PER B-LOC I-LOC (empty: the file's labels)")
        form = QFormLayout(self)
        form.addRow("Corpus file", with_browse(self, self.corpus, self._browse_corpus))
        form.addRow("Format", self.format)
        self.span_options = SpanOptionsForm(self, form)
        form.addRow("", self.read_labels)
        form.addRow("Label set", self.labels)
        form.addRow("Project file", with_browse(self, self.project, self._browse_project))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.corpus.textChanged.connect(self._suggest_project)
        self.corpus.textChanged.connect(self._corpus_changed)
        self.created: Path | None = None
        self.warnings: list[str] = []
        self.resize(560, 0)


    def _browse_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Corpus file", "", CORPUS_FILTER)
        if path:
            self.corpus.setText(path)

    def _browse_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Project file", self.project.text(),
                                              f"tagtool projects (*{SUFFIX})")
        if path:
            self.project.setText(path if path.endswith(SUFFIX) else path + SUFFIX)

    def _corpus_changed(self, text: str) -> None:
        self.span_options.set_file(Path(text.strip()) if text.strip() else None)

    def _suggest_project(self, text: str) -> None:
        if text.strip():
            self.project.setText(str(Path(text.strip()).with_suffix(SUFFIX)))

    def accept(self) -> None:
        warnings: list[str] = []
        try:
            self.created = create_project(
                Path(self.corpus.text().strip()), Path(self.project.text().strip()),
                self.format.currentData(), parse_labels(self.labels.text()),
                self.read_labels.isChecked(), self.span_options.options(), warnings,
            )
        except (TagtoolError, OSError, ValueError) as e:
            QMessageBox.warning(self, "New project", str(e))
            return
        self.warnings = warnings
        box = warnings_box(self, "New project", warnings)
        if box is not None:
            box.exec()
        super().accept()

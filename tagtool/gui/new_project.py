"""File › New project: a project made from a corpus file.

The label set is read from the file, or typed by the user (needed for
unlabeled text; the labels typed then also check a labeled file's labels).
For a CoNLL-U file the user also picks the field that holds the labels.
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
from tagtool.gui.label_field import LabelFieldBox, is_conllu, reader_options, show_row



def parse_labels(text: str) -> LabelSet | None:
    """Labels typed as ``A, B, C`` or ``A B C``; None when nothing is typed."""
    names = [n for n in re.split(r"[,\s]+", text.strip()) if n]
    return LabelSet(dict.fromkeys(names)) if names else None


def create_project(corpus_path: Path, project_path: Path, format: str | None,
                   labels: LabelSet | None, read_labels: bool, label_field: str | None = None) -> Path:
    """Read the corpus and write the project; raises on bad input (nothing written).

    ``label_field`` is the CoNLL-U field holding the labels (ignored for
    other formats; default upos).
    """
    corpus = read_corpus(corpus_path, format, labels=labels, label_column=-1 if read_labels else None,
                         **reader_options(corpus_path, format, label_field))
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
        self.label_field = LabelFieldBox(self)
        self.read_labels = QCheckBox("Read labels from the file", self)
        self.read_labels.setChecked(True)
        self.labels = QLineEdit(self)
        self.labels.setPlaceholderText("e.g. O B-PER I-PER B-LOC I-LOC (empty: the file's labels)")
        form = self.form = QFormLayout(self)
        form.addRow("Corpus file", with_browse(self, self.corpus, self._browse_corpus))
        form.addRow("Format", self.format)
        form.addRow("Label field", self.label_field)
        form.addRow("", self.read_labels)
        form.addRow("Label set", self.labels)
        form.addRow("Project file", with_browse(self, self.project, self._browse_project))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.corpus.textChanged.connect(self._suggest_project)
        self.corpus.textChanged.connect(self._update_label_field)
        self.format.currentIndexChanged.connect(self._update_label_field)
        self._update_label_field()
        self.created: Path | None = None
        self.resize(560, 0)


    def _update_label_field(self) -> None:
        show_row(self.form, self.label_field, is_conllu(self.corpus.text(), self.format.currentData()))

    def _browse_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Corpus file", "", CORPUS_FILTER)
        if path:
            self.corpus.setText(path)

    def _browse_project(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Project file", self.project.text(),
                                              f"tagtool projects (*{SUFFIX})")
        if path:
            self.project.setText(path if path.endswith(SUFFIX) else path + SUFFIX)

    def _suggest_project(self, text: str) -> None:
        if text.strip():
            self.project.setText(str(Path(text.strip()).with_suffix(SUFFIX)))

    def accept(self) -> None:
        try:
            self.created = create_project(
                Path(self.corpus.text().strip()), Path(self.project.text().strip()),
                self.format.currentData(), parse_labels(self.labels.text()),
                self.read_labels.isChecked(), self._label_field(),
            )
        except (TagtoolError, OSError, ValueError) as e:  # ValueError: a label field CoNLL-U lacks
            QMessageBox.warning(self, "New project", str(e))
            return
        super().accept()

    def _label_field(self) -> str | None:
        if not self.form.isRowVisible(self.label_field):
            return None
        return self.label_field.value()

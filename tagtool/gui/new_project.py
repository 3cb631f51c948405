"""File › New project: a project made from a corpus file.

The label set is read from the file, or typed by the user (needed for
unlabeled text; the labels typed then also check a labeled file's labels).
Choosing a file fills the label set in from it, completed to its span
scheme (``B-LOC`` brings ``I-LOC``), so the user sees and can edit the
labels before the first one is given.
For a CoNLL-U file the user also picks the field that holds the labels.
Plain text files, and text pasted into the dialog instead of a file, get
the tokenizer, sentence splitting and what a document is (a line or a
paragraph); doccano and Label Studio files get the span options (tokenizer,
sentence splitting, annotators; :mod:`.span_import`), and the spans they
skipped are listed after the project is made.
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
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QWidget,
)

from tagtool.core.corpus import Corpus
from tagtool.core.labels import LabelSet, complete_scheme, label_column_warnings, suspicious_labels
from tagtool.errors import TagtoolError
from tagtool.gui.file_fields import CORPUS_FILTER, Folders, with_browse
from tagtool.gui.label_field import LabelFieldBox, is_conllu, show_row
from tagtool.gui.span_import import SpanOptionsForm, warnings_box
from tagtool.store.formats import FORMATS, TEXT_OPTIONS, read_corpus
from tagtool.store.formats.pasted import read_text
from tagtool.store.project import SUFFIX, Project
from tagtool.store.sources import input_format, options_taken, text_options_meta


def parse_labels(text: str) -> LabelSet | None:
    """Labels typed as ``A, B, C`` or ``A B C``; None when nothing is typed."""
    names = [n for n in re.split(r"[,\s]+", text.strip()) if n]
    return LabelSet(dict.fromkeys(names)) if names else None


#: Files up to this size fill the label set in as soon as they are chosen;
#: larger ones wait for Fill from file (reading them takes seconds).
AUTO_FILL_BYTES = 20_000_000


def create_project(
    corpus_path: Path | None,
    project_path: Path,
    format: str | None,
    labels: LabelSet | None,
    read_labels: bool,
    reader_options: dict | None = None,
    warnings: list[str] | None = None,
    pasted: str | None = None,
) -> Path:
    """Read the corpus (or the ``pasted`` text) and write the project; raises on bad input (nothing written).

    ``reader_options`` go to ``read_corpus`` (CoNLL-U: label_field; raw text
    and span records: tokenizer, sentence_split, document_unit, annotator);
    what the reader skipped is appended to ``warnings``. Without typed
    ``labels`` the file's labels are completed to their span scheme, as
    ``tagtool import`` does. Pasted text is one document named after the
    project (``notes.txt`` for ``notes.tagproj``).
    """
    if corpus_path is None:
        options = {k: v for k, v in (reader_options or {}).items() if k in TEXT_OPTIONS}
        corpus = read_text(pasted or "", project_path.with_suffix(".txt").name, labels, **options)
    else:
        corpus = read_corpus(
            corpus_path, format, labels=labels, label_column=-1 if read_labels else None, **(reader_options or {})
        )
        taken = options_taken(input_format(corpus_path, format))
        options = {k: v for k, v in (reader_options or {}).items() if k in taken}
    if warnings is not None:
        warnings.extend(corpus.warnings)
        if corpus_path is not None and not read_labels:
            warnings.extend(label_column_warnings(corpus_path.name, corpus.sentences))
    if len(corpus.labels) == 0:
        raise TagtoolError(f"{corpus_path or 'The pasted text'} holds no labels; type the label set")
    if labels is None:
        corpus = Corpus(complete_scheme(corpus.labels)[0], corpus.documents)
    # the options the text was read with, for text added later (File › Add documents)
    Project.create(project_path, corpus, name=project_path.stem, meta=text_options_meta(options)).close()
    return project_path


def inferred_labels(
    corpus_path: Path, format: str | None, reader_options: dict | None = None
) -> tuple[LabelSet, list[str]]:
    """The file's labels completed to their scheme, and the labels that adds."""
    return complete_scheme(read_corpus(corpus_path, format, **(reader_options or {})).labels)


def corpus_path_problem(text: str) -> str:
    """What is wrong with the path typed in the corpus field, for the line under it ("" when nothing).

    Checked as the user types, so a path on its way (``/``, ``~/da``) gets a
    hint, never an exception.
    """
    text = text.strip()
    if not text:
        return ""
    path = Path(text).expanduser()
    try:
        if path.is_dir():
            return f"{text} is a folder: type the corpus file's name after it, or use Browse…"
        if not path.is_file():
            return f"No file {text} (yet): keep typing, or use Browse…"
    except (OSError, ValueError) as e:  # e.g. a NUL character or a name too long for the system
        return f"Not a usable path: {e}"
    return ""


def suggested_project_path(text: str) -> Path | None:
    """The project file beside the corpus file ``text`` (its name with :data:`SUFFIX`), None without a file name."""
    path = Path(text.strip())
    if not text.strip() or path.name in ("", ".", ".."):
        return None  # "/" or "~/data/": no name yet
    try:
        return path.with_suffix(SUFFIX)
    except ValueError:  # a name with_suffix refuses
        return None


def describe_inferred(added: list[str], labels: LabelSet) -> str:
    """The note shown under the label set filled in from a file."""
    parts = ["From the file; edit before creating if needed."]
    if added:
        parts.append(f"Added to complete the scheme: {' '.join(added)}.")
    suspicious = suspicious_labels(labels)
    if suspicious:
        parts.append(f"Check {' '.join(suspicious)}: candidate sets are written A|B.")
    return " ".join(parts)


class NewProjectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, folders: Folders | None = None):
        super().__init__(parent)
        self.folders = folders or Folders()
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
        self.labels.setPlaceholderText("empty: the file's labels; or e.g. O B-PER I-PER")
        self.labels_note = QLabel(self)
        self.labels_note.setWordWrap(True)
        self.corpus_note = QLabel(self)
        self.corpus_note.setWordWrap(True)
        self._filled = ""  # the label text last filled in from a file
        form = self.form = QFormLayout(self)
        form.addRow("Corpus file", with_browse(self, self.corpus, self._browse_corpus))
        self.pasted = QPlainTextEdit(self)
        self.pasted.setPlaceholderText("…or paste raw text here instead of choosing a file")
        self.pasted.setFixedHeight(self.fontMetrics().lineSpacing() * 5)
        form.addRow("Or paste text", self.pasted)
        form.addRow("", self.corpus_note)
        form.setRowVisible(self.corpus_note, False)  # shown while the typed path is not a file
        form.addRow("Format", self.format)
        form.addRow("Label field", self.label_field)
        self.span_options = SpanOptionsForm(self, form)
        form.addRow("", self.read_labels)
        form.addRow("Label set", with_browse(self, self.labels, lambda: self.fill_labels(), "Fill from file"))
        form.addRow("", self.labels_note)
        form.setRowVisible(self.labels_note, False)  # shown with a note about the labels
        form.addRow("Project file", with_browse(self, self.project, self._browse_project))
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.corpus.textChanged.connect(self._suggest_project)
        self.corpus.editingFinished.connect(lambda: self.fill_labels(automatic=True))
        self.corpus.textChanged.connect(self._update_label_field)
        self.format.currentIndexChanged.connect(self._update_label_field)
        self._update_label_field()
        self.corpus.textChanged.connect(self._corpus_changed)
        self.format.currentIndexChanged.connect(self._corpus_changed)
        self.pasted.textChanged.connect(self._corpus_changed)
        self.created: Path | None = None
        self.warnings: list[str] = []
        self.resize(560, 0)

    def _update_label_field(self) -> None:
        show_row(self.form, self.label_field, is_conllu(self.corpus.text(), self.format.currentData()))

    def _browse_corpus(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Corpus file", self.folders.start("import"), CORPUS_FILTER)
        if path:
            self.folders.remember("import", path)
            self.corpus.setText(path)
            self.fill_labels(automatic=True)

    def _note(self, text: str) -> None:
        self.labels_note.setText(text)
        self.form.setRowVisible(self.labels_note, bool(text))  # no empty row without a note
        self.resize(
            self.width(), self.heightForWidth(self.width()) if self.hasHeightForWidth() else self.sizeHint().height()
        )

    def fill_labels(self, automatic: bool = False) -> None:
        """Fill the label set in from the corpus file, unless the user typed one.

        ``automatic`` (a file was just chosen) skips big files and never
        replaces labels the user typed.
        """
        path = Path(self.corpus.text().strip())
        typed = self.labels.text().strip() not in ("", self._filled)
        if not self.read_labels.isChecked() or not path.is_file() or (automatic and typed):
            return
        if automatic and path.stat().st_size > AUTO_FILL_BYTES:
            self._note("Large file: press Fill from file to read its labels.")
            return
        try:
            labels, added = inferred_labels(path, self.format.currentData(), self._reader_options())
        except (TagtoolError, OSError, ValueError) as e:
            self._note(f"Could not read the labels: {e}")
            return
        if len(labels) == 0:
            self._note("The file holds no labels: type the label set.")
            return
        self._filled = " ".join(labels)
        self.labels.setText(self._filled)
        self._note(describe_inferred(added, labels))

    def _browse_project(self) -> None:
        start = self.project.text() or self.folders.start("project")
        path, _ = QFileDialog.getSaveFileName(self, "Project file", start, f"tagtool projects (*{SUFFIX})")
        if path:
            self.project.setText(path if path.endswith(SUFFIX) else path + SUFFIX)

    def _corpus_changed(self, *_) -> None:
        text = self.corpus.text().strip()
        self.span_options.set_file(
            Path(text) if text else None,
            self.format.currentData(),
            pasted=not text and bool(self.pasted.toPlainText().strip()),
        )

    def _suggest_project(self, text: str) -> None:
        problem = corpus_path_problem(text)
        self.corpus_note.setText(problem)
        self.form.setRowVisible(self.corpus_note, bool(problem))
        suggestion = suggested_project_path(text)
        if suggestion is not None:
            self.project.setText(str(suggestion))

    def accept(self) -> None:
        warnings: list[str] = []
        corpus = self.corpus.text().strip()
        try:
            if not self.project.text().strip():
                raise TagtoolError("choose the project file")
            self.created = create_project(
                Path(corpus) if corpus else None,
                Path(self.project.text().strip()),
                self.format.currentData(),
                parse_labels(self.labels.text()),
                self.read_labels.isChecked(),
                self._reader_options(),
                warnings,
                pasted=None if corpus else self.pasted.toPlainText(),
            )
        except (TagtoolError, OSError, ValueError) as e:  # ValueError: a label field CoNLL-U lacks
            QMessageBox.warning(self, "New project", str(e))
            return
        self.warnings = warnings
        box = warnings_box(self, "New project", warnings)
        if box is not None:
            box.exec()
        super().accept()

    def _reader_options(self) -> dict:
        """The span options and (CoNLL-U) the label field, for ``read_corpus``."""
        options = dict(self.span_options.options())
        if self._label_field() is not None:
            options["label_field"] = self._label_field()
        return options

    def _label_field(self) -> str | None:
        if not self.form.isRowVisible(self.label_field):
            return None
        return self.label_field.value()

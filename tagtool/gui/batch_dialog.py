"""File › Batch-tag file…: choose input, tagger, output and format; run it in the background.

The work is :func:`tagtool.services.batch.tag_file` (the CLI's ``tagtool tag``) in a
:class:`~tagtool.gui.worker.TaskRunner`, with a ``QProgressDialog`` whose
Cancel stops it between batches; the output is written atomically, so a
cancelled run leaves nothing behind. By default the output is in the
input's own format and layout (:mod:`tagtool.services.batch_output`); for CoNLL-U
the dialog asks which field receives the prediction. A file lacking a
column the tagger was trained with (a chunker's POS) is refused unless the
dialog's "tag without missing columns" box is checked; then the result
carries a warning with the expected loss (:mod:`tagtool.tagger.inputs`).
For plain text (and span records) the dialog offers the tokenizer, sentence
splitting and, for plain text, what a document is, as New project does;
they go to ``tag_file`` as ``tagtool tag --tokenizer --no-sentence-split
--document-unit`` send them, and are shown only for an input that reads them.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QWidget,
)

from tagtool.errors import TagtoolError
from tagtool.gui.file_fields import CORPUS_FILTER, Folders, with_browse
from tagtool.gui.label_field import LabelFieldBox, is_conllu, show_row
from tagtool.gui.span_import import SpanOptionsForm
from tagtool.gui.worker import TaskRunner
from tagtool.services.batch import tag_file
from tagtool.services.batch_output import TAG_FORMATS
from tagtool.store.sources import input_format, options_taken

TAGGER_FILTER = "tagtool taggers (*.tagger);;All files (*)"
CURRENT, FILE = "current", "file"


def default_output(path: Path, fmt: str | None) -> Path:
    suffix = {"conll": ".conll", "conllu": ".conllu", "text": ".txt", "jsonl": ".jsonl"}.get(
        fmt or "", path.suffix or ".txt"
    )
    return path.with_name(f"{path.stem}.tagged{suffix}")


class BatchTagDialog(QDialog):
    """Input, tagger (the current model or a file), output path and format."""

    def __init__(
        self, has_current: bool, current_name: str = "", parent: QWidget | None = None, folders: Folders | None = None
    ):
        super().__init__(parent)
        self.folders = folders or Folders()
        self.setWindowTitle("Batch-tag a file")
        self.input = QLineEdit(self)
        self.tagger = QComboBox(self)
        if has_current:
            self.tagger.addItem(f"Current model ({current_name})", CURRENT)
        self.tagger.addItem("Tagger file…", FILE)
        self.tagger_path = QLineEdit(self)
        self.output = QLineEdit(self)
        self.format = QComboBox(self)
        self.format.addItem("as the input: its format and layout (conll for CSV/TSV)", None)
        for name in TAG_FORMATS:
            self.format.addItem(name, name)
        self.label_field = LabelFieldBox(self)
        form = self.form = QFormLayout(self)
        form.addRow("File to tag", with_browse(self, self.input, self.browse_input))
        self.text_options = SpanOptionsForm(self, form)
        form.addRow("Tagger", self.tagger)
        self.tagger_row = with_browse(self, self.tagger_path, self.browse_tagger)
        form.addRow("Tagger file", self.tagger_row)
        form.addRow("Output file", with_browse(self, self.output, self.browse_output))
        form.addRow("Output format", self.format)
        form.addRow("Prediction in field", self.label_field)
        self.allow_missing = QCheckBox("Tag even if the file lacks a column the tagger was trained with", self)
        self.allow_missing.setToolTip(
            "A chunker trained with a POS column tags a tokens-only file much worse (CoNLL-2000: 95 % to "
            "66-82 % token accuracy). Unchecked, such a file is refused; checked, it is tagged with a warning "
            "that gives the expected loss."
        )
        form.addRow("", self.allow_missing)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        self.buttons.button(QDialogButtonBox.Ok).setText("Tag")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        self.tagger.currentIndexChanged.connect(self._tagger_changed)
        self._tagger_changed()
        self.input.textChanged.connect(self._update_label_field)
        self.format.currentIndexChanged.connect(self._update_label_field)
        self._update_label_field()
        self.input.textChanged.connect(self._update_text_options)
        self._update_text_options()
        self.resize(560, 0)

    def writes_conllu(self) -> bool:
        """Whether the output will be CoNLL-U: chosen, or the input's own format."""
        chosen = self.format.currentData()
        return chosen == "conllu" or (chosen is None and is_conllu(self.input.text(), None))

    def _update_label_field(self) -> None:
        show_row(self.form, self.label_field, self.writes_conllu())

    def taken_options(self) -> tuple[str, ...]:
        """The reader options the input takes (none for no file, or one that cannot be read: tagging says why)."""
        text = self.input.text().strip()
        try:
            return options_taken(input_format(Path(text))) if text else ()
        except (TagtoolError, OSError, ValueError):
            return ()

    def _update_text_options(self) -> None:
        self.text_options.show_taken(self.taken_options())

    def reader_options(self) -> dict:
        """Tokenizer, sentence splitting and document unit for ``tag_file``, those the input takes."""
        taken = self.taken_options()
        return {k: v for k, v in self.text_options.options().items() if k in taken and k != "annotator"}

    def _tagger_changed(self) -> None:
        self.tagger_row.setEnabled(self.tagger.currentData() == FILE)

    def browse_input(self) -> None:
        start = self.input.text() or self.folders.start("import")
        path, _ = QFileDialog.getOpenFileName(self, "File to tag", start, CORPUS_FILTER)
        if path:
            self.folders.remember("import", path)
            self.input.setText(path)
            if not self.output.text():
                self.output.setText(str(default_output(Path(path), self.format.currentData())))

    def browse_tagger(self) -> None:
        start = self.tagger_path.text() or self.folders.start("export")  # where taggers are exported to
        path, _ = QFileDialog.getOpenFileName(self, "Tagger file", start, TAGGER_FILTER)
        if path:
            self.tagger_path.setText(path)
            self.tagger.setCurrentIndex(self.tagger.findData(FILE))

    def browse_output(self) -> None:
        start = self.output.text()
        if not start:
            name = default_output(Path(self.input.text()), self.format.currentData()).name if self.input.text() else ""
            start = self.folders.start("export", name)
        path, _ = QFileDialog.getSaveFileName(self, "Write the tagged file to", start, "All files (*)")
        if path:
            self.folders.remember("export", path)
            self.output.setText(path)

    def _accept(self) -> None:
        if self.writes_conllu():
            try:
                self.label_field.value()
            except ValueError as e:
                QMessageBox.warning(self, "Batch-tag", str(e))
                return
        if (
            self.input.text()
            and self.output.text()
            and (self.tagger.currentData() == CURRENT or self.tagger_path.text())
        ):
            self.accept()

    def choice(self) -> dict:
        return {
            "input": Path(self.input.text()),
            "output": Path(self.output.text()),
            "format": self.format.currentData(),
            "tagger": None if self.tagger.currentData() == CURRENT else Path(self.tagger_path.text()),
            "label_field": self.label_field.currentText().strip() if self.writes_conllu() else None,
            "allow_missing_columns": self.allow_missing.isChecked(),
            "reader_options": self.reader_options(),
        }


def _run(tagger_or_path, input, output, fmt, label_field, allow_missing_columns, reader_options, state):
    # A tagger file goes by path: tag_file loads it, after refusing an
    # output that is the input or the tagger file (as ``tagtool tag`` does).
    return tag_file(
        tagger_or_path,
        input,
        output,
        fmt,
        label_field=label_field,
        progress=state.progress,
        should_stop=state.should_stop,
        allow_missing_columns=allow_missing_columns,
        reader_options=reader_options,
    )


class BatchTagging(QObject):
    """Runs batch jobs one at a time with a progress dialog.

    Signals: ``done(object)`` with the :class:`~tagtool.services.batch.BatchResult`
    (its ``warnings`` name missing columns tagged through), ``failed(str)``
    (a refused file: the missing column and the expected loss), ``cancelled()``.
    """

    done = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.runner = TaskRunner(self)
        self.dialog: QProgressDialog | None = None

    def start(
        self,
        tagger_or_path,
        input: Path,
        output: Path,
        fmt: str | None,
        label_field: str | None = None,
        allow_missing_columns: bool = False,
        reader_options: dict | None = None,
    ) -> None:
        """Tag ``input`` into ``output`` in the background, behind a progress dialog.

        Returns at once; the outcome comes as ``done``, ``failed`` or
        ``cancelled`` (the dialog's Cancel button stops the job, and nothing
        is written then).

        Parameters
        ----------
        tagger_or_path : Tagger or Path
            The tagger, or its file (loaded by the job).
        input, output : Path
            The file to tag and where to write the result.
        fmt : str, optional
            Output format; None writes the input's own format.
        label_field : str, optional
            CoNLL-U output: the field that receives the prediction.
        allow_missing_columns : bool
            Tag an input that lacks a column the tagger was trained with,
            with a warning, instead of refusing it.
        reader_options : dict, optional
            Raw text: ``tokenizer``, ``sentence_split``, ``document_unit``
            (:meth:`BatchTagDialog.reader_options`; default: the readers' defaults).
        """
        dialog = QProgressDialog(f"Tagging {input.name}…", "Cancel", 0, 1000, self.parent())
        dialog.setWindowTitle("Batch-tag")
        dialog.setWindowModality(Qt.WindowModal)
        dialog.setMinimumDuration(300)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.setValue(0)
        self.dialog = dialog

        def wire(task) -> None:  # before the task is queued: a refused file fails at once
            task.signals.progress.connect(
                lambda f, m: (dialog.setValue(int(1000 * f)), dialog.setLabelText(f"Tagging {input.name}: {m}"))
            )
            task.signals.returned.connect(self.done)
            task.signals.errored.connect(lambda message, _tb: self.failed.emit(message))
            task.signals.cancelled.connect(self.cancelled)
            task.signals.finished.connect(dialog.close)

        self.runner.start(
            _run, tagger_or_path, input, output, fmt, label_field, allow_missing_columns, reader_options, wire=wire
        )
        dialog.canceled.connect(self.runner.cancel)

    def shutdown(self) -> None:
        self.runner.shutdown()

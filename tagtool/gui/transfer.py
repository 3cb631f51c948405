"""File › Import annotations and Export annotations.

Export writes the whole project (tokens, extra columns, annotations with
candidate sets as ``A|B`` and no label as ``_``) with ``write_corpus``.
Import reads a file of the same sentences and takes its annotations
(``project.imports.import_annotations``); a bulk import is not an undo step, so it
clears the undo history. For a CoNLL-U file the user picks the field that
holds the labels; a doccano or Label Studio file first asks for the span
options (:mod:`.span_import`), and spans it skipped are listed afterwards;
one made on the project's own text is attached by character offsets
instead (:mod:`.attach_import`).

A big project (:data:`BACKGROUND_EXPORT_MIN` sentences or more) is exported
by a worker thread: it reads the corpus on a read-only connection of its own
(every edit shown is committed, so it is in the file) and writes it; the
status bar says so when it is written (reading and writing 100,000
sentences takes seconds, which the window spent frozen).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox, QWidget

from tagtool.core.labels import suspicious_labels
from tagtool.errors import TagtoolError
from tagtool.gui.attach_import import attach_import, attaches
from tagtool.gui.file_fields import Folders
from tagtool.gui.label_field import CHOICES, is_conllu
from tagtool.gui.session import Session
from tagtool.gui.span_import import ask_span_options, warnings_box
from tagtool.gui.worker import TaskRunner
from tagtool.store.format_catalog import export_filters, export_suffix, open_filter
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.outputs import check_not_input
from tagtool.store.sources import input_format, stored_text_options
from tagtool.store.worker_reads import ReadOnlyCall

#: The export dialog's filters → format, and the extension each adds (the format catalog's).
EXPORT_FILTERS = export_filters()
EXPORT_SUFFIX = {name: export_suffix(name) for name in EXPORT_FILTERS.values()}
#: Projects from this size are exported by a worker thread.
BACKGROUND_EXPORT_MIN = 20_000
IMPORT_FILTER = open_filter("Annotated corpus")


def export_annotations(session: Session, path: Path, format: str | None = None) -> int:
    """Write the project to ``path``; returns the number of sentences.

    Refused (:class:`~tagtool.store.outputs.OutputError`) when ``path`` is the project file itself.
    """
    check_not_input(path, {"project": session.project.path})
    corpus = session.project.review.export_corpus()  # with the review flags, for formats that keep them
    write_corpus(corpus, path, format=format)
    return len(corpus)


def write_export(call: ReadOnlyCall, path: Path, format: str | None, _state=None) -> int:
    """Worker thread: read the project's corpus through ``call``'s own connection and write it."""
    corpus = call()
    write_corpus(corpus, path, format=format)
    return len(corpus)


class BackgroundExport(QObject):
    """Exports of a big project, each on a worker thread; ``done(message)`` or ``failed(message)``."""

    done = Signal(str)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._runners: list[TaskRunner] = []

    def start(self, session: Session, path: Path, format: str | None) -> bool:
        """Start writing the project to ``path``; False when it must be written here (an in-memory copy).

        Refused (:class:`~tagtool.store.outputs.OutputError`) when ``path`` is the project file itself.
        """
        check_not_input(path, {"project": session.project.path})
        call = ReadOnlyCall.of(session.project, lambda project: project.review.export_corpus())
        if call is None:
            return False
        runner = TaskRunner(self)  # one per export: a second export does not stop the first
        self._runners.append(runner)

        def wire(task) -> None:  # before the task is queued: a quick failure must not be lost
            task.signals.returned.connect(lambda n: self.done.emit(f"Exported {n} sentences to {path}"))
            task.signals.errored.connect(lambda message, _tb: self.failed.emit(message))
            task.signals.finished.connect(lambda: self._runners.remove(runner) if runner in self._runners else None)

        runner.start(write_export, call, path, format, wire=wire)
        return True

    @property
    def busy(self) -> bool:
        return bool(self._runners)

    def wait(self, msecs: int = 60_000) -> None:
        """Block until every export has been written (closing the window, tests)."""
        for runner in list(self._runners):
            runner.wait(msecs)


class NewLabelsError(TagtoolError):
    """The file uses labels the project does not have (``labels``, in file order)."""

    def __init__(self, path: Path, labels: list[str]):
        super().__init__(f"{path} uses labels the project does not have: {' '.join(labels)}")
        self.labels = labels


def new_labels(session: Session, path: Path, reader_options: dict | None = None) -> list[str]:
    """The labels of ``path`` that the project lacks (a typo, or a new type)."""
    known = session.project.labels
    return [n for n in read_corpus(path, **(reader_options or {})).labels if n not in known]


def import_annotations(
    session: Session,
    path: Path,
    mode: str = "replace",
    reader_options: dict | None = None,
    warnings: list[str] | None = None,
    add_labels: bool = False,
) -> int:
    """Take the annotations of ``path`` (same sentences); returns tokens changed.

    ``reader_options`` go to ``read_corpus`` (CoNLL-U: label_field; span
    records: tokenizer, sentence_split, annotator); what it skipped is
    appended to ``warnings``. Labels the project lacks raise
    :class:`NewLabelsError` unless ``add_labels``, so that a typo never
    grows the label set unasked.
    """
    unknown = new_labels(session, path, reader_options)
    if unknown and not add_labels:
        raise NewLabelsError(path, unknown)
    schema = session.project.labels.union(unknown)
    corpus = read_corpus(path, labels=schema, **(reader_options or {}))
    if warnings is not None:
        warnings.extend(corpus.warnings)
    # labels and annotations in one transaction: a file that cannot be matched adds no label
    changed = session.project.imports.import_annotations(corpus, mode=mode, add_labels=bool(unknown))
    if unknown:
        session.labels_edited(annotations_changed=False)
    session.undo_stack.clear()
    session.reload()
    return changed


def ask_export(
    session: Session, parent: QWidget, folders: Folders | None = None, background: BackgroundExport | None = None
) -> str | None:
    """Ask where to export and write it: here, or for a big project through ``background``
    (the message then says it is being written; ``background.done`` says when it is)."""
    folders = folders or Folders(None, session.project.path)
    default = folders.start("export", session.project.path.with_suffix(".conll").name)
    path, chosen = QFileDialog.getSaveFileName(parent, "Export annotations", default, ";;".join(EXPORT_FILTERS))
    if not path:
        return None
    folders.remember("export", path)
    format = EXPORT_FILTERS.get(chosen, "conll")
    if not Path(path).suffix:
        path += EXPORT_SUFFIX[format]
    try:
        if (
            background is not None
            and session.n_sentences >= BACKGROUND_EXPORT_MIN
            and background.start(session, Path(path), format)
        ):
            return f"Exporting {session.n_sentences} sentences to {path}…"
        n = export_annotations(session, Path(path), format)
    except (TagtoolError, OSError) as e:
        QMessageBox.warning(parent, "Export annotations", str(e))
        return None
    return f"Exported {n} sentences to {path}"


def ask_import(session: Session, parent: QWidget, folders: Folders | None = None) -> str | None:
    folders = folders or Folders(None, session.project.path)
    path, _ = QFileDialog.getOpenFileName(parent, "Import annotations", folders.start("import"), IMPORT_FILTER)
    if not path:
        return None
    folders.remember("import", path)
    if attaches(session, Path(path)):
        return attach_import(session, parent, Path(path), confirm_new_labels)[0]
    options: dict = {}
    if is_conllu(path, None):
        label_field, ok = QInputDialog.getItem(
            parent, "Import annotations", "CoNLL-U field that holds the labels:", CHOICES, 0, True
        )
        if not ok:
            return None
        options["label_field"] = label_field
    else:
        options = ask_span_options(Path(path), parent, stored_text_options(session.project.meta, input_format(path)))
        if options is None:
            return None
    box = QMessageBox(
        QMessageBox.Question,
        "Import annotations",
        "Replace every annotation with the file's, or only fill tokens that have none? This cannot be undone.",
        parent=parent,
    )
    replace = box.addButton("Replace", QMessageBox.AcceptRole)
    fill = box.addButton("Fill empty", QMessageBox.AcceptRole)
    box.addButton(QMessageBox.Cancel)
    box.exec()
    if box.clickedButton() not in (replace, fill):
        return None
    warnings: list[str] = []
    mode = "replace" if box.clickedButton() is replace else "fill"
    try:
        try:
            n = import_annotations(session, Path(path), mode, options, warnings)
        except NewLabelsError as e:
            if not confirm_new_labels(parent, e):
                return None
            n = import_annotations(session, Path(path), mode, options, warnings, add_labels=True)
    except (TagtoolError, OSError, ValueError) as e:  # ValueError: a label field CoNLL-U lacks
        QMessageBox.warning(parent, "Import annotations", str(e))
        return None
    listing = warnings_box(parent, "Import annotations", warnings)
    if listing is not None:
        listing.exec()
    return f"Imported annotations: {n} tokens changed"


def confirm_new_labels(parent: QWidget, error: NewLabelsError) -> bool:
    """Ask before labels the project lacks are added; False cancels the import."""
    suspicious = suspicious_labels(error.labels)
    text = (
        f"The file uses {len(error.labels)} label(s) the project does not have:\n\n"
        f"{', '.join(error.labels)}\n\nAdd them to the project's label set?"
    )
    if suspicious:
        text += (
            f"\n\n{', '.join(suspicious)} look(s) like a candidate set written with the wrong "
            "separator (candidate sets are written A|B)."
        )
    answer = QMessageBox.question(parent, "New labels", text, QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Cancel)
    return answer == QMessageBox.Yes

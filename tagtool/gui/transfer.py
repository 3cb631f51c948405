"""File › Import annotations and Export annotations.

Export writes the whole project (tokens, extra columns, annotations with
candidate sets as ``A|B`` and no label as ``_``) with ``write_corpus``.
Import reads a file of the same sentences and takes its annotations
(``Project.import_annotations``); a bulk import is not an undo step, so it
clears the undo history.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from tagtool.errors import TagtoolError
from tagtool.gui.session import Session
from tagtool.outputs import check_not_input
from tagtool.store.formats import read_corpus, write_corpus

EXPORT_FILTERS = {
    "CoNLL column file (*.conll *.txt)": "conll",
    "JSON Lines (*.jsonl)": "jsonl",
    "CoNLL-U (*.conllu)": "conllu",
    "TSV table (*.tsv)": "tsv",
}
EXPORT_SUFFIX = {"conll": ".conll", "jsonl": ".jsonl", "conllu": ".conllu", "tsv": ".tsv"}
IMPORT_FILTER = "Annotated corpus (*.txt *.conll *.conllu *.jsonl *.tsv *.csv);;All files (*)"


def export_annotations(session: Session, path: Path, format: str | None = None) -> int:
    """Write the project to ``path``; returns the number of sentences.

    Refused (:class:`~tagtool.outputs.OutputError`) when ``path`` is the project file itself.
    """
    check_not_input(path, {"project": session.project.path})
    corpus = session.project.corpus()
    write_corpus(corpus, path, format=format)
    return len(corpus)


def import_annotations(session: Session, path: Path, mode: str = "replace") -> int:
    """Take the annotations of ``path`` (same sentences); returns tokens changed."""
    corpus = read_corpus(path, labels=session.project.labels)
    changed = session.project.import_annotations(corpus, mode=mode)
    session.undo_stack.clear()
    session.reload()
    return changed


def ask_export(session: Session, parent: QWidget) -> str | None:
    default = str(session.project.path.with_suffix(".conll"))
    path, chosen = QFileDialog.getSaveFileName(
        parent, "Export annotations", default, ";;".join(EXPORT_FILTERS))
    if not path:
        return None
    format = EXPORT_FILTERS.get(chosen, "conll")
    if not Path(path).suffix:
        path += EXPORT_SUFFIX[format]
    try:
        n = export_annotations(session, Path(path), format)
    except (TagtoolError, OSError) as e:
        QMessageBox.warning(parent, "Export annotations", str(e))
        return None
    return f"Exported {n} sentences to {path}"


def ask_import(session: Session, parent: QWidget) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Import annotations", "", IMPORT_FILTER)
    if not path:
        return None
    box = QMessageBox(QMessageBox.Question, "Import annotations",
                      "Replace every annotation with the file's, or only fill tokens "
                      "that have none? This cannot be undone.", parent=parent)
    replace = box.addButton("Replace", QMessageBox.AcceptRole)
    fill = box.addButton("Fill empty", QMessageBox.AcceptRole)
    box.addButton(QMessageBox.Cancel)
    box.exec()
    if box.clickedButton() not in (replace, fill):
        return None
    try:
        n = import_annotations(session, Path(path), "replace" if box.clickedButton() is replace else "fill")
    except (TagtoolError, OSError) as e:
        QMessageBox.warning(parent, "Import annotations", str(e))
        return None
    return f"Imported annotations: {n} tokens changed"

"""File › Add documents: a corpus file's documents appended to the open project.

As ``tagtool import FILE -p PROJECT``: span files first ask for the span
options (:mod:`.span_import`); texts the project holds already (same
text, :mod:`tagtool.store.duplicates`) are asked about: add them again,
skip them, or cancel. The caller reopens the project afterwards (the
session's list of sentences changed).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from tagtool.errors import TagtoolError
from tagtool.gui.file_fields import Folders
from tagtool.gui.span_import import ask_span_options, warnings_box
from tagtool.store.duplicates import held_texts
from tagtool.store.format_catalog import open_filter
from tagtool.store.formats import read_corpus
from tagtool.store.sources import input_format, stored_text_options

ADD_FILTER = open_filter("Corpus")


def ask_duplicates(parent: QWidget | None, path: Path, held) -> str | None:
    """``"add"``, ``"skip"`` or None (cancel) for the texts of ``path`` the project holds."""
    box = QMessageBox(
        QMessageBox.Question,
        "Add documents",
        f"{held.texts} of the {held.total} texts of {path.name} ({held.sentences} sentences) are "
        "already in the project (same text).\n\nAdd them again, or skip them and add the rest?",
        parent=parent,
    )
    box.setObjectName("duplicates_question")
    add = box.addButton("Add again", QMessageBox.AcceptRole)
    skip = box.addButton("Skip them", QMessageBox.AcceptRole)
    box.addButton(QMessageBox.Cancel)
    box.setDefaultButton(skip)
    box.exec()
    return {add: "add", skip: "skip"}.get(box.clickedButton())


def add_documents(session, parent: QWidget | None, path: Path, options: dict, confirm_new_labels) -> str | None:
    """Read ``path`` and append its documents, asking about those already held; a status message or None."""
    try:
        corpus = read_corpus(path, keep_full_sets=True, **options)
        held = held_texts(session.project, corpus)
        if held.texts:
            choice = ask_duplicates(parent, path, held)
            if choice is None:
                return None
            corpus = held.rest if choice == "skip" else corpus
        if not len(corpus):
            return f"Nothing added: every text of {path.name} is in the project"
        new = [name for name in corpus.labels if name not in session.project.labels]
        if new:
            from tagtool.gui.transfer import NewLabelsError

            if not confirm_new_labels(parent, NewLabelsError(path, new)):
                return None
        ids = session.project.imports.import_corpus(corpus, add_labels=bool(new))
    except (TagtoolError, OSError, ValueError) as e:
        QMessageBox.warning(parent, "Add documents", str(e))
        return None
    listing = warnings_box(parent, "Add documents", list(corpus.warnings))
    if listing is not None:
        listing.exec()
    return f"Added {len(ids)} sentences from {path.name}"


def ask_add_documents(session, parent: QWidget, folders: Folders | None, confirm_new_labels) -> str | None:
    """Choose a file (and its span options) and add its documents."""
    folders = folders or Folders(None, session.project.path)
    path, _ = QFileDialog.getOpenFileName(parent, "Add documents", folders.start("import"), ADD_FILTER)
    if not path:
        return None
    folders.remember("import", path)
    stored = stored_text_options(session.project.meta, input_format(path))  # read as the project's text was
    options = ask_span_options(Path(path), parent, stored)
    if options is None:
        return None
    return add_documents(session, parent, Path(path), options, confirm_new_labels)

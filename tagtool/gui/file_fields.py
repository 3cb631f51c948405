"""File-path fields shared by the dialogs: a line edit with a Browse… button, and where file dialogs start."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget

from tagtool.store.format_catalog import open_filter

#: File-dialog filter for every corpus format tagtool reads.
CORPUS_FILTER = open_filter("Corpus files")


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


class Folders:
    """Where a file dialog starts: the folder last used for its kind of file, else the project's folder.

    Exports used to start in the working directory (a relative default name,
    or none): wherever the app happened to be launched from.  Kinds:
    ``"export"`` (annotations, taggers, batch output), ``"import"``
    (annotations, corpora, files to tag, text), ``"project"``.

    Parameters
    ----------
    settings : GuiSettings or None
        Remembers the last folder of each kind (None: nothing remembered).
    project : Path or None
        The open project's file.
    """

    def __init__(self, settings=None, project: Path | None = None):
        self.settings, self.project = settings, project

    def start(self, kind: str, name: str = "") -> str:
        """The dialog's starting path: the folder, with ``name`` in it when given."""
        folder = self.settings.folder(kind) if self.settings is not None else None
        if folder is None and self.project is not None:
            folder = Path(self.project).resolve().parent
        folder = folder or Path.home()
        return str(folder / name) if name else str(folder)

    def remember(self, kind: str, path: str | Path) -> None:
        """Note the folder of a path the user chose (a file, or a folder itself)."""
        if self.settings is not None and path:
            path = Path(path)
            self.settings.set_folder(kind, path if path.is_dir() else path.parent)

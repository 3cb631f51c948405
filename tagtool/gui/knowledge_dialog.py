"""File › Add word vectors…, Add dictionary…, Add patterns… and Knowledge…: what a user brings, in the app.

The file dialogs and the small dialog that asks a dictionary's entity type
hand the chosen file to the :class:`~tagtool.gui.knowledge.KnowledgeController`,
which reads and stores it in the background.  :class:`KnowledgeDialog`
lists what the project holds (file, words kept or entries, when it was
added) and removes it; :class:`KnowledgeBox` is the model panel's lines on
it, with the progress and Cancel of a vectors file being read.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tagtool.gui.file_fields import Folders, with_browse
from tagtool.gui.knowledge import GAZETTEER, PATTERNS, VECTORS, KnowledgeController
from tagtool.gui.knowledge_text import plural, status_text, vectors_summary

VECTORS_FILTER = "Word vectors (*.vec *.txt *.bin *.gz);;All files (*)"
DICTIONARY_FILTER = "Dictionaries, one entry a line (*.txt *.lst *.tsv);;All files (*)"
PATTERNS_FILTER = "Patterns (*.jsonl *.json *.txt);;All files (*)"
#: How each kind of resource is named in the list.
KIND_TEXT = {VECTORS: "Word vectors", GAZETTEER: "Dictionary", PATTERNS: "Patterns"}


def _folders(parent) -> Folders:
    window = parent.window() if parent is not None else None
    return window.folders() if hasattr(window, "folders") else Folders(None, None)


def _replace(parent, title: str, text: str) -> bool:
    answer = QMessageBox.question(parent, title, text, QMessageBox.Yes | QMessageBox.Cancel, QMessageBox.Yes)
    return answer == QMessageBox.Yes


def _writable(controller: KnowledgeController, parent, title: str) -> bool:
    if controller.project.readonly:
        QMessageBox.information(parent, title, "The project is open read-only: nothing can be added to it.")
        return False
    return True


def ask_add_vectors(controller: KnowledgeController, parent: QWidget) -> str | None:
    """Choose a vectors file and read it in the background; a status line, or None."""
    if not _writable(controller, parent, "Add word vectors"):
        return None
    if controller.reading and not _replace(
        parent, "Add word vectors", f"{controller.reading} is being read. Stop that and read another file?"
    ):
        return None
    folders = _folders(parent)
    path, _ = QFileDialog.getOpenFileName(parent, "Add word vectors", folders.start("import"), VECTORS_FILTER)
    if not path:
        return None
    folders.remember("import", path)
    if controller.vectors is not None and not _replace(
        parent,
        "Add word vectors",
        f"The project has word vectors: {vectors_summary(controller.vectors)}.\nReplace them with {Path(path).name}?",
    ):
        return None
    controller.add_vectors(path)
    return f"Reading word vectors from {Path(path).name} (the Model panel shows the progress)…"


class DictionaryDialog(QDialog):
    """A dictionary file and its entity type (one of the project's types, or a new one typed)."""

    def __init__(self, types, parent: QWidget | None = None, folders: Folders | None = None):
        super().__init__(parent)
        self.setWindowTitle("Add dictionary")
        self.folders = folders or Folders(None, None)
        self.path = QLineEdit(self)
        self.path.setPlaceholderText("a text file, one entry a line")
        self.type = QComboBox(self)
        self.type.setEditable(True)
        self.type.addItems(list(types))
        self.type.setToolTip("The entity type the entries are: one of the project's, or type a new one")
        self.path.textChanged.connect(self._guess_type)
        note = QLabel(
            "One entry a line, several words allowed; # starts a comment. An entry with a capital letter "
            "matches as written, one in lower case matches any case.",
            self,
        )
        note.setWordWrap(True)
        form = QFormLayout()
        form.addRow("File", with_browse(self, self.path, self._browse))
        form.addRow("Entity type", self.type)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self.resize(480, self.sizeHint().height())

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Dictionary file", self.folders.start("import"), DICTIONARY_FILTER)
        if path:
            self.folders.remember("import", path)
            self.path.setText(path)

    def _guess_type(self, text: str) -> None:
        """A file named after one of the project's types (``per.txt``, ``LOC-names.txt``) chooses it."""
        stem = Path(text).stem.upper()
        for i in range(self.type.count()):
            name = self.type.itemText(i)
            if stem == name.upper() or stem.startswith(name.upper() + "-") or stem.startswith(name.upper() + "_"):
                self.type.setCurrentIndex(i)
                return

    def entity_type(self) -> str:
        return self.type.currentText().strip()

    def _accept(self) -> None:
        path = self.path.text().strip()
        if not path or not Path(path).is_file():
            QMessageBox.warning(self, "Add dictionary", f"No such file: {path}" if path else "Choose a file.")
            return
        if not self.entity_type():
            QMessageBox.warning(self, "Add dictionary", "Choose or type the entity type of the entries.")
            return
        self.accept()


def ask_add_dictionary(controller: KnowledgeController, parent: QWidget) -> str | None:
    """Choose a dictionary file and its type, and read it in the background; a status line, or None."""
    if not _writable(controller, parent, "Add dictionary"):
        return None
    dialog = DictionaryDialog(controller.project.labels.span_types, parent, _folders(parent))
    if not dialog.exec():
        return None
    kind = dialog.entity_type()
    held = [d for d in controller.dictionaries if d.entity_type == kind]
    if held and not _replace(
        parent, "Add dictionary", f"The project has a dictionary of {kind} ({held[0].source}). Replace it?"
    ):
        return None
    controller.add_dictionary(dialog.path.text().strip(), kind)
    return f"Adding the dictionary {kind} from {Path(dialog.path.text()).name}…"


def ask_add_patterns(controller: KnowledgeController, parent: QWidget) -> str | None:
    """Choose a patterns file and read it in the background; a status line, or None."""
    if not _writable(controller, parent, "Add patterns"):
        return None
    folders = _folders(parent)
    path, _ = QFileDialog.getOpenFileName(parent, "Add patterns", folders.start("import"), PATTERNS_FILTER)
    if not path:
        return None
    folders.remember("import", path)
    if any(p.name == Path(path).name for p in controller.patterns) and not _replace(
        parent, "Add patterns", f"The project has patterns from {Path(path).name}. Replace them?"
    ):
        return None
    controller.add_patterns(path)
    return f"Adding the patterns of {Path(path).name}…"


def holds_text(record) -> str:
    """What a stored resource holds, from its ``info``: words kept, entries, patterns."""
    info = record.info
    if record.kind == VECTORS:
        summary = vectors_summary(info)
        return summary[summary.find("(") + 1 : -1] if "(" in summary else ""
    if record.kind == GAZETTEER:
        return plural(int(info.get("entries", 0)), "entry")
    labels = ", ".join(info.get("labels") or [])
    return plural(int(info.get("patterns", 0)), "pattern") + (f" ({labels})" if labels else "")


class KnowledgeDialog(QDialog):
    """File › Knowledge…: the project's word vectors, dictionaries and patterns; add and remove them."""

    def __init__(self, controller: KnowledgeController, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Knowledge in the project")
        self.setObjectName("knowledge_dialog")
        self.controller = controller
        self.tree = QTreeWidget(self)
        self.tree.setHeaderLabels(["Kind", "Name", "File", "Added", "Holds"])
        self.tree.setRootIsDecorated(False)
        self.tree.setSelectionMode(QAbstractItemView.SingleSelection)
        self.tree.header().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.tree.header().setStretchLastSection(True)
        self.empty = QLabel("Nothing yet: add word vectors, a dictionary of an entity type or a patterns file.", self)
        self.empty.setWordWrap(True)
        self.state = QLabel(self)
        self.state.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.cancel = QPushButton("Cancel reading", self)
        self.cancel.clicked.connect(controller.cancel)
        buttons = QHBoxLayout()
        self.add_buttons = {}
        for kind, text, ask in (
            (VECTORS, "Add word vectors…", ask_add_vectors),
            (GAZETTEER, "Add dictionary…", ask_add_dictionary),
            (PATTERNS, "Add patterns…", ask_add_patterns),
        ):
            button = self.add_buttons[kind] = QPushButton(text, self)
            button.clicked.connect(lambda _=False, a=ask: a(self.controller, self))
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.use_vectors = QCheckBox("Train with the word vectors", self)
        self.use_vectors.setToolTip(
            "The project's vectors.use setting (tagtool vectors PROJECT --use on|off). On, they are read for "
            "word-class labels such as part of speech; span labels read them only when the features name vec."
        )
        self.use_vectors.toggled.connect(controller.set_vectors_use)
        buttons.addWidget(self.use_vectors)
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.clicked.connect(self.remove_selected)
        buttons.addWidget(self.remove_button)
        close = QDialogButtonBox(QDialogButtonBox.Close, self)
        close.rejected.connect(self.reject)
        progress = QHBoxLayout()
        progress.addWidget(self.bar, 1)
        progress.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.state)
        layout.addLayout(progress)
        layout.addLayout(buttons)
        layout.addWidget(close)
        controller.changed.connect(self.reload)
        controller.progress.connect(lambda fraction, message: self._progress(fraction, message))
        self.tree.itemSelectionChanged.connect(self._selection)
        self.resize(820, 360)
        self.reload()

    def reload(self) -> None:
        if self.controller.closed:
            return
        self.tree.clear()
        readonly = self.controller.project.readonly
        for record in self.controller.records():
            added = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.added))
            source = str(record.info.get("file") or record.info.get("source") or "")
            name = "" if record.kind == VECTORS else record.name
            item = QTreeWidgetItem([KIND_TEXT[record.kind], name, Path(source).name, added, holds_text(record)])
            item.setData(0, Qt.UserRole, (record.kind, record.name))
            item.setToolTip(2, source)
            self.tree.addTopLevelItem(item)
        self.empty.setVisible(self.tree.topLevelItemCount() == 0)
        reading, adding = self.controller.reading, self.controller.adding
        self.bar.setVisible(bool(reading))
        self.cancel.setVisible(bool(reading))
        if not reading:
            self.bar.setValue(0)
        lines = [f"Reading word vectors from {reading}…"] if reading else []
        lines += [f"Adding {adding}…"] if adding else []
        self.state.setText("\n".join(lines) or ("The project is open read-only." if readonly else ""))
        for button in self.add_buttons.values():
            button.setEnabled(not readonly)
        self.use_vectors.blockSignals(True)
        self.use_vectors.setChecked(not self.controller.vectors_off())
        self.use_vectors.blockSignals(False)
        self.use_vectors.setEnabled(self.controller.vectors is not None and not readonly)
        self._selection()

    def _progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(1000 * fraction))
        if message and self.controller.reading:
            self.state.setText(f"Reading word vectors from {self.controller.reading}: {message}")

    def _selection(self) -> None:
        self.remove_button.setEnabled(bool(self.tree.selectedItems()) and not self.controller.project.readonly)

    def remove_selected(self, confirm: bool = True) -> bool:
        items = self.tree.selectedItems()
        if not items:
            return False
        kind, name = items[0].data(0, Qt.UserRole)
        what = "the word vectors" if kind == VECTORS else f"the {KIND_TEXT[kind].lower()} {name}"
        if confirm and not _replace(self, "Remove", f"Remove {what} from the project? The next model trains without."):
            return False
        return self.controller.remove(kind, name)


def show_knowledge(controller: KnowledgeController, parent: QWidget) -> None:
    """File › Knowledge in the project…: the dialog, modal, deleted when closed."""
    dialog = KnowledgeDialog(controller, parent)
    dialog.setAttribute(Qt.WA_DeleteOnClose)
    dialog.exec()


class KnowledgeBox(QWidget):
    """The model panel's lines on the project's knowledge: what it holds, a vectors file's progress and Cancel."""

    def __init__(self, controller: KnowledgeController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.status.setObjectName("knowledge_status")
        self.bar = QProgressBar(self)
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.cancel = QPushButton("Cancel", self)
        self.cancel.clicked.connect(controller.cancel)
        self.manage = QPushButton("Knowledge…", self)
        self.manage.setToolTip("Word vectors, dictionaries and patterns the project holds (File › Knowledge…)")
        self.manage.clicked.connect(lambda: show_knowledge(controller, self.window()))
        row = QHBoxLayout()
        row.addWidget(QLabel("Knowledge", self))
        row.addStretch(1)
        row.addWidget(self.manage)
        bars = QHBoxLayout()
        bars.addWidget(self.bar, 1)
        bars.addWidget(self.cancel)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addLayout(bars)
        layout.addWidget(self.status)
        controller.changed.connect(self.update_state)
        controller.progress.connect(self._progress)
        self.update_state()

    def _progress(self, fraction: float, message: str) -> None:
        self.bar.setValue(int(1000 * fraction))
        if message and self.controller.reading:
            self.status.setText(status_text(self.controller, message))

    def update_state(self) -> None:
        if self.controller.closed:
            return
        reading = self.controller.reading
        self.bar.setVisible(bool(reading))
        self.cancel.setVisible(bool(reading))
        if not reading:
            self.bar.setValue(0)
        self.status.setText(status_text(self.controller))

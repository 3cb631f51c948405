"""Edit › Labels…: names, colours and shortcuts of the label set.

Every change is written to the project when it is made (like annotations).
Renaming or removing a label rewrites stored annotations, so it also clears
the undo history (older steps would name labels that no longer exist).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from tagtool.errors import TagtoolError
from tagtool.gui.editor import RESERVED_KEYS
from tagtool.gui.session import Session
from tagtool.gui.style import readable_text
from tagtool.store.colors import base_key, check_shortcut

NAME, COLOR, SHORTCUT = range(3)


class LabelsDialog(QDialog):
    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Labels")
        self.session = session
        self.table = QTableWidget(0, 3, self)
        self.table.setHorizontalHeaderLabels(["Label", "Colour", "Shortcut"])
        self.table.verticalHeader().hide()
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(NAME, QHeaderView.Stretch)
        self.table.cellDoubleClicked.connect(self._double_clicked)
        self.table.itemChanged.connect(self._item_changed)
        add, remove, color = (QPushButton(t, self) for t in ("Add…", "Remove", "Colour…"))
        self.defaults = QPushButton("Default keys && colours", self)
        self.defaults.setToolTip(
            "The keys and colours every project with these labels gets: 1 is O, then the "
            "types in alphabetical order, Shift for I- (Help › Keyboard shortcuts)"
        )
        add.clicked.connect(self._add)
        remove.clicked.connect(self._remove)
        color.clicked.connect(lambda: self._choose_color(self.table.currentRow()))
        self.defaults.clicked.connect(self.reset_style)
        buttons = QHBoxLayout()
        for b in (add, remove, color, self.defaults):
            buttons.addWidget(b)
        buttons.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.Close, self)
        close.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addLayout(buttons)
        layout.addWidget(close)
        self.resize(420, 480)
        self.reload()

    @property
    def project(self):
        return self.session.project

    def reload(self) -> None:
        self.table.blockSignals(True)
        infos = self.project.label_set.label_infos()
        self.table.setRowCount(len(infos))
        for row, info in enumerate(infos):
            name = QTableWidgetItem(info.name)
            name.setData(Qt.UserRole, info.name)
            color = QTableWidgetItem(info.color)
            color.setFlags(color.flags() & ~Qt.ItemIsEditable)
            color.setBackground(QColor(info.color))
            color.setForeground(readable_text(QColor(info.color)))
            shortcut = QTableWidgetItem(info.shortcut or "")
            for column, item in enumerate((name, color, shortcut)):
                self.table.setItem(row, column, item)
        self.table.blockSignals(False)

    def _changed(self, annotations: bool = False) -> None:
        self.session.labels_edited(annotations)
        self.reload()

    def _error(self, error: Exception) -> None:
        QMessageBox.warning(self, "Labels", str(error))
        self.reload()

    def _item_changed(self, item: QTableWidgetItem) -> None:
        name = self.table.item(item.row(), NAME).data(Qt.UserRole)
        try:
            if item.column() == NAME and item.text() != name:
                self.rename(name, item.text().strip())
            elif item.column() == SHORTCUT:
                self.set_shortcut(name, item.text().strip() or None)
        except (TagtoolError, ValueError) as e:
            self._error(e)

    def rename(self, old: str, new: str) -> None:
        self.project.label_set.rename_label(old, new)
        self._changed(annotations=True)

    def set_shortcut(self, name: str, shortcut: str | None) -> None:
        if shortcut is not None and base_key(check_shortcut(shortcut)) in RESERVED_KEYS:
            raise ValueError(f"{shortcut!r} is kept for navigation and clearing; choose another key")
        self.project.label_set.set_label_info(name, shortcut=shortcut)
        self._changed()

    def reset_style(self) -> None:
        """Every label's default key and colour (a project made before they followed the label set)."""
        try:
            self.project.label_set.reset_label_style()
        except TagtoolError as e:
            return self._error(e)
        self._changed()

    def set_color(self, name: str, color: str) -> None:
        self.project.label_set.set_label_info(name, color=color)
        self._changed()

    def _double_clicked(self, row: int, column: int) -> None:
        if column == COLOR:
            self._choose_color(row)

    def _choose_color(self, row: int) -> None:
        if row < 0:
            return
        name = self.table.item(row, NAME).data(Qt.UserRole)
        color = QColorDialog.getColor(QColor(self.table.item(row, COLOR).text()), self, f"Colour of {name}")
        if color.isValid():
            try:
                self.set_color(name, color.name())
            except TagtoolError as e:
                self._error(e)

    def _add(self) -> None:
        name, ok = QInputDialog.getText(self, "Add label", "Label name:")
        if ok and name.strip():
            try:
                self.project.label_set.add_label(name.strip())
                self._changed()
            except TagtoolError as e:
                self._error(e)

    def _remove(self) -> None:
        row = self.table.currentRow()
        if row < 0:
            return
        name = self.table.item(row, NAME).data(Qt.UserRole)
        try:
            self.project.label_set.remove_label(name)
        except TagtoolError as e:
            answer = QMessageBox.question(self, "Remove label", f"{e}\n\nRemove it from them?")
            if answer != QMessageBox.Yes:
                return
            try:
                self.project.label_set.remove_label(name, force=True)
            except TagtoolError as e2:
                return self._error(e2)
        self._changed(annotations=True)

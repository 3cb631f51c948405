"""A filterable label list for large label sets (e.g. 45 POS tags).

Opened from the editor with ``/`` or Ctrl+L: type to filter (substring of
the name, case-insensitive), ↑/↓ to move, Enter sets the label as a full
label, Ctrl+Enter toggles it as a candidate, Esc closes.  A second column
shows each label's key (``Shift+2``), so the picker also teaches the keys.
"""

from __future__ import annotations

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPixmap, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QFrame, QHeaderView, QLineEdit, QTreeView, QVBoxLayout, QWidget

from tagtool.gui.style import LabelStyle


def swatch(color: QColor, size: int = 12) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(color)
    return QIcon(pixmap)


class LabelPicker(QFrame):
    """Popup to pick one label; emits ``picked(label, as_candidate)``."""

    picked = Signal(str, bool)

    def __init__(self, style: LabelStyle, parent: QWidget | None = None):
        super().__init__(parent, Qt.Popup)
        self.setFrameShape(QFrame.StyledPanel)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter labels…  (Enter: set, Ctrl+Enter: candidate)")
        self.model = QStandardItemModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterCaseSensitivity(Qt.CaseInsensitive)
        self.proxy.setFilterKeyColumn(0)  # typing "s" finds names, not every "Shift+" key
        self.view = QTreeView(self)  # a list of two columns: the label and its key
        self.view.setModel(self.proxy)
        self.view.setRootIsDecorated(False)
        self.view.setHeaderHidden(True)
        self.view.setUniformRowHeights(True)
        self.view.setAllColumnsShowFocus(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.view)
        self.filter.textChanged.connect(self._filter_changed)
        self.filter.installEventFilter(self)
        self.view.activated.connect(lambda index: self._pick(index, False))
        self.set_style(style)
        self.resize(280, 320)

    def set_style(self, style: LabelStyle) -> None:
        self.model.clear()
        for name in style.names:
            shortcut = style.shortcut(name) or ""
            item, key = QStandardItem(swatch(style.color(name)), name), QStandardItem(shortcut)
            key.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
            key.setForeground(self.palette().placeholderText())
            for cell in (item, key):
                cell.setEditable(False)
                cell.setToolTip(f"key {shortcut}" if shortcut else "no key: pick it here")
            self.model.appendRow([item, key])
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeToContents)

    def popup(self, pos) -> None:
        self.filter.clear()
        self.move(pos)
        self.show()
        self.filter.setFocus()
        self._filter_changed("")

    def _filter_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)
        if self.proxy.rowCount():
            self.view.setCurrentIndex(self.proxy.index(0, 0))

    def _pick(self, index, as_candidate: bool) -> None:
        if not index.isValid():
            return
        label = self.proxy.data(index.siblingAtColumn(0), Qt.DisplayRole)
        self.hide()
        self.picked.emit(label, as_candidate)

    def eventFilter(self, obj, event) -> bool:
        if obj is self.filter and isinstance(event, QKeyEvent) and event.type() == QKeyEvent.KeyPress:
            key = event.key()
            if key in (Qt.Key_Return, Qt.Key_Enter):
                as_candidate = bool(event.modifiers() & Qt.ControlModifier)
                self._pick(self.view.currentIndex(), as_candidate)
                return True
            if key in (Qt.Key_Up, Qt.Key_Down, Qt.Key_PageUp, Qt.Key_PageDown):
                self.view.keyPressEvent(event)
                return True
            if key == Qt.Key_Escape:
                self.hide()
                return True
        return super().eventFilter(obj, event)

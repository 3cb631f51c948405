"""The sentence list's panel: a search box, a status filter and the table of sentences.

The rows are :class:`~tagtool.gui.sentence_list.SentenceListModel`'s, painted
by :class:`~tagtool.gui.list_delegate.SentenceRowDelegate`; the panel keeps
the current sentence's row selected and in view, and emits
``sentenceActivated(id)`` when the annotator picks another row.  The search
waits for 200 ms of quiet typing before it reads the list again; Enter in
it searches at once and opens the first hit in the editor (once a big
project's list, read in a worker, is in).
"""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tagtool.gui.list_delegate import SentenceRowDelegate
from tagtool.gui.sentence_list import BY_DISAGREEMENT, STATUS_FILTERS, SentenceListModel
from tagtool.gui.sentence_status import WIDEST_STATUS
from tagtool.gui.session import Session


class SentenceListPanel(QWidget):
    """Search box, status filter and the table; emits ``sentenceActivated(id)``."""

    sentenceActivated = Signal(int)
    #: Enter in the search box opened a hit: the editor takes the keyboard.
    openRequested = Signal()

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.model = SentenceListModel(session, self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search text…")
        self.search.setToolTip(
            'Sentences containing this text, as written or as tokens ("Hot Pot, which" '
            "finds Hot Pot , which): A–Z in either case, every other character as typed "
            "(é does not find É). Enter opens the first hit."
        )
        self.search.setClearButtonEnabled(True)
        self.status = QComboBox(self)
        self.status.addItems(list(STATUS_FILTERS))
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setItemDelegate(SentenceRowDelegate(self.table))
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        # Widths from the font, not ResizeToContents: sizing from the rows
        # asks the model for every role of every visible cell again on each
        # change (a new model's Info column, an edit), a stall on the GUI thread.
        metrics, pad = self.table.fontMetrics(), 18
        samples = (str(max(session.n_sentences, 10)), WIDEST_STATUS, "Len 99", "Info 0.00")
        for column, sample in enumerate(samples):
            header.setSectionResizeMode(column, QHeaderView.Interactive)
            icon = metrics.height() + 4 if column == 1 else 0  # the flag's place (SentenceListModel.flag_icon)
            header.resizeSection(column, metrics.horizontalAdvance(sample) + pad + icon)
        header.setStretchLastSection(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(0, Qt.AscendingOrder)
        header.setSectionsClickable(True)
        header.sortIndicatorChanged.connect(self._sort_changed)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.status)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.table)
        self._debounce = QTimer(self, singleShot=True, interval=200)
        self._debounce.timeout.connect(self.apply_filter)
        self.search.textChanged.connect(self._debounce.start)
        self.search.returnPressed.connect(self.open_first_hit)
        self._open_when_read = False
        self.status.currentIndexChanged.connect(self.apply_filter)
        self.model.rowsReplaced.connect(self._rows_replaced)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        session.sentenceChanged.connect(self.show_sentence)
        self.show_sentence(session.current_id)

    def apply_filter(self) -> None:
        self._debounce.stop()
        status = STATUS_FILTERS[self.status.currentText()]
        self._order_for(status)
        self.model.set_filter(status, self.search.text().strip())
        self.show_sentence(self.session.current_id)

    def open_first_hit(self) -> None:
        """Enter in the search box: search now, and open the list's first row in the editor."""
        self.apply_filter()
        self._open_when_read = self.model.reading
        if not self._open_when_read:
            self._open_first_row()

    def _rows_replaced(self) -> None:
        if self._open_when_read:
            self._open_when_read = False
            self._open_first_row()
        self.show_sentence(self.session.current_id)

    def _open_first_row(self) -> None:
        if self.model.rowCount() == 0:
            return
        sid = self.model.data(self.model.index(0, 0), Qt.UserRole)
        if sid is not None:
            self.sentenceActivated.emit(sid)
            self.openRequested.emit()

    def _order_for(self, status: str | None) -> None:
        """The "Annotators disagree" filter lists the most disputed sentences first (no column's
        order, :data:`BY_DISAGREEMENT`); leaving it goes back to document order."""
        header = self.table.horizontalHeader()
        if status == "disagree":
            column, order = BY_DISAGREEMENT, Qt.DescendingOrder
        elif self.model.sort_column == BY_DISAGREEMENT:
            column, order = 0, Qt.AscendingOrder
        else:
            return
        self.model.sort_column, self.model.sort_order = column, order  # set_filter reads the ids again
        header.blockSignals(True)
        header.setSortIndicator(column, order)
        header.blockSignals(False)
        header.viewport().update()

    def shutdown(self) -> None:
        """Stop the list's background work (the project closes)."""
        self.model.shutdown()

    def _sort_changed(self, column: int, order) -> None:
        self.model.sort(column, order)
        self.show_sentence(self.session.current_id)

    def sort_by_informativeness(self) -> None:
        """Most informative first (the Info column, descending)."""
        self.table.horizontalHeader().setSortIndicator(3, Qt.DescendingOrder)

    def set_status_filter(self, label: str) -> None:
        self.status.setCurrentText(label)

    def _row_changed(self, current: QModelIndex, _previous) -> None:
        sid = self.model.data(current, Qt.UserRole) if current.isValid() else None
        if sid is not None and sid != self.session.current_id:
            self.sentenceActivated.emit(sid)

    def show_sentence(self, sentence_id: int | None) -> None:
        row = None if sentence_id is None else self.model.row_of(sentence_id)
        selection = self.table.selectionModel()
        if row is None:
            selection.clearSelection()
            return
        index = self.model.index(row, 0)
        if self.table.currentIndex().row() != row:
            flags = QItemSelectionModel.ClearAndSelect | QItemSelectionModel.Rows
            selection.setCurrentIndex(index, flags)
        self.table.scrollTo(index, QAbstractItemView.PositionAtCenter)

"""The sentence list: a virtual table over ``Project.sentence_summaries``.

Rows are read in pages of :data:`PAGE` as the view asks for them and kept
in a small cache, so the list stays fast for 100k sentences: the view only
ever asks for the rows on screen.  After an edit the edited row is updated
in place (it stays in a filtered list until the filter or search changes,
so rows do not vanish under the annotator's cursor).

The "Info" column shows the informativeness score of each sentence once a
model provides one (:meth:`SentenceListModel.set_scores`); empty until then.
Sorting by a column other than "#" ascending reads the filtered summaries
once and orders them in memory (by Info: the most informative first when
descending); "#" ascending is the paged document order again.
"""

from __future__ import annotations

from collections import OrderedDict

from PySide6.QtCore import (
    QAbstractTableModel,
    QItemSelectionModel,
    QModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor
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

from tagtool.gui.session import Session
from tagtool.store.records import SentenceSummary

PAGE = 200
MAX_PAGES = 32
#: Pages a filtered list reads to find the current sentence's row.
MAX_SCAN = 25
COLUMNS = ("#", "Status", "Len", "Info", "Sentence")
STATUS_FILTERS = {
    "All sentences": None,
    "Not fully labeled": "incomplete",
    "Fully labeled": "full",
    "Partially labeled": "partial",
    "Unlabeled": "none",
}
STATUS_COLORS = {"full": "#2e9d4f", "partial": "#e0a526", "none": "#9a9a9a"}
STATUS_TEXT = {"full": "● full", "partial": "◐ partial", "none": "○ none"}
_ROLES = frozenset({Qt.DisplayRole, Qt.ForegroundRole, Qt.ToolTipRole, Qt.TextAlignmentRole, Qt.UserRole})
_RIGHT = int(Qt.AlignRight | Qt.AlignVCenter)


class SentenceListModel(QAbstractTableModel):
    """Sentence summaries with a status filter and a text search, paged lazily."""

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.status: str | None = None
        self.search: str = ""
        self.scores: dict[int, float] = {}
        self.sort_column, self.sort_order = 0, Qt.AscendingOrder
        self._sorted: list[SentenceSummary] | None = None
        self._sorted_row: dict[int, int] = {}
        self._pages: OrderedDict[int, list[SentenceSummary]] = OrderedDict()
        self._count = self._query_count()
        session.annotationsChanged.connect(self._annotations_changed)

    # ------------------------------------------------------------------
    # filters

    def set_filter(self, status: str | None = None, search: str = "") -> None:
        self.beginResetModel()
        self.status, self.search = status, search
        self._pages.clear()
        self._count = self._query_count()
        self._sort_rows()
        self.endResetModel()

    def refresh(self) -> None:
        self.set_filter(self.status, self.search)

    def set_scores(self, scores: dict[int, float]) -> bool:
        """Informativeness per sentence id (from a model); {} clears.

        True when the rows were re-read (the list is ordered by Info), so the
        view must find the current sentence's row again.
        """
        self.scores = dict(scores)
        if self._sorted is not None and self.sort_column == 3:
            self.refresh()  # the order itself changed
            return True
        if self._count:
            self.dataChanged.emit(self.index(0, 3), self.index(self._count - 1, 3))
        return False

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.beginResetModel()
        self.sort_column, self.sort_order = column, order
        self._sort_rows()
        self.endResetModel()

    def _sort_rows(self) -> None:
        if self.sort_column == 0 and self.sort_order == Qt.AscendingOrder:
            self._sorted, self._sorted_row = None, {}
            return
        rows = self.session.project.sentence_summaries(status=self.status, search=self.search or None)
        position = self.session.index_of
        keys = {
            0: lambda r: position(r.id),
            1: lambda r: (("none", "partial", "full").index(r.status), position(r.id)),
            2: lambda r: (r.n_tokens, position(r.id)),
            3: lambda r: (self.scores.get(r.id, -1.0), -position(r.id)),
            4: lambda r: r.preview.lower(),
        }
        rows.sort(key=keys[self.sort_column], reverse=self.sort_order == Qt.DescendingOrder)
        self._sorted = rows
        self._sorted_row = {r.id: i for i, r in enumerate(rows)}

    def _query_count(self) -> int:
        return self.session.project.count_sentences(status=self.status, search=self.search or None)

    # ------------------------------------------------------------------
    # rows

    def summary(self, row: int) -> SentenceSummary | None:
        if not 0 <= row < self._count:
            return None
        if self._sorted is not None:
            return self._sorted[row] if row < len(self._sorted) else None
        page = row // PAGE
        rows = self._pages.get(page)
        if rows is None:
            rows = self.session.project.sentence_summaries(
                status=self.status, search=self.search or None, offset=page * PAGE, limit=PAGE
            )
            self._pages[page] = rows
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        index = row - page * PAGE
        return rows[index] if index < len(rows) else None

    def row_of(self, sentence_id: int) -> int | None:
        """Row of a sentence in the filtered list, None if it is not there.

        Unfiltered, the row is the sentence's position; filtered, the loaded
        pages are searched, then up to :data:`MAX_SCAN` pages from the top.
        """
        if self._sorted is not None:
            return self._sorted_row.get(sentence_id)
        if self.status is None and not self.search:
            return self.session.index_of(sentence_id)
        for page, rows in list(self._pages.items()):
            for i, summary in enumerate(rows):
                if summary.id == sentence_id:
                    return page * PAGE + i
        for row in range(0, min(self._count, MAX_SCAN * PAGE), PAGE):
            page = row // PAGE
            if page in self._pages:
                continue
            self.summary(row)
            for i, summary in enumerate(self._pages[page]):
                if summary.id == sentence_id:
                    return row + i
        return None

    def _annotations_changed(self, sentence_id: int, _changes) -> None:
        anns = self.session.annotations if sentence_id == self.session.current_id else None
        pages = {0: self._sorted} if self._sorted is not None else self._pages
        for page, rows in pages.items():
            for i, summary in enumerate(rows):
                if summary.id != sentence_id:
                    continue
                if anns is None:
                    anns = self.session.project.annotations(sentence_id)
                n_full = sum(len(a) == 1 for a in anns)
                n_partial = sum(len(a) > 1 for a in anns)
                rows[i] = summary._replace(n_full=n_full, n_partial=n_partial)
                row = page * PAGE + i
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))
                return

    # ------------------------------------------------------------------
    # QAbstractTableModel

    def rowCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else self._count

    def columnCount(self, parent=QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole and section == 3:
            return ("Informativeness: how much the model would learn from labeling the sentence "
                    "(once a model is trained); click to sort")
        return None

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        # The view asks ~8 roles per visible cell on every paint: answer the
        # ones without data first (it is the list's whole painting cost).
        if role not in _ROLES or not index.isValid():
            return None
        column = index.column()
        if role == Qt.TextAlignmentRole:
            return _RIGHT if column in (0, 2, 3) else None
        if role == Qt.ForegroundRole and column != 1:
            return None
        summary = self.summary(index.row())
        if summary is None:
            return None
        if role == Qt.DisplayRole:
            score = None if summary.status == "full" else self.scores.get(summary.id)
            return (
                self.session.index_of(summary.id) + 1,
                STATUS_TEXT[summary.status],
                summary.n_tokens,
                None if score is None else f"{score:.2f}",
                summary.preview,
            )[column]
        if role == Qt.ForegroundRole and column == 1:
            return QColor(STATUS_COLORS[summary.status])
        if role == Qt.ToolTipRole:
            return (f"{summary.document}, sentence {summary.position + 1}: "
                    f"{summary.n_full} full, {summary.n_partial} partial of {summary.n_tokens} tokens")
        if role == Qt.UserRole:
            return summary.id
        return None


class SentenceListPanel(QWidget):
    """Search box, status filter and the table; emits ``sentenceActivated(id)``."""

    sentenceActivated = Signal(int)

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.model = SentenceListModel(session, self)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search text…")
        self.search.setClearButtonEnabled(True)
        self.status = QComboBox(self)
        self.status.addItems(list(STATUS_FILTERS))
        self.table = QTableView(self)
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        header = self.table.horizontalHeader()
        # Widths from the font, not ResizeToContents: sizing from the rows
        # asks the model for every role of every visible cell again on each
        # change (a new model's Info column, an edit), ~30 ms on the GUI thread.
        metrics, pad = self.table.fontMetrics(), 18
        samples = (str(max(session.n_sentences, 10)), max(STATUS_TEXT.values(), key=len), "Len 99", "Info 0.00")
        for column, sample in enumerate(samples):
            header.setSectionResizeMode(column, QHeaderView.Interactive)
            header.resizeSection(column, metrics.horizontalAdvance(sample) + pad)
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
        self.status.currentIndexChanged.connect(self.apply_filter)
        self.table.selectionModel().currentRowChanged.connect(self._row_changed)
        session.sentenceChanged.connect(self.show_sentence)
        self.show_sentence(session.current_id)

    def apply_filter(self) -> None:
        self._debounce.stop()
        status = STATUS_FILTERS[self.status.currentText()]
        self.model.set_filter(status, self.search.text().strip())
        self.show_sentence(self.session.current_id)

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

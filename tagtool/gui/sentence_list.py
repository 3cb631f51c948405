"""The sentence list's model: a virtual table over the project's sentences.

The model holds only the ids of its rows, in display order: for the whole
project in document order, the session's own list (no query at all); for a
status filter, a text search or another sort order, one
:meth:`Project.sentence_ids` query (ids only).  The rows themselves
(:class:`SentenceSummary`: counts and a preview) are read a page of :data:`PAGE` at a time by primary key
(:meth:`~tagtool.store.project_listing.ListingPart.sentence_summaries_by_id`) when the view asks for them, and
at most :data:`MAX_PAGES` pages are kept, so a page at the end of a long
list costs what the first costs and nothing is read for rows never shown.
The row of a sentence is found in the id list by a binary search on its
document position (or, sorted otherwise, a dictionary built once per
order), so selecting a sentence far down a filtered list needs no query.  After an edit the edited row is
updated in place (it stays in a
filtered list until the filter or search changes, so rows do not vanish
under the annotator's cursor).

Flagged and skipped sentences (:mod:`tagtool.store.review`) carry a mark in
the Status column (:mod:`tagtool.gui.sentence_status`) with the comment in
its tooltip; the filter box offers each
(:mod:`tagtool.gui.sentence_list_panel`: the list's search box, filter and
table).  The session's review dictionary holds only
those sentences, so marking a row costs a dictionary lookup.  A split or
merge re-reads the sentence's row (its length and preview changed).

In a project of :data:`BACKGROUND_LIST_MIN` sentences or more, the ids of
a search, a status filter or another order are read in a worker thread
(:class:`~tagtool.store.worker_reads.SentenceIdQuery`, a read-only connection
of its own): the trigram index answers a rare word in a millisecond, but a
common one ("the") or a search shorter than three characters scans every
sentence's text, and so does sorting them by status or length, too slow
for the GUI thread (benchmarks/results/design-measurements.md, "Sentence
list and text search").  The
list keeps its rows until the answer arrives
(:attr:`SentenceListModel.reading`), then shows it (``rowsReplaced``); an
answer to a filter, search or order changed meanwhile is dropped.

The "Info" column shows each sentence's score under the queue strategy
(Go › Queue strategy, :mod:`tagtool.services.strategies`) once a model provides
one (:meth:`SentenceListModel.set_scores`); empty until then.
Sorting by status, length or text is done by SQLite; by Info, the filtered
ids are ordered in memory by their scores (ties stay in document order), in
a big project by the worker that read them.
"""

from __future__ import annotations

import logging
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Sequence

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QPixmap

from tagtool.gui.id_reader import IdReader
from tagtool.gui.sentence_status import flag_pixmaps, row_tooltip, status_color, status_text
from tagtool.gui.session import Session
from tagtool.store.record_types import SentenceSummary
from tagtool.store.worker_reads import SentenceIdQuery

log = logging.getLogger(__name__)

PAGE = 200
MAX_PAGES = 32
#: Projects from this size read the ids of a filtered, searched or sorted
#: list in a worker thread, so that the scan of every sentence's text stays
#: off the GUI thread where it would be felt.
BACKGROUND_LIST_MIN = 20_000
COLUMNS = ("#", "Status", "Len", "Info", "Sentence")
#: ``Project.sentence_ids(order_by=...)`` of each sortable column but Info.
SQL_ORDER = {0: "position", 1: "status", 2: "length", 4: "text"}
INFO = 3
#: ``sort_column`` of the "Annotators disagree" filter's own order (no
#: column): the share of disputed tokens, the most disputed sentences first.
BY_DISAGREEMENT = -1
#: The list's filters (the panel's box) and the ``status`` of :meth:`Project.sentence_ids` each reads.
STATUS_FILTERS = {
    "All sentences": None,
    "Not fully labeled": "incomplete",
    "Fully labeled": "full",
    "Partially labeled": "partial",
    "Unlabeled": "none",
    "Flagged for review": "flagged",
    "Skipped": "skipped",
    "Annotators disagree": "disagree",  # unresolved: tokens left to adjudicate (tagtool.store.team)
}
_ROLES = frozenset(
    {Qt.DisplayRole, Qt.ForegroundRole, Qt.ToolTipRole, Qt.TextAlignmentRole, Qt.UserRole, Qt.DecorationRole}
)
_RIGHT = int(Qt.AlignRight | Qt.AlignVCenter)
_LEFT = Qt.AlignLeft | Qt.AlignVCenter


def by_score(ids: Sequence[int], scores: dict[int, float], descending: bool) -> list[int]:
    """``ids`` ordered by their Info score (none: -1), ties in the given (document) order."""
    score = scores.get
    return sorted(ids, key=lambda sid: score(sid, -1.0), reverse=descending)


class _Sorted(list):
    """Ids a worker has already ordered by Info (:meth:`SentenceListModel._background_query`)."""


class SentenceListModel(QAbstractTableModel):
    """Sentence summaries with a status filter, a text search and a sort order, read lazily."""

    #: The rows were replaced by the answer of a background read.
    rowsReplaced = Signal()

    def __init__(self, session: Session, parent=None):
        super().__init__(parent)
        self.session = session
        self.status: str | None = None
        self.search: str = ""
        self.scores: dict[int, float] = {}
        #: The Info header's tooltip (the window names the queue strategy whose scores it shows).
        self.info_tip = (
            "Informativeness: how much the model would learn from labeling the sentence "
            "(once a model is trained); click to sort"
        )
        self.sort_column, self.sort_order = 0, Qt.AscendingOrder
        self._ids: Sequence[int] = ()
        self._rows: dict[int, int] | None = None  # id -> row, built when first asked
        self._pages: OrderedDict[int, list[SentenceSummary]] = OrderedDict()
        self._flag_icons: tuple[QPixmap, QPixmap] | None = None
        # Every change of filter, search or order is a new generation; a
        # background answer of an older one is dropped.
        self._generation, self._pending = 0, False
        self._reader = IdReader(self)
        self._reader.done.connect(self._read_done, Qt.QueuedConnection)
        self._reader.failed.connect(self._read_failed, Qt.QueuedConnection)
        self._set_ids(self._read_ids())
        session.annotationsChanged.connect(self._annotations_changed)
        session.reviewChanged.connect(self._row_changed)
        session.tokensChanged.connect(self._tokens_changed)

    # ------------------------------------------------------------------
    # filters and order

    def set_filter(self, status: str | None = None, search: str = "") -> None:
        self.status, self.search = status, search
        self._reload()

    def refresh(self) -> None:
        self._reload()

    def set_scores(self, scores: dict[int, float], notify: bool = True) -> bool:
        """Informativeness per sentence id (from a model); {} clears.

        True when the rows were re-read (the list is ordered by Info), so the
        view must find the current sentence's row again.  ``notify`` False:
        the caller repaints the Info column itself (no ``dataChanged``, which
        repaints the whole list in a later turn of the event loop).
        """
        self.scores = dict(scores)
        if self.sort_column == INFO:
            self.refresh()  # the order itself changed
            return True
        if self._ids and notify:
            self.dataChanged.emit(self.index(0, INFO), self.index(len(self._ids) - 1, INFO))
        return False

    def sort(self, column: int, order=Qt.AscendingOrder) -> None:
        self.sort_column, self.sort_order = column, order
        self._reload()

    @property
    def _whole_project(self) -> bool:
        """Every sentence in document order: the rows are the session's own id list."""
        return (
            self.status is None and not self.search and self.sort_column == 0 and self.sort_order == Qt.AscendingOrder
        )

    def _reload(self) -> None:
        """Read the rows' ids again: at once, or for a big project in a worker."""
        self._generation += 1
        query = self._background_query()
        if query is not None:
            self._start_read(query)
            return
        self._reader.cancel()
        self._take(self._read_ids())

    def _query_order(self) -> tuple[str, bool]:
        """``order_by`` and ``descending`` of the ids query (by Info: document order, sorted here)."""
        if self.sort_column == INFO:
            return "position", False
        if self.sort_column == BY_DISAGREEMENT:
            return "disagreement", True
        return SQL_ORDER[self.sort_column], self.sort_order == Qt.DescendingOrder

    def _read_ids(self) -> Sequence[int]:
        """The ids of the rows, as the query returns them (only ids: rows are read by page)."""
        if self._whole_project:
            return self.session.sentence_ids
        order_by, descending = self._query_order()
        return self.session.project.sentence_ids(
            status=self.status, search=self.search or None, order_by=order_by, descending=descending
        )

    def _set_ids(self, ids: Sequence[int], by_info: bool = False) -> None:
        """Take the ids of the rows (sorted by Info here unless ``by_info``: a worker did), dropping the pages read."""
        self._pages.clear()
        self._rows = None
        if self.sort_column == INFO and not self._whole_project and not by_info:
            ids = by_score(ids, self.scores, self.sort_order == Qt.DescendingOrder)
        self._ids = ids

    # ------------------------------------------------------------------
    # reading the ids in a worker thread

    @property
    def reading(self) -> bool:
        """A background read of the ids runs; the rows are still the previous ones."""
        return self._pending

    def _background_query(self) -> Callable[..., list[int]] | None:
        """The read of the ids for a worker thread (sorted there by Info too), or None: read them here."""
        if self._whole_project or self.session.n_sentences < BACKGROUND_LIST_MIN:
            return None
        order_by, descending = self._query_order()
        query = SentenceIdQuery.of(
            self.session.project,
            status=self.status,
            search=self.search or None,
            order_by=order_by,
            descending=descending,
        )
        if query is None or self.sort_column != INFO:
            return query
        # set_scores replaces the dictionary, never changes it: the worker may read this one.
        scores, descending = self.scores, self.sort_order == Qt.DescendingOrder
        return lambda should_stop=None: _Sorted(by_score(query(should_stop), scores, descending))

    def _start_read(self, query: SentenceIdQuery) -> None:
        self._pending = True
        self._reader.start(self._generation, query)

    def _read_done(self, generation: int, ids: list[int]) -> None:
        if generation == self._generation:  # else the filter, search, order or scores changed since
            self._take(ids, by_info=isinstance(ids, _Sorted))
            self.rowsReplaced.emit()

    def _read_failed(self, generation: int, message: str) -> None:
        if generation == self._generation:
            log.warning("reading the list in the background failed (%s); reading it here", message)
            self._take(self._read_ids())
            self.rowsReplaced.emit()

    def _take(self, ids: Sequence[int], by_info: bool = False) -> None:
        self._pending = False
        self.beginResetModel()
        self._set_ids(ids, by_info)
        self.endResetModel()

    def shutdown(self) -> None:
        """Stop a background read and wait for its thread (the project closes)."""
        self._generation += 1
        self._pending = False
        self._reader.shutdown()

    # ------------------------------------------------------------------
    # rows

    def summary(self, row: int) -> SentenceSummary | None:
        if not 0 <= row < len(self._ids):
            return None
        page = row // PAGE
        rows = self._pages.get(page)
        if rows is None:
            ids = self._ids[page * PAGE : (page + 1) * PAGE]
            rows = self._pages[page] = self.session.project.listing.sentence_summaries_by_id(ids)
            while len(self._pages) > MAX_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows[row - page * PAGE]

    def row_of(self, sentence_id: int) -> int | None:
        """Row of a sentence in the list as filtered and sorted, None if it is not there."""
        position = self.session.index_of
        if self._whole_project:
            return position(sentence_id)
        if self.sort_column == 0:  # document order: a binary search by position
            sign = -1 if self.sort_order == Qt.DescendingOrder else 1
            row = bisect_left(self._ids, sign * position(sentence_id), key=lambda sid: sign * position(sid))
            return row if row < len(self._ids) and self._ids[row] == sentence_id else None
        if self._rows is None:
            self._rows = {sid: row for row, sid in enumerate(self._ids)}
        return self._rows.get(sentence_id)

    @property
    def pages_read(self) -> int:
        """How many pages of rows are held now (at most :data:`MAX_PAGES`)."""
        return len(self._pages)

    def _annotations_changed(self, sentence_id: int, _changes) -> None:
        row = self.row_of(sentence_id)
        if row is None:
            return
        rows = self._pages.get(row // PAGE)
        if rows is None:
            return  # not held: read with its new counts when it is shown
        anns = (
            self.session.annotations
            if sentence_id == self.session.current_id
            else self.session.project.annotations(sentence_id)
        )
        i = row - (row // PAGE) * PAGE
        rows[i] = rows[i]._replace(n_full=sum(len(a) == 1 for a in anns), n_partial=sum(len(a) > 1 for a in anns))
        self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _row_changed(self, sentence_id: int) -> None:
        """A flag or skip changed: repaint the row (it stays in a filtered list until the filter changes)."""
        row = self.row_of(sentence_id)
        if row is not None:
            self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def _tokens_changed(self, sentence_id: int, _focus: int) -> None:
        """A split or merge: the row's length and preview changed, read it again."""
        row = self.row_of(sentence_id)
        rows = None if row is None else self._pages.get(row // PAGE)
        if rows is not None:
            rows[row - (row // PAGE) * PAGE] = self.session.project.listing.sentence_summaries_by_id([sentence_id])[0]
        self._row_changed(sentence_id)

    def flag_icon(self, flagged: bool) -> QPixmap:
        """A red flag before a flagged row's status (the status keeps its colour); blank space on the others."""
        if self._flag_icons is None:
            self._flag_icons = flag_pixmaps()
        return self._flag_icons[flagged]

    # ------------------------------------------------------------------
    # QAbstractTableModel

    def rowCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(self._ids)

    def columnCount(self, parent=None) -> int:
        return 0 if parent is not None and parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.DisplayRole):
        if orientation == Qt.Horizontal and role == Qt.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Horizontal and role == Qt.ToolTipRole and section == INFO:
            return self.info_tip
        return None

    def data(self, index: QModelIndex, role=Qt.DisplayRole):
        # The list paints through SentenceRowDelegate (one call per cell, cell());
        # data() answers the other askers: tooltips, tests, accessibility.
        if role not in _ROLES or not index.isValid():
            return None
        column = index.column()
        if role == Qt.TextAlignmentRole:
            return _RIGHT if column in (0, 2, 3) else None
        if role in (Qt.ForegroundRole, Qt.DecorationRole) and column != 1:
            return None
        if role == Qt.UserRole:  # the id needs no row read
            return self._ids[index.row()] if index.row() < len(self._ids) else None
        if role == Qt.DecorationRole:  # the flag needs no row read either
            sid = self._ids[index.row()] if index.row() < len(self._ids) else None
            return self.flag_icon(self.session.edits.review(sid).flagged)
        summary = self.summary(index.row())
        if summary is None:
            return None
        if role == Qt.DisplayRole:
            return self._display(summary, column)
        if role == Qt.ForegroundRole and column == 1:
            return status_color(summary, self.session.edits.review(summary.id))
        if role == Qt.ToolTipRole:
            return row_tooltip(summary, self.session.edits.review(summary.id))
        return None

    def _display(self, summary: SentenceSummary, column: int):
        if column == 0:
            return self.session.index_of(summary.id) + 1
        if column == 1:
            return status_text(summary, self.session.edits.review(summary.id))
        if column == 2:
            return summary.n_tokens
        if column == INFO:
            score = None if summary.status == "full" else self.scores.get(summary.id)
            return None if score is None else f"{score:.2f}"
        return summary.preview

    def cell(self, row: int, column: int) -> tuple[str, int, QColor | None, QPixmap | None] | None:
        """What the delegate paints in a cell: ``(text, alignment, colour or None, icon or None)``."""
        summary = self.summary(row)
        if summary is None:
            return None
        value = self._display(summary, column)
        text = "" if value is None else str(value)
        if column == 1:
            review = self.session.edits.review(summary.id)
            return text, _LEFT, status_color(summary, review), self.flag_icon(review.flagged)
        return text, (_RIGHT if column in (0, 2, 3) else _LEFT), None, None

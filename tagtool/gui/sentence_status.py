"""How a sentence's status is shown: its text, colour and flag in the sentence list, its tooltip.

The status of a sentence is how much of it is labeled (full, partial,
none: :class:`~tagtool.store.record_types.SentenceSummary`); a skipped sentence
(:mod:`tagtool.store.review`) shows "↷ skipped" instead, a flagged one a red
⚑ before its status, with the reviewer's comment in the tooltip.  The
colours are shared with the statistics panel and the editor's review line.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPixmap
from PySide6.QtWidgets import QApplication

from tagtool.store.record_types import SentenceSummary
from tagtool.store.review import Review

STATUS_COLORS = {"full": "#2e9d4f", "partial": "#e0a526", "none": "#9a9a9a"}
STATUS_TEXT = {"full": "● full", "partial": "◐ partial", "none": "○ none"}
FLAG_MARK, SKIPPED_TEXT = "⚑ ", "↷ skipped"
FLAG_COLOR, SKIPPED_COLOR = "#d62728", "#8a8a8a"
#: The widest Status text (sizes the column, with its flag icon's place).
WIDEST_STATUS = max([*STATUS_TEXT.values(), SKIPPED_TEXT], key=len)


def status_text(summary: SentenceSummary, review: Review) -> str:
    return SKIPPED_TEXT if review.skipped else STATUS_TEXT[summary.status]


def status_color(summary: SentenceSummary, review: Review) -> QColor:
    return QColor(SKIPPED_COLOR if review.skipped else STATUS_COLORS[summary.status])


def flag_pixmaps() -> tuple[QPixmap, QPixmap]:
    """Blank space and a red flag, each as high as a line of the application's font (not flagged, flagged)."""
    font = QApplication.font()
    size = QFontMetrics(font).height()
    icons = []
    for mark in ("", FLAG_MARK.strip()):
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.transparent)
        painter = QPainter(pixmap)
        painter.setFont(font)
        painter.setPen(QColor(FLAG_COLOR))
        painter.drawText(pixmap.rect(), Qt.AlignCenter, mark)
        painter.end()
        icons.append(pixmap)
    return icons[0], icons[1]


def row_tooltip(summary: SentenceSummary, review: Review) -> str:
    """Where the sentence is, its counts, and its flag's comment or its skip."""
    text = (
        f"{summary.document}, sentence {summary.position + 1}: "
        f"{summary.n_full} full, {summary.n_partial} partial of {summary.n_tokens} tokens"
    )
    if review.flagged:
        text += "\nFlagged for review" + (f": {review.comment}" if review.comment else "")
    if review.skipped:
        text += "\nSkipped: left out of the queue and of training"
    return text

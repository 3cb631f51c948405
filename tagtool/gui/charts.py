"""Two small charts painted with QPainter: lines over a shared x axis, and horizontal bars.

The statistics panel (:mod:`tagtool.gui.statistics_panel`) draws annotation
progress over time and the speed by action kind with them; both take the
palette's colours, so they follow the theme.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget


@dataclass
class Series:
    name: str
    color: str
    points: list = field(default_factory=list)  # (x, y)


class LineChart(QWidget):
    """Lines over a shared x axis (time or a count), y in [y_min, y_max]."""

    def __init__(self, title: str, y_label: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.title, self.y_label = title, y_label
        self.series: list[Series] = []
        self.y_range: tuple[float, float] | None = None
        self.x_format = lambda x: f"{x:g}"
        self.empty_text = "No data yet."
        self.setMinimumHeight(170)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def set_series(self, series: list[Series], y_range=None, x_format=None) -> None:
        self.series, self.y_range = series, y_range
        if x_format is not None:
            self.x_format = x_format
        self.update()

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        pal = self.palette()
        fm = QFontMetricsF(self.font())
        text = pal.color(QPalette.WindowText)
        p.setPen(text)
        p.drawText(QRectF(0, 0, self.width(), fm.height() + 4), Qt.AlignLeft | Qt.AlignVCenter, self.title)
        points = [pt for s in self.series for pt in s.points]
        legend_h = fm.height() + 4
        plot = QRectF(fm.horizontalAdvance("0000.00") + 6, fm.height() + 8, 0, 0)
        plot.setRight(self.width() - 10)
        plot.setBottom(self.height() - fm.height() - 6 - legend_h)
        p.fillRect(plot, pal.color(QPalette.Base))
        p.setPen(QPen(pal.color(QPalette.Mid), 1))
        p.drawRect(plot)
        if not points:
            p.setPen(pal.color(QPalette.PlaceholderText))
            p.drawText(plot, Qt.AlignCenter, self.empty_text)
            return
        xs = [x for x, _ in points]
        ys = [y for _, y in points]
        x0, x1 = min(xs), max(xs)
        y0, y1 = self.y_range or (min(0.0, min(ys)), max(ys) or 1.0)
        if x1 == x0:
            x0, x1 = x0 - 1, x1 + 1
        if y1 == y0:
            y1 = y0 + 1

        def at(x, y):
            return QPointF(
                plot.left() + (x - x0) / (x1 - x0) * plot.width(), plot.bottom() - (y - y0) / (y1 - y0) * plot.height()
            )

        self._draw_axes(p, plot, fm, text, at, (x0, x1, y0, y1))
        self._draw_series(p, plot, fm, text, at, legend_h)
        p.end()

    def _draw_axes(self, p: QPainter, plot: QRectF, fm: QFontMetricsF, text: QColor, at, bounds) -> None:
        """Three y values left of the plot, the first and last x below it."""
        x0, x1, y0, y1 = bounds
        p.setPen(text)
        for y in (y0, (y0 + y1) / 2, y1):
            pt = at(x0, y)
            label = f"{y:.2f}" if y1 - y0 <= 2 else f"{y:.0f}"
            p.drawText(
                QRectF(0, pt.y() - fm.height() / 2, plot.left() - 4, fm.height()),
                Qt.AlignRight | Qt.AlignVCenter,
                label,
            )
        axis = plot.bottom() + 2
        p.drawText(QRectF(plot.left(), axis, plot.width() / 2, fm.height()), Qt.AlignLeft, self.x_format(x0))
        p.drawText(QRectF(plot.center().x(), axis, plot.width() / 2, fm.height()), Qt.AlignRight, self.x_format(x1))

    def _draw_series(self, p: QPainter, plot: QRectF, fm: QFontMetricsF, text: QColor, at, legend_h: float) -> None:
        """Each series' line (with its points, when few), and its name in the legend below."""
        x = plot.left()
        for s in self.series:
            color = QColor(s.color)
            pen = QPen(color, 2)
            p.setPen(pen)
            pts = [at(a, b) for a, b in s.points]
            for a, b in zip(pts, pts[1:]):
                p.drawLine(a, b)
            p.setBrush(color)
            for pt in pts if len(pts) < 60 else ():
                p.drawEllipse(pt, 2.5, 2.5)
            legend_y = self.height() - legend_h
            p.fillRect(QRectF(x, legend_y + fm.height() / 2 - 1, 14, 3), color)
            p.setPen(text)
            p.drawText(QRectF(x + 18, legend_y, fm.horizontalAdvance(s.name) + 4, fm.height()), Qt.AlignLeft, s.name)
            x += fm.horizontalAdvance(s.name) + 34


class BarChart(QWidget):
    """Horizontal bars, one row per item: ``(name, value, colour, note)``."""

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.title = title
        self.items: list[tuple[str, float, str, str]] = []
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)

    def set_items(self, items) -> None:
        self.items = list(items)
        self._fit_height()
        self.update()

    def _title_height(self) -> float:
        """The title's height, wrapped at word ends to the chart's width (a narrow dock gets two lines)."""
        fm = QFontMetricsF(self.font())
        box = fm.boundingRect(QRectF(0, 0, max(self.width(), 1), 1e4), Qt.TextWordWrap, self.title)
        return max(box.height(), fm.height()) + 4

    def _fit_height(self) -> None:
        fm = QFontMetricsF(self.font())
        self.setFixedHeight(int(self._title_height() + len(self.items) * (fm.height() + 4) + 8))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._fit_height()  # the same width gives the same height: no second round

    def paintEvent(self, _event) -> None:
        p = QPainter(self)
        pal = self.palette()
        fm = QFontMetricsF(self.font())
        row = fm.height() + 4
        text = pal.color(QPalette.WindowText)
        p.setPen(text)
        head = self._title_height()
        p.drawText(QRectF(0, 0, self.width(), head), Qt.AlignLeft | Qt.AlignVCenter | Qt.TextWordWrap, self.title)
        name_w = max((fm.horizontalAdvance(n) for n, *_ in self.items), default=0) + 8
        note_w = max((fm.horizontalAdvance(note) for *_, note in self.items), default=0) + 8
        top = max((v for _, v, _, _ in self.items), default=0) or 1
        bar_w = max(10.0, self.width() - name_w - note_w - 8)
        for i, (name, value, color, note) in enumerate(self.items):
            y = head + i * row + 4
            p.setPen(text)
            p.drawText(QRectF(0, y, name_w - 6, row), Qt.AlignRight | Qt.AlignVCenter, name)
            width = bar_w * value / top
            p.fillRect(QRectF(name_w, y + 3, max(width, 1.0), row - 6), QColor(color))
            p.drawText(QRectF(name_w + width + 4, y, note_w, row), Qt.AlignLeft | Qt.AlignVCenter, note)
        p.end()

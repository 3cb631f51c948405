"""The learning curve of the statistics dock, drawn with pyqtgraph.

Two plots share one series per learner (a legend names them): the
cross-validated span F1 of each stored model against the tokens it was
trained on, and against the annotation minutes the action log holds up to
its training (:func:`tagtool.gui.stats.learning_curve`).  Each point's
tooltip names its model.

pyqtgraph is imported when the first model is drawn, not when the window
opens (it takes a third of a second), and follows the palette: the light
and dark themes (:mod:`tagtool.gui.style`) restyle it on a palette change.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import QEvent
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from tagtool.gui.stats import CurvePoint, by_learner
from tagtool.gui.style import is_dark
from tagtool.store.actions import IDLE_SECONDS

#: Series colours by order of the learner's first model (Okabe–Ito), for a light and a dark background.
LIGHT_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
DARK_COLORS = ("#56b4e9", "#ff9a4d", "#3ddc97", "#f08fd0", "#f0c05a", "#a0a0ff")
#: Height of each plot in pixels.
PLOT_HEIGHT = 210

#: (x field of CurvePoint, caption, axis label, text when no point has an x)
AXES = (
    ("labeled_tokens", "against labeled tokens", "labeled tokens (full labels)",
     "No cross-validated model yet: train one with cross-validation on (Model panel)."),
    ("minutes", "against annotation minutes", f"annotation minutes (gaps over {IDLE_SECONDS:g} s count as "
     f"{IDLE_SECONDS:g} s)",
     "No annotation time logged before these models: the app logs the time of each edit from now on."),
)


class LearningCurvePlots(QWidget):
    """The learning curve: CV F1 against labeled tokens and against annotation minutes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.points: list[CurvePoint] = []
        self.plots: list = []  # pyqtgraph PlotWidgets, built on the first point
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Learning curve: cross-validated span F1 of each stored model, one line per learner", self)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.captions, self.notes = [], []
        for _, caption, _, empty in AXES:
            label, note = QLabel(caption, self), QLabel(empty, self)
            note.setWordWrap(True)
            note.setForegroundRole(QPalette.PlaceholderText)
            self.captions.append(label)
            self.notes.append(note)
            layout.addWidget(label)
            layout.addWidget(note)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Minimum)
        self._show()

    def set_points(self, points: Sequence[CurvePoint]) -> None:
        """Draw ``points`` (one series per learner); an empty list shows what to do instead."""
        self.points = list(points)
        if self.points and not self.plots:
            self._build()
        if self.plots:
            self._draw()
        self._show()

    def has_data(self, axis: int) -> bool:
        """Whether plot ``axis`` (0 tokens, 1 minutes) has something to draw."""
        field = AXES[axis][0]
        return any(getattr(p, field) > 0 for p in self.points) if axis else bool(self.points)

    def _show(self) -> None:
        # Without a model only the first note says what to do; with models a
        # plot without minutes (models older than the log) says why instead.
        for i, note in enumerate(self.notes):
            drawn = self.has_data(i)
            note.setVisible(not drawn and (i == 0 or bool(self.points)))
            self.captions[i].setVisible(bool(self.points))
            if self.plots:
                self.plots[i].setVisible(drawn)

    def _build(self) -> None:
        import pyqtgraph as pg  # on first use: its import costs a third of a second

        layout = self.layout()
        for i, (_, _, axis_label, _) in enumerate(AXES):
            widget = pg.PlotWidget(self)
            widget.setFixedHeight(PLOT_HEIGHT)
            item = widget.getPlotItem()
            item.setMouseEnabled(False, False)  # a wheel then goes on to the dock, which scrolls
            item.setMenuEnabled(False)
            item.hideButtons()
            item.showGrid(x=True, y=True, alpha=0.2)
            item.addLegend(offset=(-8, -8))
            item.setLabel("bottom", axis_label)
            item.setLabel("left", "CV span F1 (%)")
            layout.insertWidget(layout.indexOf(self.notes[i]), widget)
            self.plots.append(widget)
        self._restyle()

    def _colors(self) -> tuple[str, ...]:
        return DARK_COLORS if is_dark(self.palette()) else LIGHT_COLORS

    def _draw(self) -> None:
        import pyqtgraph as pg

        colors, background = self._colors(), self.palette().color(QPalette.Base)
        series = by_learner(self.points)
        for (field, *_), widget in zip(AXES, self.plots):
            item = widget.getPlotItem()
            item.clear()
            for n, (learner, points) in enumerate(series.items()):
                color = colors[n % len(colors)]
                xs = [float(getattr(p, field)) for p in points]
                ys = [100.0 * p.f1 for p in points]
                item.plot(xs, ys, pen=pg.mkPen(color, width=2), name=learner)
                # the points in an item of their own: a line's built-in symbols would drop the tooltips
                item.addItem(pg.ScatterPlotItem(
                    xs, ys, data=[_tip(p) for p in points], hoverable=True, tip=lambda x, y, data: data,
                    brush=pg.mkBrush(color), pen=pg.mkPen(background, width=1), size=8))
            top = max(100.0 * p.f1 for p in self.points)
            low = min(100.0 * p.f1 for p in self.points)
            item.setYRange(max(0.0, low - 5.0), min(100.0, top + 5.0), padding=0.02)

    def _restyle(self) -> None:
        import pyqtgraph as pg

        pal = self.palette()
        text, base, mid = pal.color(QPalette.WindowText), pal.color(QPalette.Base), pal.color(QPalette.Mid)
        for widget in self.plots:
            widget.setBackground(base)
            item = widget.getPlotItem()
            for name in ("left", "bottom"):
                axis = item.getAxis(name)
                axis.setPen(pg.mkPen(mid))
                axis.setTextPen(pg.mkPen(text))
                axis.label.setDefaultTextColor(text)
            legend = item.legend
            legend.setLabelTextColor(text)
            legend.setBrush(pg.mkBrush(base.red(), base.green(), base.blue(), 220))
            legend.setPen(pg.mkPen(mid))
        if self.points:
            self._draw()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange and self.plots:
            self._restyle()


def _tip(p: CurvePoint) -> str:
    accuracy = "" if p.token_accuracy is None else f", token accuracy {100 * p.token_accuracy:.1f}%"
    return (f"model {p.model_id} ({p.learner}), {time.strftime('%d %b %H:%M', time.localtime(p.created))}\n"
            f"CV span F1 {100 * p.f1:.1f}%{accuracy}\n"
            f"{p.labeled_tokens} labeled tokens, {p.minutes:.1f} annotation minutes")

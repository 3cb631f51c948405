"""The learning curve of the statistics dock, drawn with pyqtgraph.

Two plots share one series per learner (a legend names them): the
cross-validated span F1 of each stored model against the tokens it was
trained on, and against the annotation minutes the action log holds up to
its training (:func:`tagtool.gui.statistics_numbers.learning_curve`).  Each point's
tooltip names its model.

pyqtgraph is imported when the first model is drawn, not when the window
opens, and in a thread of its own (:class:`BackgroundImport`: on the GUI
thread its import froze the window when the dock was first shown).  The
plots are then built a piece per turn of the event loop (a view and its
axes, the plot item, the widget), placeholders of the plots' height holding
their place meanwhile, and shown once drawn
(benchmarks/results/design-measurements.md, "GUI thread: stalls").  They follow the palette: the light and dark themes
(:mod:`tagtool.gui.style`) restyle them on a palette change.
"""

from __future__ import annotations

import importlib
import logging
import sys
import threading
import time
from collections.abc import Iterator, Sequence

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from tagtool.gui.statistics_numbers import CurvePoint, by_learner
from tagtool.gui.style import is_dark
from tagtool.store.actions import IDLE_SECONDS

#: Series colours by order of the learner's first model (Okabe–Ito), for a light and a dark background.
LIGHT_COLORS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9")
DARK_COLORS = ("#56b4e9", "#ff9a4d", "#3ddc97", "#f08fd0", "#f0c05a", "#a0a0ff")
log = logging.getLogger(__name__)

#: Height of each plot in pixels.
PLOT_HEIGHT = 210
#: The shown axes of a plot, made a turn before its PlotItem (which shows every axis it is given and
#: makes the hidden top and right ones itself).
AXIS_NAMES = ("left", "bottom")

#: (x field of CurvePoint, caption, axis label, text when no point has an x)
AXES = (
    (
        "labeled_tokens",
        "against labeled tokens",
        "labeled tokens (full labels)",
        "No cross-validated model yet: train one with cross-validation on (Model panel).",
    ),
    (
        "minutes",
        "against annotation minutes",
        f"annotation minutes (gaps over {IDLE_SECONDS:g} s count as {IDLE_SECONDS:g} s)",
        "No annotation time logged before these models: the app logs the time of each edit from now on.",
    ),
)


class BackgroundImport(QObject):
    """Imports a module once, on a thread of its own; ``ready`` when it can be used.

    Importing runs Python (the module's top level), so the thread holds the
    GIL most of the time, but gives it up at the switch interval whenever
    the GUI thread asks for it: the window goes on meanwhile.  Nothing on
    the GUI thread may import the module before ``ready`` (it would wait
    for the thread's import lock).
    """

    #: Emitted (on the GUI thread: a queued signal) when the import has ended, even if it failed.
    ready = Signal()

    def __init__(self, module: str, parent: QObject | None = None):
        super().__init__(parent)
        self.module = module
        self.done = False
        self._thread: threading.Thread | None = None

    def request(self) -> bool:
        """True if the module can be imported now at no cost; else start importing it (``ready`` follows)."""
        if self.done:
            return True
        if self._thread is None:
            if self.module in sys.modules:  # imported before, by something else
                self.done = True
                return True
            self._thread = threading.Thread(target=self._run, name=f"import {self.module}", daemon=True)
            self._thread.start()
        return False

    def _run(self) -> None:  # the import thread
        try:
            importlib.import_module(self.module)
        except Exception:  # the GUI thread's own import then raises it where it is used
            log.exception("importing %s in the background failed", self.module)
        self.done = True
        self.ready.emit()


_PYQTGRAPH: BackgroundImport | None = None


def pyqtgraph_import() -> BackgroundImport:
    """The one background import of pyqtgraph (made on the GUI thread at first use)."""
    global _PYQTGRAPH
    if _PYQTGRAPH is None:
        _PYQTGRAPH = BackgroundImport("pyqtgraph")
    return _PYQTGRAPH


class LearningCurvePlots(QWidget):
    """The learning curve: CV F1 against labeled tokens and against annotation minutes."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.points: list[CurvePoint] = []
        self.plots: list = []  # pyqtgraph PlotWidgets, built after the first point
        self._steps: Iterator[None] | None = None  # the build under way (one step per turn)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Learning curve: cross-validated span F1 of each stored model, one line per learner", self)
        self.title.setWordWrap(True)
        layout.addWidget(self.title)
        self.captions, self.notes, self.placeholders = [], [], []
        for _, caption, _, empty in AXES:
            label, note = QLabel(caption, self), QLabel(empty, self)
            note.setWordWrap(True)
            note.setForegroundRole(QPalette.PlaceholderText)
            placeholder = QLabel("Drawing the plot…", self)  # holds the plot's place while it is built
            placeholder.setFixedHeight(PLOT_HEIGHT)
            placeholder.setForegroundRole(QPalette.PlaceholderText)
            placeholder.hide()
            self.captions.append(label)
            self.notes.append(note)
            self.placeholders.append(placeholder)
            for widget in (label, placeholder, note):
                layout.addWidget(widget)
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Minimum)
        self._show()

    @property
    def settled(self) -> bool:
        """Nothing left to build: the plots are drawn, or there is nothing to plot."""
        return self._steps is None and (not self.points or len(self.plots) == len(AXES))

    def set_points(self, points: Sequence[CurvePoint]) -> None:
        """Draw ``points`` (one series per learner); an empty list shows what to do instead.

        The first points start building the plots (:meth:`_build_steps`);
        they are drawn when it ends.  The same points again (the dock
        refreshes after every edit and every stored model) draw nothing:
        a redraw is dozens of Python calls of pyqtgraph on the GUI thread.
        """
        points = list(points)
        if points == self.points:
            return
        self.points = points
        if self.points and not self.plots and self._steps is None:
            self._steps = self._build_steps()
            importer = pyqtgraph_import()
            if importer.request():
                QTimer.singleShot(0, self, self._next_step)
            else:
                importer.ready.connect(self._next_step)
        elif self._steps is None and self.plots:
            self._draw()
        self._show()

    def has_data(self, axis: int) -> bool:
        """Whether plot ``axis`` (0 tokens, 1 minutes) has something to draw."""
        field = AXES[axis][0]
        return any(getattr(p, field) > 0 for p in self.points) if axis else bool(self.points)

    def _show(self) -> None:
        # Without a model only the first note says what to do; with models a
        # plot without minutes (models older than the log) says why instead.
        built = self._steps is None and bool(self.plots)
        for i, note in enumerate(self.notes):
            drawn = self.has_data(i)
            note.setVisible(not drawn and (i == 0 or bool(self.points)))
            self.captions[i].setVisible(bool(self.points))
            self.placeholders[i].setVisible(drawn and not built)
            if built:
                self.plots[i].setVisible(drawn)

    def _next_step(self) -> None:
        """Run one step of the build, and schedule the next one in a later turn of the event loop."""
        if self._steps is None:
            return
        try:
            next(self._steps)
        except StopIteration:
            self._steps = None
            self._show()
            return
        QTimer.singleShot(0, self, self._next_step)

    def _build_steps(self) -> Iterator[None]:
        """Build the plots, yielding between pieces so that each piece is one short turn of the event loop."""
        import pyqtgraph as pg  # imported by now (BackgroundImport)

        layout = self.layout()
        for i, (_, _, axis_label, _) in enumerate(AXES):
            view, axes = pg.ViewBox(), {name: pg.AxisItem(name) for name in AXIS_NAMES}
            yield
            item = pg.PlotItem(viewBox=view, axisItems=axes)
            item.setMouseEnabled(False, False)  # a wheel then goes on to the dock, which scrolls
            item.setMenuEnabled(False)
            item.hideButtons()
            item.showGrid(x=True, y=True, alpha=0.2)
            item.addLegend(offset=(-8, -8))
            item.setLabel("bottom", axis_label)
            item.setLabel("left", "CV span F1 (%)")
            yield
            widget = pg.PlotWidget(self, plotItem=item)
            widget.setFixedHeight(PLOT_HEIGHT)
            widget.hide()  # shown in place of its placeholder once drawn
            layout.insertWidget(layout.indexOf(self.placeholders[i]), widget)
            self.plots.append(widget)
            yield
        self._restyle()
        yield
        self._draw()

    def _colors(self) -> tuple[str, ...]:
        return DARK_COLORS if is_dark(self.palette()) else LIGHT_COLORS

    def _draw(self) -> None:
        import pyqtgraph as pg

        if not self.points:  # the models with CV metrics were all dropped (a project keeps its newest)
            for widget in self.plots:
                widget.getPlotItem().clear()
            return
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
                item.addItem(
                    pg.ScatterPlotItem(
                        xs,
                        ys,
                        data=[_tip(p) for p in points],
                        hoverable=True,
                        tip=lambda x, y, data: data,
                        brush=pg.mkBrush(color),
                        pen=pg.mkPen(background, width=1),
                        size=8,
                    )
                )
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
        if self.points and self._steps is None:  # (a build under way draws at its end)
            self._draw()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange and self.plots:
            self._restyle()


def _tip(p: CurvePoint) -> str:
    accuracy = "" if p.token_accuracy is None else f", token accuracy {100 * p.token_accuracy:.1f}%"
    return (
        f"model {p.model_id} ({p.learner}), {time.strftime('%d %b %H:%M', time.localtime(p.created))}\n"
        f"CV span F1 {100 * p.f1:.1f}%{accuracy}\n"
        f"{p.labeled_tokens} labeled tokens, {p.minutes:.1f} annotation minutes"
    )

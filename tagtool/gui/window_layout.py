"""How the window shares its width, and the size, place and dock layout kept between runs.

The editor is where the work happens, so it gets what the other parts leave:
the side docks (Legend, Statistics, Model) take :data:`SIDE_SHARE` of the
window's width within :data:`SIDE_WIDTH`, and the sentence list just what
its fixed columns (#, Status, Len, Info) and :data:`SENTENCE_MIN` pixels of
the Sentence column need.  At 1200×720 that leaves the editor about half of
the window; at 1024×700 every column of the list is still there.

What the person changes (window size and place, docks moved, closed or
resized, the list/editor divider) is saved when the window closes
(``QMainWindow.saveGeometry``/``saveState``, ``QSplitter.saveState``) and
restored on the next start; a saved layout wins over the defaults above.
View › Side panels (F9) hides all the docks at once and brings them back.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QComboBox, QDockWidget, QFormLayout, QMainWindow, QSplitter, QWidget

#: The first start's window size (within the screen's available area).
DEFAULT_SIZE = (1200, 720)
#: Share of the window's width the right-hand docks start with, and its bounds in pixels.
SIDE_SHARE = 0.24
SIDE_WIDTH = (275, 330)
#: The Sentence column's least width in the list's default share (pixels).
SENTENCE_MIN = 110
#: Characters a combo box in a dock shows at least (its width no longer follows its longest item).
COMBO_CHARS = 6
#: QSettings keys.
GEOMETRY, STATE, SPLITTER = "window/geometry", "window/state", "window/splitter"


def side_docks(window: QMainWindow) -> list[QDockWidget]:
    """The docks in the right-hand area (the adjudication dock at the bottom is not one)."""
    return [dock for dock in window.findChildren(QDockWidget) if window.dockWidgetArea(dock) == Qt.RightDockWidgetArea]


def _saved(settings, key: str) -> QByteArray | None:
    value = settings.qsettings.value(key)
    return value if isinstance(value, QByteArray) and not value.isEmpty() else None


def restore_window(window: QMainWindow, settings) -> bool:
    """Size, place and docks as the last window left them; False (and the default size) if none was saved."""
    geometry, state = _saved(settings, GEOMETRY), _saved(settings, STATE)
    restored = geometry is not None and window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)
    if not restored:
        size = QSize(*DEFAULT_SIZE)
        screen = window.screen()
        if screen is not None and QGuiApplication.platformName() != "offscreen":  # a 1024×700 screen
            size = size.boundedTo(screen.availableGeometry().size())
        first_start(window, size)
    return restored


def first_start(window: QMainWindow, size: QSize) -> None:
    """The window at ``size``, the side docks at their default share of it (as a first start on that screen)."""
    window.resize(size)
    width = round(min(max(SIDE_SHARE * size.width(), SIDE_WIDTH[0]), SIDE_WIDTH[1]))
    docks = side_docks(window)
    window.resizeDocks(docks, [width] * len(docks), Qt.Horizontal)


def list_width(panel) -> int:
    """The width the sentence list needs for its fixed columns and a readable Sentence column."""
    header = panel.table.horizontalHeader()
    fixed = sum(header.sectionSize(c) for c in range(header.count() - 1))
    scrollbar = panel.table.verticalScrollBar().sizeHint().width()
    return fixed + SENTENCE_MIN + scrollbar + 2 * panel.table.frameWidth()


def fit_splitter(splitter: QSplitter, panel, settings) -> None:
    """The list/editor divider as it was left, else the list at :func:`list_width` and the rest to the editor."""
    state = _saved(settings, SPLITTER)
    if state is not None and splitter.restoreState(state):
        return
    window = splitter.window()
    docks = sum(dock.width() for dock in side_docks(window) if not dock.isHidden())
    total = max(window.width() - docks, 600)  # the splitter itself is not laid out yet
    left = list_width(panel)
    splitter.setSizes([left, max(total - left, 1)])


def save_window(window: QMainWindow, splitter: QSplitter | None, settings) -> None:
    """Remember size, place, docks and divider for the next start."""
    qs = settings.qsettings
    qs.setValue(GEOMETRY, window.saveGeometry())
    qs.setValue(STATE, window.saveState())
    if splitter is not None:
        qs.setValue(SPLITTER, splitter.saveState())
    qs.sync()


class SidePanels:
    """View › Side panels: hide every right-hand dock at once, and bring back the ones that were shown."""

    def __init__(self, window: QMainWindow):
        self.window = window
        self.hidden: list[QDockWidget] = []

    def toggle(self, show: bool) -> None:
        if not show:
            self.hidden = [dock for dock in side_docks(self.window) if dock.isVisible()]
            for dock in self.hidden:
                dock.hide()
        else:
            for dock in self.hidden or side_docks(self.window):
                dock.show()
            self.hidden = []


class _NarrowCombos(QObject):
    """Makes the combo boxes a form creates later (another learner's settings) narrow too."""

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.ChildPolished and isinstance(event.child(), QComboBox):
            _narrow(event.child())
        return False


def _narrow(combo: QComboBox) -> None:
    combo.setSizeAdjustPolicy(QComboBox.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(COMBO_CHARS)
    # The combo box keeps the minimum size it computed before; a style change makes it compute it again.
    QApplication.sendEvent(combo, QEvent(QEvent.StyleChange))


def fit_to_dock(panel: QWidget, *growing: QWidget) -> None:
    """Let a dock's panel be narrower than its longest combo item or form row.

    Combo boxes stop sizing to their longest item (the list still shows it
    whole), and forms put a field under its label where both do not fit;
    ``growing`` are widgets whose combo boxes come and go (a settings form).
    """
    for combo in panel.findChildren(QComboBox):
        _narrow(combo)
    for form in panel.findChildren(QFormLayout):
        form.setRowWrapPolicy(QFormLayout.WrapLongRows)
    for widget in growing:
        watcher = _NarrowCombos(widget)
        widget.installEventFilter(watcher)

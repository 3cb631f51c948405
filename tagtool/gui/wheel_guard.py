"""Value widgets in scrolled panels that the mouse wheel changes only once focused.

Scrolling the model panel over a combo box or spin box changed the setting
under the pointer (cosvm's loss went from hamming to zero-one, its epochs
from 30 to 27). The usual Qt remedy: no wheel focus (``Qt.StrongFocus``: a
click or Tab focuses the widget, the wheel does not) and an event filter
that passes the wheel on to the scroll area while the widget is unfocused.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QWidget


class _UnfocusedWheel(QObject):
    """Event filter: an unfocused widget leaves wheel events to its parents."""

    def eventFilter(self, obj, event) -> bool:  # Qt's name
        if event.type() == QEvent.Wheel and isinstance(obj, QWidget) and not obj.hasFocus():
            # Ignored and filtered: Qt offers the event to the parents (the scroll area scrolls).
            event.ignore()
            return True
        return False


def guard_wheel(*widgets: QWidget) -> None:
    """Let the wheel change ``widgets`` only while they have the keyboard focus."""
    for widget in widgets:
        widget.setFocusPolicy(Qt.StrongFocus)
        widget.installEventFilter(_UnfocusedWheel(widget))

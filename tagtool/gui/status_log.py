"""Warnings in the status bar: a logging handler whose records the window shows (from any thread).

A warning stays in a label of its own at the right of the status bar for
:data:`SHOW_MS` (the passing messages, "Suggestions updated", would cover
it at once), its full text and the log file's path in the tooltip.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QWidget

#: How long a warning stays in the status bar (ms).
SHOW_MS = 30_000
#: Characters of a warning shown in the bar (the tooltip has all of it).
SHOWN_CHARS = 90


class _Relay(QObject):
    message = Signal(str)


class WarningLabel(QLabel):
    """The status bar's last warning; hidden when there is none."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setStyleSheet("QLabel { color: #b35c00; }")
        self._timer = QTimer(self, singleShot=True, interval=SHOW_MS)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def show_warning(self, text: str) -> None:
        from tagtool.logs import log_file

        line = text.splitlines()[0] if text else ""
        self.setText("⚠ " + (line if len(line) <= SHOWN_CHARS else line[: SHOWN_CHARS - 1] + "…"))
        self.setToolTip(f"{text}\n\nShown once; every warning is in {log_file()}")
        self.show()
        self._timer.start()


class StatusBarLog(logging.Handler):
    """Shows each warning that reaches it in ``label`` (the once-only filter is
    :func:`tagtool.logs.configure_app_logging`'s: a repeated warning shows once)."""

    added_by_app = True

    def __init__(self, label: WarningLabel, parent: QObject):
        super().__init__(logging.WARNING)
        self.relay = _Relay(parent)  # a worker's record reaches the GUI thread through a queued signal
        self.relay.message.connect(label.show_warning, Qt.QueuedConnection)
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.relay.message.emit(self.format(record))
        except RuntimeError:  # the window is gone
            pass

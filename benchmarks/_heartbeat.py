"""The GUI-thread heartbeat the responsiveness benchmarks measure stalls with (imports Qt)."""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QTimer

#: Interval of the heartbeat timer; a stall is the longest gap between ticks minus this.
HEARTBEAT_MS = 5


class Heartbeat:
    """A 5 ms timer on the GUI thread; the gaps between its ticks (ms)."""

    def __init__(self):
        self.clock = QElapsedTimer()
        self.gaps: list[float] = []
        self.timer = QTimer(interval=HEARTBEAT_MS)
        self.timer.timeout.connect(self._tick)
        self._last = 0

    def start(self):
        self.gaps = []
        self.clock.start()
        self._last = self.clock.nsecsElapsed()
        self.timer.start()

    def stop(self) -> float:
        """The longest stall (ms) since :meth:`start`, the gap up to now included."""
        self.timer.stop()
        self._tick()
        return max(self.gaps) - HEARTBEAT_MS

    def _tick(self):
        now = self.clock.nsecsElapsed()
        self.gaps.append((now - self._last) / 1e6)
        self._last = now

"""The one progress-and-cancel contract every learner follows.

A learner receives two plain callables (Orange3's pattern, STYLE.md):
``progress(fraction, message)`` to report, ``should_stop()`` to poll.  It
wraps them in a :class:`TrainingMonitor` and calls :meth:`~TrainingMonitor.check`
at least once per sentence it processes, so a cancel takes effect well
within a second; a cancel surfaces as :class:`~tagtool.errors.Cancelled`, and the
caller keeps whatever model it had before.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tagtool.errors import Cancelled

ProgressCallback = Callable[[float, str], None]
StopCallback = Callable[[], bool]


class TrainingMonitor:
    """Rate-limited progress reports and cancel checks for one training run.

    Parameters
    ----------
    progress : callable(fraction, message), optional
        Receives a fraction in [0, 1] and a short message.
    should_stop : callable() -> bool, optional
        Polled by :meth:`check`; True raises :class:`Cancelled`.
    min_interval : float
        Seconds between two progress reports (checks are never skipped).
    """

    def __init__(
        self,
        progress: ProgressCallback | None = None,
        should_stop: StopCallback | None = None,
        min_interval: float = 0.05,
    ):
        self._progress = progress
        self._should_stop = should_stop
        self._min_interval = min_interval
        self._last_report = -float("inf")
        self.fraction = 0.0

    def check(self) -> None:
        """Raise :class:`Cancelled` if a stop was requested."""
        if self._should_stop is not None and self._should_stop():
            raise Cancelled("training cancelled")

    def report(self, fraction: float, message: str = "", force: bool = False) -> None:
        """Report progress (at most every ``min_interval`` s unless ``force``), then check."""
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        now = time.monotonic()
        if self._progress is not None and (force or now - self._last_report >= self._min_interval):
            self._last_report = now
            self._progress(self.fraction, message)
        self.check()

    def span(self, lo: float, hi: float, prefix: str = "") -> ProgressSpan:
        """A monitor for one part of the run: its fractions 0..1 map to ``lo..hi`` of this one.

        ``prefix`` goes before its messages (e.g. which of two fits runs).
        """
        return ProgressSpan(self, lo, hi, prefix)

    def done(self, message: str = "done") -> None:
        """Final report, always delivered and never cancelling: the model is complete."""
        self.fraction = 1.0
        if self._progress is not None:
            self._progress(1.0, message)


class ProgressSpan:
    """Part ``lo..hi`` of a :class:`TrainingMonitor`'s range (a learner that trains twice reports both runs).

    Offers what learners call: :meth:`check`, :meth:`report`, :meth:`span`
    and :attr:`fraction` (of this part).
    """

    def __init__(self, parent: TrainingMonitor | ProgressSpan, lo: float, hi: float, prefix: str = ""):
        self._parent = parent
        self._lo, self._hi = float(lo), float(hi)
        self._prefix = prefix
        self.fraction = 0.0

    def check(self) -> None:
        self._parent.check()

    def report(self, fraction: float, message: str = "", force: bool = False) -> None:
        self.fraction = min(max(float(fraction), 0.0), 1.0)
        self._parent.report(self._lo + (self._hi - self._lo) * self.fraction, self._prefix + message, force)

    def span(self, lo: float, hi: float, prefix: str = "") -> ProgressSpan:
        return ProgressSpan(self, lo, hi, prefix)

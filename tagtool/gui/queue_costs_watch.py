"""The queue's annotation costs, measured in the project's action log in a worker thread.

:class:`QueueCostsWatch` belongs to a :class:`~tagtool.gui.model_loop.ModelLoop`.
When the project opens and each time a training run starts, it reads the
action log on a read-only connection of its own in a worker thread
(:func:`tagtool.services.queue_costs.of_project`: thousands of rows are a Python
loop the GUI thread must not wait for) and hands the costs to the loop's
queue (:meth:`~tagtool.gui.queue_steering.QueueSteering.set_queue`, ``loop.queue``), which
re-plans only when they changed, in a worker for a big project: new costs
never stall the window.  A run starts after each edit (when the model
follows the edits), so the queue of the model it brings ranks with the log
as it was then.

Go › Queue strategy › *Rank by measured annotation costs* (kept in the
settings) turns it off: the queue then ranks with the defaults (those of
``tagtool simulate`` without ``--costs-from``), as a scripted session
compared with the simulator must (:mod:`tools.scripted_annotator`).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from tagtool.gui.worker import TaskRunner
from tagtool.services.queue_costs import DEFAULT, QueueCosts, of_project

log = logging.getLogger(__name__)


class QueueCostsWatch(QObject):
    """Measures a project's costs for its model loop's queue (module doc).

    Signals
    -------
    changed(object)
        The costs in use changed (a :class:`~tagtool.services.queue_costs.QueueCosts`).
    """

    changed = Signal(object)
    #: From the worker thread (a queued call): the read number and its costs.  Connected before any
    #: read starts, so a read that ends before ``runner.start`` returns is not lost.
    _arrived = Signal(int, object)

    def __init__(self, loop, parent: QObject | None = None):
        super().__init__(parent if parent is not None else loop)
        self.loop = loop
        self.runner = TaskRunner(self)
        self._reads = 0  # the number of the latest read: an older one's costs are dropped
        self._arrived.connect(self._measured_costs)
        #: Rank by the measured costs (False: the defaults).
        self.measured = False
        #: The last costs measured in the log (the defaults until the first read is in).
        self.last: QueueCosts = DEFAULT
        loop.started.connect(lambda _learner: self.refresh())

    @property
    def in_use(self) -> QueueCosts:
        """The costs the queue ranks with."""
        return self.last if self.measured else DEFAULT

    def set_measured(self, on: bool) -> None:
        """Rank by the measured costs (a read of the log follows) or by the defaults."""
        self.measured = bool(on)
        self._apply()
        if self.measured:
            self.refresh()

    def refresh(self) -> None:
        """Read the log again in the worker (nothing when the measured costs are off)."""
        if not self.measured:
            return
        self._reads += 1
        self.runner.start(self._read, self._reads, self.loop.session.project.path)

    def _read(self, number: int, path, state=None) -> None:
        """In the worker: measure, and hand the costs to the GUI thread."""
        try:
            costs = of_project(path)
        except Exception as exc:  # noqa: BLE001 — a log that cannot be read leaves the costs as they are
            log.warning("queue costs not measured: %s", exc)
            return
        self._arrived.emit(number, costs)

    def shutdown(self) -> None:
        """The project closes: no more reads, and a read's costs still on their way are dropped."""
        self.measured = False
        self._reads += 1
        self.runner.shutdown()

    def _measured_costs(self, number: int, costs: QueueCosts) -> None:
        if number != self._reads:
            return  # a newer read is on its way, or the project closed
        self.last = costs
        self._apply()

    def _apply(self) -> None:
        costs = self.in_use
        if costs != self.loop.questions.costs:
            self.loop.queue.set_queue(costs=costs)
            self.changed.emit(costs)

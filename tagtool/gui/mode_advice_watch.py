"""The mode the project's own data propose (:mod:`tagtool.services.mode_advice`), measured in a worker thread.

:class:`ModeAdviceWatch` belongs to a :class:`~tagtool.gui.model_loop.ModelLoop`.
When the project's sentences are read and after each training run it
counts the fully labeled sentences in a worker; the first time there are
:data:`~tagtool.services.mode_advice.MIN_SENTENCES`, and then each time
they have grown by :data:`GROWTH` since the last proposal, it simulates
both ways of working on them in a paced worker (the window keeps its turns)
with the learner the loop trains and the costs its queue ranks with, and
emits the proposal.  Before that the proposal is the suite's for the
project's kind of labels (:func:`~tagtool.services.mode_advice.suite_mode`),
with its reason.  The Go menu's mode switch in the status bar shows it
(:mod:`tagtool.gui.queue_menu`).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from tagtool.gui.worker import TaskRunner
from tagtool.services import mode_advice
from tagtool.services.mode_advice import ModeAdvice

log = logging.getLogger(__name__)

#: A new proposal once the fully labeled sentences have grown by this factor since the last one.
GROWTH = 1.5


class ModeAdviceWatch(QObject):
    """Proposes token questions or whole sentences for its loop's project (module doc).

    Signals
    -------
    advised(object)
        A new :class:`~tagtool.services.mode_advice.ModeAdvice`.
    """

    advised = Signal(object)

    def __init__(self, loop, parent: QObject | None = None):
        super().__init__(parent if parent is not None else loop)
        self.loop = loop
        self.runner = TaskRunner(self, paced=True)
        #: The proposal in force (the suite's until the project's data measured one).
        self.advice: ModeAdvice = mode_advice.suite_default(mode_advice.span_label_set(loop.session.project.labels))
        #: Fully labeled sentences the last measured proposal (or the running one) read; 0: none yet.
        self.measured_on = 0
        self.enabled = True
        loop.finished.connect(lambda _result: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Start a measurement when the fully labeled sentences have grown enough (counted in the worker)."""
        cache = self.loop.session.cache
        if not self.enabled or self.runner.busy or cache.defer_until_sentences_ready("mode advice", self.refresh):
            return  # a big project's sentences are being read: again when they are in
        _ids, sentences = cache.training_sentences()
        costs, measured = self._costs()
        self.runner.start(
            self._measure, sentences, self.loop.learner_name, costs, measured, self.measured_on,
            wire=self._wire,
        )  # fmt: skip

    def _costs(self):
        """The simulator's costs of the queue's costs (the project's measured ones when in use)."""
        from tagtool.services.simulate.config import Costs

        q = self.loop.costs_watch.in_use
        return Costs(q.full, q.partial, q.skip, q.accept, q.sentence), bool(q.measured)

    @staticmethod
    def _measure(sentences, learner, costs, measured, last, state) -> tuple[int, ModeAdvice] | None:
        """In the worker: None when too few sentences were added since ``last``, else the count and the proposal."""
        n = len(mode_advice.fully_labeled(sentences))
        if n >= mode_advice.MIN_SENTENCES and last and n < GROWTH * last:
            return None
        advice = mode_advice.advise(
            sentences, learner, costs, measured, progress=state.progress, should_stop=state.should_stop
        )
        return n, advice

    def _wire(self, task) -> None:
        task.signals.returned.connect(self._arrived)
        task.signals.errored.connect(lambda message, _tb: log.warning("no mode proposal: %s", message))

    def _arrived(self, outcome) -> None:
        if outcome is None or not self.enabled:  # nothing new, or the project closed meanwhile
            return
        n, advice = outcome
        if advice.measured:
            self.measured_on = n
        if advice != self.advice:  # the same proposal again (fewer than MIN_SENTENCES): nothing to say
            self.advice = advice
            self.advised.emit(advice)

    def shutdown(self) -> None:
        """The project closes: no more measurements."""
        self.enabled = False
        self.runner.shutdown()

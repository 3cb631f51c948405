"""The J queue and Tab pass over near-duplicates of the sentences labeled since the model in use.

:class:`NearDuplicateWatch` keeps the near-duplicate groups of the
session's sentences (:func:`tagtool.services.near_duplicates.group_sentences`:
at once in a small project, in a worker thread in a big one, again after a
split or merge or a bulk change) and the sentences labeled since the model
the queue was planned with took its sentences.  Until the next model, the
other members of their groups leave the queue (J passes over them) and ask
no token question (Tab passes over them); the next model's queue has them
again, and decides.  ``tagtool simulate --skip-near-duplicates`` applies the
same rule within a step.  Go › Queue strategy › Pass over near-duplicates
turns it on (``skip_near_duplicates``, off by default).
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, QTimer

from tagtool.gui.sentence_reader import collector_paused
from tagtool.gui.worker import TaskRunner
from tagtool.services.near_duplicates import DEFAULT_SKIP, NONE, Groups, group_sentences, passed_over

log = logging.getLogger(__name__)

#: Projects with at least this many sentences group them in a worker thread.
BACKGROUND_GROUP_MIN = 1000


def _group(ids, sentences, _state=None) -> Groups:
    with collector_paused():  # else full collections walking its objects stall the window
        return group_sentences([s.tokens for s in sentences], ids)


class NearDuplicateWatch(QObject):
    """Near-duplicate groups of a session's sentences and the sentences labeled since the model (module doc).

    Parameters
    ----------
    session : Session
    on : bool
        Pass over near-duplicates (the ``skip_near_duplicates`` setting).
    """

    def __init__(self, session, on: bool = DEFAULT_SKIP):
        super().__init__(session)
        self.session = session
        self.on = on
        #: The groups (none until built).
        self.groups: Groups = NONE
        self._labeled: dict[int, int] = {}  # sentence id -> the edit count when it was last labeled
        self._edits = 0
        self._run_mark = 0  # the edit count when the run in progress took its sentences
        self._model = None  # the result the labeled sentences are counted since
        self._passed: set[int] | None = None  # cached passed()
        self._runner = TaskRunner(self, paced=True)
        self._closed = False
        session.annotationsChanged.connect(self._changed)
        session.sentencesReady.connect(self.build)
        session.tokensChanged.connect(lambda _sid, _focus: self.build())
        if session.cache.sentences_ready:  # a small project: grouped in milliseconds, before the first J
            self.build()
        else:
            QTimer.singleShot(0, self, self.build)  # after the window's first paint

    def build(self) -> None:
        """(Re)group the session's sentences: now in a small project, in a worker in a big one."""
        if self._closed or self.session.project.closed:
            return
        cache = self.session.cache
        if not cache.sentences_ready:
            cache.read_sentences()  # sentencesReady builds
            return
        ids, sentences = cache.training_sentences()
        if len(sentences) < BACKGROUND_GROUP_MIN:
            self._install(_group(ids, sentences))
            return
        task = self._runner.start(_group, ids, sentences)
        task.signals.returned.connect(lambda groups, t=task: self._runner.is_current(t) and self._install(groups))

    def _install(self, groups: Groups) -> None:
        self.groups = groups
        self._passed = None
        log.debug("near-duplicates: %d groups, %d sentences beyond the first", len(groups.members), groups.repeats)
        self._drop_from_queue()

    def shutdown(self) -> None:
        self._closed = True
        self._runner.shutdown()

    def set_on(self, on: bool) -> None:
        """Turn the rule on or off (the caller requeues)."""
        self.on = bool(on)
        self._passed = None

    # ------------------------------------------------------------------
    # the sentences labeled since the model

    def run_started(self, *_args) -> None:
        """A training run took the session's sentences: what is labeled from now on is not in its model."""
        self._run_mark = self._edits

    def follow(self, result) -> None:
        """``result`` is the model in use: forget the sentences labeled before its run took its sentences."""
        if result is self._model:
            return
        self._model = result
        if result is not None:
            self._labeled = {sid: at for sid, at in self._labeled.items() if at >= self._run_mark}
            self._passed = None

    def _changed(self, sid: int, changes) -> None:
        if not changes:
            return  # a bulk change: nobody labeled a sentence
        self._labeled[sid] = self._edits
        self._edits += 1
        if sid in self.groups.key:
            self._passed = None
            self._drop_from_queue()

    def passed(self) -> set[int]:
        """The sentences J and Tab pass over: near-duplicates of those labeled since the model, not labeled."""
        if not self.on or not self.groups.key:
            return set()
        if self._passed is None:
            self._passed = passed_over(self.groups, self._labeled)
        return self._passed

    def _drop_from_queue(self) -> None:
        passed = self.passed()
        if passed and any(sid in passed for sid in self.session.queue):
            self.session.queue = [sid for sid in self.session.queue if sid not in passed]

"""The session's copy of every sentence, for training runs: read once, kept up to date by each edit.

:class:`SentenceCache` is the ``cache`` part of :class:`~tagtool.gui.session.Session`.  The session keeps
every sentence in memory once a training run asked for them
(``session.cache.training_sentences()``): each edit only replaces the
edited sentence's annotations (a split or merge of tokens, the whole
sentence), and starting a run costs a tuple copy, not a read of the whole
project.  A big project (:data:`BACKGROUND_READ_MIN` sentences or more) is
read into that cache by a worker thread on a read-only connection of its
own (:meth:`SentenceCache.read_sentences`, started when the window opens
it), so opening never waits for it; what needs the sentences before they
are in (a training run) waits with
:meth:`SentenceCache.defer_until_sentences_ready`.  Edits made while the
worker reads are re-read from the project when its copy arrives, so the
cache never misses one.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QObject

from tagtool.core.corpus import Sentence
from tagtool.gui.sentence_reader import Pacer, SnapshotRead
from tagtool.gui.worker import TaskRunner

log = logging.getLogger(__name__)

#: Projects with at least this many sentences read their training snapshot
#: in a worker thread, so that the read never stalls the window; smaller
#: ones read it on first use, too quickly to notice.
BACKGROUND_READ_MIN = 1000


class SentenceCache:
    """The training sentences of a :class:`~tagtool.gui.session.Session` (see the module docstring).

    Parameters
    ----------
    owner : QObject
        The session: the background reader's parent.
    project : Project
        What is read (in the worker, its file on a connection of its own).
    order : sequence of int
        The session's sentence ids in document order (the cache's order).
    position : mapping of int to int
        A sentence id's index in ``order``.
    annotations_of : callable
        ``annotations_of(sid)``: a sentence's annotations as the session has them now.
    ready : Signal
        The session's ``sentencesReady()``, emitted when a background read is in.

    Attributes
    ----------
    sentences : list of Sentence or None
        The cached sentences in document order; None until read.
    """

    def __init__(
        self,
        owner: QObject,
        project: Any,
        order: Sequence[int],
        position: Mapping[int, int],
        annotations_of: Callable[[int], tuple[frozenset, ...]],
        ready: Any,
    ):
        self._owner, self.project, self._order, self._position = owner, project, order, position
        self._annotations_of, self._ready = annotations_of, ready
        self.sentences: list[Sentence] | None = None  # document order, built on first use
        self._reader: TaskRunner | None = None
        self._read: SnapshotRead | None = None  # the background read in progress
        self._edited_during_read: set[int] = set()
        self._retokenized_during_read: set[int] = set()
        self._ready_actions: dict[str, Callable[[], None]] = {}

    def set_annotations(self, sentence_id: int, annotations: Callable[[tuple[frozenset, ...]], tuple]) -> None:
        """An edit of a cached sentence: its annotations become ``annotations(old ones)`` (nothing before a read)."""
        if self.sentences is not None:
            i = self._position[sentence_id]
            sentence = self.sentences[i]
            self.sentences[i] = replace(sentence, annotations=annotations(sentence.annotations))

    def annotations(self, sentence_id: int) -> tuple[frozenset, ...] | None:
        """A sentence's cached annotations, or None before a read."""
        return None if self.sentences is None else self.sentences[self._position[sentence_id]].annotations

    def retokenized(self, sentence_id: int, sentence: Sentence) -> None:
        """A sentence's tokens were split or merged: ``sentence`` replaces it (a read in progress re-reads it)."""
        if self.sentences is not None:
            self.sentences[self._position[sentence_id]] = sentence
        if self._read is not None:
            self._retokenized_during_read.add(sentence_id)

    def reset(self) -> bool:
        """Forget the cache and a read in progress (a bulk change); whether they were wanted."""
        wanted = self.sentences is not None or self._read is not None
        if self._read is not None:  # it may predate the change: read again
            self._read.pacer.free()
        self.sentences = self._read = None
        return wanted

    def training_sentences(self) -> tuple[tuple[int, ...], tuple[Sentence, ...]]:
        """Ids and sentences (with their current annotations) in document order.

        The first call reads the project (or waits for the background read
        in progress); later ones copy the cached list, which every edit,
        undo and redo keeps up to date.  Sentences are immutable, so the
        tuples are a snapshot a worker thread can use.  For a big project,
        call it once :attr:`sentences_ready` (see
        :meth:`defer_until_sentences_ready`), or it blocks the GUI thread.
        """
        if self.sentences is None and self._read is not None:
            read = self._read
            read.pacer.free()
            self._reader.wait()  # rather than reading a second time
            if read.result is not None:
                self._install(read)
        if self.sentences is None:
            ids, sentences = self.project.snapshot()
            if ids != self._order:
                raise RuntimeError("project changed while it was read")
            self.sentences = sentences
        return tuple(self._order), tuple(self.sentences)

    @property
    def sentences_ready(self) -> bool:
        """True when :meth:`training_sentences` returns at once (cached, or a small project)."""
        return self.sentences is not None or len(self._order) < BACKGROUND_READ_MIN

    def read_sentences(self) -> None:
        """Start reading the training sentences in a worker thread (big projects only).

        Does nothing when they are ready or already being read.  The window
        calls it on opening a project; the session's ``sentencesReady`` tells when the
        read is in.
        """
        if self.sentences_ready or self._read is not None:
            return
        if self._reader is None:
            self._reader = TaskRunner(self._owner)
        read = self._read = SnapshotRead(self.project.path, Pacer(self._owner))
        self._edited_during_read = set()
        self._retokenized_during_read = set()
        task = self._reader.start(read)
        task.signals.returned.connect(lambda _result, r=read: self._install(r))
        task.signals.errored.connect(lambda message, _tb, r=read: self._read_failed(r, message))

    def defer_until_sentences_ready(self, key: str, action: Callable[[], None]) -> bool:
        """Run ``action`` once the training sentences are in memory, if they are not yet.

        Returns False (and does nothing) when :attr:`sentences_ready`, so the
        caller goes on at once; otherwise starts the background read if
        needed, keeps ``action`` (the latest one per ``key``) and returns True.
        """
        if self.sentences_ready:
            return False
        self._ready_actions[key] = action
        self.read_sentences()
        return True

    def drop_deferred(self, key: str) -> bool:
        """Forget the action kept under ``key`` (a cancelled run); True if there was one."""
        return self._ready_actions.pop(key, None) is not None

    def stop_reading(self) -> None:
        """Stop a background read and drop the deferred actions (the project closes)."""
        self._ready_actions.clear()
        if self._read is not None:
            self._read.pacer.free()
            self._read = None
        if self._reader is not None:
            self._reader.shutdown()
            gc.unfreeze()  # the read froze what it made (sentence_reader.collector_paused)

    def note_edit(self, sentence_id: int, _changes) -> None:
        if self._read is not None:
            self._edited_during_read.add(sentence_id)

    def _install(self, read: SnapshotRead) -> None:
        """Take a finished background read, with the edits made meanwhile re-read."""
        if read is not self._read:
            return  # stale: a bulk change started another read, or the project closed
        self._read = None
        ids, sentences = read.result
        if ids != self._order:
            log.warning("%s changed while it was read; reading it again when needed", self.project.path)
            self._run_ready_actions()
            return
        for sid in self._edited_during_read:
            i = self._position[sid]
            if sid in self._retokenized_during_read:  # its tokens changed too: read it whole
                sentences[i] = self.project.sentence(sid)
            else:
                sentences[i] = replace(sentences[i], annotations=self._annotations_of(sid))
        self.sentences = sentences
        self._run_ready_actions()
        self._ready.emit()

    def _read_failed(self, read: SnapshotRead, message: str) -> None:
        if read is not self._read:
            return
        self._read = None
        log.warning("reading %s in the background failed (%s); reading it when needed", self.project.path, message)
        self._run_ready_actions()

    def _run_ready_actions(self) -> None:
        # Without the cache (a failed read) each action reads the project itself.
        actions, self._ready_actions = self._ready_actions, {}
        for action in actions.values():
            action()

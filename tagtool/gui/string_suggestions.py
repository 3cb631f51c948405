"""String-match suggestions in the app, from the first label on: the index behind them, kept up to date.

:class:`StringSuggestions` keeps a :class:`~tagtool.services.match_index.MatchIndex`
of the session's sentences and gives the open sentence's string matches to
the model loop, which shows them among the model's hints
(:func:`tagtool.gui.match_hints.with_matches`; precedence and display there).

* **Built once** from the session's cached sentences: at once in a small
  project, in a worker thread in a big one (:data:`BACKGROUND_BUILD_MIN`
  sentences or more: a build of a big project takes seconds,
  benchmarks/results/string_match_index.md), once the cache's background read
  is in.  Edits made during a background build are replayed on it.
* **Updated per edit**: the session's ``annotationsReplaced`` (emitted just
  before ``annotationsChanged``, so the model loop's refresh already sees
  the new index) updates the edited sentence only; a
  split or merge replaces the sentence; a bulk change (an import, a label
  rename) rebuilds.
* **Dictionaries and patterns** a user brought (:func:`knowledge_suggestions`)
  are matched on every sentence in a worker thread (building their trie
  alone is too slow to repeat for each sentence opened), again when
  another sentence opens and they changed (a cheap look at the project's
  resources); they come after the person's own matches.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import partial

from PySide6.QtCore import QObject, QTimer

from tagtool.errors import TagtoolError
from tagtool.gui.hints import SentenceHints
from tagtool.gui.match_hints import with_matches
from tagtool.gui.sentence_reader import collector_paused
from tagtool.gui.worker import TaskRunner
from tagtool.services.dictionaries import (
    GAZETTEER_KIND,
    PATTERNS_KIND,
    knowledge_matches,
    project_dictionaries,
    project_patterns,
)
from tagtool.services.match_index import MatchIndex
from tagtool.services.string_matches import StringMatch

log = logging.getLogger(__name__)

#: Projects with at least this many sentences build their index in a worker thread.
BACKGROUND_BUILD_MIN = 1000
#: The resource kinds whose matches are suggested (dictionaries, patterns).
KNOWLEDGE_KINDS = (GAZETTEER_KIND, PATTERNS_KIND)


def knowledge_signature(stored) -> tuple:
    """What identifies the project's dictionaries and patterns now (a cheap read: no data)."""
    return tuple((r.kind, r.name, r.added, r.size) for kind in KNOWLEDGE_KINDS for r in stored.resources(kind))


def knowledge_suggestions(stored, names: Sequence[str]):
    """The function of the project's stored dictionaries and patterns that gives the dictionary and pattern
    matches of sentences (:func:`tagtool.services.dictionaries.knowledge_matches`); None without any.

    Read on the GUI thread (the project's connection is its); the function runs in a worker.
    """
    dictionaries, patterns = project_dictionaries(stored), project_patterns(stored)
    if not dictionaries and not patterns:
        return None
    return partial(knowledge_matches, dictionaries=dictionaries, patterns=patterns, label_names=list(names))


def _knowledge_by_sentence(sentences, match, _state) -> dict[int, list[StringMatch]]:
    out: dict[int, list[StringMatch]] = defaultdict(list)
    with collector_paused():
        for m in match(sentences):
            out[m.sentence].append(m)
    return dict(out)


def _build(sentences, names, _state) -> MatchIndex:
    with collector_paused():  # else full collections walking its objects stall the window (as a read's)
        return MatchIndex(sentences, names)


class StringSuggestions(QObject):
    """The open sentence's string matches for the model loop's hints (module doc).

    Parameters
    ----------
    session : Session
    refresh : callable
        Refreshes the editor's hints (the model loop's), once the index is built.
    """

    def __init__(self, session, refresh: Callable[[], None], parent: QObject | None = None):
        super().__init__(parent)
        self.session, self._refresh = session, refresh
        #: The index (None until built).
        self.index: MatchIndex | None = None
        self._runner = TaskRunner(self, paced=True)  # the build lets the window have its turns
        self._replay: list[tuple[int, dict]] | None = None  # edits during a background build
        self._retokenized: set[int] = set()
        self._closed = False
        #: Dictionary and pattern matches by sentence position, for the signature of the resources they are of.
        self._knowledge: dict[int, list[StringMatch]] = {}
        self._signature: tuple | None = None
        self._knowledge_runner = TaskRunner(self)
        session.annotationsReplaced.connect(self._replaced)
        session.annotationsChanged.connect(self._changed)
        session.tokensChanged.connect(self._tokens_changed)
        session.sentencesReady.connect(self.build)
        session.labelsChanged.connect(self.build)
        session.sentenceChanged.connect(lambda _sid: self.check_knowledge())
        QTimer.singleShot(0, self, self.build)  # after the window's first paint

    def build(self) -> None:
        """(Re)build the index from the session's sentences: now in a small project, in a worker in a big one."""
        if self._closed or self.session.project.closed:
            return
        cache = self.session.cache
        if not cache.sentences_ready:
            cache.read_sentences()  # sentencesReady builds
            return
        _ids, sentences = cache.training_sentences()
        names = self.session.project.labels.names
        self.check_knowledge(force=True)
        if len(sentences) < BACKGROUND_BUILD_MIN:
            self._replay = None
            self._install(MatchIndex(sentences, names))
            return
        self._replay = []
        task = self._runner.start(_build, sentences, names)
        task.signals.returned.connect(lambda index, t=task: self._runner.is_current(t) and self._install(index))

    def check_knowledge(self, force: bool = False) -> None:
        """Match the project's dictionaries and patterns again if they changed (``force``: the sentences did)."""
        if self._closed or self.session.project.closed:
            return
        stored = self.session.project.stored
        try:
            signature = knowledge_signature(stored)
            if signature == self._signature and not force:
                return
            self._signature = signature
            match = knowledge_suggestions(stored, self.session.project.labels.names) if signature else None
        except TagtoolError as e:
            log.warning("the project's dictionaries and patterns give no suggestion: %s", e)
            match = None
        if match is None:
            self._knowledge_runner.cancel()
            self._set_knowledge({})
            return
        if not self.session.cache.sentences_ready:
            self._signature = None  # matched once the sentences are in (build)
            return
        _ids, sentences = self.session.cache.training_sentences()
        task = self._knowledge_runner.start(_knowledge_by_sentence, sentences, match)
        task.signals.returned.connect(
            lambda found, t=task: self._knowledge_runner.is_current(t) and self._set_knowledge(found)
        )

    def _set_knowledge(self, found: dict[int, list[StringMatch]]) -> None:
        self._knowledge = found
        self._refresh()

    def _install(self, index: MatchIndex) -> None:
        for i, changes in self._replay or ():
            index.set_annotations(i, changes)
        self._replay = None
        self.index = index
        self._refresh()

    def shutdown(self) -> None:
        self._closed = True
        self._runner.shutdown()
        self._knowledge_runner.shutdown()

    def _replaced(self, sid: int, _before, after) -> None:
        i = self.session.index_of(sid)
        if self._replay is not None:
            self._replay.append((i, dict(after)))
        if self.index is not None:
            self.index.set_annotations(i, after)

    def _changed(self, sid: int, changes) -> None:
        if changes:
            return  # an edit: _replaced took it
        if sid in self._retokenized:
            self._retokenized.discard(sid)
            return
        self.build()  # a bulk change

    def _tokens_changed(self, sid: int, _focus: int) -> None:
        self._retokenized.add(sid)
        if self._replay is not None:
            self.build()  # the build in progress has the old tokens
        elif self.index is not None:
            self.index.replace(self.session.index_of(sid), self.session.project.sentence(sid))
        self._knowledge.pop(self.session.index_of(sid), None)  # they name the old tokens

    # ------------------------------------------------------------------
    # what the editor shows

    def matches(self, sid: int | None) -> list[StringMatch]:
        """The string matches of sentence ``sid``: the person's, then dictionaries' and patterns'."""
        if sid is None or self.index is None:
            return []
        i = self.session.index_of(sid)
        return self.index.matches(i) + self._knowledge.get(i, [])

    def hints(self, sid: int | None, hints: SentenceHints) -> SentenceHints:
        """The model's ``hints`` of the open sentence with its string matches on top."""
        if sid is None or sid != self.session.current_id:
            return hints
        names = self.session.project.labels.names
        return with_matches(sid, hints, self.matches(sid), self.session.annotations, names)

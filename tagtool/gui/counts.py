"""The project's progress counts (sentences and tokens by status), kept up to date per edit.

The status bar shows them after every edit, the Statistics dock on each
refresh and the model loop asks them before a run.  Read from the project
each time they cost two SQL aggregates over every sentence on the GUI
thread at every edit, too slow for a big project
(benchmarks/results/design-measurements.md, "GUI thread: stalls").  :class:`ProjectCounts` reads them
once (in a big project in a worker thread, on a read-only connection of its
own, :class:`~tagtool.store.worker_reads.ReadOnlyCall`) and then applies each
edit's change (``Session.annotationsReplaced``: the edited tokens' old and
new annotations, with the sentence's annotations after the edit).  A bulk
change (an import, a label removal, a split or merge of tokens:
``annotationsChanged`` with no changes) counts again.

A count read in the worker may or may not hold an edit made while it ran
(it sees what was committed when its query began), so such an answer is
dropped and the count read again.  Until an answer is in, :attr:`known` is
False and ``changed`` follows when it is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QObject, Qt, Signal

from tagtool.gui.id_reader import IdReader
from tagtool.store.project import Project
from tagtool.store.worker_reads import ReadOnlyCall

log = logging.getLogger(__name__)

#: Projects from this size count in a worker thread, so that the GUI thread never waits for the SQL.
BACKGROUND_COUNT_MIN = 20_000


def sentence_status(n_full: int, n_partial: int, n_tokens: int) -> str:
    """``full``, ``partial`` or ``none``, as
    :meth:`~tagtool.store.project_listing.ListingPart.status_counts` counts a sentence."""
    if n_full == n_tokens:
        return "full"
    return "none" if n_full == 0 and n_partial == 0 else "partial"


def kinds(annotations) -> tuple[int, int]:
    """``(tokens with a full label, tokens with a candidate set)``."""
    full = partial = 0
    for ann in annotations:
        if len(ann) == 1:
            full += 1
        elif ann:
            partial += 1
    return full, partial


def edit_delta(
    now: Sequence[frozenset], before: Mapping[int, frozenset], after: Mapping[int, frozenset]
) -> tuple[dict[str, int], dict[str, int]]:
    """Changes of the sentence and token counts by one edit of one sentence.

    Parameters
    ----------
    now : sequence of frozenset
        The sentence's annotations after the edit (every token).
    before, after : mapping
        ``{token: annotation}`` of the edited tokens, before and after.

    Returns
    -------
    (dict, dict)
        ``{status: change}`` of the sentences, ``{kind: change}`` of the tokens.
    """
    full_before, partial_before = kinds(before.values())
    full_after, partial_after = kinds(after.values())
    d_full, d_partial = full_after - full_before, partial_after - partial_before
    n_full, n_partial = kinds(now)
    tokens = {"full": d_full, "partial": d_partial, "none": -d_full - d_partial}
    sentences = {"full": 0, "partial": 0, "none": 0}
    sentences[sentence_status(n_full - d_full, n_partial - d_partial, len(now))] -= 1
    sentences[sentence_status(n_full, n_partial, len(now))] += 1
    return sentences, tokens


def read_counts(project: Project) -> tuple[dict[str, int], dict[str, int]]:
    """``(status_counts, annotation_counts)`` of ``project`` (SQL aggregates)."""
    return project.listing.status_counts(), project.listing.annotation_counts()


class ProjectCounts(QObject):
    """Sentences by status and tokens by kind of annotation, for one session.

    Signals
    -------
    changed()
        The counts changed (an edit) or became known (a count is in).
    """

    changed = Signal()

    def __init__(self, session, parent: QObject | None = None):
        super().__init__(parent if parent is not None else session)
        self.session = session
        self.sentences: dict[str, int] | None = None
        self.tokens: dict[str, int] | None = None
        self._ticket = 0
        self._reader = IdReader(self)
        self._reader.done.connect(self._read_done, Qt.QueuedConnection)
        self._reader.failed.connect(self._read_failed, Qt.QueuedConnection)
        session.annotationsReplaced.connect(self._edited)
        session.annotationsChanged.connect(self._maybe_bulk)
        self.recount()

    @property
    def known(self) -> bool:
        """The counts are in (False while a big project's count is read)."""
        return self.sentences is not None

    def token_counts(self) -> dict[str, int]:
        """Tokens by kind; read at once (on this thread) if the count is not in yet."""
        if self.tokens is None:
            return self.session.project.listing.annotation_counts()
        return dict(self.tokens)

    def recount(self) -> None:
        """Count again: at once, or for a big project in a worker thread (``changed`` follows)."""
        self._ticket += 1
        self.sentences = self.tokens = None
        project = self.session.project
        call = None if self.session.n_sentences < BACKGROUND_COUNT_MIN else ReadOnlyCall.of(project, read_counts)
        if call is None:
            self._reader.cancel()
            self.sentences, self.tokens = read_counts(project)
            self.changed.emit()
            return
        self._reader.start(self._ticket, call)

    def shutdown(self) -> None:
        """Stop a count in progress and wait for its thread (the project closes)."""
        self._ticket += 1
        self._reader.shutdown()

    def _read_done(self, ticket: int, counts) -> None:
        if ticket == self._ticket:  # else an edit came in meanwhile: that count was started again
            self.sentences, self.tokens = counts
            self.changed.emit()

    def _read_failed(self, ticket: int, message: str) -> None:
        if ticket == self._ticket and not self.session.project.closed:
            log.warning("counting in the background failed (%s); counting here", message)
            self.sentences, self.tokens = read_counts(self.session.project)
            self.changed.emit()

    def _edited(self, sentence_id: int, before: dict, after: dict) -> None:
        if not self.known:
            self.recount()  # the count running may or may not hold this edit
            return
        session = self.session
        now = session._annotations_of(sentence_id)  # the cache's, kept up to date before the signal
        sentences, tokens = edit_delta(now, before, after)
        for counts, delta in ((self.sentences, sentences), (self.tokens, tokens)):
            for kind, d in delta.items():
                counts[kind] += d
        self.changed.emit()

    def _maybe_bulk(self, _sentence_id: int, changes) -> None:
        if not changes:  # an import, a label removal, a split or merge: count again
            self.recount()

"""The sentence-list part of a :class:`~tagtool.store.project.Project` (``project.listing``): the list's
rows filtered by status, text and document, the next sentence passing them, and the counts the app
shows (:mod:`tagtool.store.list_queries`).
"""

from __future__ import annotations

from collections.abc import Iterable

from tagtool.store import list_queries as queries
from tagtool.store.project_db import ProjectDb
from tagtool.store.record_types import SentenceSummary

Status = str | Iterable[str] | None


class ListingPart:
    """The sentence list: its pages of rows, its filters and search, its counts.

    ``search_index`` tells whether searches may use the trigram index
    (:mod:`tagtool.store.search_index`); without it a search scans the text.
    """

    def __init__(self, db: ProjectDb, search_index: bool):
        self.db, self.search_index = db, search_index

    def summary_filter(self, status: Status, search: str | None, document_id: int | None) -> tuple[str, str, list]:
        """The ``FROM``, ``WHERE`` and parameters of these filters
        (:func:`tagtool.store.list_queries.summary_filter`)."""
        return queries.summary_filter(self.db.conn, self.search_index, status, search, document_id)

    def next_sentence(self, after: int | None = None, status: Status = None, search: str | None = None) -> int | None:
        """The first sentence after ``after`` in document order passing the filters, wrapping around."""
        return queries.next_sentence(self.db.conn, self.search_index, after, status, search)

    def sentence_summaries(
        self,
        status: Status = None,
        search: str | None = None,
        document_id: int | None = None,
        offset: int = 0,
        limit: int | None = None,
        preview_chars: int = 80,
    ) -> list[SentenceSummary]:
        """A page of the sentence list's rows, without token data: of the sentences with a status of
        :data:`tagtool.store.list_queries.STATUSES`, holding a text (case-insensitive for ASCII letters), of a
        document."""
        return queries.summaries(
            self.db.conn, self.search_index, status, search, document_id, offset, limit, preview_chars
        )

    def sentence_summaries_by_id(self, sentence_ids: Iterable[int], preview_chars: int = 80) -> list[SentenceSummary]:
        """Rows of the sentence list for these ids, in their order (one query of primary-key lookups)."""
        return queries.summaries_by_id(self.db.conn, sentence_ids, preview_chars)

    def count_sentences(self, status: Status = None, search: str | None = None, document_id: int | None = None) -> int:
        """How many rows :meth:`sentence_summaries` has with these filters."""
        return queries.count(self.db.conn, self.search_index, status, search, document_id)

    def status_counts(self) -> dict[str, int]:
        """Number of sentences that are fully, partially and not labeled."""
        return queries.status_counts(self.db.conn)

    def annotation_counts(self) -> dict[str, int]:
        """Tokens with a full label, a partial label, and none."""
        return queries.annotation_counts(self.db.conn)

    def label_counts(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``label -> (tokens with it as full label, candidate sets holding it)``, of the sentences
        with ids from ``first_id`` to ``last_id`` (:func:`tagtool.store.list_queries.label_counts`)."""
        return queries.label_counts(self.db.conn, self.db.labels.names, first_id, last_id)

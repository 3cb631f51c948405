"""The importing part of a :class:`~tagtool.store.project.Project` (``project.imports``): documents
appended from a corpus (:func:`tagtool.store.sentence_rows.insert_corpus`), and the annotations of a
corpus whose sentences are the project's taken over (:func:`tagtool.store.writes.take_annotations`).
"""

from __future__ import annotations

from tagtool.core.corpus import Corpus
from tagtool.store import label_rows as _labels
from tagtool.store import search_index, writes
from tagtool.store import sentence_rows as _rows
from tagtool.store.project_db import ProjectDb


class ImportsPart:
    """A corpus read from a file, put into the project: as new documents, or as annotations."""

    def __init__(self, db: ProjectDb):
        self.db = db

    def import_corpus(self, corpus: Corpus, annotator: str = "import", add_labels: bool = False) -> list[int]:
        """Append the documents of ``corpus``, one transaction, ``annotator`` giving its annotations; the new
        sentences' ids (a label the project lacks: :class:`LabelError` unless ``add_labels``)."""
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a Corpus, got {type(corpus).__name__}")
        with self.db.write() as conn:
            labels = _labels.add_missing(conn, self.db.label_cache, corpus.labels) if add_labels else self.db.labels
            with search_index.bulk_insert(conn):
                return _rows.insert_corpus(conn, corpus, labels, annotator)

    def import_annotations(
        self,
        corpus: Corpus,
        mode: str = "replace",
        annotator: str = "import",
        match: str = "order",
        add_labels: bool = False,
    ) -> int:
        """Take the annotations of a corpus whose sentences are the project's (matched by ``match``:
        :func:`tagtool.store.sentence_rows.match_sentences`; ``mode``: :func:`tagtool.store.writes.take_annotations`),
        ``add_labels`` appending its labels the project lacks; tokens changed, not logged."""
        if mode not in ("replace", "fill"):
            raise ValueError(f"mode must be 'replace' or 'fill', got {mode!r}")
        with self.db.write() as conn:
            # matched inside the write: another program may split or merge a token meanwhile
            pairs = _rows.match_sentences(conn, corpus, match)
            if add_labels:
                _labels.add_missing(conn, self.db.label_cache, corpus.labels)
            return writes.take_annotations(conn, self.db.labels, pairs, mode, annotator)

"""The project store: one SQLite file holding labels, corpus, annotations, models.

:class:`Project` is the front the app, the CLI and the tests call.  Each of
its methods hands over to the module of one job, a function of the
connection: :mod:`~tagtool.store.label_rows` (the label set),
:mod:`~tagtool.store.corpus_reads` (sentences, corpus, snapshot),
:mod:`~tagtool.store.list_queries` (the sentence list's filters, search, counts),
:mod:`~tagtool.store.writes` (annotation writes and their log),
:mod:`~tagtool.store.annotators` and :mod:`~tagtool.store.team` (answers,
resolutions), :mod:`~tagtool.store.review`, :mod:`~tagtool.store.retokenize`,
:mod:`~tagtool.store.model_file` (stored models),
:mod:`~tagtool.store.representations`; :mod:`~tagtool.store.lifecycle`
creates and opens the file.

Every edit method commits before it returns (there is no Save command): a
crash or a kill loses nothing a method has already returned from.  Each call
is one transaction (:func:`tagtool.store.transaction.write`), so it is
applied entirely or not at all.

Threads
-------
A :class:`Project` and its connection belong to the thread that opened it
(SQLite's ``check_same_thread``); calling it from another thread raises
:class:`sqlite3.ProgrammingError`.  A training worker gets an immutable copy
(:meth:`Project.corpus` or a snapshot built from it), never the project.
Other processes may open the same file; SQLite's locking serialises writers.

Storage layout: see :mod:`tagtool.store.schema`.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.store import actions as _actions
from tagtool.store import colors as _colors
from tagtool.store import corpus_reads as reading
from tagtool.store import dbfile, lifecycle, search_index, writes
from tagtool.store import list_queries as queries
from tagtool.store.lifecycle import NewerSchemaWarning
from tagtool.store.project_attach import SpansPart
from tagtool.store.project_db import ProjectDb
from tagtool.store.project_imports import ImportsPart
from tagtool.store.project_labels import LabelSetPart
from tagtool.store.project_listing import ListingPart
from tagtool.store.project_review import ReviewPart
from tagtool.store.project_stored import StoredPart
from tagtool.store.project_team import TeamPart
from tagtool.store.record_types import ActionRecord, DocumentInfo, LogEntry

# NewerSchemaWarning (tagtool.store.lifecycle): what Project.open warns, named with it as before.
__all__ = ["NewerSchemaWarning", "Project", "SUFFIX"]

log = logging.getLogger(__name__)

#: Suggested file extension of project files.
SUFFIX = ".tagproj"

Labels = Iterable[str] | str
Status = str | Iterable[str] | None
Action = _actions.Action | None


class Project:
    """An open project file.

    Create one with :meth:`create` or :meth:`open`, not with the constructor.
    Use it as a context manager, or call :meth:`close`.  Sentences, the corpus
    and annotations are its own methods; the rest is in its parts, each given
    only the project's :class:`~tagtool.store.project_db.ProjectDb` (connection,
    write transaction, label set).

    Attributes
    ----------
    label_set : LabelSetPart
        Label colours and keys; labels added, renamed, removed (:mod:`~tagtool.store.project_labels`).
    team : TeamPart
        Annotators' answers and resolutions (:mod:`~tagtool.store.project_team`).
    review : ReviewPart
        Flags, skips, tokenization fixes, the export and training corpora
        (:mod:`~tagtool.store.project_review`).
    stored : StoredPart
        Models, added texts, word representations (:mod:`~tagtool.store.project_stored`).
    spans : SpansPart
        Span records attached by character offsets (:mod:`~tagtool.store.project_attach`).
    listing : ListingPart
        The sentence list's rows, filters, search and counts (:mod:`~tagtool.store.project_listing`).
    imports : ImportsPart
        Documents or annotations imported from a corpus (:mod:`~tagtool.store.project_imports`).
    path : pathlib.Path
        The project file.
    readonly : bool
        True when opened read-only (asked for, or the file has a newer schema);
        every edit then raises :class:`~tagtool.errors.ProjectError`.
    schema_version : int
        Schema version of the open data (the file's own version when it is
        newer than this code).
    newer_schema : bool
        The file was written by a newer tagtool (and is therefore read-only).
    readonly_reason : str or None
        Why a project opened for editing is read-only ("its folder ... cannot
        be written"), or None.
    migrated_from : int or None
        The file's version before this open migrated it.
    backup_path : pathlib.Path or None
        The copy written before migrating (``<file>.bak-v<N>``).
    """

    def __init__(
        self,
        path: Path,
        conn: sqlite3.Connection,
        *,
        readonly: bool,
        schema_version: int,
        newer_schema: bool = False,
        migrated_from: int | None = None,
        backup_path: Path | None = None,
        readonly_reason: str | None = None,
        tidy_sides: bool = False,
    ):
        self.path, self.readonly = Path(path), readonly
        self.schema_version, self.newer_schema, self.migrated_from = schema_version, newer_schema, migrated_from
        self.backup_path, self.readonly_reason, self._tidy_sides = backup_path, readonly_reason, tidy_sides
        self.db = db = ProjectDb(self.path, conn, readonly, readonly_reason)
        self.label_set, self.team, self.review = LabelSetPart(db), TeamPart(db), ReviewPart(db)
        self.stored, self.spans, self.imports = StoredPart(db), SpansPart(db), ImportsPart(db)
        self.listing = ListingPart(db, search_index.ready(conn))

    # -- creating, opening, closing (tagtool.store.lifecycle)

    @classmethod
    def create(
        cls,
        path: str | os.PathLike,
        corpus: Corpus,
        name: str | None = None,
        label_colors: Mapping[str, str] | None = None,
        *,
        overwrite: bool = False,
        annotator: str = "import",
        meta: Mapping[str, str] | None = None,
    ) -> Project:
        """Write a new project holding ``corpus`` and open it read-write.

        The file is built under a temporary name and moved into place once
        complete (:func:`tagtool.store.lifecycle.create_file`), so ``path``
        either does not change or holds the whole project.  ``name`` defaults
        to the file's stem; ``label_colors`` gives some labels a ``#rrggbb``;
        ``annotator`` is recorded as the giver of the corpus's annotations;
        ``meta`` rows are written in the same transaction.  An existing
        ``path`` is a :class:`ProjectError` unless ``overwrite``; invalid
        colours, labels or sentences write nothing.
        """
        path = Path(path)
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a Corpus, got {type(corpus).__name__}")
        colors = _colors.default_colors(corpus.labels.names)
        for label, color in (label_colors or {}).items():
            colors[corpus.labels.index(label)] = _colors.check_color(color)
        lifecycle.create_file(path, corpus, name or path.stem, colors, overwrite, annotator, meta)
        return cls.open(path)

    @classmethod
    def open(cls, path: str | os.PathLike, readonly: bool = False) -> Project:
        """Open a project file (:func:`tagtool.store.lifecycle.open_file`).

        The file is checked through a read-only connection before anything
        may write to it.  An older schema is migrated after a backup copy
        ``<file>.bak-v<N>`` is written (in memory with ``readonly=True``); a
        newer one opens read-only with a :class:`NewerSchemaWarning`.  A
        missing, foreign, damaged or truncated file, or a failed migration,
        is a :class:`ProjectError` and the file is never modified then.
        """
        path = Path(path)
        opened = lifecycle.open_file(path, readonly)
        project = cls(
            path,
            opened.conn,
            readonly=opened.readonly,
            schema_version=opened.schema_version,
            newer_schema=opened.newer_schema,
            migrated_from=opened.migrated_from,
            backup_path=opened.backup_path,
            readonly_reason=opened.readonly_reason,
            tidy_sides=opened.tidy_sides,
        )
        if not project.listing.search_index:
            log.warning(
                "%s: no search index this SQLite (%s) can use; searching scans the text", path, sqlite3.sqlite_version
            )
        return project

    def close(self) -> None:
        """Close the connection (idempotent); edits are already committed.

        A failing checkpoint (a full or read-only disk) leaves the WAL beside
        the file, committed edits in it, for the next open to replay: logged only.
        """
        conn = self.db.detach()
        if conn is not None:
            try:
                conn.close()
            except sqlite3.Error as e:
                log.warning("%s: closing failed (%s); committed edits stay in its WAL file", self.path, e)
            if self._tidy_sides:
                dbfile.tidy_side_files(self.path)

    @property
    def live_file(self) -> Path | None:
        """The file the connection reads, or None for an in-memory copy (an old file opened
        read-only is migrated into memory: another connection to :attr:`path` would read the old schema)."""
        row = self._db.execute("SELECT file FROM pragma_database_list WHERE name = 'main'").fetchone()
        return self.path if row and row[0] else None

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self.db.closed

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.readonly else "open")
        return f"<Project {str(self.path)!r} {state}>"

    # -- plumbing

    @property
    def _db(self) -> sqlite3.Connection:
        # The open connection, for this package's functions of one (merge, assign, duplicates).
        return self.db.conn

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.db.write()

    @property
    def labels(self) -> LabelSet:
        """The label set Σ in its fixed order, re-read when another program changed it."""
        return self.db.labels

    @contextmanager
    def read_transaction(self) -> Iterator[Project]:
        """Every read of this project inside the block sees one snapshot of the file
        (:func:`tagtool.store.transaction.read`): reads that must agree with each other
        (an export's corpus, ids and answers) while another program edits it.  Nothing
        may be written inside it (an edit raises :class:`~tagtool.errors.ProjectError`)."""
        with self.db.read():
            yield self

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._db.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def _length(self, sentence_id: int) -> int:
        return self.db.length(sentence_id)

    def _normalize(self, labels: Labels) -> frozenset[str]:
        return self.db.normalize(labels)

    # -- project metadata

    @property
    def meta(self) -> dict[str, str]:
        """The ``meta`` table: schema_version, created, tagtool_version, name."""
        return dict(self._db.execute("SELECT key, value FROM meta"))

    def set_meta(self, key: str, value: str) -> None:
        """Set one ``meta`` row: a setting kept in the project (e.g. the app's token-question mode)."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, str(value)),
            )

    @property
    def name(self) -> str:
        """The project's name."""
        return self._one("SELECT value FROM meta WHERE key = 'name'") or self.path.stem

    def identity(self) -> str:
        """The project's id (``meta`` ``project_id``), written now if an older file has none."""
        value = self.meta.get(lifecycle.PROJECT_ID_KEY)
        if not value:
            with self._write() as conn:
                conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                    (lifecycle.PROJECT_ID_KEY, uuid.uuid4().hex),
                )
            value = self.meta[lifecycle.PROJECT_ID_KEY]
        return value

    # -- sentences and the corpus (tagtool.store.corpus_reads)

    @property
    def n_sentences(self) -> int:
        """Number of sentences in all documents."""
        return self._one("SELECT count(*) FROM sentences")

    @property
    def n_tokens(self) -> int:
        """Number of tokens in all sentences."""
        return self._one("SELECT coalesce(sum(n_tokens), 0) FROM sentences")

    def documents(self) -> list[DocumentInfo]:
        """Documents in order, with their sentence and token counts."""
        return reading.documents(self._db)

    def sentence_ids(
        self,
        document_id: int | None = None,
        *,
        status: Status = None,
        search: str | None = None,
        order_by: str = "position",
        descending: bool = False,
    ) -> list[int]:
        """Ids of the sentences passing the filters (as :meth:`ListingPart.sentence_summaries`), in document order
        or by ``order_by`` (:func:`tagtool.store.list_queries.sentence_ids`)."""
        return queries.sentence_ids(
            self._db, self.listing.search_index, document_id, status, search, order_by, descending
        )

    def sentence(self, sentence_id: int) -> Sentence:
        """One sentence with its annotations."""
        return self.sentences([sentence_id])[0]

    def sentences(self, sentence_ids: Iterable[int]) -> list[Sentence]:
        """Sentences in the order of ``sentence_ids``.

        An unknown id: :class:`~tagtool.store.record_types.NotFoundError`.
        """
        return reading.sentences(self._db, self.path, sentence_ids)

    def corpus(self) -> Corpus:
        """The whole project as a :class:`Corpus` (one query per table), its label set read
        in the same snapshot."""
        with self.read_transaction():
            return reading.corpus(self._db, self.path, self.labels)

    def snapshot(self, checkpoint: Callable[[], bool] | None = None) -> tuple[list[int], list[Sentence]]:
        """Ids and sentences of the whole project, in one transaction (:func:`tagtool.store.corpus_reads.snapshot`)."""
        return reading.snapshot(self._db, self.path, checkpoint)

    # -- annotations and their log (tagtool.store.writes)

    def annotations(self, sentence_id: int) -> tuple[frozenset[str], ...]:
        """Allowed set of every token of a sentence (empty = no label)."""
        return reading.annotations(self._db, sentence_id)

    def set_annotation(self, sentence_id: int, token_index: int, labels: Labels, annotator: str = "user") -> None:
        """Set one token's allowed set: one label, several (a candidate set) or none, or their
        column-file spelling (``"A"``, ``"A|B"``, ``"_"``); committed."""
        self.set_annotations(sentence_id, {token_index: labels}, annotator)

    def set_annotations(self, sentence_id: int, changes: Mapping[int, Labels], annotator: str = "user") -> int:
        """Set several tokens of one sentence in one transaction, logged; tokens actually changed."""
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        with self._write() as conn:
            return writes.apply(conn, self.path, self.labels, int(sentence_id), normalized, annotator)

    def apply_action(
        self,
        sentence_id: int,
        changes: Mapping[int, Labels],
        action: _actions.Action,
        annotator: str = "user",
        opened: Action = None,
    ) -> int | None:
        """:meth:`set_annotations` and the app's ``action`` (after ``opened``, the ``open`` action of the
        visit it begins) in one transaction; the action's id, None when no token changed."""
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        writes.check_opening(action, opened)
        with self._write() as conn:
            return writes.apply_action(
                conn, self.path, self.labels, int(sentence_id), normalized, annotator, action, opened
            )

    def log_action(self, action: _actions.Action, sentence_id: int | None = None, annotator: str = "user") -> int:
        """Log an action that changes no annotation (a ``skip``); its id."""
        if sentence_id is not None:
            self._length(sentence_id)  # NotFoundError for an unknown id
        with self._write() as conn:
            return _actions.insert(conn, action, sentence_id, annotator)

    def actions(
        self,
        kinds: Iterable[str] | None = None,
        since: float | None = None,
        annotator: str | None = None,
        after_id: int | None = None,
    ) -> list[ActionRecord]:
        """The action log, oldest first (:func:`tagtool.store.actions.read`); only those after ``after_id``."""
        return _actions.read(self._db, kinds, since, annotator, after_id)

    def annotation_history(
        self,
        sentence_id: int | None = None,
        since: float | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[LogEntry]:
        """Edits made in the app (the annotation log), oldest first unless ``newest_first``."""
        return writes.history(self._db, sentence_id, since, limit, newest_first)

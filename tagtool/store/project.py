"""The project store: one SQLite file holding labels, corpus, annotations, models.

:class:`Project` is the front the app, the CLI and the tests call; each of
its methods hands over to the module of one job: :mod:`~tagtool.store.label_rows`
(the label set), :mod:`~tagtool.store.reading` (sentences, corpus, snapshot),
:mod:`~tagtool.store.queries` (the sentence list's filters, search and counts),
:mod:`~tagtool.store.writes` (annotation writes and their log),
:mod:`~tagtool.store.review`, :mod:`~tagtool.store.team`,
:mod:`~tagtool.store.annotators`, :mod:`~tagtool.store.retokenize`,
:mod:`~tagtool.store.model_file` (stored models) and
:mod:`~tagtool.store.representations`.

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
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.features.wordreps import WordRepresentations
from tagtool.core.labels import LabelSet, check_label_name
from tagtool.errors import LabelError, ProjectError
from tagtool.store import actions as _actions
from tagtool.store import annotator_answers as _answers
from tagtool.store import annotators as _annotators
from tagtool.store import colors as _colors
from tagtool.store import dbfile, lifecycle, queries, reading, transaction, writes
from tagtool.store import label_rows as _labels
from tagtool.store import model_file as _models
from tagtool.store import representations as reps_store
from tagtool.store import retokenize as _retokenize
from tagtool.store import review as _review
from tagtool.store import rows as _rows
from tagtool.store import search_index
from tagtool.store import team as _team
from tagtool.store.label_rows import AUTO, UNCHANGED
from tagtool.store.lifecycle import NewerSchemaWarning
from tagtool.store.records import (
    ActionRecord, DocumentInfo, LabelInfo, LogEntry, ModelRecord, NotFoundError, SentenceSummary,
)

# NotFoundError and NewerSchemaWarning are what Project's methods raise and warn: part of its front.
__all__ = ["AUTO", "NewerSchemaWarning", "NotFoundError", "Project", "SUFFIX", "UNCHANGED"]

log = logging.getLogger(__name__)

#: Suggested file extension of project files.
SUFFIX = ".tagproj"


class Project:
    """An open project file.

    Create one with :meth:`create` or :meth:`open`, not with the constructor.
    Use it as a context manager, or call :meth:`close`.

    Attributes
    ----------
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
        self, path: Path, conn: sqlite3.Connection, *, readonly: bool, schema_version: int,
        newer_schema: bool = False, migrated_from: int | None = None, backup_path: Path | None = None,
        readonly_reason: str | None = None, tidy_sides: bool = False,
    ):
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = conn
        self.readonly = readonly
        self.schema_version = schema_version
        self.newer_schema = newer_schema
        self.migrated_from = migrated_from
        self.backup_path = backup_path
        self.readonly_reason = readonly_reason
        self._tidy_sides = tidy_sides
        self._label_cache = _labels.LabelCache(self.path)
        # Whether searches may use the trigram index (tagtool.store.search_index).
        self._search_index = search_index.ready(conn)

    # ------------------------------------------------------------------
    # creating, opening, closing

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
        """Write a new project holding ``corpus`` and open it.

        The file is built under a temporary name in the same folder and moved
        into place with :func:`os.replace` once complete, so ``path`` either
        does not change or holds the whole project.

        Parameters
        ----------
        path : path-like
            The project file to write (extension :data:`SUFFIX` suggested).
        corpus : Corpus
            Label set, documents, sentences and their annotations.
        name : str, optional
            Project name; defaults to the file name without extension.
        label_colors : mapping of str to str, optional
            ``#rrggbb`` colour of some labels; the others get defaults.
        overwrite : bool
            Replace an existing file at ``path`` (refused by default).
        annotator : str
            Recorded as the annotator of the corpus's annotations.
        meta : mapping of str to str, optional
            More ``meta`` rows, written in the same transaction (an
            annotator's file records its source project and annotator).

        Returns
        -------
        Project
            Opened read-write.

        Raises
        ------
        ProjectError
            ``path`` exists and ``overwrite`` is false, or the folder is not writable.
        LabelError, FormatError
            Invalid colours, labels or sentences; nothing is written.
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
        """Open a project file.

        The file is checked (header, ``PRAGMA integrity_check``, schema
        version, JSON values) through a read-only connection before anything
        may write to it; text damaged inside a value reads as U+FFFD.  An
        older schema is migrated after a backup copy ``<file>.bak-v<N>`` is
        written (with ``readonly=True`` the migration happens in memory and
        the file is left alone).  A newer schema opens read-only with a
        :class:`NewerSchemaWarning`.

        Raises
        ------
        ProjectError
            Missing file, not a tagtool project, damaged or truncated file,
            or a failed migration.  The file is never modified in these cases.
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
        if not project._search_index:
            log.warning("%s: no search index this SQLite (%s) can use; searching scans the text",
                        path, sqlite3.sqlite_version)
        return project

    def close(self) -> None:
        """Close the connection (idempotent); edits are already committed.

        Closing checkpoints the WAL into the file; when that fails (a full or
        read-only disk) the WAL stays beside the file, committed edits in it,
        and the next open replays it, so the failure is only logged.
        """
        if self._conn is not None:
            conn, self._conn = self._conn, None
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
        return self._conn is None

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.readonly else "open")
        return f"<Project {str(self.path)!r} {state}>"

    # ------------------------------------------------------------------
    # plumbing

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise ProjectError(f"{self.path}: the project is closed")
        return self._conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (:func:`tagtool.store.transaction.write`); refused when read-only.

        Once the write lock is held another process cannot change the label
        set any more: one that did before is re-read first.
        """
        if self.readonly:
            why = f" ({self.readonly_reason})" if self.readonly_reason else ""
            raise ProjectError(f"{self.path} is open read-only{why}; it cannot be changed")
        conn = self._db
        cache = self._label_cache
        with transaction.write(conn, self.path, lambda: cache.refresh(conn), cache.forget) as conn:
            yield conn

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._db.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def _length(self, sentence_id: int) -> int:
        return reading.sentence_length(self._db, sentence_id)

    def _summary_filter(self, status: Any, search: str | None, document_id: int | None) -> tuple[str, str, list]:
        return queries.summary_filter(self._db, self._search_index, status, search, document_id)

    # ------------------------------------------------------------------
    # project metadata

    @property
    def meta(self) -> dict[str, str]:
        """The ``meta`` table: schema_version, created, tagtool_version, name."""
        return dict(self._db.execute("SELECT key, value FROM meta"))

    @property
    def name(self) -> str:
        """The project's name."""
        return self._one("SELECT value FROM meta WHERE key = 'name'") or self.path.stem

    def identity(self) -> str:
        """The project's id (``meta`` ``project_id``), written now if an older file has none."""
        value = self.meta.get(lifecycle.PROJECT_ID_KEY)
        if value:
            return value
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                         (lifecycle.PROJECT_ID_KEY, uuid.uuid4().hex))
        return self.meta[lifecycle.PROJECT_ID_KEY]

    # ------------------------------------------------------------------
    # labels (tagtool.store.label_rows)

    @property
    def labels(self) -> LabelSet:
        """The label set Σ in its fixed order, re-read when another program changed it."""
        return self._label_cache.get(self._db)

    @property
    def labels_version(self) -> int:
        """Counter in the file that every change of the label set increments."""
        return _labels.version(self._db)

    def label_infos(self) -> list[LabelInfo]:
        """Name, colour and shortcut of every label, in label-set order."""
        return _labels.infos(self._db)

    def set_label_info(self, name: str, *, color: Any = UNCHANGED, shortcut: Any = UNCHANGED) -> None:
        """Change a label's colour (``#rrggbb``) and/or shortcut (None removes it); :class:`LabelError`
        for an unknown label, a malformed colour, or a shortcut another label has."""
        self.labels.index(name)
        with self._write() as conn:
            _labels.set_info(conn, name, color, shortcut)

    def reset_label_style(self) -> None:
        """Give every label the default colour and key of the label set, in one transaction
        (they depend on the labels alone: :mod:`tagtool.store.colors`)."""
        names = self.labels.names
        with self._write() as conn:
            _labels.reset_style(conn, names)

    def add_label(self, name: str, color: str | None = None, shortcut: Any = AUTO) -> None:
        """Append a label (annotations keep their meaning; "no label" now allows it too).

        ``color``: ``#rrggbb``, by default the type's colour for ``B-X``/``I-X``,
        else the next unused one; ``shortcut``: :data:`AUTO` picks the type's key
        (Shift + it for ``I-X``) or the lowest free digit
        (:func:`~tagtool.store.colors.shortcut_for_new_label`), None gives none.
        """
        check_label_name(name)
        _labels.check_new_name(self.labels, name)
        color, shortcut = _labels.new_style(self._db, name, color, shortcut)
        with self._write() as conn:
            _labels.check_new_name(self.labels, name)  # again: the labels may have been re-read
            _labels.append(conn, name, color, shortcut)
            self._label_cache.bump(conn)

    def rename_label(self, old: str, new: str) -> int:
        """Rename a label everywhere (annotations, each annotator's labels and the log), in one
        transaction; annotated tokens rewritten."""
        self.labels.index(old)
        check_label_name(new)
        _labels.check_new_name(self.labels, new)
        with self._write() as conn:
            self.labels.index(old)  # again: the labels may have been re-read
            _labels.check_new_name(self.labels, new)
            changed = _labels.rename(conn, old, new)
            self._label_cache.bump(conn)
        return changed

    def remove_label(self, name: str, force: bool = False, annotator: str = "user") -> int:
        """Remove a label; annotated tokens changed.

        When annotations would change, ``force`` False refuses (:class:`LabelError`,
        as for an unknown or the last label); True takes the label out of every
        annotation (a candidate set shrinks, a full label or a set of all other
        labels becomes no label), logging each change as an edit by ``annotator``.
        """
        _labels.remaining_without(self.labels, name)
        with self._write() as conn:
            # checked again: the labels may have been re-read
            position, remaining = _labels.remaining_without(self.labels, name)
            changes = _labels.changes_without(conn, name, remaining)
            n_changed = sum(len(c) for c in changes.values())
            own = _labels.annotator_rows_without(conn, name, remaining)
            if (n_changed or own) and not force:
                raise LabelError(
                    f"removing label {name!r} changes the annotations of {n_changed} tokens"
                    + (f" and {len(own)} annotators' own labels" if own else "")
                    + "; use force=True to take it out of them"
                )
            _labels.drop(conn, name, position, remaining, own)
            self._label_cache.bump(conn)
            for sid, anns in changes.items():
                writes.apply(conn, self.path, remaining, sid, anns, annotator)
        return n_changed

    # ------------------------------------------------------------------
    # sentences and the corpus (tagtool.store.reading, tagtool.store.queries)

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
        self, document_id: int | None = None, *, status: str | Iterable[str] | None = None,
        search: str | None = None, order_by: str = "position", descending: bool = False,
    ) -> list[int]:
        """Ids of all sentences (or those passing the filters), in document order by default.

        Filters as in :meth:`sentence_summaries`; ``order_by`` one of
        :data:`tagtool.store.queries.ORDER_KEYS` (:func:`tagtool.store.queries.sentence_ids`).
        """
        return queries.sentence_ids(self._db, self._search_index, document_id, status, search, order_by,
                                    descending)

    def next_sentence(
        self, after: int | None = None, status: str | Iterable[str] | None = None, search: str | None = None,
    ) -> int | None:
        """The first sentence after ``after`` in document order passing the filters (wrapping
        around; None when no other passes; :class:`NotFoundError` for an unknown ``after``)."""
        return queries.next_sentence(self._db, self._search_index, after, status, search)

    def sentence(self, sentence_id: int) -> Sentence:
        """One sentence with its annotations."""
        return self.sentences([sentence_id])[0]

    def sentences(self, sentence_ids: Iterable[int]) -> list[Sentence]:
        """Sentences in the order of ``sentence_ids`` (:class:`NotFoundError` for an unknown id)."""
        return reading.sentences(self._db, self.path, sentence_ids)

    def corpus(self) -> Corpus:
        """The whole project as a :class:`Corpus` (one query per table)."""
        return reading.corpus(self._db, self.path, self.labels)

    def snapshot(self, checkpoint: Callable[[], bool] | None = None) -> tuple[list[int], list[Sentence]]:
        """Ids and sentences of the whole project in document order, read in one transaction
        (:func:`tagtool.store.reading.snapshot`; seconds for 100k: the app reads it in a worker
        thread on a connection of its own)."""
        return reading.snapshot(self._db, self.path, checkpoint)

    def sentence_summaries(
        self, status: str | Iterable[str] | None = None, search: str | None = None,
        document_id: int | None = None, offset: int = 0, limit: int | None = None, preview_chars: int = 80,
    ) -> list[SentenceSummary]:
        """A page of the sentence list's rows, without token data.

        ``status``: one or more of :data:`tagtool.store.queries.STATUSES`;
        ``search``: text the space-joined tokens contain (case-insensitive
        for ASCII letters, ``%`` and ``_`` literal); ``document_id``: one document.
        """
        return queries.summaries(self._db, self._search_index, status, search, document_id, offset, limit,
                                 preview_chars)

    def sentence_summaries_by_id(self, sentence_ids: Iterable[int], preview_chars: int = 80) -> list[SentenceSummary]:
        """Rows of the sentence list for these ids, in their order (one query of primary-key lookups)."""
        return queries.summaries_by_id(self._db, sentence_ids, preview_chars)

    def count_sentences(
        self, status: str | Iterable[str] | None = None, search: str | None = None, document_id: int | None = None,
    ) -> int:
        """How many rows :meth:`sentence_summaries` has with these filters."""
        return queries.count(self._db, self._search_index, status, search, document_id)

    def status_counts(self) -> dict[str, int]:
        """Number of sentences that are fully, partially and not labeled."""
        return queries.status_counts(self._db)

    def annotation_counts(self) -> dict[str, int]:
        """Tokens with a full label, a partial label, and none."""
        return queries.annotation_counts(self._db)

    def label_counts(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``label -> (tokens with it as full label, candidate sets holding it)``, of the sentences
        with ids from ``first_id`` to ``last_id`` (:func:`tagtool.store.queries.label_counts`)."""
        return queries.label_counts(self._db, self.labels.names, first_id, last_id)

    def sentence_id_bounds(self) -> tuple[int, int] | None:
        """The smallest and the largest sentence id (None without sentences)."""
        return queries.id_bounds(self._db)

    def import_corpus(self, corpus: Corpus, annotator: str = "import", add_labels: bool = False) -> list[int]:
        """Append the documents of ``corpus`` in one transaction; the new sentences' ids.

        ``annotator`` is recorded as the giver of its annotations; a label the
        project lacks is a :class:`LabelError` unless ``add_labels``.
        """
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a Corpus, got {type(corpus).__name__}")
        with self._write() as conn:
            labels = _labels.add_missing(conn, self._label_cache, corpus.labels) if add_labels else self.labels
            with search_index.bulk_insert(conn):
                return _rows.insert_corpus(conn, corpus, labels, annotator)

    # ------------------------------------------------------------------
    # annotations and their log (tagtool.store.writes)

    def annotations(self, sentence_id: int) -> tuple[frozenset[str], ...]:
        """Allowed set of every token of a sentence (empty = no label)."""
        return reading.annotations(self._db, sentence_id)

    def set_annotation(self, sentence_id: int, token_index: int, labels: Iterable[str] | str,
                       annotator: str = "user") -> None:
        """Set one token's allowed set: one label, several (a candidate set) or none, or their
        column-file spelling (``"A"``, ``"A|B"``, ``"_"``); committed."""
        self.set_annotations(sentence_id, {token_index: labels}, annotator)

    def set_annotations(self, sentence_id: int, changes: Mapping[int, Iterable[str] | str],
                        annotator: str = "user") -> int:
        """Set several tokens of one sentence in one transaction, logged; tokens actually changed."""
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        with self._write() as conn:
            return writes.apply(conn, self.path, self.labels, int(sentence_id), normalized, annotator)

    def apply_action(
        self, sentence_id: int, changes: Mapping[int, Iterable[str] | str], action: _actions.Action,
        annotator: str = "user", opened: _actions.Action | None = None,
    ) -> int | None:
        """:meth:`set_annotations` and the app's ``action`` (with ``opened``, the ``open`` action of
        the visit it begins) in one transaction; the action's id, None when no token changed."""
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        writes.check_opening(action, opened)
        sid = int(sentence_id)
        with self._write() as conn:
            if not writes.apply(conn, self.path, self.labels, sid, normalized, annotator):
                return None
            if opened is not None:
                _actions.insert(conn, opened, sid, annotator)
            return _actions.insert(conn, action, sid, annotator)

    def log_action(self, action: _actions.Action, sentence_id: int | None = None, annotator: str = "user") -> int:
        """Log an action that changes no annotation (a ``skip``); its id."""
        if sentence_id is not None:
            self._length(sentence_id)  # NotFoundError for an unknown id
        with self._write() as conn:
            return _actions.insert(conn, action, sentence_id, annotator)

    def actions(self, kinds: Iterable[str] | None = None, since: float | None = None, annotator: str | None = None,
                after_id: int | None = None) -> list[ActionRecord]:
        """The action log, oldest first (:func:`tagtool.store.actions.read`); only those after ``after_id``."""
        return _actions.read(self._db, kinds, since, annotator, after_id)

    def import_annotations(self, corpus: Corpus, mode: str = "replace", annotator: str = "import",
                           match: str = "order", add_labels: bool = False) -> int:
        """Take the annotations of a corpus whose sentences are the project's; tokens changed (not logged).

        ``mode`` ``"replace"`` or ``"fill"`` (:func:`tagtool.store.writes.take_annotations`);
        ``match`` ``"order"`` or ``"document"`` (:func:`tagtool.store.rows.match_sentences`:
        :class:`ProjectError` when they do not match); ``add_labels`` appends the
        corpus's labels the project lacks in the same transaction.
        """
        if mode not in ("replace", "fill"):
            raise ValueError(f"mode must be 'replace' or 'fill', got {mode!r}")
        pairs = _rows.match_sentences(self._db, corpus, match)
        with self._write() as conn:
            if add_labels:
                _labels.add_missing(conn, self._label_cache, corpus.labels)
            return writes.take_annotations(conn, self.labels, pairs, mode, annotator)

    def annotation_history(self, sentence_id: int | None = None, since: float | None = None,
                           limit: int | None = None, newest_first: bool = False) -> list[LogEntry]:
        """Edits made in the app (the annotation log), oldest first unless ``newest_first``."""
        return writes.history(self._db, sentence_id, since, limit, newest_first)

    def _normalize(self, labels: Iterable[str] | str) -> frozenset[str]:
        return writes.normalize(self.labels, labels)

    # ------------------------------------------------------------------
    # team work: answers, resolutions (tagtool.store.team, .annotators, .annotator_answers)

    def annotator_labels(self, sentence_id: int) -> dict[str, tuple[frozenset[str], ...]]:
        """Each annotator's own labels of a sentence, for data imported with several."""
        return reading.annotator_labels(self._db, sentence_id)

    def answers(self, sentence_id: int) -> tuple[dict[str, frozenset[str]], ...]:
        """Each token's answers, ``{annotator: labels}`` (empty: nobody answered it)."""
        return _team.read_answers(self._db, int(sentence_id), self._length(sentence_id))

    def resolutions(self, sentence_id: int) -> dict[int, _team.Resolution]:
        """``{token: Resolution}`` of the sentence's tokens an adjudicator resolved."""
        self._length(sentence_id)
        return _team.read_resolutions(self._db, int(sentence_id))

    def resolve_token(self, sentence_id: int, token_index: int, labels: Iterable[str] | str,
                      annotator: str = "user", action: _actions.Action | None = None) -> int | None:
        """Resolve a token: ``labels`` (one picked, or the candidate set kept) becomes its training
        label, later merges leave it alone; one transaction, logged (:func:`tagtool.store.writes.resolve`)."""
        ann = self._normalize(labels)
        if not ann:
            raise LabelError("a token is resolved with a label or a candidate set, not with no label")
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            return writes.resolve(conn, self.path, self.labels, int(sentence_id), int(token_index), ann,
                                  annotator, action)

    def unresolve_token(self, sentence_id: int, token_index: int, annotator: str = "user",
                        restore: Iterable[str] | str | None = None, action: _actions.Action | None = None) -> int | None:
        """Take a token's resolution back: its training label becomes ``restore`` (an undo), else
        the one its answers make; one transaction, logged (:func:`tagtool.store.writes.unresolve`)."""
        restored = None if restore is None else self._normalize(restore)
        if action is not None:
            _actions.check(action)
        self._length(sentence_id)
        with self._write() as conn:
            return writes.unresolve(conn, self.path, self.labels, int(sentence_id), int(token_index), restored,
                                    annotator, action)

    def merge_answers(self, files: Sequence[Any]) -> Any:
        """Bring annotators' files' answers in, one transaction (:func:`tagtool.store.merge.apply`)."""
        from tagtool.store import merge as _merge  # it imports this module

        with self._write() as conn:
            return _merge.apply(conn, self.labels, files)

    def add_answers(self, given: Sequence[tuple[int, str, Mapping[str, Sequence[frozenset[str]]]]],
                    add_labels: Iterable[str] = ()) -> _annotators.AnswerCounts:
        """Add ``(sentence id, description, {annotator: labels per token})`` answers and recompute the
        training labels they touch, one transaction (:func:`tagtool.store.annotators.write_answers`)."""
        given = list(given)
        if not given:
            return _annotators.AnswerCounts()
        for sid, _, by_name in given:
            n = self._length(sid)
            bad = [name for name, anns in by_name.items() if len(anns) != n]
            if bad:
                raise ProjectError(f"sentence {sid} has {n} tokens; {bad[0]!r} gave {len(by_name[bad[0]])} labels")
        with self._write() as conn:
            labels = _labels.add_missing(conn, self._label_cache, add_labels) if add_labels else self.labels
            return _annotators.write_answers(conn, labels, given)

    def annotator_answers(self, first_id: int | None = None, last_id: int | None = None,
                          shared: bool = False) -> Iterator[tuple[int, int, str, frozenset[str]]]:
        """Every annotator's own answers ``(sentence id, token, annotator, labels)``, an iterator
        (:func:`tagtool.store.annotator_answers.answers`)."""
        return _answers.answers(self._db, first_id, last_id, shared)

    def answering_annotators(self) -> list[str]:
        """Names with answers of their own (``annotator_labels``), sorted."""
        return _answers.annotators(self._db)

    def annotator_progress(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``annotator -> (sentences, tokens)`` answered (:func:`tagtool.store.annotator_answers.progress`)."""
        return _answers.progress(self._db, first_id, last_id)

    # ------------------------------------------------------------------
    # review flags and skips (tagtool.store.review)

    def review(self, sentence_id: int) -> _review.Review:
        """Whether a sentence is flagged for review (and the comment) or skipped."""
        self._length(sentence_id)
        return _review.get(self._db, sentence_id)

    def reviews(self) -> dict[int, _review.Review]:
        """``{sentence id: Review}`` of every flagged or skipped sentence."""
        return _review.all_reviews(self._db)

    def skipped_ids(self) -> set[int]:
        """Ids of the skipped sentences (they leave the queue and are not trained on)."""
        return {sid for sid, r in self.reviews().items() if r.skipped}

    def set_review(self, sentence_id: int, review: _review.Review, annotator: str = "user",
                   action: _actions.Action | None = None) -> int | None:
        """Store a sentence's flag, comment and skip at once, and the app's ``action`` (its id
        returned) in the same transaction."""
        if not isinstance(review, _review.Review):
            raise TypeError(f"review must be a Review, got {type(review).__name__}")
        self._length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            _review.put(conn, sentence_id, review, annotator)
            return None if action is None else _actions.insert(conn, action, int(sentence_id), annotator)

    def flag(self, sentence_id: int, comment: str = "", annotator: str = "user") -> None:
        """Flag a sentence for review with a comment (a flagged one gets the new comment)."""
        old = self.review(sentence_id)
        self.set_review(sentence_id, _review.Review(True, comment, old.skipped), annotator)

    def unflag(self, sentence_id: int, annotator: str = "user") -> None:
        """Remove a sentence's flag and its comment."""
        old = self.review(sentence_id)
        self.set_review(sentence_id, _review.Review(False, "", old.skipped), annotator)

    def set_skipped(self, sentence_id: int, skipped: bool = True, annotator: str = "user") -> None:
        """Skip a sentence (it leaves the queue and training), or put it back."""
        old = self.review(sentence_id)
        self.set_review(sentence_id, _review.Review(old.flagged, old.comment, bool(skipped)), annotator)

    def export_corpus(self) -> Corpus:
        """:meth:`corpus` with the review attributes and each annotator's own labels, for exported files."""
        corpus = self.corpus()
        ids = self.sentence_ids()
        corpus = _annotators.with_answers(self._db, corpus, ids)
        return _review.with_review_meta(corpus, ids, self.reviews())

    def training_corpus(self) -> Corpus:
        """:meth:`corpus` with the skipped sentences unlabeled: what learners may train on."""
        corpus = self.corpus()
        skipped = self.skipped_ids()
        if not skipped:
            return corpus
        sentences = iter(_review.for_training(self.sentence_ids(), list(corpus), skipped))
        documents = [Document(d.name, [next(sentences) for _ in d.sentences]) for d in corpus.documents]
        return Corpus(corpus.labels, documents)

    # ------------------------------------------------------------------
    # tokenization fixes (tagtool.store.retokenize)

    def split_token(self, sentence_id: int, token_index: int, offset: int, annotator: str = "user",
                    action: _actions.Action | None = None) -> _retokenize.Retokenized:
        """Split a token before its character ``offset``, labels following; the sentence before and
        after (for :meth:`restore_tokens`) and ``action``'s id, logged with it."""
        change = _retokenize.splitting(int(token_index), int(offset), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def merge_tokens(self, sentence_id: int, token_index: int, annotator: str = "user",
                     action: _actions.Action | None = None) -> _retokenize.Retokenized:
        """Merge a token with the next one (their texts joined); as :meth:`split_token`."""
        change = _retokenize.merging(int(token_index), annotator)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def restore_tokens(self, sentence_id: int, state: _retokenize.TokenState, at: int,
                       expected: _retokenize.TokenState | None = None, annotator: str = "user",
                       action: _actions.Action | None = None) -> int | None:
        """Put a sentence back into ``state`` (undo or redo of a split or merge at token ``at``),
        unless its tokens are no longer ``expected``'s; the id of ``action``, logged with it."""
        change = _retokenize.restoring(sentence_id, state, expected)
        return self._retokenize(sentence_id, int(at), change, annotator, action).action_id

    def _retokenize(self, sentence_id: int, at: int, change: _retokenize.Change, annotator: str,
                    action: _actions.Action | None) -> _retokenize.Retokenized:
        self._length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            return _retokenize.retokenize(conn, self.labels, int(sentence_id), at, change, annotator, action)

    # ------------------------------------------------------------------
    # stored models (tagtool.store.model_file)

    def add_model(self, learner: str, params: Mapping[str, Any], metrics: Mapping[str, Any], data: bytes,
                  note: str = "") -> int:
        """Store a trained model (its exported tagger file's bytes); returns its id."""
        params_json, metrics_json, data = _models.encode(params, metrics, data)
        with self._write() as conn:
            return _models.insert(conn, learner, params_json, metrics_json, data, note)

    def models(self) -> list[ModelRecord]:
        """Stored models, oldest first (without their bytes)."""
        return _models.records(self._db)

    def model_data(self, model_id: int) -> bytes:
        """The exported tagger file of a stored model."""
        return _models.model_bytes(self._db, model_id)

    def delete_model(self, model_id: int) -> None:
        """Remove a stored model."""
        with self._write() as conn:
            _models.delete(conn, model_id)

    # ------------------------------------------------------------------
    # extra text and word representations (tagtool.store.representations)

    def add_text(self, name: str, lines: Iterable[Sequence[str]]) -> int:
        """Store a tokenised raw text for the word representations (not sentences to annotate); its id."""
        with self._write() as conn:
            return reps_store.add_text(conn, name, lines)

    def texts(self) -> list[reps_store.TextInfo]:
        """The added texts, oldest first."""
        return reps_store.texts(self._db)

    def text_lines(self) -> list[list[str]]:
        """Token lists of every added text."""
        return reps_store.text_lines(self._db)

    def remove_text(self, text_id: int) -> None:
        with self._write() as conn:
            reps_store.remove_text(conn, text_id)

    def text_tokens(self) -> int:
        """Tokens of all the project's text: its sentences and its added texts."""
        return reps_store.text_tokens(self._db)

    def representations_record(self) -> reps_store.StoredRepresentations | None:
        """The stored word representations' record (no arrays), or None."""
        return reps_store.stored(self._db)

    def representations(self) -> WordRepresentations | None:
        """The stored word representations, or None."""
        return reps_store.load(self._db)

    def representations_bytes(self) -> bytes | None:
        """The stored word representations' ``.npz`` bytes (decoded elsewhere: the app's worker)."""
        return reps_store.load_bytes(self._db)

    def set_representations(self, reps: WordRepresentations, learned_from_tokens: int, data: bytes | None = None) -> None:
        """Keep ``reps``, learned from ``learned_from_tokens`` tokens of this project's text (``data``: their bytes)."""
        with self._write() as conn:
            reps_store.store(conn, reps, learned_from_tokens, data)

    def representations_stale(self) -> bool:
        """True if none are stored or the text changed materially since (:func:`~tagtool.store.representations.is_stale`)."""
        return reps_store.is_stale(self.representations_record(), self.text_tokens())

"""The project store: one SQLite file holding labels, corpus, annotations, models.

Every edit method commits before it returns (there is no Save command): a
crash or a kill loses nothing a method has already returned from.  Each call
is one transaction, so it is applied entirely or not at all.

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

import json
import logging
import os
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tagtool.core.annotation import EMPTY, make_annotation, parse_annotation
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import CANDIDATE_SEPARATOR, NO_LABEL, LabelSet, check_label_name
from tagtool.core.features.wordreps import WordRepresentations
from tagtool.errors import LabelError, ProjectError
from tagtool.store import actions as _actions
from tagtool.store import annotator_answers as _answers
from tagtool.store import annotators as _annotators
from tagtool.store import colors as _colors
from tagtool.store import dbfile, lifecycle
from tagtool.store import representations as reps_store
from tagtool.store import retokenize as _retokenize
from tagtool.store import review as _review
from tagtool.store import rows as _rows
from tagtool.store import search_index
from tagtool.store import team as _team
from tagtool.store.lifecycle import NewerSchemaWarning
from tagtool.store.records import (
    ActionRecord,
    DocumentInfo,
    LabelInfo,
    LogEntry,
    ModelRecord,
    SentenceSummary,
)

__all__ = ["AUTO", "NewerSchemaWarning", "NotFoundError", "Project", "SUFFIX", "UNCHANGED"]

log = logging.getLogger(__name__)

#: Suggested file extension of project files.
SUFFIX = ".tagproj"
#: ``meta`` key of the counter that every change of the label set increments
#: (another process holding the project re-reads its labels when it moves).
LABELS_VERSION_KEY = "labels_version"

#: Sentence filters: annotation status; flagged for review, skipped;
#: "open" (not fully labeled and not skipped: what the queue offers); and
#: "disagree" (annotators' answers differ on a token no adjudicator resolved).
STATUSES = ("full", "partial", "none", "incomplete", "flagged", "skipped", "open", "disagree")
_STATUS_SQL = {
    "full": "s.n_full = s.n_tokens",
    "none": "(s.n_full = 0 AND s.n_partial = 0)",
    "partial": "(s.n_full < s.n_tokens AND s.n_full + s.n_partial > 0)",
    "incomplete": "s.n_full < s.n_tokens",
    "flagged": _review.FLAGGED_SQL,
    "skipped": _review.SKIPPED_SQL,
    "open": f"(s.n_full < s.n_tokens AND NOT {_review.SKIPPED_SQL})",
    "disagree": _team.DISAGREE_SQL,
}
#: Sentences read between two calls of ``Project.snapshot``'s ``checkpoint``.
CHECKPOINT_EVERY = 32
#: Sort keys of ``sentence_ids(order_by=...)`` (None: document order).  Status
#: ranks none (0), partial (1), full (2); text compares the list's preview.
_ORDER_KEYS = {
    "position": None,
    "status": "(s.n_full = s.n_tokens) + (s.n_full + s.n_partial > 0)",
    "length": "s.n_tokens",
    "text": "lower(substr(s.text, 1, 80))",
    "disagreement": _team.DISAGREEMENT_SQL,
}


class NotFoundError(ProjectError, LookupError):
    """A sentence, token or model id the project does not hold."""


class _Sentinel:
    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: "Leave this attribute as it is" (``set_label_info``).
UNCHANGED: Any = _Sentinel("UNCHANGED")
#: "Choose for me" (``add_label``'s shortcut: the lowest free digit 1–9).
AUTO: Any = _Sentinel("AUTO")


#: What SQLite's error codes mean to someone editing a project.
_REASONS = (
    ("SQLITE_FULL", "the disk is full"),
    ("SQLITE_READONLY", "the file or its disk is read-only"),
    ("SQLITE_BUSY", "another program is writing to it"),
    ("SQLITE_LOCKED", "another program is writing to it"),
    ("SQLITE_IOERR", "the disk reported an error"),
    ("SQLITE_CANTOPEN", "the file cannot be reached"),
    ("SQLITE_CORRUPT", "the file is damaged"),
)


def _reason(error: sqlite3.Error) -> str:
    """A sqlite3 error in words (extended codes such as SQLITE_IOERR_WRITE included)."""
    name = getattr(error, "sqlite_errorname", "") or ""
    message = str(error).lower()
    for code, words in _REASONS:
        if name.startswith(code):
            return words
    # errors raised by hand (tests) carry no code, only SQLite's message
    if "disk is full" in message:
        return "the disk is full"
    if "readonly" in message or "read-only" in message:
        return "the file or its disk is read-only"
    return "the database refused the change"


def _json_default(value: Any) -> Any:
    # numpy scalars and arrays (metrics often are) without importing numpy
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


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
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = conn
        self.readonly = readonly
        self.schema_version = schema_version
        self.newer_schema = newer_schema
        self.migrated_from = migrated_from
        self.backup_path = backup_path
        self.readonly_reason = readonly_reason
        self._tidy_sides = tidy_sides
        self._labels: LabelSet | None = None
        # What the cached label set was read at: the file's labels version and
        # SQLite's data_version (which moves when another connection commits).
        self._labels_version_seen: int | None = None
        self._data_version: int | None = None
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
        """The file the project's connection reads, or None for an in-memory copy.

        An old file opened read-only is migrated into memory: another
        connection to :attr:`path` would read the old schema.
        """
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
        """One write transaction: committed on success, rolled back on any error.

        SQLite failures (a lock held too long by another program, a full
        disk) become :class:`ProjectError`; the project is then unchanged.
        """
        if self.readonly:
            why = f" ({self.readonly_reason})" if self.readonly_reason else ""
            raise ProjectError(f"{self.path} is open read-only{why}; it cannot be changed")
        conn = self._db
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise ProjectError(f"{self.path} cannot be changed now: {_reason(e)} ({e})") from e
        try:
            # The write lock is held from here: another process may have
            # changed the label set since we read it, and cannot any more.
            self._refresh_labels_if_changed()
            yield conn
            conn.execute("COMMIT")
        except BaseException as e:
            self._rollback(conn)
            self._labels = None
            if isinstance(e, sqlite3.Error):
                raise ProjectError(f"{self.path}: the change could not be saved: {_reason(e)} ({e})") from e
            raise

    def _rollback(self, conn: sqlite3.Connection) -> None:
        # SQLite may have rolled back already (a full disk, an I/O error);
        # a failing ROLLBACK must not hide the error that caused it.
        if not conn.in_transaction:
            return
        try:
            conn.execute("ROLLBACK")
        except sqlite3.Error as e:
            log.warning("%s: rollback failed (%s)", self.path, e)

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        row = self._db.execute(sql, params).fetchone()
        return None if row is None else row[0]

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

    # ------------------------------------------------------------------
    # labels

    @property
    def labels(self) -> LabelSet:
        """The label set Σ in its fixed order.

        Re-read when another program changed it since it was last read (the
        file's labels version moved), so that no write uses a dead label.
        """
        self._refresh_labels_if_changed()
        if self._labels is None:
            names = [r[0] for r in self._db.execute("SELECT name FROM labels ORDER BY position")]
            try:
                self._labels = LabelSet(names)
            except LabelError as e:  # a label row written outside tagtool
                raise ProjectError(
                    f"{self.path} is damaged: its label set is invalid ({e}); was the file changed outside tagtool?"
                ) from e
        return self._labels

    @property
    def labels_version(self) -> int:
        """Counter in the file that every change of the label set increments."""
        return int(self._one(f"SELECT value FROM meta WHERE key = '{LABELS_VERSION_KEY}'") or 0)

    def _refresh_labels_if_changed(self) -> None:
        """Drop the cached label set when the file's labels version moved.

        ``PRAGMA data_version`` changes only when another connection commits,
        so the common case costs one pragma and no table read.
        """
        data_version = self._one("PRAGMA data_version")
        if data_version == self._data_version and self._labels is not None:
            return
        self._data_version = data_version
        version = self.labels_version
        if version != self._labels_version_seen:
            if self._labels_version_seen is not None:
                log.info("%s: the label set was changed by another program; re-read", self.path)
            self._labels = None
            self._labels_version_seen = version

    def _bump_labels_version(self, conn: sqlite3.Connection) -> None:
        """Record a change of the label set (inside the caller's transaction)."""
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) "
            "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
            (LABELS_VERSION_KEY,),
        )
        self._labels = None
        self._labels_version_seen = None

    def label_infos(self) -> list[LabelInfo]:
        """Name, colour and shortcut of every label, in label-set order."""
        rows = self._db.execute("SELECT name, color, shortcut FROM labels ORDER BY position")
        return [LabelInfo(*row) for row in rows]

    def set_label_info(
        self, name: str, *, color: Any = UNCHANGED, shortcut: Any = UNCHANGED
    ) -> None:
        """Change a label's colour (``#rrggbb``) and/or shortcut (None removes it).

        Raises
        ------
        LabelError
            Unknown label, malformed colour, or a shortcut another label has.
        """
        self.labels.index(name)
        with self._write() as conn:
            if color is not UNCHANGED:
                conn.execute("UPDATE labels SET color = ? WHERE name = ?",
                             (_colors.check_color(color), name))
            if shortcut is not UNCHANGED:
                self._set_shortcut(conn, name, _colors.check_shortcut(shortcut))

    def reset_label_style(self) -> None:
        """Give every label the default colour and key of the label set, in one transaction.

        The defaults depend on the labels alone (:mod:`tagtool.store.colors`),
        so this makes a project look and type like every other one with the
        same labels (a project made before issue 13 had keys by frequency).
        """
        names = self.labels.names
        rows = zip(_colors.default_colors(names), _colors.default_shortcuts(names), names)
        with self._write() as conn:
            conn.execute("UPDATE labels SET shortcut = NULL")  # keys change hands: none may be held twice
            conn.executemany("UPDATE labels SET color = ?, shortcut = ? WHERE name = ?", list(rows))

    def _set_shortcut(self, conn: sqlite3.Connection, name: str, shortcut: str | None) -> None:
        owner = None if shortcut is None else self._one(
            "SELECT name FROM labels WHERE shortcut = ? AND name <> ?", (shortcut, name)
        )
        if owner is not None:
            raise LabelError(f"shortcut {shortcut!r} already belongs to label {owner!r}")
        conn.execute("UPDATE labels SET shortcut = ? WHERE name = ?", (shortcut, name))

    def add_label(self, name: str, color: str | None = None, shortcut: Any = AUTO) -> None:
        """Append a label to the label set.

        Existing annotations keep their meaning; "no label" now also allows
        the new label.

        Parameters
        ----------
        name : str
        color : str, optional
            ``#rrggbb``; by default the type's colour for ``B-X``/``I-X``
            labels, else the next unused palette colour.
        shortcut : str or None or AUTO
            ``AUTO`` (default): the type's key for a span label whose type
            has one (Shift + it for ``I-X``), else the lowest free digit
            ``1``–``9`` if any (:func:`~tagtool.store.colors.shortcut_for_new_label`);
            None gives no shortcut.
        """
        check_label_name(name)
        self._check_new_name(name)
        infos = self.label_infos()
        if color is None:
            color = _colors.color_for_new_label(name, {i.name: i.color for i in infos})
        color = _colors.check_color(color)
        if shortcut is AUTO:
            shortcut = _colors.shortcut_for_new_label(name, {i.name: i.shortcut for i in infos})
        shortcut = _colors.check_shortcut(shortcut)
        with self._write() as conn:
            self._check_new_name(name)  # again: the labels may have been re-read
            conn.execute(
                "INSERT INTO labels (name, position, color, shortcut) "
                "SELECT ?, coalesce(max(position), -1) + 1, ?, NULL FROM labels",
                (name, color),
            )
            self._set_shortcut(conn, name, shortcut)
            self._bump_labels_version(conn)

    def _check_new_name(self, name: str) -> None:
        if name in self.labels:
            raise LabelError(f"label {name!r} exists already")

    def rename_label(self, old: str, new: str) -> int:
        """Rename a label everywhere (annotations, each annotator's labels and the log), in one transaction.

        Returns
        -------
        int
            Number of annotated tokens rewritten.
        """
        self.labels.index(old)
        check_label_name(new)
        self._check_new_name(new)

        def rename(text: str) -> str:
            parts = text.split(CANDIDATE_SEPARATOR)
            return CANDIDATE_SEPARATOR.join(new if n == old else n for n in parts)

        with self._write() as conn:
            self.labels.index(old)  # again: the labels may have been re-read
            self._check_new_name(new)
            conn.execute("UPDATE labels SET name = ? WHERE name = ?", (new, old))
            changed = 0
            for table, key, columns in (
                ("annotations", ("sentence_id", "token"), ("labels",)),
                ("annotator_labels", ("sentence_id", "token", "annotator"), ("labels",)),
                ("adjudicated", ("sentence_id", "token"), ("labels",)),
                ("annotation_log", ("id",), ("old", "new")),
            ):
                for column in columns:
                    rows = conn.execute(
                        f"SELECT {', '.join(key)}, {column} FROM {table} "
                        f"WHERE instr({column}, ?) > 0", (old,)
                    ).fetchall()
                    updates = [(rename(r[-1]), *r[:-1]) for r in rows if rename(r[-1]) != r[-1]]
                    where = " AND ".join(f"{k} = ?" for k in key)
                    conn.executemany(f"UPDATE {table} SET {column} = ? WHERE {where}", updates)
                    if table == "annotations":
                        changed = len(updates)
            self._bump_labels_version(conn)
        return changed

    def remove_label(self, name: str, force: bool = False, annotator: str = "user") -> int:
        """Remove a label from the label set.

        Parameters
        ----------
        name : str
        force : bool
            When annotations would change, False refuses; True removes the
            label from every annotation (a candidate set shrinks, a full label
            becomes no label, a set of all other labels becomes no label) and
            logs each change as an edit by ``annotator``.

        Returns
        -------
        int
            Number of annotated tokens changed.

        Raises
        ------
        LabelError
            Unknown label, the last label, or a label in use without ``force``.
        """
        self._remaining_without(name)
        with self._write() as conn:
            # checked again: the labels may have been re-read
            position, remaining = self._remaining_without(name)
            # Sets that hold the label shrink; sets naming every other label
            # (they only said "not this one") become no label.
            changes: dict[int, dict[int, frozenset]] = {}
            for sid, t, text in conn.execute(
                "SELECT sentence_id, token, labels FROM annotations "
                "WHERE instr(labels, '|') > 0 OR labels = ?", (name,)
            ):
                old = _rows.parse_stored(text)
                new = make_annotation(old - {name}, remaining)
                if new != old:
                    changes.setdefault(sid, {})[t] = new
            n_changed = sum(len(c) for c in changes.values())
            own = self._annotator_rows_without(conn, name, remaining)
            if (n_changed or own) and not force:
                raise LabelError(
                    f"removing label {name!r} changes the annotations of {n_changed} tokens"
                    + (f" and {len(own)} annotators' own labels" if own else "")
                    + "; use force=True to take it out of them"
                )
            self._rewrite_annotator_rows(conn, own)
            _team.drop_label(conn, name, remaining)
            conn.execute("DELETE FROM labels WHERE name = ?", (name,))
            # two steps keep positions unique during the shift
            conn.execute(
                "UPDATE labels SET position = -position - 1 WHERE position > ?", (position,)
            )
            conn.execute("UPDATE labels SET position = -position - 2 WHERE position < 0")
            self._bump_labels_version(conn)
            self._labels = remaining
            for sid, anns in changes.items():
                self._apply(conn, sid, anns, annotator)
        return n_changed

    @staticmethod
    def _annotator_rows_without(
        conn: sqlite3.Connection, name: str, remaining: LabelSet
    ) -> list[tuple[str | None, int, int, str]]:
        """``annotator_labels`` rows that hold ``name``: (new spelling or None, sentence, token, annotator)."""
        rows = conn.execute(
            "SELECT sentence_id, token, annotator, labels FROM annotator_labels "
            "WHERE instr(labels, '|') > 0 OR labels = ?", (name,)
        ).fetchall()
        out = []
        for sid, t, who, text in rows:
            old = _rows.parse_stored(text)
            if name in old:
                out.append((_rows.spell(make_annotation(old - {name}, remaining), remaining), sid, t, who))
        return out

    @staticmethod
    def _rewrite_annotator_rows(conn: sqlite3.Connection, rows: list[tuple[str | None, int, int, str]]) -> None:
        where = "WHERE sentence_id = ? AND token = ? AND annotator = ?"
        conn.executemany(f"DELETE FROM annotator_labels {where}", [r[1:] for r in rows if r[0] is None])
        conn.executemany(f"UPDATE annotator_labels SET labels = ? {where}", [r for r in rows if r[0] is not None])

    def _remaining_without(self, name: str) -> tuple[int, LabelSet]:
        """Position of ``name`` and the label set without it."""
        labels = self.labels
        position = labels.index(name)
        if len(labels) == 1:
            raise LabelError("the last label cannot be removed")
        return position, LabelSet(n for n in labels if n != name)

    # ------------------------------------------------------------------
    # corpus

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
        rows = self._db.execute(
            "SELECT d.id, d.name, d.position, count(s.id), coalesce(sum(s.n_tokens), 0) "
            "FROM documents d LEFT JOIN sentences s ON s.document_id = d.id "
            "GROUP BY d.id ORDER BY d.position"
        )
        return [DocumentInfo(*row) for row in rows]

    def sentence_ids(
        self,
        document_id: int | None = None,
        *,
        status: str | Iterable[str] | None = None,
        search: str | None = None,
        order_by: str = "position",
        descending: bool = False,
    ) -> list[int]:
        """Ids of all sentences (or those passing the filters), in document order by default.

        One query returning only ids (no token data): the sentence list keeps
        them as the index of a filtered or sorted view and reads its rows page
        by page with :meth:`sentence_summaries_by_id`.

        Parameters
        ----------
        document_id, status, search
            Filters as in :meth:`sentence_summaries`.
        order_by : {"position", "status", "length", "text", "disagreement"}
            Document order; or by status (none, partial, full), by number of
            tokens, by the text (case-insensitive for ASCII letters), or by
            the share of the sentence's tokens whose annotators' answers
            differ, unresolved (:data:`tagtool.store.team.DISAGREEMENT_SQL`),
            with ties in document order.
        descending : bool
            Reverse the order (ties stay in document order).
        """
        if order_by not in _ORDER_KEYS:
            raise ValueError(f"order_by must be among {', '.join(_ORDER_KEYS)}, got {order_by!r}")
        source, where, params = self._summary_filter(status, search, document_id)
        key, direction = _ORDER_KEYS[order_by], " DESC" if descending else ""
        if key is None:
            order = f"d.position{direction}, s.position{direction}"
        else:
            order = f"{key}{direction}, d.position, s.position"
        # All the ids as one JSON value: one step of SQLite instead of a row
        # each (a list of 100,000 ids in 16 ms instead of 24), and a worker
        # thread running this takes the GIL once, not once a row (while the
        # GUI thread runs Python, each take waits).  SQLite keeps a
        # subquery's ORDER BY when the outer query aggregates with anything
        # but count(), min() or max() (tests/store/test_project_listing.py).
        ids = self._one(
            f"SELECT json_group_array(id) FROM (SELECT s.id AS id {source} {where} ORDER BY {order})", params
        )
        return json.loads(ids)

    def next_sentence(
        self,
        after: int | None = None,
        status: str | Iterable[str] | None = None,
        search: str | None = None,
    ) -> int | None:
        """The first sentence after ``after`` in document order passing the filters.

        Wraps around to the first sentence; None when no sentence other
        than ``after`` passes.  Two ``LIMIT 1`` queries at most, however
        large the project (the "next unfinished sentence" key).

        Raises
        ------
        NotFoundError
            ``after`` is not a sentence of the project.
        """
        source, where, params = self._summary_filter(status, search, None)
        where = where or "WHERE 1"
        first = f"SELECT s.id {source} {where} AND s.id <> ? ORDER BY d.position, s.position LIMIT 1"
        if after is None:
            return self._one(first, [*params, -1])
        row = self._db.execute(
            "SELECT d.position, s.position FROM sentences s JOIN documents d ON d.id = s.document_id "
            "WHERE s.id = ?", (int(after),)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no sentence with id {after}")
        found = self._one(
            f"SELECT s.id {source} {where} "
            # the first condition lets SQLite start at the current document
            "AND d.position >= ? AND (d.position > ? OR s.position > ?) "
            "ORDER BY d.position, s.position LIMIT 1",
            [*params, row[0], row[0], row[1]],
        )
        return found if found is not None else self._one(first, [*params, int(after)])

    def sentence(self, sentence_id: int) -> Sentence:
        """One sentence with its annotations."""
        return self.sentences([sentence_id])[0]

    def sentences(self, sentence_ids: Iterable[int]) -> list[Sentence]:
        """Sentences in the order of ``sentence_ids`` (two queries in all).

        Raises
        ------
        NotFoundError
            An id the project does not hold.
        """
        ids = [int(i) for i in sentence_ids]
        if not ids:
            return []
        key = _rows.dumps(ids)
        rows = {
            r[0]: r[1:]
            for r in self._db.execute(
                "SELECT id, tokens, columns, meta FROM sentences "
                "WHERE id IN (SELECT value FROM json_each(?))", (key,)
            )
        }
        _require_ids(ids, rows)
        annotations = _rows.annotations_by_sentence(
            self._db, "WHERE sentence_id IN (SELECT value FROM json_each(?))", (key,)
        )
        with self._broken_sentence() as current:
            return [_rows.make_sentence(*rows[current(i)], annotations.get(i, {})) for i in ids]

    def corpus(self) -> Corpus:
        """The whole project as a :class:`Corpus` (one query per table)."""
        db = self._db
        annotations = _rows.annotations_by_sentence(db)
        by_document: dict[int, list[Sentence]] = {}
        with self._broken_sentence() as current:
            for doc_id, sid, tokens, columns, meta in db.execute(
                "SELECT document_id, id, tokens, columns, meta FROM sentences "
                "ORDER BY document_id, position"
            ):
                by_document.setdefault(doc_id, []).append(
                    _rows.make_sentence(tokens, columns, meta, annotations.get(current(sid), {}))
                )
        documents = [
            Document(name, by_document.get(doc_id, ()))
            for doc_id, name in db.execute("SELECT id, name FROM documents ORDER BY position")
        ]
        labels = self.labels
        try:
            return Corpus(labels, documents)
        except LabelError as e:
            # a label row deleted or an annotation written outside tagtool
            sid = next(s for s, anns in annotations.items() for ann in anns.values() if not ann <= set(labels))
            raise ProjectError(
                f"{self.path} is damaged: sentence {sid} holds a label that is not in the label set ({e}); "
                "was the file changed outside tagtool?"
            ) from e

    def snapshot(
        self, checkpoint: Callable[[], bool] | None = None
    ) -> tuple[list[int], list[Sentence]]:
        """Ids and sentences (with their annotations) of the whole project, in document order.

        Read in one transaction, so both lists describe the same moment
        even while another connection edits the file.  This reads every
        sentence (seconds for 100k): the app runs it in a worker thread on a
        connection of its own, never on the window's.

        Parameters
        ----------
        checkpoint : callable, optional
            Called every :data:`CHECKPOINT_EVERY` sentences (a worker thread
            pauses there for the GUI thread); when it returns True the read
            ends with :class:`InterruptedError`.
        """
        db = self._db
        outer = db.in_transaction
        if not outer:
            db.execute("BEGIN")
        try:
            return self._read_snapshot(db, checkpoint)
        finally:
            if not outer:
                db.execute("COMMIT")

    def _read_snapshot(
        self, db: sqlite3.Connection, checkpoint: Callable[[], bool] | None
    ) -> tuple[list[int], list[Sentence]]:
        # One row per sentence: its JSON fields as one document (a third of
        # the decoding calls) and its annotations as "token labels token
        # labels ..." (label names hold no spaces), read through the
        # annotations' primary key.
        ids: list[int] = []
        sentences: list[Sentence] = []
        with self._broken_sentence() as current:
            for sid, fields, annotated in db.execute(
            "SELECT s.id, '[' || s.tokens || ',' || s.columns || ',' || s.meta || ']', "
            "(SELECT group_concat(a.token || ' ' || a.labels, ' ') FROM annotations a "
            f" WHERE a.sentence_id = s.id) {_rows.ORDERED_SENTENCES} ORDER BY d.position, s.position"
        ):
                if checkpoint is not None and len(ids) % CHECKPOINT_EVERY == 0 and checkpoint():
                    raise InterruptedError(f"{self.path}: reading stopped")
                tokens, columns, meta = json.loads(fields)
                parts = annotated.split(" ") if annotated else []
                anns = zip(map(int, parts[::2]), map(_rows.parse_stored, parts[1::2]))
                ids.append(current(sid))
                sentences.append(_rows.build_sentence(tokens, anns, columns, meta))
        return ids, sentences

    @contextmanager
    def _broken_sentence(self) -> Iterator[Callable[[int], int]]:
        """Turn a sentence the file holds broken into a :class:`ProjectError`.

        Yields ``current(sid) -> sid``, to be called with each sentence id
        read, so that the error names the sentence.
        """
        last = [None]

        def current(sid: int) -> int:
            last[0] = sid
            return sid

        try:
            yield current
        except (ValueError, TypeError) as e:
            raise ProjectError(
                f"{self.path} is damaged: sentence {last[0]} holds broken data ({e}); "
                "was the file changed outside tagtool?"
            ) from e

    def sentence_summaries(
        self,
        status: str | Iterable[str] | None = None,
        search: str | None = None,
        document_id: int | None = None,
        offset: int = 0,
        limit: int | None = None,
        preview_chars: int = 80,
    ) -> list[SentenceSummary]:
        """Rows of the sentence list, without loading token data.

        Parameters
        ----------
        status : str or iterable of str, optional
            Keep sentences whose status is one of ``"full"``, ``"partial"``,
            ``"none"``, or ``"incomplete"`` (not full); or that are
            ``"flagged"`` for review, ``"skipped"``, or ``"open"`` (not full
            and not skipped).
        search : str, optional
            Keep sentences whose space-joined tokens contain this text
            (case-insensitive for ASCII letters, every other character
            matches only itself; ``%`` and ``_`` are literal); through the
            trigram index where it helps (:mod:`tagtool.store.search_index`).
        document_id : int, optional
            Keep one document's sentences.
        offset, limit : int
            The page to return, in document order.
        preview_chars : int
            Length of :attr:`SentenceSummary.preview`.
        """
        source, where, params = self._summary_filter(status, search, document_id)
        sql = (
            "SELECT s.id, s.document_id, d.name, s.position, s.n_tokens, s.n_full, "
            f"s.n_partial, substr(s.text, 1, ?) {source} {where} "
            "ORDER BY d.position, s.position LIMIT ? OFFSET ?"
        )
        params = [preview_chars, *params, -1 if limit is None else limit, offset]
        return [SentenceSummary(*row) for row in self._db.execute(sql, params)]

    def sentence_summaries_by_id(
        self, sentence_ids: Iterable[int], preview_chars: int = 80
    ) -> list[SentenceSummary]:
        """Rows of the sentence list for these ids, in their order (one query).

        Primary-key lookups: a page deep down a long list costs what the
        first page costs (``OFFSET`` would walk every row before it).

        Raises
        ------
        NotFoundError
            An id the project does not hold.
        """
        ids = [int(i) for i in sentence_ids]
        if not ids:
            return []
        rows = {
            row[0]: SentenceSummary(*row)
            for row in self._db.execute(
                "SELECT s.id, s.document_id, d.name, s.position, s.n_tokens, s.n_full, "
                "s.n_partial, substr(s.text, 1, ?) FROM sentences s "
                "JOIN documents d ON d.id = s.document_id "
                "WHERE s.id IN (SELECT value FROM json_each(?))",
                (preview_chars, _rows.dumps(ids)),
            )
        }
        _require_ids(ids, rows)
        return [rows[i] for i in ids]

    def count_sentences(
        self,
        status: str | Iterable[str] | None = None,
        search: str | None = None,
        document_id: int | None = None,
    ) -> int:
        """How many rows :meth:`sentence_summaries` has with these filters."""
        source, where, params = self._summary_filter(status, search, document_id)
        return self._one(f"SELECT count(*) {source} {where}", params)

    def _summary_filter(
        self, status: str | Iterable[str] | None, search: str | None, document_id: int | None
    ) -> tuple[str, str, list[Any]]:
        """``(FROM clause, WHERE clause, parameters)`` of the sentences passing the filters
        (``s`` the sentence, ``d`` its document; a search may read the trigram index first)."""
        source, clauses, params = _rows.ORDERED_SENTENCES, [], []
        if status is not None:
            statuses = [status] if isinstance(status, str) else list(status)
            unknown = [s for s in statuses if s not in _STATUS_SQL]
            if unknown or not statuses:
                raise ValueError(f"status must be among {', '.join(STATUSES)}, got {status!r}")
            clauses.append("(" + " OR ".join(_STATUS_SQL[s] for s in statuses) + ")")
        if search:
            source, clause, search_params = search_index.text_filter(self._db, self._search_index, search)
            clauses.append(clause)
            params += search_params
        if document_id is not None:
            clauses.append("s.document_id = ?")
            params.append(document_id)
        return source, ("WHERE " + " AND ".join(clauses)) if clauses else "", params

    def status_counts(self) -> dict[str, int]:
        """Number of sentences that are fully, partially and not labeled."""
        full, none, total = self._db.execute(
            "SELECT coalesce(sum(n_full = n_tokens), 0), "
            "coalesce(sum(n_full = 0 AND n_partial = 0), 0), count(*) FROM sentences"
        ).fetchone()
        return {"full": full, "partial": total - full - none, "none": none}

    def import_corpus(
        self, corpus: Corpus, annotator: str = "import", add_labels: bool = False
    ) -> list[int]:
        """Append the documents of ``corpus`` (one transaction: all or nothing).

        Parameters
        ----------
        corpus : Corpus
        annotator : str
            Recorded as the annotator of its annotations.
        add_labels : bool
            Append labels the project lacks; by default they are an error.

        Returns
        -------
        list of int
            Ids of the new sentences, in order.

        Raises
        ------
        LabelError
            An annotation uses a label the project lacks (and not ``add_labels``).
        FormatError
            A sentence with non-string tokens or column values.
        """
        if not isinstance(corpus, Corpus):
            raise TypeError(f"corpus must be a Corpus, got {type(corpus).__name__}")
        with self._write() as conn:
            labels = self.labels
            if add_labels:
                labels = self._add_missing_labels(conn, corpus.labels)
            with search_index.bulk_insert(conn):
                return _rows.insert_corpus(conn, corpus, labels, annotator)

    def _add_missing_labels(self, conn: sqlite3.Connection, wanted: Iterable[str]) -> LabelSet:
        """Append the labels of ``wanted`` the project lacks (inside the caller's transaction)."""
        labels = self.labels
        new = [name for name in wanted if name not in labels]
        for name in new:
            self._insert_label(conn, name)
        if new:
            self._bump_labels_version(conn)
        return self.labels

    def _insert_label(self, conn: sqlite3.Connection, name: str) -> None:
        existing = {n: c for n, c in conn.execute("SELECT name, color FROM labels")}
        keys = {n: k for n, k in conn.execute("SELECT name, shortcut FROM labels")}
        shortcut = _colors.shortcut_for_new_label(name, keys)
        conn.execute(
            "INSERT INTO labels (name, position, color, shortcut) "
            "SELECT ?, coalesce(max(position), -1) + 1, ?, ? FROM labels",
            (name, _colors.color_for_new_label(name, existing), shortcut),
        )

    # ------------------------------------------------------------------
    # annotations

    def annotations(self, sentence_id: int) -> tuple[frozenset[str], ...]:
        """Allowed set of every token of a sentence (empty = no label)."""
        n_tokens = self._sentence_length(sentence_id)
        result = [EMPTY] * n_tokens
        for t, text in self._db.execute(
            "SELECT token, labels FROM annotations WHERE sentence_id = ?", (sentence_id,)
        ):
            result[t] = _rows.parse_stored(text)
        return tuple(result)

    def annotator_labels(self, sentence_id: int) -> dict[str, tuple[frozenset[str], ...]]:
        """Each annotator's own labels of a sentence, for data imported with several.

        Empty for sentences no multi-annotator import filled (schema §
        ``annotator_labels``); a token an annotator left unlabeled is empty.
        """
        n_tokens = self._sentence_length(sentence_id)
        out: dict[str, list[frozenset[str]]] = {}
        for t, name, text in self._db.execute(
            "SELECT token, annotator, labels FROM annotator_labels WHERE sentence_id = ? "
            "ORDER BY annotator, token",
            (sentence_id,),
        ):
            out.setdefault(name, [EMPTY] * n_tokens)[t] = _rows.parse_stored(text)
        return {name: tuple(labels) for name, labels in out.items()}

    # ------------------------------------------------------------------
    # team work: answers, resolutions (tagtool.store.team)

    def identity(self) -> str:
        """The project's id (``meta`` ``project_id``), written now if an older file has none."""
        value = self.meta.get(lifecycle.PROJECT_ID_KEY)
        if value:
            return value
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                         (lifecycle.PROJECT_ID_KEY, uuid.uuid4().hex))
        return self.meta[lifecycle.PROJECT_ID_KEY]

    def answers(self, sentence_id: int) -> tuple[dict[str, frozenset[str]], ...]:
        """Each token's answers, ``{annotator: labels}`` (empty: nobody answered it).

        The training label (:meth:`annotations`) is made of them
        (:func:`tagtool.core.annotators.combine`) unless the token is resolved.
        """
        return _team.read_answers(self._db, int(sentence_id), self._sentence_length(sentence_id))

    def resolutions(self, sentence_id: int) -> dict[int, _team.Resolution]:
        """``{token: Resolution}`` of the sentence's tokens an adjudicator resolved."""
        self._sentence_length(sentence_id)
        return _team.read_resolutions(self._db, int(sentence_id))

    def resolve_token(
        self, sentence_id: int, token_index: int, labels: Iterable[str] | str,
        annotator: str = "user", action: _actions.Action | None = None,
    ) -> int | None:
        """Resolve a token: ``labels`` (one label picked, or the candidate set kept) becomes its
        training label, and later merges leave it alone; one transaction, logged.

        The training label's change goes to ``annotation_log`` and ``action``
        (kind ``adjudicate``) to the action log, both by ``annotator`` (the
        adjudicator).  Returns the action's id (None without an action).

        Raises
        ------
        LabelError
            No label, or a label not in the label set.
        NotFoundError
            Unknown sentence or token.
        """
        sid, t = int(sentence_id), int(token_index)
        ann = self._normalize(labels)
        if not ann:
            raise LabelError("a token is resolved with a label or a candidate set, not with no label")
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            self._apply(conn, sid, {t: ann}, annotator)
            text = _rows.spell(self._current(ann, self.labels), self.labels)
            _team.put_resolution(conn, sid, t, text, annotator, time.time())
            return None if action is None else _actions.insert(conn, action, sid, annotator)

    def unresolve_token(
        self, sentence_id: int, token_index: int, annotator: str = "user",
        restore: Iterable[str] | str | None = None, action: _actions.Action | None = None,
    ) -> int | None:
        """Take a token's resolution back; one transaction, logged.

        Its training label becomes ``restore`` if given (an undo puts back
        what it was before the resolution), else the one its answers make
        (:func:`tagtool.core.annotators.combine`; recorded as by the
        annotators who gave it).  Returns the action's id (None without an action).
        """
        sid, t = int(sentence_id), int(token_index)
        restored = None if restore is None else self._normalize(restore)
        if action is not None:
            _actions.check(action)
        self._sentence_length(sid)
        with self._write() as conn:
            _team.put_resolution(conn, sid, t, None, annotator, 0.0)
            if restored is not None:
                self._apply(conn, sid, {t: restored}, annotator)
            else:
                label, who = _annotators.derived_label(conn, self.labels, sid, t)
                self._apply(conn, sid, {t: label}, who)
            return None if action is None else _actions.insert(conn, action, sid, annotator)

    def merge_answers(self, files: Sequence[Any]) -> Any:
        """Bring annotators' files' answers into the project in one transaction
        (:func:`tagtool.store.merge.apply`); a :class:`~tagtool.store.merge.MergeReport`."""
        from tagtool.store import merge as _merge  # it imports this module

        with self._write() as conn:
            return _merge.apply(conn, self.labels, files)

    def _sentence_length(self, sentence_id: int) -> int:
        n = self._one("SELECT n_tokens FROM sentences WHERE id = ?", (int(sentence_id),))
        if n is None:
            raise NotFoundError(f"no sentence with id {sentence_id}")
        return n

    def _normalize(self, labels: Iterable[str] | str) -> frozenset[str]:
        if isinstance(labels, str):
            return parse_annotation(labels, self.labels)
        return make_annotation(labels, self.labels)

    def set_annotation(
        self,
        sentence_id: int,
        token_index: int,
        labels: Iterable[str] | str,
        annotator: str = "user",
    ) -> None:
        """Set one token's allowed set and commit.

        Parameters
        ----------
        sentence_id, token_index : int
        labels : iterable of str, or str
            One label (full), several (candidate set), none (clear).  A string
            is read in column-file spelling: ``"A"``, ``"A|B"``, ``"_"``.
        annotator : str

        Raises
        ------
        LabelError
            A label not in the label set.
        NotFoundError
            Unknown sentence or token index.
        """
        self.set_annotations(sentence_id, {token_index: labels}, annotator)

    def set_annotations(
        self,
        sentence_id: int,
        changes: Mapping[int, Iterable[str] | str],
        annotator: str = "user",
    ) -> int:
        """Set several tokens of one sentence in one transaction, logged.

        Returns
        -------
        int
            Number of tokens whose annotation actually changed.
        """
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        with self._write() as conn:
            return self._apply(conn, int(sentence_id), normalized, annotator)

    def apply_action(
        self,
        sentence_id: int,
        changes: Mapping[int, Iterable[str] | str],
        action: _actions.Action,
        annotator: str = "user",
        opened: _actions.Action | None = None,
    ) -> int | None:
        """Set tokens of one sentence and log ``action`` with them, in one transaction.

        As :meth:`set_annotations`, and the action's row
        (:mod:`tagtool.store.actions`) is inserted in the same transaction,
        so a crash keeps both or neither.  ``opened``: the ``open`` action
        of the visit ``action`` begins, inserted just before it in the same
        transaction.

        Returns
        -------
        int or None
            The action's id; None when no token changed (nothing is written).
        """
        normalized = {int(t): self._normalize(labels) for t, labels in changes.items()}
        _actions.check(action)
        if opened is not None:
            _actions.check(opened)
            if opened.kind != "open" or action.kind not in _actions.OPENING:
                raise ValueError(f"an open action goes with a first action of {_actions.OPENING}, "
                                 f"not {opened.kind!r} with {action.kind!r}")
        with self._write() as conn:
            if not self._apply(conn, int(sentence_id), normalized, annotator):
                return None
            if opened is not None:
                _actions.insert(conn, opened, int(sentence_id), annotator)
            return _actions.insert(conn, action, int(sentence_id), annotator)

    def log_action(self, action: _actions.Action, sentence_id: int | None = None, annotator: str = "user") -> int:
        """Log an action that changes no annotation (a ``skip``); its id."""
        if sentence_id is not None:
            self._sentence_length(sentence_id)  # NotFoundError for an unknown id
        with self._write() as conn:
            return _actions.insert(conn, action, sentence_id, annotator)

    def actions(
        self,
        kinds: Iterable[str] | None = None,
        since: float | None = None,
        annotator: str | None = None,
        after_id: int | None = None,
    ) -> list[ActionRecord]:
        """The action log, oldest first (:func:`tagtool.store.actions.read`).

        ``after_id`` reads only the actions logged after that one (a reader
        that keeps what it read before).
        """
        return _actions.read(self._db, kinds, since, annotator, after_id)

    def _apply(
        self,
        conn: sqlite3.Connection,
        sentence_id: int,
        changes: Mapping[int, frozenset],
        annotator: str,
    ) -> int:
        """Write ``changes`` of one sentence, log them, refresh its counts."""
        n_tokens = self._sentence_length(sentence_id)
        bad = [t for t in changes if not 0 <= t < n_tokens]
        if bad:
            raise NotFoundError(
                f"sentence {sentence_id} has {n_tokens} tokens; no token index {bad[0]}"
            )
        old = dict(conn.execute(
            "SELECT token, labels FROM annotations WHERE sentence_id = ?", (sentence_id,)
        ))
        now = time.time()
        upserts, deletes, entries = [], [], []
        labels = self.labels  # current: _write re-read it if another program changed it
        for t, ann in changes.items():
            new_text = _rows.spell(self._current(ann, labels), labels)
            old_text = old.get(t)
            if new_text == old_text:
                continue
            if new_text is None:
                deletes.append((sentence_id, t))
            else:
                upserts.append((sentence_id, t, new_text, annotator, now))
            entries.append(
                (sentence_id, t, old_text or NO_LABEL, new_text or NO_LABEL, annotator, now)
            )
        if not entries:
            return 0
        conn.executemany("DELETE FROM annotations WHERE sentence_id = ? AND token = ?", deletes)
        conn.executemany(
            "INSERT INTO annotations (sentence_id, token, labels, annotator, time) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT (sentence_id, token) DO UPDATE SET "
            "labels = excluded.labels, annotator = excluded.annotator, time = excluded.time",
            upserts,
        )
        conn.executemany(
            "INSERT INTO annotation_log (sentence_id, token, old, new, annotator, time) "
            "VALUES (?, ?, ?, ?, ?, ?)", entries,
        )
        _rows.refresh_counts(conn, [sentence_id])
        return len(entries)

    def _current(self, ann: frozenset, labels: LabelSet) -> frozenset:
        """``ann`` checked against the label set as it is in the file now."""
        try:
            return make_annotation(ann, labels)
        except LabelError as e:
            raise LabelError(
                f"{self.path}: {e}: the label set was changed (by another program?) since this "
                "edit was made; it was not saved"
            ) from None

    def import_annotations(
        self,
        corpus: Corpus,
        mode: str = "replace",
        annotator: str = "import",
        match: str = "order",
        add_labels: bool = False,
    ) -> int:
        """Take the annotations of a corpus whose sentences are the project's.

        Parameters
        ----------
        corpus : Corpus
            Same sentences (same tokens) as the project.
        mode : {"replace", "fill"}
            ``"replace"``: every matched token gets the corpus's annotation
            (no label included).  ``"fill"``: only tokens without an
            annotation take the corpus's.  Either way a token an adjudicator
            resolved (:mod:`tagtool.store.team`) keeps its label.
        annotator : str
        match : {"order", "document"}
            ``"order"``: the corpus's sentences are the project's, in document
            order.  ``"document"``: each corpus document matches the project
            document of the same name, sentence by sentence.
        add_labels : bool
            Append the corpus's labels the project lacks, in the same
            transaction (by default they are an error).

        Returns
        -------
        int
            Number of tokens changed.  Not logged per token (a bulk import).

        Raises
        ------
        ProjectError
            The sentences cannot be matched or their tokens differ; nothing changes.
        LabelError
            A label the project lacks.
        """
        if mode not in ("replace", "fill"):
            raise ValueError(f"mode must be 'replace' or 'fill', got {mode!r}")
        pairs = _rows.match_sentences(self._db, corpus, match)
        with self._write() as conn:
            if add_labels:
                self._add_missing_labels(conn, corpus.labels)
            existing: dict[tuple[int, int], str] = {
                (sid, t): text
                for sid, t, text in conn.execute(
                    "SELECT sentence_id, token, labels FROM annotations"
                )
            }
            resolved = set(conn.execute("SELECT sentence_id, token FROM adjudicated"))
            labels, now = self.labels, time.time()
            upserts, deletes, touched = [], [], set()
            for sid, where, sentence in pairs:
                for t, ann in enumerate(sentence.annotations):
                    old_text = existing.get((sid, t))
                    if (mode == "fill" and old_text is not None) or (sid, t) in resolved:
                        continue
                    try:
                        ann = make_annotation(ann, labels)
                    except LabelError as e:
                        raise LabelError(f"{where}, token {t + 1}: {e}") from None
                    new_text = _rows.spell(ann, labels)
                    if new_text == old_text:
                        continue
                    touched.add(sid)
                    if new_text is None:
                        deletes.append((sid, t))
                    else:
                        upserts.append((sid, t, new_text, annotator, now))
            conn.executemany("DELETE FROM annotations WHERE sentence_id = ? AND token = ?", deletes)
            conn.executemany(
                "INSERT OR REPLACE INTO annotations (sentence_id, token, labels, annotator, time) "
                "VALUES (?, ?, ?, ?, ?)", upserts,
            )
            _rows.refresh_counts(conn, sorted(touched))
        return len(upserts) + len(deletes)

    def annotation_counts(self) -> dict[str, int]:
        """Tokens with a full label, a partial label, and none."""
        full, partial, total = self._db.execute(
            "SELECT coalesce(sum(n_full), 0), coalesce(sum(n_partial), 0), "
            "coalesce(sum(n_tokens), 0) FROM sentences"
        ).fetchone()
        return {"full": full, "partial": partial, "none": total - full - partial}

    def label_counts(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``label -> (tokens with it as full label, candidate sets holding it)``, in label order.

        One aggregate query over the stored spellings (``A`` or ``A|B``):
        a project has few distinct candidate sets, however many tokens.
        ``first_id``, ``last_id``: only the sentences whose ids lie between
        them (the primary key's range; a big project's count made in steps,
        110 ms for 100,000 sentences at once).
        """
        full: Counter = Counter()
        candidate: Counter = Counter()
        where, args = "", ()
        if first_id is not None or last_id is not None:
            where, args = " WHERE sentence_id BETWEEN ? AND ?", (first_id or 0, 2**62 if last_id is None else last_id)
        for text, n in self._db.execute(f"SELECT labels, count(*) FROM annotations{where} GROUP BY labels", args):
            names = _rows.parse_stored(text)
            for name in names:
                (full if len(names) == 1 else candidate)[name] += n
        return {name: (full[name], candidate[name]) for name in self.labels.names}

    def sentence_id_bounds(self) -> tuple[int, int] | None:
        """The smallest and the largest sentence id (None without sentences)."""
        low, high = self._db.execute("SELECT min(id), max(id) FROM sentences").fetchone()
        return None if low is None else (low, high)

    def annotator_answers(
        self, first_id: int | None = None, last_id: int | None = None, shared: bool = False
    ) -> Iterator[tuple[int, int, str, frozenset[str]]]:
        """Every annotator's own answers ``(sentence id, token, annotator, labels)``, with ``shared``
        only of tokens two or more answered (:func:`tagtool.store.annotator_answers.answers`).

        An iterator: a caller that keeps only what it needs of each row never
        holds (nor frees at once) hundreds of thousands of them."""
        return _answers.answers(self._db, first_id, last_id, shared)

    def answering_annotators(self) -> list[str]:
        """Names with answers of their own (``annotator_labels``), sorted."""
        return _answers.annotators(self._db)

    def annotator_progress(self, first_id: int | None = None, last_id: int | None = None) -> dict[str, tuple[int, int]]:
        """``annotator -> (sentences, tokens)`` answered (:func:`tagtool.store.annotator_answers.progress`)."""
        return _answers.progress(self._db, first_id, last_id)

    def annotation_history(
        self,
        sentence_id: int | None = None,
        since: float | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[LogEntry]:
        """Edits made in the app (the annotation log), oldest first by default.

        Parameters
        ----------
        sentence_id : int, optional
            Only this sentence's edits.
        since : float, optional
            Only edits at or after this Unix time.
        limit : int, optional
            At most this many (the newest ones when ``newest_first``).
        newest_first : bool
            Order from the latest edit back (for undo).
        """
        clauses, params = [], []
        if sentence_id is not None:
            clauses.append("sentence_id = ?")
            params.append(sentence_id)
        if since is not None:
            clauses.append("time >= ?")
            params.append(since)
        where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
        order = "DESC" if newest_first else "ASC"
        params.append(-1 if limit is None else limit)
        rows = self._db.execute(
            "SELECT id, sentence_id, token, old, new, annotator, time FROM annotation_log "
            f"{where} ORDER BY id {order} LIMIT ?", params,
        )
        return [
            LogEntry(i, sid, t, _rows.parse_logged(old), _rows.parse_logged(new), who, when)
            for i, sid, t, old, new, who, when in rows
        ]

    # ------------------------------------------------------------------
    # review flags and skips (tagtool.store.review)

    def review(self, sentence_id: int) -> _review.Review:
        """Whether a sentence is flagged for review (and the comment) or skipped."""
        self._sentence_length(sentence_id)
        return _review.get(self._db, sentence_id)

    def reviews(self) -> dict[int, _review.Review]:
        """``{sentence id: Review}`` of every flagged or skipped sentence."""
        return _review.all_reviews(self._db)

    def skipped_ids(self) -> set[int]:
        """Ids of the skipped sentences (they leave the queue and are not trained on)."""
        return {sid for sid, r in self.reviews().items() if r.skipped}

    def set_review(
        self, sentence_id: int, review: _review.Review, annotator: str = "user",
        action: _actions.Action | None = None,
    ) -> int | None:
        """Store a sentence's flag, comment and skip at once (the app's undo writes through it).

        ``action``: the app's action (``review``, or the undo or redo of
        one), logged in the same transaction; its id is returned.
        """
        if not isinstance(review, _review.Review):
            raise TypeError(f"review must be a Review, got {type(review).__name__}")
        self._sentence_length(sentence_id)
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
        """:meth:`corpus` for exported files: with the review attributes
        (:func:`~tagtool.store.review.with_review_meta`) and each annotator's
        own labels (:func:`~tagtool.store.annotators.with_answers`)."""
        corpus = self.corpus()
        ids = self.sentence_ids()
        corpus = _annotators.with_answers(self._db, corpus, ids)
        return _review.with_review_meta(corpus, ids, self.reviews())

    def add_answers(
        self,
        given: Sequence[tuple[int, str, Mapping[str, Sequence[frozenset[str]]]]],
        add_labels: Iterable[str] = (),
    ) -> _annotators.AnswerCounts:
        """Add annotators' own answers and recompute the training labels they touch (one transaction).

        ``given`` holds ``(sentence id, description, {annotator: labels per
        token})``; ``add_labels`` are appended to the label set first. The
        rule and what it keeps: :mod:`tagtool.store.annotators`.
        """
        given = list(given)
        if not given:
            return _annotators.AnswerCounts()
        for sid, _, by_name in given:
            n = self._sentence_length(sid)
            bad = [name for name, anns in by_name.items() if len(anns) != n]
            if bad:
                raise ProjectError(f"sentence {sid} has {n} tokens; {bad[0]!r} gave {len(by_name[bad[0]])} labels")
        with self._write() as conn:
            labels = self._add_missing_labels(conn, add_labels) if add_labels else self.labels
            return _annotators.write_answers(conn, labels, given)

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

    def split_token(
        self, sentence_id: int, token_index: int, offset: int, annotator: str = "user",
        action: _actions.Action | None = None,
    ) -> _retokenize.Retokenized:
        """Split a token in two before its character ``offset``; labels follow (:mod:`tagtool.core.retokenize`).

        Returns
        -------
        Retokenized
            The sentence before and after (for :meth:`restore_tokens`: undo),
            and the id of ``action`` (the app's ``retokenize``), logged in the
            same transaction, if one was given.

        Raises
        ------
        RetokenizeError
            ``offset`` leaves one part empty, or no such token.
        """
        def change(old, labels, now):
            return _retokenize.split_state(old, int(token_index), int(offset), labels, annotator, now)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def merge_tokens(
        self, sentence_id: int, token_index: int, annotator: str = "user",
        action: _actions.Action | None = None,
    ) -> _retokenize.Retokenized:
        """Merge a token with the next one (their texts joined); as :meth:`split_token`."""
        def change(old, labels, now):
            return _retokenize.merge_state(old, int(token_index), labels, annotator, now)
        return self._retokenize(sentence_id, int(token_index), change, annotator, action)

    def restore_tokens(
        self, sentence_id: int, state: _retokenize.TokenState, at: int,
        expected: _retokenize.TokenState | None = None, annotator: str = "user",
        action: _actions.Action | None = None,
    ) -> int | None:
        """Put a sentence back into ``state`` (undo or redo of a split or merge at token ``at``).

        ``expected``: the state the sentence must be in now; when its tokens
        differ (another program retokenized it meanwhile) nothing is changed.
        ``action``: the app's undo or redo, logged in the same transaction
        (its id is returned).
        """
        def change(old, _labels, _now):
            if expected is not None and old.tokens != expected.tokens:
                raise _retokenize.RetokenizeError(
                    f"sentence {sentence_id} was changed since (its tokens are {' '.join(old.tokens)!r}); "
                    "it was left as it is")
            return state
        return self._retokenize(sentence_id, int(at), change, annotator, action).action_id

    def _retokenize(self, sentence_id: int, at: int, change, annotator: str,
                    action: _actions.Action | None) -> _retokenize.Retokenized:
        self._sentence_length(sentence_id)
        if action is not None:
            _actions.check(action)
        with self._write() as conn:
            old = _retokenize.read_state(conn, int(sentence_id))
            new = change(old, self.labels, time.time())
            _retokenize.write_state(conn, int(sentence_id), old, new, at, annotator)
            action_id = None if action is None else _actions.insert(conn, action, int(sentence_id), annotator)
        return _retokenize.Retokenized(old, new, action_id)

    def add_model(
        self,
        learner: str,
        params: Mapping[str, Any],
        metrics: Mapping[str, Any],
        data: bytes,
        note: str = "",
    ) -> int:
        """Store a trained model (its exported tagger file's bytes); returns its id."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"data must be bytes, got {type(data).__name__}")
        try:
            params_json = json.dumps(dict(params), default=_json_default)
            metrics_json = json.dumps(dict(metrics), default=_json_default)
        except (TypeError, ValueError) as e:
            raise ProjectError(f"model params and metrics must be JSON data: {e}") from e
        data = bytes(data)
        with self._write() as conn:
            cursor = conn.execute(
                "INSERT INTO models (learner, params, metrics, created, note, size, data) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (learner, params_json, metrics_json, time.time(), note, len(data), data),
            )
            return cursor.lastrowid

    def models(self) -> list[ModelRecord]:
        """Stored models, oldest first (without their bytes)."""
        rows = self._db.execute(
            "SELECT id, learner, params, metrics, created, note, size FROM models ORDER BY id"
        )
        return [
            ModelRecord(i, learner, json.loads(p), json.loads(m), created, note, size)
            for i, learner, p, m, created, note, size in rows
        ]

    def model_data(self, model_id: int) -> bytes:
        """The exported tagger file of a stored model."""
        row = self._db.execute("SELECT data FROM models WHERE id = ?", (model_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no model with id {model_id}")
        return bytes(row[0])

    def delete_model(self, model_id: int) -> None:
        """Remove a stored model."""
        with self._write() as conn:
            if conn.execute("DELETE FROM models WHERE id = ?", (model_id,)).rowcount == 0:
                raise NotFoundError(f"no model with id {model_id}")

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


def _require_ids(ids: list[int], rows: dict) -> None:
    """Raise :class:`NotFoundError` for the first of ``ids`` that ``rows`` (keyed by id) lacks."""
    missing = next((i for i in ids if i not in rows), None)
    if missing is not None:
        raise NotFoundError(f"no sentence with id {missing}")

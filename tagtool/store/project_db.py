"""What every part of a :class:`~tagtool.store.project.Project` works through: the open connection,
one write transaction, one read snapshot, and the label set.

A project is made of parts (its label set, team work, review, stored records,
span attaching), each given one :class:`ProjectDb` in its constructor and
nothing else, so the part's dependencies are that one object's few members.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tagtool.core.labels import LabelSet
from tagtool.errors import ProjectError
from tagtool.store import corpus_reads as reading
from tagtool.store import label_rows, transaction, writes

Labels = Iterable[str] | str


class ProjectDb:
    """A project file's connection, with the write rule and the label set every part needs.

    Parameters
    ----------
    path : pathlib.Path
        The project file (named in errors).
    conn : sqlite3.Connection
        The open connection; :meth:`close` drops it, after which every use raises
        :class:`~tagtool.errors.ProjectError`.
    readonly : bool
        Every :meth:`write` raises :class:`~tagtool.errors.ProjectError` then.
    readonly_reason : str or None
        Why a project opened for editing is read-only, for that error.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, readonly: bool, readonly_reason: str | None = None):
        self.path = Path(path)
        self._conn: sqlite3.Connection | None = conn
        self.readonly, self.readonly_reason = readonly, readonly_reason
        self.label_cache = label_rows.LabelCache(self.path)

    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection (a closed project: :class:`~tagtool.errors.ProjectError`)."""
        if self._conn is None:
            raise ProjectError(f"{self.path}: the project is closed")
        return self._conn

    @property
    def closed(self) -> bool:
        return self._conn is None

    def detach(self) -> sqlite3.Connection | None:
        """Forget the connection and hand it over to be closed (None when already closed)."""
        conn, self._conn = self._conn, None
        return conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (:func:`tagtool.store.transaction.write`); once it holds the write
        lock, a label set another process changed is re-read."""
        if self.readonly:
            why = f" ({self.readonly_reason})" if self.readonly_reason else ""
            raise ProjectError(f"{self.path} is open read-only{why}; it cannot be changed")
        conn, cache = self.conn, self.label_cache
        with transaction.write(conn, self.path, lambda: cache.refresh(conn), cache.forget) as conn:
            yield conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """Reads inside the block see one snapshot of the file (:func:`tagtool.store.transaction.read`)."""
        with transaction.read(self.conn) as conn:
            yield conn

    @property
    def labels(self) -> LabelSet:
        """The label set Σ in its fixed order, re-read when another program changed it."""
        return self.label_cache.get(self.conn)

    def length(self, sentence_id: int) -> int:
        """A sentence's token count (:class:`~tagtool.store.record_types.NotFoundError` for an unknown id)."""
        return reading.sentence_length(self.conn, sentence_id)

    def normalize(self, labels: Labels) -> frozenset[str]:
        """A token's labels, or their column-file spelling, as a set of the project's labels."""
        return writes.normalize(self.labels, labels)

""":meth:`Project.sentence_ids` on a connection of its own, for a worker thread.

A project's connection belongs to the thread that opened it.  A search
that scans the text of a big project is too slow for the GUI thread (a common word:
the trigram index does not narrow it, :mod:`tagtool.store.search_index`);
the window runs it in a worker thread instead, through a
:class:`SentenceIdQuery`: a read-only connection to the same file, the
same query, the ids.  SQLite's WAL lets it read while the window's
connection writes; it sees what was committed when it began.

:class:`ReadOnlyCall` is the same for any read of the project (the window's
progress counts, the corpus an export writes): a function of a read-only
:class:`Project` on a connection of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tagtool.store import dbfile
from tagtool.store.project import Project

#: SQLite virtual-machine steps between two looks at the stop request.
STOP_CHECK_STEPS = 10_000


@dataclass(frozen=True)
class SentenceIdQuery:
    """The arguments of one :meth:`Project.sentence_ids` call and the file to ask."""

    path: Path
    schema_version: int
    status: str | tuple[str, ...] | None = None
    search: str | None = None
    order_by: str = "position"
    descending: bool = False

    @classmethod
    def of(
        cls,
        project: Project,
        *,
        status: str | Iterable[str] | None = None,
        search: str | None = None,
        order_by: str = "position",
        descending: bool = False,
    ) -> SentenceIdQuery | None:
        """The query for ``project``; None when its data is not in its file (an
        old file opened read-only is migrated into memory, no other connection
        can read that)."""
        path = project.live_file
        if path is None:
            return None
        if status is not None and not isinstance(status, str):
            status = tuple(status)
        return cls(path, project.schema_version, status, search, order_by, descending)

    def __call__(self, should_stop: Callable[[], bool] | None = None) -> list[int]:
        """Run it (on any thread); ``should_stop`` returning True interrupts it
        (:class:`sqlite3.OperationalError`)."""
        return read_only(
            self.path,
            self.schema_version,
            lambda reader: reader.sentence_ids(
                status=self.status, search=self.search, order_by=self.order_by, descending=self.descending
            ),
            should_stop,
        )


def read_only(
    path: Path, schema_version: int, fn: Callable[[Project], Any], should_stop: Callable[[], bool] | None = None
) -> Any:
    """``fn(project)`` on a read-only connection of its own to ``path`` (any thread).

    ``should_stop`` returning True interrupts its SQLite queries
    (:class:`sqlite3.OperationalError`).  No integrity checks: the window's
    open has checked this file already.  ``fn``'s reads see one snapshot of the file
    (:meth:`Project.read_transaction`), whatever the window's connection commits meanwhile.
    """
    conn = dbfile.connect_readonly(path)
    if should_stop is not None:
        conn.set_progress_handler(lambda: int(should_stop()), STOP_CHECK_STEPS)
    with Project(path, conn, readonly=True, schema_version=schema_version) as reader, reader.read_transaction():
        return fn(reader)


@dataclass(frozen=True)
class ReadOnlyCall:
    """``fn(project)`` of a project's file, on a read-only connection of its own (for a worker thread)."""

    path: Path
    schema_version: int
    fn: Callable[[Project], Any]

    @classmethod
    def of(cls, project: Project, fn: Callable[[Project], Any]) -> ReadOnlyCall | None:
        """The call for ``project``; None when its data is not in its file (see :meth:`SentenceIdQuery.of`)."""
        path = project.live_file
        return None if path is None else cls(path, project.schema_version, fn)

    def __call__(self, should_stop: Callable[[], bool] | None = None) -> Any:
        return read_only(self.path, self.schema_version, self.fn, should_stop)

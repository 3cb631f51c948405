"""Knowledge the user brought to a project: word vectors, dictionaries, pattern files (schema 9).

One table, ``resources(kind, name, added, info, data)``, holds each of them
once under its ``kind`` and ``name``:

``vectors``
    Word vectors read from a file the user gave, kept for the project's
    words only (``data``: an ``.npz`` of numbers, loaded with
    ``allow_pickle=False``).
``gazetteer``
    A dictionary of one entity type (``name``: the type; ``data``: UTF-8
    text, one entry a line).
``patterns``
    A patterns file (``name``: the file's name; ``data``: its UTF-8 text).

``info`` is JSON: where the resource came from and what it holds, for the
model panel and ``tagtool info``.  Adding a resource of the same kind and
name replaces it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field

from tagtool.errors import ProjectError

#: The kinds of resource a project keeps.
KINDS = ("vectors", "gazetteer", "patterns")


@dataclass(frozen=True)
class ResourceRecord:
    """A stored resource without its data."""

    kind: str
    name: str
    added: float
    size: int
    info: dict = field(default_factory=dict)


def migrate_8_to_9(conn: sqlite3.Connection) -> None:
    """Add ``resources``: word vectors, dictionaries and patterns the user brought.

    A file without the table simply has none; an older tagtool reading a
    newer file ignores it.
    """
    conn.execute(
        """CREATE TABLE resources (
        kind TEXT NOT NULL CHECK (kind IN ('vectors', 'gazetteer', 'patterns')),
        name TEXT NOT NULL CHECK (name <> ''),
        added REAL NOT NULL,
        info TEXT NOT NULL DEFAULT '{}',
        data BLOB NOT NULL,
        PRIMARY KEY (kind, name)
    )"""
    )


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ValueError(f"no resource kind {kind!r} (known: {', '.join(KINDS)})")


def put(conn: sqlite3.Connection, kind: str, name: str, data: bytes, info: dict | None = None) -> None:
    """Keep ``data`` as the resource ``kind``/``name``, replacing one stored under the same names."""
    _check_kind(kind)
    if not name:
        raise ValueError("a resource needs a name")
    conn.execute(
        "INSERT OR REPLACE INTO resources (kind, name, added, info, data) VALUES (?, ?, ?, ?, ?)",
        (kind, name, time.time(), json.dumps(info or {}, sort_keys=True), bytes(data)),
    )


def put_in_file(path, kind: str, name: str, data: bytes, info: dict | None = None) -> None:
    """:func:`put` through a connection of the calling thread: one transaction, committed or rolled back.

    For the app's worker thread, as
    :func:`tagtool.store.representations.store_in_file`: several megabytes
    written on the window's connection would stall it.

    Raises
    ------
    ProjectError
        The file could not be written; it is unchanged then.
    """
    from tagtool.store.dbfile import write_in_own_transaction

    write_in_own_transaction(path, f"the {kind} {name!r}", lambda conn: put(conn, kind, name, data, info))


def records(conn: sqlite3.Connection, kind: str | None = None) -> list[ResourceRecord]:
    """The stored resources (of ``kind`` if given), by kind and name, without their data."""
    if kind is not None:
        _check_kind(kind)
    rows = conn.execute(
        "SELECT kind, name, added, length(data), info FROM resources WHERE ? IS NULL OR kind = ? ORDER BY kind, name",
        (kind, kind),
    ).fetchall()
    return [ResourceRecord(k, n, float(a), int(size), _info(info, k, n)) for k, n, a, size, info in rows]


def _info(text: str, kind: str, name: str) -> dict:
    try:
        info = json.loads(text)
    except ValueError:
        raise ProjectError(f"the stored {kind} {name!r} has damaged information") from None
    return info if isinstance(info, dict) else {}


def data(conn: sqlite3.Connection, kind: str, name: str) -> bytes | None:
    """The data of the resource ``kind``/``name``, or None if there is none."""
    _check_kind(kind)
    row = conn.execute("SELECT data FROM resources WHERE kind = ? AND name = ?", (kind, name)).fetchone()
    return None if row is None else bytes(row[0])


def remove(conn: sqlite3.Connection, kind: str, name: str) -> bool:
    """Remove the resource ``kind``/``name``; False if there was none."""
    _check_kind(kind)
    return conn.execute("DELETE FROM resources WHERE kind = ? AND name = ?", (kind, name)).rowcount > 0

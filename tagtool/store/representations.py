"""A project's extra text and the word representations learned from its text (schema 4).

The project's text is every sentence to annotate plus the raw text files
the user added (``texts``).  The representations learned from it
(:mod:`tagtool.services.represent`) are stored once (``representations``, a single
row of ``.npz`` bytes: numbers only, no pickle) and reused until the text has
changed *materially*: by :data:`MATERIAL_CHANGE` of its tokens or more, in
either direction (:func:`is_stale`).  Smaller edits — a sentence fixed, a
short document added — change few word counts and would cost a relearning
of seconds to minutes for nothing.

The functions take an open connection, as :mod:`tagtool.store.sentence_rows` does;
:class:`~tagtool.store.project.Project` wraps them in its transactions.  The
readers also work on an older file opened read-only (not migrated): it has
no added text and no representations.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tagtool.core.features.wordreps import WordRepresentations
from tagtool.errors import ProjectError

#: Relative change of the text's token count from which stored representations are stale.
MATERIAL_CHANGE = 0.10


@dataclass(frozen=True)
class TextInfo:
    """One added text: its id, name, when it was added (Unix s) and its size."""

    id: int
    name: str
    added: float
    n_lines: int
    n_tokens: int


@dataclass(frozen=True)
class StoredRepresentations:
    """The stored row, without the arrays: enough to say whether they are current."""

    created: float
    fingerprint: str
    text_tokens: int
    info: dict


def add_text(conn: sqlite3.Connection, name: str, lines: Iterable[Sequence[str]]) -> int:
    """Store a tokenised text (token lists); returns its id."""
    lines = [list(map(str, line)) for line in lines if len(line)]
    n_tokens = sum(map(len, lines))
    cursor = conn.execute(
        "INSERT INTO texts (name, added, n_lines, n_tokens, data) VALUES (?, ?, ?, ?, ?)",
        (str(name), time.time(), len(lines), n_tokens, json.dumps(lines, ensure_ascii=False)),
    )
    return int(cursor.lastrowid)


def _has(conn: sqlite3.Connection, table: str) -> bool:
    """False for a file of schema 3 or older opened read-only (its tables were never added)."""
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None
    )


def texts(conn: sqlite3.Connection) -> list[TextInfo]:
    """The added texts, oldest first."""
    if not _has(conn, "texts"):
        return []
    rows = conn.execute("SELECT id, name, added, n_lines, n_tokens FROM texts ORDER BY id")
    return [TextInfo(*row) for row in rows]


def text_lines(conn: sqlite3.Connection) -> list[list[str]]:
    """Every token list of every added text."""
    out: list[list[str]] = []
    if not _has(conn, "texts"):
        return out
    for (data,) in conn.execute("SELECT data FROM texts ORDER BY id"):
        out.extend(json.loads(data))
    return out


def remove_text(conn: sqlite3.Connection, text_id: int) -> None:
    if conn.execute("DELETE FROM texts WHERE id = ?", (int(text_id),)).rowcount == 0:
        raise ProjectError(f"no added text with id {text_id}")


def text_tokens(conn: sqlite3.Connection) -> int:
    """Tokens of the project's text: its sentences and its added texts."""
    sentences = conn.execute("SELECT COALESCE(SUM(n_tokens), 0) FROM sentences").fetchone()[0]
    added = conn.execute("SELECT COALESCE(SUM(n_tokens), 0) FROM texts").fetchone()[0] if _has(conn, "texts") else 0
    return int(sentences) + int(added)


def store(
    conn: sqlite3.Connection, reps: WordRepresentations, learned_from_tokens: int, data: bytes | None = None
) -> None:
    """Keep ``reps`` (learned from ``learned_from_tokens`` tokens of text) in place of any stored ones.

    ``data``: their :meth:`~WordRepresentations.to_bytes`, if already made
    (the app makes them in the worker thread).
    """
    conn.execute(
        "INSERT OR REPLACE INTO representations (id, created, fingerprint, text_tokens, info, data) "
        "VALUES (1, ?, ?, ?, ?, ?)",
        (
            time.time(),
            reps.fingerprint,
            int(learned_from_tokens),
            json.dumps(dict(reps.info)),
            reps.to_bytes() if data is None else bytes(data),
        ),
    )


def store_in_file(path, reps: WordRepresentations, learned_from_tokens: int, data: bytes | None = None) -> None:
    """:func:`store` through a connection of the calling thread: one transaction, committed or rolled back.

    For the app's worker thread: writing several megabytes and committing
    them would stall the window on the
    GUI thread's connection.  SQLite serialises this writer with the
    project's own connection as it does with another program's
    (:mod:`tagtool.store.project`, "Threads").

    Raises
    ------
    ProjectError
        The file could not be written (locked too long, full disk); it is
        unchanged then.
    """
    from tagtool.store.dbfile import write_in_own_transaction

    write_in_own_transaction(
        path, "the word representations", lambda conn: store(conn, reps, learned_from_tokens, data)
    )


def stored(conn: sqlite3.Connection) -> StoredRepresentations | None:
    """What is stored, without the arrays; None if nothing is."""
    if not _has(conn, "representations"):
        return None
    row = conn.execute("SELECT created, fingerprint, text_tokens, info FROM representations WHERE id = 1").fetchone()
    if row is None:
        return None
    return StoredRepresentations(row[0], row[1], row[2], json.loads(row[3]))


def load_bytes(conn: sqlite3.Connection) -> bytes | None:
    """The stored representations' ``.npz`` bytes, or None."""
    if not _has(conn, "representations"):
        return None
    row = conn.execute("SELECT data FROM representations WHERE id = 1").fetchone()
    return None if row is None else bytes(row[0])


def load(conn: sqlite3.Connection) -> WordRepresentations | None:
    """The stored representations, or None."""
    data = load_bytes(conn)
    return None if data is None else WordRepresentations.from_bytes(data)


def clear(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM representations")


def is_stale(record: StoredRepresentations | None, current_tokens: int) -> bool:
    """True when there are none, or the text has grown or shrunk by :data:`MATERIAL_CHANGE` or more."""
    if record is None:
        return True
    then = max(record.text_tokens, 1)
    return abs(current_tokens - record.text_tokens) / then >= MATERIAL_CHANGE

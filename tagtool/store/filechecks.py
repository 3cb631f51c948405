"""The checks a project file passes before anything reads it: its pages, its JSON values.

:func:`tagtool.store.lifecycle.open_file` runs them through a read-only
connection; a damaged file is refused with a :class:`~tagtool.errors.ProjectError`
and left as it was, an intact one on a full disk is not called damaged.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tagtool.errors import ProjectError
from tagtool.store import dbfile, disk, schema

#: JSON columns and the type their values must have.
_JSON_COLUMNS = {
    "sentences": (("tokens", "array"), ("columns", "object"), ("meta", "object")),
    "models": (("params", "object"), ("metrics", "object")),
}


def check_pages(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file with damaged pages, before anything reads it.

    ``PRAGMA integrity_check`` rather than ``quick_check``: it also compares
    every index with its table, and a flipped bit in an index page passes
    ``quick_check`` only to fail later reads.
    """
    try:
        rows = conn.execute("PRAGMA integrity_check(3)").fetchall()
    except (sqlite3.DatabaseError, ValueError) as e:  # ValueError: its report itself undecodable
        if disk.is_full(e, path):  # an intact file on a full disk is not damaged
            raise ProjectError(f"{path} cannot be opened: {disk.FULL} ({e}); free some space") from e
        raise ProjectError(f"{path} is damaged and cannot be opened ({e})") from e
    if rows != [("ok",)]:
        details = "; ".join(str(r[0]) for r in rows[:3])
        raise ProjectError(f"{path} is damaged and cannot be opened ({details})")


def check_json(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file whose JSON values are damaged (every page check passes those).

    One scan in SQL (``json_valid``, ``json_type``), cheap enough to run at
    every open (benchmarks/results/design-measurements.md, "Opening a project").
    """
    for table, columns in _JSON_COLUMNS.items():
        bad = " OR ".join(f"(CASE WHEN json_valid({c}) THEN json_type({c}) END) IS NOT '{kind}'" for c, kind in columns)
        row = conn.execute(f"SELECT rowid FROM {table} WHERE {bad} LIMIT 1").fetchone()
        if row is not None:
            raise ProjectError(
                f"{path} is damaged and cannot be opened (row {row[0]} of its {table} holds broken data)"
            )


def check_columns(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Refuse a file of this version whose tables lack a column the schema gives them.

    The schema's own text lives in ``sqlite_master``, which the page checks
    pass when one of its bytes flipped inside a name: the file would open
    and fail at its first query of that column ("no such column"). Only a
    file of the current version is compared (older ones are migrated,
    newer ones may differ); a migrated file may hold the columns in
    another order, so sets are compared.
    """
    if version != schema.CURRENT_VERSION:
        return
    for table, columns in _expected_columns().items():
        have = {row[1] for row in conn.execute(f'PRAGMA table_info("{table}")')}
        missing = sorted(columns - have)
        if missing:
            what = f"its {table} table has no column {', '.join(missing)}" if have else f"it has no {table} table"
            raise ProjectError(f"{path} is damaged and cannot be opened ({what})")


_EXPECTED: dict[str, frozenset[str]] = {}


def _expected_columns() -> dict[str, frozenset[str]]:
    """Each table of the current schema and its columns (made once, in memory)."""
    if not _EXPECTED:
        mem = sqlite3.connect(":memory:")
        try:
            schema.create_schema(mem)
            # The search index may be absent from a sound file (an SQLite without FTS5 wrote it); it is
            # checked, and rebuilt, on its own (tagtool.store.search_index.ensure).
            tables = [
                r[0]
                for r in mem.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'sentences_fts%'"
                )
            ]
            for table in tables:
                _EXPECTED[table] = frozenset(r[1] for r in mem.execute(f'PRAGMA table_info("{table}")'))
        finally:
            mem.close()
    return _EXPECTED


def read_ahead(path: Path) -> None:
    """Read the file once, in order, so that the checks find it in the OS cache.

    ``integrity_check`` visits every page in b-tree order: for a file not
    in the cache, random reads; one sequential read first makes a big
    project open several times faster from a cold cache
    (benchmarks/results/design-measurements.md, "Opening a project").  Not done for a
    file this process holds open: closing the read would drop the process's
    SQLite locks on it (:func:`tagtool.store.dbfile.held_by_this_process`).
    """
    if dbfile.held_by_this_process(path):
        return
    buffer = bytearray(1 << 20)
    try:
        with open(path, "rb", buffering=0) as f:
            while f.readinto(buffer):
                pass
    except OSError:
        pass  # the checks that follow report an unreadable file

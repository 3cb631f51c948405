"""The trigram index of the sentences' text, and how a search uses it.

What a search finds: the sentences whose text (their tokens joined by
single spaces) contains the search string as typed, or as written in
running text: the search is also tokenized (:func:`search_forms`), so
"Hot Pot, which" finds the tokens ``Hot Pot , which`` and "don't" finds
``do n't``.  ASCII letters match in either case; every other character matches
only itself, as SQLite's ``LIKE`` compares them (``é`` does not find ``É``,
``ñ`` does not find ``Ñ``); ``%``, ``_``, ``\\`` and quotes are ordinary
characters.

How: the FTS5 ``trigram`` tokenizer (SQLite ≥ 3.34) indexes every
three-character substring of each text, case-folded (the table and its
triggers: :data:`tagtool.store.schema.SEARCH_INDEX`, added by the
migration :func:`tagtool.store.schema.migrate_6_to_7`).  A search of
:data:`MIN_CHARS` or more characters asks the index for the rows holding
all of its trigrams, then tests each of those rows with the exact ``LIKE``
of the scan.  The index only narrows the rows to test: it folds more
characters than ``LIKE`` (all of Unicode's cases) and does not check the
trigrams' order, so it can only find too many, and the test removes those.
The result is the scan's by construction (a property test compares them,
tests/store/test_search_index.py).

Which plan: the index pays for a rare string, not for a common one (such
as "the"; benchmarks/results/design-measurements.md, "Sentence list and
text search"), where testing each candidate row by its id costs more
than reading all the text in order.  So the candidates are first counted
up to :data:`INDEX_SHARE` of the sentences (a cheap ``LIMIT`` query);
beyond that, and for strings shorter than :data:`MIN_CHARS` (no trigram),
the text is scanned.  A scan of a big project is too slow for the GUI
thread: the window runs such searches in a worker thread (``tagtool.gui.sentence_list``).

Where this SQLite cannot use the index (no FTS5, no trigram tokenizer) the
search scans, with a logged warning; a file opened for editing then loses
its triggers, which such an SQLite could not run (every change of a
sentence would fail), and the next open in an SQLite that can rebuilds the
index (:func:`ensure`).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tagtool.core.tokenize import tokenize
from tagtool.store import schema
from tagtool.store.sentence_rows import ORDERED_SENTENCES

log = logging.getLogger(__name__)

TABLE = "sentences_fts"
TRIGGERS = ("sentences_fts_insert", "sentences_fts_delete", "sentences_fts_update")
#: The trigram tokenizer indexes three characters: a shorter string has no trigram.
MIN_CHARS = 3
#: Use the index when at most this share of the sentences are candidates
#: (about where reading candidates by id costs what the scan costs:
#: benchmarks/results/big_project.md).
INDEX_SHARE = 0.2
#: Trigrams asked of the index at most (any subset gives a superset of the
#: matches; a long search needs few to be selective).
MAX_TRIGRAMS = 16
#: The rows of a search through the index, in the aliases of
#: :data:`~tagtool.store.sentence_rows.ORDERED_SENTENCES` (``s``, ``d``); the index is
#: read first, the few rows it names are then sorted.
INDEXED_SENTENCES = (
    f"FROM {TABLE} CROSS JOIN sentences s ON s.id = {TABLE}.rowid CROSS JOIN documents d ON d.id = s.document_id"
)


@functools.cache
def available() -> bool:
    """Whether this SQLite can create an FTS5 table with the trigram tokenizer."""
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(text, tokenize='trigram', detail='none')")
        return True
    except sqlite3.Error:
        return False
    finally:
        probe.close()


def _has_table(conn: sqlite3.Connection) -> bool:
    return (
        conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)).fetchone() is not None
    )


def _triggers(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'sentences'")
    return {name for (name,) in rows if name in TRIGGERS}


def usable(conn: sqlite3.Connection) -> bool:
    """Whether the project's index exists and this SQLite can read and write it.

    SQLite opens a file whose virtual table needs a module or tokenizer it
    lacks, and fails only at the first statement touching that table.
    """
    if not _has_table(conn):
        return False
    try:
        conn.execute(f"SELECT rowid FROM {TABLE} WHERE 0").fetchall()
    except sqlite3.Error:
        return False
    return True


def ready(conn: sqlite3.Connection) -> bool:
    """Whether searches may use the index: usable, and kept in step by all its triggers."""
    return usable(conn) and _triggers(conn) == set(TRIGGERS)


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def ensure(conn: sqlite3.Connection, path: Path) -> bool:
    """Bring the index of a file opened for editing in step with this SQLite; True if ready.

    - The index cannot be used here: its triggers are dropped (they would
      make every change of a sentence fail); the index goes stale.
    - The index is missing (the file was migrated or created where SQLite
      had no trigram tokenizer) or stale (no triggers): it is created or
      rebuilt from the text, and its triggers created, in one transaction.

    A failure (the file locked by another program) is logged and leaves the
    file as it was: searches scan until the next open.
    """
    try:
        if _has_table(conn) and not usable(conn):
            dropped = sorted(_triggers(conn))
            if dropped:
                with _transaction(conn):
                    for name in dropped:
                        conn.execute(f"DROP TRIGGER {name}")
                log.warning(
                    "%s: this SQLite (%s) cannot use the project's search index; it is no longer "
                    "kept up to date, and opening the project with an SQLite that has FTS5 "
                    "rebuilds it",
                    path,
                    sqlite3.sqlite_version,
                )
            return False
        if ready(conn) or not available():
            return ready(conn)
        log.info("%s: building the search index of the sentences' text", path)
        with _transaction(conn):
            _rebuild(conn)
        return True
    except sqlite3.Error as e:
        log.warning("%s: the search index could not be brought up to date (%s); searching scans the text", path, e)
        return False


def _rebuild(conn: sqlite3.Connection) -> None:
    table, triggers = schema.SEARCH_INDEX[0], schema.SEARCH_INDEX[1:]
    if not _has_table(conn):
        conn.execute(table)
    for name in _triggers(conn):
        conn.execute(f"DROP TRIGGER {name}")
    for statement in triggers:
        conn.execute(statement)
    conn.execute(f"INSERT INTO {TABLE} ({TABLE}) VALUES ('rebuild')")


@contextmanager
def bulk_insert(conn: sqlite3.Connection) -> Iterator[None]:
    """Index the sentences inserted inside at once, at the end (inside the caller's transaction).

    The insert trigger indexes one row per statement, and FTS5 writes its
    pending index data out at the end of every statement: importing a big
    project through the trigger took three times as long.  So a
    bulk import drops the insert trigger (DDL is part of the transaction: a
    rollback brings it back), inserts, indexes the new rows in one
    statement, and creates the trigger again.  Only inserts may happen
    inside: the other triggers stay.
    """
    if "sentences_fts_insert" not in _triggers(conn):
        yield
        return
    last = conn.execute("SELECT coalesce(max(id), 0) FROM sentences").fetchone()[0]
    conn.execute("DROP TRIGGER sentences_fts_insert")
    yield
    conn.execute(f"INSERT INTO {TABLE} (rowid, text) SELECT id, text FROM sentences WHERE id > ?", (last,))
    conn.execute(schema.SEARCH_INDEX[TRIGGERS.index("sentences_fts_insert") + 1])


# ----------------------------------------------------------------------
# searching


def like_pattern(search: str) -> str:
    """The ``LIKE … ESCAPE '\\'`` pattern of a substring: ``%``, ``_``, ``\\`` literal."""
    escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def match_query(search: str) -> str:
    """The FTS5 query for the rows holding all of the trigrams of ``search``.

    Each trigram is a quoted string (``"`` doubled inside), so no character
    of the search is FTS5 syntax; at most :data:`MAX_TRIGRAMS`, spread over
    the search.
    """
    trigrams = list(dict.fromkeys(search[i : i + 3] for i in range(len(search) - 2)))
    if len(trigrams) > MAX_TRIGRAMS:
        step = (len(trigrams) - 1) / (MAX_TRIGRAMS - 1)
        trigrams = [trigrams[round(k * step)] for k in range(MAX_TRIGRAMS)]
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in trigrams)


def search_forms(search: str) -> list[str]:
    """The strings a search looks for: as typed, and as the sentences hold text typed like it.

    A sentence's text is its tokens joined by single spaces; text as written
    ("Hot Pot, which") is tokenized by the default rules
    (:func:`tagtool.core.tokenize.tokenize`) and joined the same way
    ("Hot Pot , which").  Searches that already look like tokens give one form.
    """
    tokens = " ".join(search[start:end] for start, end in tokenize(search))
    return [search] if not tokens or tokens == search else [search, tokens]


def _fts_query(forms: list[str]) -> str:
    if len(forms) == 1:
        return match_query(forms[0])
    return " OR ".join(f"({match_query(form)})" for form in forms)


def use_index(conn: sqlite3.Connection, index_ready: bool, search: str | list[str]) -> bool:
    """Whether the index should answer ``search`` (one string or its :func:`search_forms`; see "Which plan")."""
    forms = [search] if isinstance(search, str) else search
    # NUL ends a LIKE pattern inside SQLite (a C string): the scan's
    # answer to such a search is not a substring search, so it keeps it.
    if not index_ready or any(len(f) < MIN_CHARS or "\x00" in f for f in forms):
        return False
    last = conn.execute("SELECT max(id) FROM sentences").fetchone()[0]
    if last is None:
        return False
    cap = max(1, int(INDEX_SHARE * last))
    candidates = conn.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM {TABLE} WHERE {TABLE} MATCH ? LIMIT ?)",
        (_fts_query(forms), cap),
    ).fetchone()[0]
    return candidates < cap


def text_filter(conn: sqlite3.Connection, index_ready: bool, search: str) -> tuple[str, str, list[Any]]:
    """``(FROM clause, WHERE condition, parameters)`` of the sentences containing ``search``
    in any of its :func:`search_forms`.

    The FROM clause is :data:`ORDERED_SENTENCES` (the scan) or
    :data:`INDEXED_SENTENCES`; both name the sentence ``s`` and its
    document ``d``.
    """
    forms = search_forms(search)
    like = "(" + " OR ".join(["s.text LIKE ? ESCAPE '\\'"] * len(forms)) + ")"
    patterns = [like_pattern(form) for form in forms]
    if use_index(conn, index_ready, forms):
        return INDEXED_SENTENCES, f"{TABLE} MATCH ? AND {like}", [_fts_query(forms), *patterns]
    return ORDERED_SENTENCES, like, patterns

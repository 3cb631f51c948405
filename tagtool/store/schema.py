"""The SQLite schema of a project file, its versions and its migrations.

A project file is created from the schema as it was first released
(:data:`SCHEMA_V1`) followed by every migration in :data:`MIGRATIONS`, so a new
file and a migrated old file are built by the same statements and cannot drift
apart.  To change the schema, append ``migrate_N_to_N+1`` to
:data:`MIGRATIONS`; never edit :data:`SCHEMA_V1` or an existing migration.

Migrations run inside one transaction opened by the caller: they must not
commit, and they must be additive (new tables, columns, indexes) so that an
older tagtool can still read a newer file in read-only mode.

Layout (version 8)
------------------
``meta(key, value)``
    ``schema_version``, ``created`` (UTC ISO 8601), ``tagtool_version`` (that
    created the file), ``name``.
``labels(name, position, color, shortcut)``
    The label set Σ in its fixed order, colour ``#rrggbb``, optional unique
    keyboard shortcut.
``documents(id, name, position)``
``sentences(id, document_id, position, n_tokens, n_full, n_partial, tokens,
columns, meta, text)``
    ``tokens`` a JSON list, ``columns`` a JSON object of per-token lists,
    ``meta`` a JSON object; ``n_full``/``n_partial`` cached counts of the
    sentence's annotated tokens, kept in step with ``annotations`` in the same
    transaction; ``text`` the tokens joined by spaces (search and preview).
``annotations(sentence_id, token, labels, annotator, time)``
    One row per annotated token: its *training label* (what learners read);
    ``labels`` spelled as in column files (``A`` or ``A|B`` in label-set
    order); no row means no label.  ``annotator`` says who gave it: the
    app's annotator name (preferences), ``--annotator`` of the CLI, and
    for a label derived from several annotators' answers
    (:mod:`tagtool.store.annotators`) their names joined by ``+``.
``annotator_labels(sentence_id, token, annotator, labels)``
    Each annotator's own answer for a token (a full label or a candidate
    set), from an import naming annotators (Label Studio, doccano,
    ``--annotator``, ``--as-annotator``) or from ``tagtool merge`` of
    per-annotator files (:mod:`tagtool.store.merge`).  Where a token has
    answers, ``annotations`` holds the training label
    :func:`tagtool.core.annotators.combine` derives from them (a strict
    majority's answer, else the union of their answers as a candidate set), written by
    :mod:`tagtool.store.annotators`, unless the token is in ``adjudicated``
    (or was edited in the app since: that edit counts as its editor's
    answer when more answers come).  Agreement is computed from it.
``adjudicated(sentence_id, token, labels, annotator, time)``
    Tokens an adjudicator resolved (:mod:`tagtool.store.team`): ``labels``
    the chosen label, or the candidate set kept; ``annotator`` the
    adjudicator.  ``annotations`` holds the same labels, and later merges
    and imports of annotators' answers do not change them.  Sparse: one row per
    resolved token.
``annotation_log(id, sentence_id, token, old, new, annotator, time)``
    Append-only history of edits made in the app, resolutions and the
    training labels a ``tagtool merge`` changed (``_`` = no label).
``models(id, learner, params, metrics, created, note, size, data)``
    Trained models: JSON params and metrics, the exported tagger file as a BLOB.
``texts(id, name, added, n_lines, n_tokens, data)``
    Extra raw text the user added for the word representations: ``data`` a
    JSON list of token lists (not sentences to annotate).
``representations(id = 1, created, fingerprint, text_tokens, info, data)``
    The word representations learned from all the project's text
    (:mod:`tagtool.store.representations`): ``data`` their ``.npz`` (numbers
    only, no pickle), ``text_tokens`` the size of the text they were
    learned from, ``info`` JSON.
``resources(kind, name, added, info, data)``
    Knowledge the user brought (:mod:`tagtool.store.resources`): word vectors
    read from a file (``kind`` ``vectors``), dictionaries (``gazetteer``, one
    per entity type) and pattern files (``patterns``); ``data`` numbers or text, never a pickle.
``actions(id, kind, sentence_id, n_tokens, started, ended, active, annotator, ref)``
    The annotation actions made in the app with their time
    (:mod:`tagtool.store.actions`): ``kind`` one of
    :data:`tagtool.store.actions.KINDS`, ``n_tokens`` the tokens it gave
    its kind's outcome, ``started``/``ended`` the wall-clock interval it is
    charged with and ``active`` the seconds of it counted (idle time over
    the threshold left out); ``ref`` the action an undo or redo reverses.
    Written in the transaction of the edit it records.
``sentence_review(sentence_id, flagged, comment, skipped, annotator, time)``
    A sentence flagged for review (with a free-text ``comment``, one line)
    and/or skipped (left out of the queue and of training as labeled
    data); one row only for sentences that are either
    (:mod:`tagtool.store.review`).
``sentences_fts`` (FTS5 virtual table, external content ``sentences.text``)
    A trigram index of the sentences' text for substring search
    (:mod:`tagtool.store.search_index`), kept in step with ``sentences`` by
    the triggers ``sentences_fts_insert``/``_delete``/``_update``.  Absent
    from files written where SQLite lacks FTS5 or its trigram tokenizer
    (before 3.34); search then scans the text.

Times in tables are Unix seconds (UTC) as REAL.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable

from tagtool.store.resources import migrate_8_to_9

log = logging.getLogger(__name__)

#: ``PRAGMA application_id`` of every project file: ``b"TAGT"``.  Stored in the
#: database header (bytes 68–71), so a file can be recognised before SQLite
#: opens it.
APPLICATION_ID = 0x54414754

#: The schema this code writes.
CURRENT_VERSION = 9

#: The first released schema.  Frozen: later changes are migrations.
SCHEMA_V1: tuple[str, ...] = (
    """CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    )""",
    """CREATE TABLE labels (
        name TEXT PRIMARY KEY,
        position INTEGER NOT NULL UNIQUE,
        color TEXT NOT NULL,
        shortcut TEXT UNIQUE
    )""",
    """CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        position INTEGER NOT NULL UNIQUE
    )""",
    """CREATE TABLE sentences (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        n_tokens INTEGER NOT NULL CHECK (n_tokens > 0),
        n_full INTEGER NOT NULL DEFAULT 0,
        n_partial INTEGER NOT NULL DEFAULT 0,
        tokens TEXT NOT NULL,
        columns TEXT NOT NULL DEFAULT '{}',
        meta TEXT NOT NULL DEFAULT '{}',
        UNIQUE (document_id, position)
    )""",
    """CREATE TABLE annotations (
        sentence_id INTEGER NOT NULL REFERENCES sentences(id) ON DELETE CASCADE,
        token INTEGER NOT NULL CHECK (token >= 0),
        labels TEXT NOT NULL CHECK (labels <> ''),
        annotator TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY (sentence_id, token)
    ) WITHOUT ROWID""",
    """CREATE TABLE annotation_log (
        id INTEGER PRIMARY KEY,
        sentence_id INTEGER NOT NULL REFERENCES sentences(id) ON DELETE CASCADE,
        token INTEGER NOT NULL,
        old TEXT NOT NULL,
        new TEXT NOT NULL,
        annotator TEXT NOT NULL,
        time REAL NOT NULL
    )""",
    "CREATE INDEX annotation_log_sentence ON annotation_log (sentence_id, token)",
    """CREATE TABLE models (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        learner TEXT NOT NULL,
        params TEXT NOT NULL,
        metrics TEXT NOT NULL,
        created REAL NOT NULL,
        note TEXT NOT NULL DEFAULT '',
        size INTEGER NOT NULL,
        data BLOB NOT NULL
    )""",
)


def migrate_1_to_2(conn: sqlite3.Connection) -> None:
    """Add ``sentences.text`` and the covering index of the sentence list.

    Version 1 kept only the JSON token list, so searching sentences meant
    decoding every row in Python, and filtering by status read every row.
    Version 2 stores the space-joined tokens (searched with ``LIKE`` and cut
    into the list's preview) and indexes position and cached counts together,
    so the list view filters by status and pages without touching token data.
    """
    conn.execute("ALTER TABLE sentences ADD COLUMN text TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT id, tokens FROM sentences").fetchall()
    conn.executemany(
        "UPDATE sentences SET text = ? WHERE id = ?",
        ((" ".join(json.loads(tokens)), sid) for sid, tokens in rows),
    )
    conn.execute("CREATE INDEX sentences_list ON sentences (document_id, position, n_tokens, n_full, n_partial)")


def migrate_2_to_3(conn: sqlite3.Connection) -> None:
    """Add ``annotator_labels``: who labeled what, when several annotators did.

    ``annotations`` has one row per token, so imports with several
    annotators per token (a Label Studio task annotated twice) kept only one
    answer. Version 3 keeps every annotator's label beside it; files without
    such imports get an empty table.
    """
    conn.execute(
        """CREATE TABLE annotator_labels (
        sentence_id INTEGER NOT NULL REFERENCES sentences(id) ON DELETE CASCADE,
        token INTEGER NOT NULL CHECK (token >= 0),
        annotator TEXT NOT NULL,
        labels TEXT NOT NULL CHECK (labels <> ''),
        PRIMARY KEY (sentence_id, token, annotator)
    ) WITHOUT ROWID"""
    )


def migrate_3_to_4(conn: sqlite3.Connection) -> None:
    """Add ``texts`` and ``representations``: word representations learned from the project's text.

    The unlabeled text of a project buys most through word representations
    (benchmarks/results/representations.md); learning them takes seconds to minutes, so they are kept
    with the project and relearned only when its text has changed materially.
    """
    conn.execute(
        """CREATE TABLE texts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        added REAL NOT NULL,
        n_lines INTEGER NOT NULL CHECK (n_lines >= 0),
        n_tokens INTEGER NOT NULL CHECK (n_tokens >= 0),
        data TEXT NOT NULL
    )"""
    )
    conn.execute(
        """CREATE TABLE representations (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        created REAL NOT NULL,
        fingerprint TEXT NOT NULL,
        text_tokens INTEGER NOT NULL CHECK (text_tokens >= 0),
        info TEXT NOT NULL,
        data BLOB NOT NULL
    )"""
    )


def migrate_4_to_5(conn: sqlite3.Connection) -> None:
    """Add ``actions``: each annotation action made in the app, with its time.

    ``annotation_log`` says what changed, not what it cost: ``tagtool
    simulate`` priced a full label, a candidate set and a skipped token at
    a guessed 1 / 0.5 / 0.1.  Version 5 records every action
    (its kind, tokens and active seconds) so the costs can be measured.
    ``sentence_id`` is kept NULL rather than the row deleted when its
    sentence goes (a split or merge): the time was spent all the same.
    ``kind`` has no CHECK so that a later version can add kinds.
    """
    conn.execute(
        """CREATE TABLE actions (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        sentence_id INTEGER REFERENCES sentences(id) ON DELETE SET NULL,
        n_tokens INTEGER NOT NULL CHECK (n_tokens >= 0),
        started REAL NOT NULL,
        ended REAL NOT NULL CHECK (ended >= started),
        active REAL NOT NULL CHECK (active >= 0),
        annotator TEXT NOT NULL,
        ref INTEGER REFERENCES actions(id)
    )"""
    )
    conn.execute("CREATE INDEX actions_kind ON actions (kind, id)")


def migrate_5_to_6(conn: sqlite3.Connection) -> None:
    """Add ``sentence_review``: sentences flagged for review (with a comment) or skipped.

    Annotators of other tools expect to set a sentence aside for a
    colleague with a note, or to skip one they cannot label.
    The table is sparse (a row only for a flagged or skipped sentence), so
    the list's filters and the queue read a handful of rows, and an older
    tagtool reading a newer file simply does not see it.
    """
    conn.execute(
        """CREATE TABLE sentence_review (
        sentence_id INTEGER PRIMARY KEY REFERENCES sentences(id) ON DELETE CASCADE,
        flagged INTEGER NOT NULL DEFAULT 0 CHECK (flagged IN (0, 1)),
        comment TEXT NOT NULL DEFAULT '',
        skipped INTEGER NOT NULL DEFAULT 0 CHECK (skipped IN (0, 1)),
        annotator TEXT NOT NULL,
        time REAL NOT NULL,
        CHECK (flagged = 1 OR skipped = 1)
    )"""
    )


#: The search index of :func:`migrate_6_to_7`: an external-content FTS5
#: table over ``sentences.text`` (the text is not stored twice) and the
#: triggers that keep it in step with every change of a sentence row, by any
#: code path (import, retokenization, deletion by cascade).  Only the row id
#: is indexed (``detail=none``): the trigram index answers "which rows hold
#: all these trigrams", and the exact test is ``LIKE`` on those rows, so the
#: positions that phrase queries need would buy nothing (on the benchmark's
#: 100,000 sentences, 66 MB, the index adds 16 MB; with positions, 42 MB).
SEARCH_INDEX: tuple[str, ...] = (
    """CREATE VIRTUAL TABLE sentences_fts USING fts5(
        text, content='sentences', content_rowid='id', tokenize='trigram', detail='none'
    )""",
    """CREATE TRIGGER sentences_fts_insert AFTER INSERT ON sentences BEGIN
        INSERT INTO sentences_fts (rowid, text) VALUES (new.id, new.text);
    END""",
    """CREATE TRIGGER sentences_fts_delete AFTER DELETE ON sentences BEGIN
        INSERT INTO sentences_fts (sentences_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END""",
    """CREATE TRIGGER sentences_fts_update AFTER UPDATE OF id, text ON sentences BEGIN
        INSERT INTO sentences_fts (sentences_fts, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO sentences_fts (rowid, text) VALUES (new.id, new.text);
    END""",
)


def migrate_6_to_7(conn: sqlite3.Connection) -> None:
    """Add ``sentences_fts``: a trigram index of the sentences' text, with its triggers.

    ``LIKE '%…%'`` reads every sentence's text, on a big project a stall
    of the window at each search
    (benchmarks/results/big_project.md).  The index is filled from the
    existing rows here and kept in step by triggers afterwards.  Where the
    running SQLite has no FTS5 trigram tokenizer the index is left out (a
    warning is logged; search scans the text) and added by the first open
    in an SQLite that has it (:func:`tagtool.store.search_index.ensure`).
    """
    from tagtool.store import search_index  # it imports this module

    if not search_index.available():
        log.warning(
            "this SQLite (%s) has no FTS5 trigram tokenizer: the project gets no search index, "
            "and searching scans the text",
            sqlite3.sqlite_version,
        )
        return
    for statement in SEARCH_INDEX:
        conn.execute(statement)
    conn.execute("INSERT INTO sentences_fts (sentences_fts) VALUES ('rebuild')")


def migrate_7_to_8(conn: sqlite3.Connection) -> None:
    """Add ``adjudicated``: tokens an adjudicator resolved, which later merges leave alone.

    Where annotators disagree the training label of a token is the
    candidate set of their answers (docs/design.md#team-answers); an adjudicator may pick one
    label or keep the set.  That choice must survive the next ``tagtool
    merge`` of the annotators' files, which recomputes the training labels
    of the tokens whose answers changed: the merge skips the tokens listed
    here.  Sparse (one row per resolved token), so an older tagtool
    reading a newer file only misses the marks.
    """
    conn.execute(
        """CREATE TABLE adjudicated (
        sentence_id INTEGER NOT NULL REFERENCES sentences(id) ON DELETE CASCADE,
        token INTEGER NOT NULL CHECK (token >= 0),
        labels TEXT NOT NULL CHECK (labels <> ''),
        annotator TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY (sentence_id, token)
    ) WITHOUT ROWID"""
    )


#: ``MIGRATIONS[i]`` turns a version ``i + 1`` file into version ``i + 2``.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    migrate_1_to_2,
    migrate_2_to_3,
    migrate_3_to_4,
    migrate_4_to_5,
    migrate_5_to_6,
    migrate_6_to_7,
    migrate_7_to_8,
    migrate_8_to_9,
)

assert len(MIGRATIONS) == CURRENT_VERSION - 1


def create_schema(conn: sqlite3.Connection, version: int = CURRENT_VERSION) -> None:
    """Create the tables of schema ``version`` in an empty database.

    Runs :data:`SCHEMA_V1` and then the migrations up to ``version`` inside
    the caller's transaction, and records the version.  ``version`` below
    :data:`CURRENT_VERSION` exists to build old files for migration tests.
    """
    if not 1 <= version <= CURRENT_VERSION:
        raise ValueError(f"no schema version {version} (known: 1..{CURRENT_VERSION})")
    for statement in SCHEMA_V1:
        conn.execute(statement)
    for migration in MIGRATIONS[: version - 1]:
        migration(conn)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    set_version(conn, version)


def set_version(conn: sqlite3.Connection, version: int) -> None:
    """Record ``version`` in ``meta`` and mirror it in ``PRAGMA user_version``."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (str(version),),
    )
    conn.execute(f"PRAGMA user_version = {int(version)}")


def read_version(conn: sqlite3.Connection) -> int:
    """The schema version recorded in ``meta``; ``ValueError`` if absent."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    if row is None:
        raise ValueError("no schema_version in the meta table")
    return int(row[0])


def migrate(conn: sqlite3.Connection, from_version: int) -> None:
    """Run the migrations from ``from_version`` to :data:`CURRENT_VERSION`.

    The caller owns the transaction; a failure leaves it to be rolled back.
    """
    for version in range(from_version, CURRENT_VERSION):
        MIGRATIONS[version - 1](conn)
    set_version(conn, CURRENT_VERSION)
    problems = conn.execute("PRAGMA foreign_key_check").fetchall()
    if problems:
        raise sqlite3.IntegrityError(f"foreign key violations after migration: {problems[:5]}")

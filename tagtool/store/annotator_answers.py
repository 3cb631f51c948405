"""Reading every annotator's own answers, for agreement and per-annotator progress.

``annotator_labels`` (schema 3) holds each annotator's answer per token (a
full label ``A`` or a candidate set ``A|B``); :mod:`tagtool.services.agreement`
compares them.  Progress counts an annotator's tokens: their own answers
(``annotator_labels``), and the training labels stored under their name
(``annotations.annotator``) of tokens nobody answered (the app's edits
outside team work).  The labels a corpus brought with it are stored under
:data:`IMPORT_ANNOTATOR` (``Project.create``/``import_corpus``'s default):
nobody's work, not counted.

Both queries take an optional range of sentence ids (the primary key's
range), so a caller can read a big project in steps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from tagtool.store import sentence_rows as _rows

#: The ``annotations.annotator`` of labels that came with an imported corpus.
IMPORT_ANNOTATOR = "import"


def _range(first_id: int | None, last_id: int | None, column: str = "sentence_id") -> tuple[str, tuple]:
    if first_id is None and last_id is None:
        return "", ()
    return f" WHERE {column} BETWEEN ? AND ?", (first_id or 0, 2**62 if last_id is None else last_id)


def answers(
    conn: sqlite3.Connection, first_id: int | None = None, last_id: int | None = None, shared: bool = False
) -> Iterator[tuple[int, int, str, frozenset[str]]]:
    """``(sentence id, token, annotator, labels)`` of every stored answer, in sentence and token order.

    ``shared``: only the answers of tokens another annotator answered too
    (what agreement compares; the primary key finds the other answer, so
    a project where most tokens have one answer hands Python few rows).
    A project has few distinct spellings (``A``, ``A|B``), so each is parsed once.
    """
    where, args = _range(first_id, last_id)
    if shared:
        where += (" AND" if where else " WHERE") + (
            " EXISTS (SELECT 1 FROM annotator_labels b WHERE b.sentence_id = a.sentence_id "
            "AND b.token = a.token AND b.annotator <> a.annotator)"
        )
    parsed: dict[str, frozenset[str]] = {}
    for sid, token, name, text in conn.execute(
        f"SELECT sentence_id, token, annotator, labels FROM annotator_labels a{where} ORDER BY sentence_id, token",
        args,
    ):
        labels = parsed.get(text)
        if labels is None:
            labels = parsed[text] = _rows.parse_stored(text)
        yield sid, token, name, labels


def progress(
    conn: sqlite3.Connection, first_id: int | None = None, last_id: int | None = None
) -> dict[str, tuple[int, int]]:
    """``annotator -> (sentences, tokens)`` they answered (module doc), by name.

    A token with answers counts for those who answered it; the training
    label's own annotator (``alice+bob`` for a common answer, the app's name
    for an edit, which the team rule keeps as that person's answer) counts
    only for tokens nobody answered.  Counts over disjoint id ranges add
    up: a sentence lies in one range.
    """
    where, args = _range(first_id, last_id)
    own = "a.annotator <> ?" + ("" if not where else " AND a.sentence_id BETWEEN ? AND ?")
    rows = conn.execute(
        "SELECT annotator, count(DISTINCT sentence_id), count(*) FROM ("
        f"SELECT sentence_id, annotator FROM annotator_labels{where} UNION ALL "
        f"SELECT a.sentence_id, a.annotator FROM annotations a WHERE {own} AND NOT EXISTS ("
        "SELECT 1 FROM annotator_labels b WHERE b.sentence_id = a.sentence_id AND b.token = a.token)"
        ") GROUP BY annotator ORDER BY annotator",
        (*args, IMPORT_ANNOTATOR, *args),
    )
    return {name: (n_sentences, n_tokens) for name, n_sentences, n_tokens in rows}


def annotators(conn: sqlite3.Connection) -> list[str]:
    """The names with answers of their own in ``annotator_labels``, sorted."""
    return [name for (name,) in conn.execute("SELECT DISTINCT annotator FROM annotator_labels ORDER BY annotator")]

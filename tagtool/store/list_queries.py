"""The sentence list's queries: filters and search, sorted ids, pages of rows, counts.

Functions of a connection that read no token data (the list of a 100k
project pages through them); the :class:`~tagtool.store.project.Project`
front calls them.  A filter is a status (:data:`STATUSES`), a search text
(through the trigram index where it helps: :mod:`tagtool.store.search_index`)
and a document.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable
from typing import Any

from tagtool.store import review as _review
from tagtool.store import search_index
from tagtool.store import sentence_rows as _rows
from tagtool.store import team as _team
from tagtool.store.corpus_reads import require_ids
from tagtool.store.record_types import NotFoundError, SentenceSummary

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
#: Sort keys of ``sentence_ids(order_by=...)`` (None: document order).  Status
#: ranks none (0), partial (1), full (2); text compares the list's preview.
ORDER_KEYS = {
    "position": None,
    "status": "(s.n_full = s.n_tokens) + (s.n_full + s.n_partial > 0)",
    "length": "s.n_tokens",
    "text": "lower(substr(s.text, 1, 80))",
    "disagreement": _team.DISAGREEMENT_SQL,
}
#: The columns of a :class:`SentenceSummary` (``s`` the sentence, ``d`` its document).
_SUMMARY = "s.id, s.document_id, d.name, s.position, s.n_tokens, s.n_full, s.n_partial, substr(s.text, 1, ?)"

Status = str | Iterable[str] | None


def summary_filter(
    conn: sqlite3.Connection, indexed: bool, status: Status, search: str | None, document_id: int | None
) -> tuple[str, str, list[Any]]:
    """``(FROM clause, WHERE clause, parameters)`` of the sentences passing the filters
    (``s`` the sentence, ``d`` its document; a search may read the trigram index first
    when ``indexed``)."""
    source, clauses, params = _rows.ORDERED_SENTENCES, [], []
    if status is not None:
        statuses = [status] if isinstance(status, str) else list(status)
        unknown = [s for s in statuses if s not in _STATUS_SQL]
        if unknown or not statuses:
            raise ValueError(f"status must be among {', '.join(STATUSES)}, got {status!r}")
        clauses.append("(" + " OR ".join(_STATUS_SQL[s] for s in statuses) + ")")
    if search:
        source, clause, search_params = search_index.text_filter(conn, indexed, search)
        clauses.append(clause)
        params += search_params
    if document_id is not None:
        clauses.append("s.document_id = ?")
        params.append(document_id)
    return source, ("WHERE " + " AND ".join(clauses)) if clauses else "", params


def sentence_ids(
    conn: sqlite3.Connection,
    indexed: bool,
    document_id: int | None,
    status: Status,
    search: str | None,
    order_by: str,
    descending: bool,
) -> list[int]:
    """Ids of the sentences passing the filters, sorted by ``order_by`` (:data:`ORDER_KEYS`),
    ties in document order; one query returning only ids."""
    if order_by not in ORDER_KEYS:
        raise ValueError(f"order_by must be among {', '.join(ORDER_KEYS)}, got {order_by!r}")
    source, where, params = summary_filter(conn, indexed, status, search, document_id)
    key, direction = ORDER_KEYS[order_by], " DESC" if descending else ""
    if key is None:
        order = f"d.position{direction}, s.position{direction}"
    else:
        order = f"{key}{direction}, d.position, s.position"
    # All the ids as one JSON value: one step of SQLite instead of a row
    # each (faster on a big list), and a worker
    # thread running this takes the GIL once, not once a row (while the
    # GUI thread runs Python, each take waits).  SQLite keeps a
    # subquery's ORDER BY when the outer query aggregates with anything
    # but count(), min() or max() (tests/store/test_project_listing.py).
    ids = conn.execute(
        f"SELECT json_group_array(id) FROM (SELECT s.id AS id {source} {where} ORDER BY {order})", params
    ).fetchone()[0]
    return json.loads(ids)


def next_sentence(
    conn: sqlite3.Connection, indexed: bool, after: int | None, status: Status, search: str | None
) -> int | None:
    """The first sentence after ``after`` in document order passing the filters, wrapping
    around; None when no other passes.  Two ``LIMIT 1`` queries at most."""
    source, where, params = summary_filter(conn, indexed, status, search, None)
    where = where or "WHERE 1"
    first = f"SELECT s.id {source} {where} AND s.id <> ? ORDER BY d.position, s.position LIMIT 1"
    if after is None:
        return _one(conn, first, [*params, -1])
    row = conn.execute(
        "SELECT d.position, s.position FROM sentences s JOIN documents d ON d.id = s.document_id WHERE s.id = ?",
        (int(after),),
    ).fetchone()
    if row is None:
        raise NotFoundError(f"no sentence with id {after}")
    found = _one(
        conn,
        f"SELECT s.id {source} {where} "
        # the first condition lets SQLite start at the current document
        "AND d.position >= ? AND (d.position > ? OR s.position > ?) "
        "ORDER BY d.position, s.position LIMIT 1",
        [*params, row[0], row[0], row[1]],
    )
    return found if found is not None else _one(conn, first, [*params, int(after)])


def summaries(
    conn: sqlite3.Connection,
    indexed: bool,
    status: Status,
    search: str | None,
    document_id: int | None,
    offset: int,
    limit: int | None,
    preview_chars: int,
) -> list[SentenceSummary]:
    """A page of the sentence list's rows passing the filters, in document order."""
    source, where, params = summary_filter(conn, indexed, status, search, document_id)
    sql = f"SELECT {_SUMMARY} {source} {where} ORDER BY d.position, s.position LIMIT ? OFFSET ?"
    params = [preview_chars, *params, -1 if limit is None else limit, offset]
    return [SentenceSummary(*row) for row in conn.execute(sql, params)]


def summaries_by_id(conn: sqlite3.Connection, sentence_ids: Iterable[int], preview_chars: int) -> list[SentenceSummary]:
    """Rows of the sentence list for these ids, in their order: primary-key lookups, so a page
    deep down a long list costs what the first page costs (:class:`NotFoundError` for an unknown id)."""
    ids = [int(i) for i in sentence_ids]
    if not ids:
        return []
    rows = {
        row[0]: SentenceSummary(*row)
        for row in conn.execute(
            f"SELECT {_SUMMARY} FROM sentences s JOIN documents d ON d.id = s.document_id "
            "WHERE s.id IN (SELECT value FROM json_each(?))",
            (preview_chars, _rows.dumps(ids)),
        )
    }
    require_ids(ids, rows)
    return [rows[i] for i in ids]


def count(conn: sqlite3.Connection, indexed: bool, status: Status, search: str | None, document_id: int | None) -> int:
    """How many sentences pass the filters."""
    source, where, params = summary_filter(conn, indexed, status, search, document_id)
    return _one(conn, f"SELECT count(*) {source} {where}", params)


def status_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Number of sentences that are fully, partially and not labeled."""
    full, none, total = conn.execute(
        "SELECT coalesce(sum(n_full = n_tokens), 0), "
        "coalesce(sum(n_full = 0 AND n_partial = 0), 0), count(*) FROM sentences"
    ).fetchone()
    return {"full": full, "partial": total - full - none, "none": none}


def annotation_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Tokens with a full label, a partial label, and none."""
    full, partial, total = conn.execute(
        "SELECT coalesce(sum(n_full), 0), coalesce(sum(n_partial), 0), coalesce(sum(n_tokens), 0) FROM sentences"
    ).fetchone()
    return {"full": full, "partial": partial, "none": total - full - partial}


def label_counts(
    conn: sqlite3.Connection, names: Iterable[str], first_id: int | None, last_id: int | None
) -> dict[str, tuple[int, int]]:
    """``label -> (tokens with it as full label, candidate sets holding it)``, in the order of ``names``.

    One aggregate query over the stored spellings (``A`` or ``A|B``):
    a project has few distinct candidate sets, however many tokens.
    ``first_id``, ``last_id``: only the sentences whose ids lie between
    them (the primary key's range; a big project's count made in steps,
    so that no one step holds the connection long).
    """
    full: Counter = Counter()
    candidate: Counter = Counter()
    where, args = "", ()
    if first_id is not None or last_id is not None:
        where, args = " WHERE sentence_id BETWEEN ? AND ?", (first_id or 0, 2**62 if last_id is None else last_id)
    for text, n in conn.execute(f"SELECT labels, count(*) FROM annotations{where} GROUP BY labels", args):
        labels = _rows.parse_stored(text)
        for name in labels:
            (full if len(labels) == 1 else candidate)[name] += n
    return {name: (full[name], candidate[name]) for name in names}


def _one(conn: sqlite3.Connection, sql: str, params: list[Any]) -> Any:
    row = conn.execute(sql, params).fetchone()
    return None if row is None else row[0]

"""Joining a sentence with the next one of its document, inside the project file.

A sentence split in the wrong place (after an abbreviation the splitter
took for a sentence end) is fixed by joining the two sentences: one
sentence of both tokens. What the second sentence held moves to the first,
token indexes shifted by the first's length: its training labels,
annotators' answers, adjudications and annotation log (so the statistics'
replay of the log still counts each token once). A review flag or skip of
either stays on the joined sentence (comments joined). The sentence's text
meta (span records, :mod:`tagtool.store.formats.spans`) becomes the text
from the first's start to the second's end. Later sentences of the
document move up one position. Actions logged on the second sentence keep
their time; their sentence becomes the joined one.

Runs inside the caller's transaction, as :mod:`tagtool.store.retokenize`
does, so a kill leaves the two sentences or the joined one. CoNLL-U
sentences (word ids, a tree) are not joined.
"""

from __future__ import annotations

import json
import sqlite3

from tagtool.errors import ProjectError
from tagtool.store import retokenize_conllu as conllu_ids
from tagtool.store import sentence_rows as _rows
from tagtool.store.formats.spans import META_FULL, META_START, META_TEXT


class JoinError(ProjectError, ValueError):
    """Two sentences that cannot be joined (not next to each other in one document, CoNLL-U)."""


def _row(conn: sqlite3.Connection, sentence_id: int) -> tuple:
    row = conn.execute(
        "SELECT document_id, position, tokens, columns, meta FROM sentences WHERE id = ?", (int(sentence_id),)
    ).fetchone()
    if row is None:
        raise JoinError(f"no sentence {sentence_id}")
    return row


def _record_text(conn: sqlite3.Connection, document_id: int, position: int) -> str | None:
    """The whole text of the record the sentence at ``position`` belongs to (kept by its first sentence)."""
    for (meta,) in conn.execute(
        "SELECT meta FROM sentences WHERE document_id = ? AND position <= ? ORDER BY position DESC",
        (document_id, position),
    ):
        meta = json.loads(meta)
        if META_FULL in meta:
            return meta[META_FULL]
        if META_START not in meta:
            return None
    return None


def _joined_meta(conn: sqlite3.Connection, doc: int, position: int, a: dict, b: dict) -> dict:
    meta = dict(a)
    if isinstance(a.get(META_TEXT), str) and isinstance(b.get(META_TEXT), str):
        full = _record_text(conn, doc, position)
        try:
            start, b_start = int(a.get(META_START, 0)), int(b[META_START])
        except (KeyError, ValueError):
            full = None
        if full is not None and full[b_start : b_start + len(b[META_TEXT])] == b[META_TEXT]:
            meta[META_TEXT] = full[start : b_start + len(b[META_TEXT])]
        else:
            meta[META_TEXT] = a[META_TEXT] + " " + b[META_TEXT]
    return meta


def join_next(conn: sqlite3.Connection, sentence_id: int) -> int:
    """Join sentence ``sentence_id`` with the next of its document (module doc); the id of the second, gone."""
    doc, position, tokens, columns, meta = _row(conn, sentence_id)
    row = conn.execute(
        "SELECT id, tokens, columns, meta FROM sentences WHERE document_id = ? AND position = ?", (doc, position + 1)
    ).fetchone()
    if row is None:
        raise JoinError(f"sentence {sentence_id} is the last of its document; there is no next to join")
    second, tokens_b, columns_b, meta_b = row
    a_meta, b_meta = json.loads(meta), json.loads(meta_b)
    if conllu_ids.is_conllu(a_meta) or conllu_ids.is_conllu(b_meta):
        raise JoinError(f"sentences {sentence_id} and {second} are CoNLL-U sentences (a tree each); not joined")
    tokens, tokens_b = json.loads(tokens), json.loads(tokens_b)
    shift = len(tokens)
    columns, columns_b = json.loads(columns), json.loads(columns_b)
    joined_columns = {
        name: list(columns.get(name, ["_"] * shift)) + list(columns_b.get(name, ["_"] * len(tokens_b)))
        for name in {**columns, **columns_b}
    }
    conn.execute(
        "UPDATE sentences SET tokens = ?, columns = ?, meta = ?, text = ?, n_tokens = ? WHERE id = ?",
        (
            _rows.dumps(tokens + tokens_b),
            _rows.dumps(joined_columns),
            _rows.dumps(_joined_meta(conn, doc, position, a_meta, b_meta)),
            " ".join(tokens + tokens_b),
            shift + len(tokens_b),
            sentence_id,
        ),
    )
    for table in ("annotations", "annotator_labels", "adjudicated", "annotation_log"):
        conn.execute(
            f"UPDATE {table} SET sentence_id = ?, token = token + ? WHERE sentence_id = ?", (sentence_id, shift, second)
        )
    conn.execute("UPDATE actions SET sentence_id = ? WHERE sentence_id = ?", (sentence_id, second))
    _join_reviews(conn, sentence_id, second)
    conn.execute("DELETE FROM sentences WHERE id = ?", (second,))
    # Two steps: UNIQUE (document_id, position) is checked row by row.
    conn.execute(
        "UPDATE sentences SET position = -position WHERE document_id = ? AND position > ?", (doc, position + 1)
    )
    conn.execute("UPDATE sentences SET position = -position - 1 WHERE document_id = ? AND position < 0", (doc,))
    _rows.refresh_counts(conn, [sentence_id])
    return second


def _join_reviews(conn: sqlite3.Connection, first: int, second: int) -> None:
    rows = {
        sid: row
        for sid, *row in conn.execute(
            "SELECT sentence_id, flagged, comment, skipped, annotator, time FROM sentence_review "
            "WHERE sentence_id IN (?, ?)",
            (first, second),
        )
    }
    if second not in rows:
        return
    if first not in rows:
        conn.execute("UPDATE sentence_review SET sentence_id = ? WHERE sentence_id = ?", (first, second))
        return
    (fa, ca, sa, _, _), (fb, cb, sb, _, _) = rows[first], rows[second]
    comment = " / ".join(c for c in (ca, cb) if c)
    conn.execute("DELETE FROM sentence_review WHERE sentence_id = ?", (second,))
    conn.execute(
        "UPDATE sentence_review SET flagged = ?, comment = ?, skipped = ? WHERE sentence_id = ?",
        (int(fa or fb), comment, int(sa or sb), first),
    )


def join_runs(conn: sqlite3.Connection, runs: list[tuple[int, ...]]) -> int:
    """Join each run of consecutive sentences (ids in document order) into its first; sentences removed.

    Runs sharing a sentence (two spans crossing the same boundary, or
    overlapping runs) are joined once.
    """
    follows: dict[int, int] = {}
    for run in runs:
        follows.update(zip(run, run[1:]))
    followers = set(follows.values())
    heads = [sid for sid in follows if sid not in followers]
    removed = 0
    for head in heads:
        sid = head
        while sid in follows:
            expected, sid = follows[sid], follows[sid]
            if join_next(conn, head) != expected:
                raise JoinError(f"sentence {expected} does not follow the sentence before it; nothing was joined")
            removed += 1
    return removed

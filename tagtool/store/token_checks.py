"""Checks a write makes inside its own transaction: token indexes inside their sentence,
tokens unchanged since a file was matched to them.

Another program may split or merge a token of a sentence at any moment
(:mod:`tagtool.store.retokenize`).  A check made before a write's transaction
began may then describe a sentence that is no longer there: an answer meant
for token 38 of 38 lands on a sentence of 37 tokens, and every later read
finds the sentence damaged.  So a write that stores per-token rows checks,
after ``BEGIN IMMEDIATE`` (the lock that keeps every other writer out until
its commit), that

* every token index lies inside its sentence (:func:`check_indexes`), and
* a sentence whose answers were matched by its tokens still has those
  tokens (:func:`check_tokens`);

and refuses the whole write otherwise, storing nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from tagtool.errors import ProjectError
from tagtool.store.record_types import NotFoundError


class StaleTokensError(ProjectError):
    """A write meant for tokens a sentence no longer has (retokenized since, or an index past its end)."""


def _lengths(conn: sqlite3.Connection, sentence_ids: Iterable[int]) -> dict[int, int]:
    ids = json.dumps(sorted({int(i) for i in sentence_ids}))
    return dict(conn.execute("SELECT id, n_tokens FROM sentences WHERE id IN (SELECT value FROM json_each(?))", (ids,)))


def check_indexes(conn: sqlite3.Connection, rows: Iterable[Sequence], what: str = "a label") -> None:
    """Refuse rows ``(sentence id, token index, ...)`` whose token lies outside their sentence.

    One query for all of them, inside the caller's write transaction.

    Raises
    ------
    StaleTokensError
        A token index below 0 or past the sentence's last token.
    NotFoundError
        A sentence the project does not hold.
    """
    lowest: dict[int, int] = {}
    highest: dict[int, int] = {}
    for row in rows:
        sid, t = int(row[0]), int(row[1])
        if t < lowest.get(sid, t + 1):
            lowest[sid] = t
        if t > highest.get(sid, t - 1):
            highest[sid] = t
    if not highest:
        return
    lengths = _lengths(conn, highest)
    for sid in sorted(highest):
        if sid not in lengths:
            raise NotFoundError(f"no sentence with id {sid}")
        bad = lowest[sid] if lowest[sid] < 0 else highest[sid]
        if not 0 <= bad < lengths[sid]:
            raise StaleTokensError(
                f"sentence {sid} has {lengths[sid]} tokens; {what} for token index {bad} cannot be stored "
                "(was the sentence split or merged meanwhile?); nothing was saved"
            )


def check_tokens(conn: sqlite3.Connection, tokens: Mapping[int, Sequence[str]]) -> None:
    """Refuse a write when a sentence's tokens are no longer ``tokens[sentence id]``
    (inside the caller's write transaction; :class:`StaleTokensError`)."""
    ids = json.dumps(sorted(int(i) for i in tokens))
    now = {
        sid: json.loads(text)
        for sid, text in conn.execute(
            "SELECT id, tokens FROM sentences WHERE id IN (SELECT value FROM json_each(?))", (ids,)
        )
    }
    for sid in sorted(tokens):
        if sid not in now:
            raise NotFoundError(f"no sentence with id {sid}")
        if tuple(now[sid]) != tuple(tokens[sid]):
            raise StaleTokensError(
                f"sentence {sid} was split or merged (by another program?) since its answers were matched "
                f"to it: its tokens are now {' '.join(now[sid])[:80]!r}; nothing was saved, run it again"
            )

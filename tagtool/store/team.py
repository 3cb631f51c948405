"""Resolutions of tokens where annotators disagree, and reading a token's answers.

The data model of team work (docs/design.md#team-answers; the tables in :mod:`tagtool.store.schema`):

* ``annotator_labels`` holds each annotator's own *answer* for a token, a
  full label ``A`` or a candidate set ``A|B``; a token an annotator left
  unlabeled has no row of theirs (it is no answer).
* ``annotations`` holds the token's *training label*, what the learners
  read, made of the answers by the one rule
  (:func:`tagtool.core.annotators.combine`, written by
  :mod:`tagtool.store.annotators`): the answer of a strict majority of the
  annotators, else the union of their answers (a candidate set: one of them is
  right, and tagtool's learners train on exactly that).
* ``adjudicated`` marks the tokens an adjudicator *resolved* in the app's
  adjudication view: picked one label (a full label) or kept the set.  The
  adjudicator's choice is the training label, and merges and imports of
  answers leave a resolved token's training label alone.  An edit of a
  resolved token is its new resolution, a clear takes it back
  (:func:`tagtool.store.writes.apply`): the resolution always says what the
  training label says.

The functions take a connection inside the caller's transaction, as
:mod:`tagtool.store.sentence_rows` does; :class:`~tagtool.store.project.Project`
wraps them (``answers``, ``resolutions``, ``resolve_token``,
``unresolve_token``).

References
----------
.. [1] J. Cour, B. Sapp, B. Taskar. Learning from partial labels. JMLR 12, 2011
   (a candidate set holds the true label: the union of the answers does,
   when one annotator is right).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tagtool.core.annotation import make_annotation
from tagtool.core.labels import LabelSet
from tagtool.store import sentence_rows as _rows

#: SQL condition on ``s`` (a sentences row): some token of the sentence has
#: answers that differ and no adjudicator resolved it (the sentence list's
#: "Annotators disagree" filter).
DISAGREE_SQL = (
    "s.id IN (SELECT a.sentence_id FROM annotator_labels a "
    "WHERE NOT EXISTS (SELECT 1 FROM adjudicated j WHERE j.sentence_id = a.sentence_id AND j.token = a.token) "
    "GROUP BY a.sentence_id, a.token HAVING count(DISTINCT a.labels) > 1)"
)

#: SQL of ``s`` (a sentences row): the share of its tokens whose answers
#: differ and that no adjudicator resolved (the order of the sentence list's
#: "Annotators disagree" filter and of the adjudication view's Tab: the most
#: disputed sentences first).
DISAGREEMENT_SQL = (
    "((SELECT count(DISTINCT a.token) FROM annotator_labels a JOIN annotator_labels b "
    "ON b.sentence_id = a.sentence_id AND b.token = a.token AND b.labels <> a.labels "
    "WHERE a.sentence_id = s.id AND NOT EXISTS (SELECT 1 FROM adjudicated j "
    "WHERE j.sentence_id = a.sentence_id AND j.token = a.token)) * 1.0 / max(s.n_tokens, 1))"
)


@dataclass(frozen=True)
class Resolution:
    """An adjudicator's resolution of a token.

    Attributes
    ----------
    labels : frozenset of str
        The label picked (one) or the candidate set kept (several).
    annotator : str
        The adjudicator.
    time : float
        Unix seconds.
    """

    labels: frozenset
    annotator: str
    time: float


def read_answers(conn: sqlite3.Connection, sentence_id: int, n_tokens: int) -> tuple[dict[str, frozenset], ...]:
    """Each token's answers, ``{annotator: labels}`` (empty for a token nobody answered)."""
    out: list[dict[str, frozenset]] = [{} for _ in range(n_tokens)]
    for t, name, text in conn.execute(
        "SELECT token, annotator, labels FROM annotator_labels WHERE sentence_id = ? ORDER BY token, annotator",
        (int(sentence_id),),
    ):
        if 0 <= t < n_tokens:
            out[t][name] = _rows.parse_stored(text)
    return tuple(out)


def read_resolutions(conn: sqlite3.Connection, sentence_id: int) -> dict[int, Resolution]:
    """``{token: Resolution}`` of a sentence's resolved tokens."""
    return {
        t: Resolution(_rows.parse_stored(text), who, when)
        for t, text, who, when in conn.execute(
            "SELECT token, labels, annotator, time FROM adjudicated WHERE sentence_id = ? ORDER BY token",
            (int(sentence_id),),
        )
    }


def put_resolution(
    conn: sqlite3.Connection, sentence_id: int, token: int, text: str | None, annotator: str, now: float
) -> None:
    """Mark a token resolved with the stored spelling ``text``, or unmark it (``text`` None)."""
    if text is None:
        conn.execute("DELETE FROM adjudicated WHERE sentence_id = ? AND token = ?", (sentence_id, token))
        return
    conn.execute(
        "INSERT INTO adjudicated (sentence_id, token, labels, annotator, time) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (sentence_id, token) DO UPDATE SET labels = excluded.labels, "
        "annotator = excluded.annotator, time = excluded.time",
        (sentence_id, token, text, annotator, now),
    )


def agreement_counts(answers: Iterable[Mapping[str, frozenset]]) -> tuple[int, int]:
    """``(agree, disagree)``: tokens with two or more answers, all the same or not."""
    agree = disagree = 0
    for given in answers:
        values = [a for a in given.values() if a]
        if len(values) < 2:
            continue
        if len(set(values)) == 1:
            agree += 1
        else:
            disagree += 1
    return agree, disagree


def drop_label(conn: sqlite3.Connection, name: str, remaining: LabelSet) -> None:
    """Take a removed label out of the resolutions (a resolution left with no label is dropped)."""
    rows = conn.execute(
        "SELECT sentence_id, token, labels FROM adjudicated WHERE instr(labels, '|') > 0 OR labels = ?", (name,)
    ).fetchall()
    for sid, t, text in rows:
        old = _rows.parse_stored(text)
        if name not in old:
            continue
        new = _rows.spell(make_annotation(old - {name}, remaining), remaining)
        if new is None:
            conn.execute("DELETE FROM adjudicated WHERE sentence_id = ? AND token = ?", (sid, t))
        else:
            conn.execute("UPDATE adjudicated SET labels = ? WHERE sentence_id = ? AND token = ?", (new, sid, t))

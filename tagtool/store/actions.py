"""The action log: each annotation action made in the app, with its time.

What one row means
------------------
An *action* is one step the annotator takes in the editor (one undo step),
or leaving a sentence with tokens still unlabeled.  Its ``kind``:

``full``
    A label key, the label picker or the menu's *Set label*: the selected
    tokens get a full label.
``candidate``
    A candidate-set gesture (Ctrl/Alt + label key, *Toggle candidate*, or a
    key that gives a two-label set at once).  Counted as ``candidate`` even
    when the result is a single label (the first toggle on an unlabeled
    token), so a set built with two toggles costs both.
``accept``
    Enter or Space: the model's suggestions become full labels.
``skip``
    Written when the annotator leaves a sentence in which they made at
    least one action during that visit while some of its tokens still
    have no label at all: those tokens were read and left unlabeled (what
    ``tagtool simulate --mode tokens`` charges ``skip`` for).  Browsing
    through sentences without editing them writes nothing; neither does
    closing the project.
``clear``
    Delete, Backspace or 0: annotations removed (a correction).
``review``
    The sentence flagged for review, its comment changed, its flag
    removed, or the sentence skipped or put back (:mod:`tagtool.store.review`);
    ``n_tokens`` is the sentence's length.  A skipped *sentence* is this
    kind; ``skip`` is about tokens left unlabeled.
``retokenize``
    A token split in two or merged with the next
    (:mod:`tagtool.store.retokenize`); ``n_tokens`` the tokens the change
    made (2 for a split, 1 for a merge).
``adjudicate``
    A token resolved by an adjudicator (:mod:`tagtool.store.team`): one
    annotator's label picked, or the candidate set of their answers kept
    (``n_tokens`` 1); or such a resolution taken back.
``label_all``
    Label all occurrences (:mod:`tagtool.gui.label_all`): one decision of
    the annotator's that labeled every unlabeled recurrence of a span's
    text at once; ``n_tokens`` the tokens it labeled, in every sentence
    (their annotations are in ``annotation_log``), ``sentence_id`` the
    sentence it was asked from.  One row, not one per sentence or token:
    the annotator did not read or decide those tokens one by one, so they
    are not tokens of a cost kind (what the app measures per token and what
    ``tagtool simulate`` charges stay the costs of labels given by hand);
    its time is its own (not charged to the next label).
``undo``, ``redo``
    The undo stack stepping back or forth; ``ref`` is the id of the action
    they reverse.  An action is *undone* when the last undo/redo naming it
    is an undo.
``open``
    Opening a sentence: getting to it and reading it before the first
    annotation action (``full``, ``candidate``, ``accept`` or ``clear``) of
    a visit to it; ``n_tokens`` is the sentence's length.  Written in the
    transaction of that first action, just before it (its id is the next
    one), with the time the first action would otherwise be charged: from
    the previous action (leaving the last sentence, or its last label) to
    the first action's end.  The first action itself is then logged with
    no time of its own (``started == ended``, ``active`` 0).  A visit that
    begins with a flag, a split, an undo or a Label all logs no ``open`` (that action
    took the reading time, as before).

Why a row of its own, and how its cost is measured
--------------------------------------------------
The per-sentence overhead of Ringger et al. (2008) — the time a sentence
costs beyond its tokens — cannot be read off the other rows: the first
label of a sentence was charged with the reading *and* its own decision,
and the log did not say which action began a visit (revisits, sessions,
an undo that shows another sentence).  The ``open`` row marks the visit
and holds the interval that contains the reading.  What it cannot hold is
the split between the reading and the first decision (no keystroke marks
it), so the overhead is estimated under the linear cost model (time of a
visit = overhead + Σ seconds per token × tokens of each kind): the mean
over ``open`` rows of their seconds minus the first action's tokens at
its kind's measured seconds per token, which are themselves measured on
the actions that are *not* first in their visit
(:func:`tagtool.services.annotation_costs.opening_cost`).  A log written before
this kind (no ``open`` rows) is measured as before.

``review``, ``retokenize``, ``adjudicate``, ``label_all`` and ``open`` are logged so that their
time is not charged to the next label; ``review``, ``retokenize``, ``adjudicate`` and
``label_all`` are not annotation costs of ``tagtool simulate`` (``open`` is its per-sentence
cost), and they alone do not make leaving the sentence a ``skip`` of its tokens.

``n_tokens`` counts the tokens the action gave its kind's outcome: tokens
it gave a full label (``full``), tokens that hold a candidate set after it
(``candidate``; 0 for a toggle that left only single labels), suggestions
accepted, tokens skipped, tokens cleared, tokens an undo or redo changed,
tokens of the sentence opened, tokens a Label all occurrences labeled.

Time
----
Actions are charged with the wall-clock interval since the previous action
of the same app session (or since the project was opened): ``started`` to
``ended``.  ``active`` is that interval in seconds, at most
:data:`IDLE_SECONDS`: a longer gap counts as the threshold itself (the
annotator read, thought or went away; what goes beyond the threshold is not
annotation).  ``started``/``ended`` are kept, so a later analysis can apply
another threshold.  Times are Unix seconds (UTC).

The row is inserted in the transaction of the edit it records
(:meth:`tagtool.store.project.Project.apply_action`), so a crash keeps both
or neither.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from tagtool.store.record_types import ActionRecord

#: Every kind of action the app logs (see the module doc).
KINDS = (
    "full",
    "candidate",
    "accept",
    "skip",
    "clear",
    "review",
    "retokenize",
    "adjudicate",
    "undo",
    "redo",
    "open",
    "label_all",
)
#: The kinds whose cost ``tagtool simulate`` models (full label, candidate
#: set, accepted suggestion, skipped token).
COST_KINDS = ("full", "candidate", "accept", "skip")
#: Kinds whose first action in a visit to a sentence is preceded by an ``open`` row.
OPENING = ("full", "candidate", "accept", "clear")
#: Kinds that reverse an earlier action (``ref`` names it).
REVERSING = ("undo", "redo")
#: A gap between two consecutive actions longer than this counts as this
#: many seconds (idle time is not annotation time).
IDLE_SECONDS = 60.0


class Action(NamedTuple):
    """An action as the app hands it to the store (the row without id, sentence, annotator).

    Attributes
    ----------
    kind : str
        One of :data:`KINDS`.
    n_tokens : int
    started, ended : float
        Unix seconds.
    active : float
        Seconds counted, ``min(ended - started, idle threshold)``.
    ref : int or None
        The action an undo or redo reverses.
    """

    kind: str
    n_tokens: int
    started: float
    ended: float
    active: float
    ref: int | None = None


def check(action: Action) -> None:
    """Raise ValueError for an action the log cannot hold."""
    if action.kind not in KINDS:
        raise ValueError(f"unknown action kind {action.kind!r} (known: {', '.join(KINDS)})")
    if int(action.n_tokens) < 0:
        raise ValueError(f"an action covers 0 tokens or more, got {action.n_tokens}")
    times = (action.started, action.ended, action.active)
    if not all(math.isfinite(t) for t in times) or action.ended < action.started or action.active < 0:
        raise ValueError(f"action times must be finite, ended >= started and active >= 0: {action}")
    if (action.ref is not None) != (action.kind in REVERSING):
        raise ValueError(f"a {action.kind} action {'needs' if action.kind in REVERSING else 'has no'} ref")


def insert(conn: sqlite3.Connection, action: Action, sentence_id: int | None, annotator: str) -> int:
    """Append ``action`` inside the caller's transaction; its id."""
    check(action)
    cursor = conn.execute(
        "INSERT INTO actions (kind, sentence_id, n_tokens, started, ended, active, annotator, ref) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            action.kind,
            sentence_id,
            int(action.n_tokens),
            float(action.started),
            float(action.ended),
            float(action.active),
            annotator,
            action.ref,
        ),
    )
    return cursor.lastrowid


def read(
    conn: sqlite3.Connection,
    kinds: Iterable[str] | None = None,
    since: float | None = None,
    annotator: str | None = None,
    after_id: int | None = None,
) -> list[ActionRecord]:
    """Logged actions, oldest first, optionally only some kinds, from a time, of one annotator, after an id."""
    clauses: list[str] = []
    params: list = []
    if after_id is not None:
        clauses.append("id > ?")
        params.append(int(after_id))
    if kinds is not None:
        kinds = list(kinds)
        clauses.append(f"kind IN ({', '.join('?' * len(kinds))})")
        params += kinds
    if since is not None:
        clauses.append("ended >= ?")
        params.append(float(since))
    if annotator is not None:
        clauses.append("annotator = ?")
        params.append(annotator)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    rows = conn.execute(
        "SELECT id, kind, sentence_id, n_tokens, started, ended, active, annotator, ref "
        f"FROM actions {where} ORDER BY id",
        params,
    )
    return [ActionRecord(*row) for row in rows]


def first_ids(records: Sequence[ActionRecord]) -> set[int]:
    """Ids of the actions that begin a visit: each one logged right after an ``open`` of its sentence."""
    return {
        b.id
        for a, b in zip(records, records[1:])
        if a.kind == "open" and b.kind in OPENING and b.sentence_id == a.sentence_id
    }


def undone_ids(records: Sequence[ActionRecord]) -> set[int]:
    """Ids of the actions whose last undo/redo (in log order) was an undo."""
    last: dict[int, str] = {}
    for r in records:
        if r.kind in REVERSING and r.ref is not None:
            last[r.ref] = r.kind
    return {ref for ref, kind in last.items() if kind == "undo"}

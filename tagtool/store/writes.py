"""Annotation writes and their log: a sentence's tokens set, a corpus's labels taken, a token resolved.

Functions of a connection inside the caller's write transaction
(:func:`tagtool.store.transaction.write`), so an edit and its log rows (and
the app's action, :mod:`tagtool.store.actions`) are committed together or
not at all.  Every edit made in the app goes to ``annotation_log``; a bulk
import of annotations does not.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tagtool.core.annotation import make_annotation, parse_annotation
from tagtool.core.labels import NO_LABEL, LabelSet
from tagtool.errors import LabelError
from tagtool.store import actions as _actions
from tagtool.store import annotators as _annotators
from tagtool.store import sentence_rows as _rows
from tagtool.store import team as _team
from tagtool.store.corpus_reads import sentence_length
from tagtool.store.record_types import LogEntry, NotFoundError

Given = Iterable[str] | str


def normalize(labels: LabelSet, given: Given) -> frozenset[str]:
    """An annotation from labels (or their column-file spelling: ``"A"``, ``"A|B"``, ``"_"``)."""
    if isinstance(given, str):
        return parse_annotation(given, labels)
    return make_annotation(given, labels)


def current(path: Path, ann: frozenset, labels: LabelSet) -> frozenset:
    """``ann`` checked against the label set as it is in the file now."""
    try:
        return make_annotation(ann, labels)
    except LabelError as e:
        raise LabelError(
            f"{path}: {e}: the label set was changed (by another program?) since this edit was made; it was not saved"
        ) from None


def check_opening(action: _actions.Action, opened: _actions.Action | None) -> None:
    """Check an action and the ``open`` action of the visit it begins, if any."""
    _actions.check(action)
    if opened is not None:
        _actions.check(opened)
        if opened.kind != "open" or action.kind not in _actions.OPENING:
            raise ValueError(
                f"an open action goes with a first action of {_actions.OPENING}, "
                f"not {opened.kind!r} with {action.kind!r}"
            )


def apply(
    conn: sqlite3.Connection,
    path: Path,
    labels: LabelSet,
    sentence_id: int,
    changes: Mapping[int, frozenset],
    annotator: str,
) -> int:
    """Write ``changes`` of one sentence, log them, refresh its counts; tokens changed.

    ``labels``: the label set as it is in the file now (the transaction re-read it).
    An edit of a token an adjudicator resolved (:mod:`tagtool.store.team`) is
    its new resolution, by ``annotator``: the resolution says what the
    training label says, and merges keep leaving the token alone. A clear
    takes the resolution back (a token is resolved with a label), so the
    token counts again as one where the annotators disagree.
    """
    n_tokens = sentence_length(conn, sentence_id)
    bad = [t for t in changes if not 0 <= t < n_tokens]
    if bad:
        raise NotFoundError(f"sentence {sentence_id} has {n_tokens} tokens; no token index {bad[0]}")
    old = dict(conn.execute("SELECT token, labels FROM annotations WHERE sentence_id = ?", (sentence_id,)))
    now = time.time()
    upserts, deletes, entries = [], [], []
    for t, ann in changes.items():
        new_text = _rows.spell(current(path, ann, labels), labels)
        old_text = old.get(t)
        if new_text == old_text:
            continue
        if new_text is None:
            deletes.append((sentence_id, t))
        else:
            upserts.append((sentence_id, t, new_text, annotator, now))
        entries.append((sentence_id, t, old_text or NO_LABEL, new_text or NO_LABEL, annotator, now))
    if not entries:
        return 0
    _rows.write_annotations(conn, deletes, upserts, entries)
    resolved = {t for (t,) in conn.execute("SELECT token FROM adjudicated WHERE sentence_id = ?", (sentence_id,))}
    for _, t, _, new_text, _, _ in entries:
        if t in resolved:
            _team.put_resolution(conn, sentence_id, t, None if new_text == NO_LABEL else new_text, annotator, now)
    _rows.refresh_counts(conn, [sentence_id])
    return len(entries)


def apply_action(
    conn: sqlite3.Connection,
    path: Path,
    labels: LabelSet,
    sentence_id: int,
    changes: Mapping[int, frozenset],
    annotator: str,
    action: _actions.Action,
    opened: _actions.Action | None,
) -> int | None:
    """:func:`apply` and log the app's ``action`` (after ``opened``, the ``open`` action of the visit
    it begins); the action's id, None when no token changed (nothing is written)."""
    if not apply(conn, path, labels, sentence_id, changes, annotator):
        return None
    if opened is not None:
        _actions.insert(conn, opened, sentence_id, annotator)
    return _actions.insert(conn, action, sentence_id, annotator)


def take_annotations(
    conn: sqlite3.Connection,
    labels: LabelSet,
    pairs: Sequence[tuple[int, str, object]],
    mode: str,
    annotator: str,
    keep: Mapping[int, set[int]] | None = None,
) -> int:
    """Give the project's sentences of ``pairs`` (:func:`tagtool.store.sentence_rows.match_sentences`) the
    annotations of their corpus sentences; tokens changed, not logged (a bulk import).

    ``mode`` ``"replace"`` takes every token's, ``"fill"`` only where the project has none;
    a token an adjudicator resolved keeps its label either way, and so do the tokens ``keep`` lists
    per sentence (outside what the file covers: text attached by offsets).
    """
    existing = {(sid, t): text for sid, t, text in conn.execute("SELECT sentence_id, token, labels FROM annotations")}
    resolved = set(conn.execute("SELECT sentence_id, token FROM adjudicated"))
    now = time.time()
    upserts, deletes, touched = [], [], set()
    for sid, where, sentence in pairs:
        for t, ann in enumerate(sentence.annotations):
            old_text = existing.get((sid, t))
            if (mode == "fill" and old_text is not None) or (sid, t) in resolved or (keep and t in keep.get(sid, ())):
                continue
            try:
                ann = make_annotation(ann, labels)
            except LabelError as e:
                raise LabelError(f"{where}, token {t + 1}: {e}") from None
            new_text = _rows.spell(ann, labels)
            if new_text == old_text:
                continue
            touched.add(sid)
            if new_text is None:
                deletes.append((sid, t))
            else:
                upserts.append((sid, t, new_text, annotator, now))
    _rows.write_annotations(conn, deletes, upserts, [])
    _rows.refresh_counts(conn, sorted(touched))
    return len(upserts) + len(deletes)


def resolve(
    conn: sqlite3.Connection,
    path: Path,
    labels: LabelSet,
    sentence_id: int,
    token: int,
    ann: frozenset,
    annotator: str,
    action: _actions.Action | None,
) -> int | None:
    """Make ``ann`` a token's training label and record it as resolved (:mod:`tagtool.store.team`);
    the action's id (None without an action)."""
    apply(conn, path, labels, sentence_id, {token: ann}, annotator)
    _team.put_resolution(
        conn, sentence_id, token, _rows.spell(current(path, ann, labels), labels), annotator, time.time()
    )
    return None if action is None else _actions.insert(conn, action, sentence_id, annotator)


def unresolve(
    conn: sqlite3.Connection,
    path: Path,
    labels: LabelSet,
    sentence_id: int,
    token: int,
    restored: frozenset | None,
    annotator: str,
    action: _actions.Action | None,
) -> int | None:
    """Take a token's resolution back: its training label becomes ``restored``, else the one its
    answers make (by the annotators who gave it); the action's id (None without an action)."""
    _team.put_resolution(conn, sentence_id, token, None, annotator, 0.0)
    if restored is not None:
        apply(conn, path, labels, sentence_id, {token: restored}, annotator)
    else:
        label, who = _annotators.derived_label(conn, labels, sentence_id, token)
        apply(conn, path, labels, sentence_id, {token: label}, who)
    return None if action is None else _actions.insert(conn, action, sentence_id, annotator)


def history(
    conn: sqlite3.Connection, sentence_id: int | None, since: float | None, limit: int | None, newest_first: bool
) -> list[LogEntry]:
    """The annotation log (of one sentence, from a time), oldest first unless ``newest_first``;
    at most ``limit`` entries (the newest ones when ``newest_first``)."""
    clauses, params = [], []
    if sentence_id is not None:
        clauses.append("sentence_id = ?")
        params.append(sentence_id)
    if since is not None:
        clauses.append("time >= ?")
        params.append(since)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    order = "DESC" if newest_first else "ASC"
    params.append(-1 if limit is None else limit)
    rows = conn.execute(
        f"SELECT id, sentence_id, token, old, new, annotator, time FROM annotation_log {where} "
        f"ORDER BY id {order} LIMIT ?",
        params,
    )
    return [
        LogEntry(i, sid, t, _rows.parse_logged(old), _rows.parse_logged(new), who, when)
        for i, sid, t, old, new, who, when in rows
    ]

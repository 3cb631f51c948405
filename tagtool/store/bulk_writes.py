"""Annotations of many sentences and their one action, written by a worker thread in one transaction.

Label all occurrences (:mod:`tagtool.gui.label_all`) and its undo and redo
change hundreds of sentences at once; on the project's own connection (the
GUI thread's) that would hold the window for seconds.  :func:`write_groups`
makes the writes an edit in the app makes (:func:`tagtool.store.writes.apply`:
the annotation log, the sentences' counts, adjudicated tokens) and logs one
action (:mod:`tagtool.store.actions`), all in one ``BEGIN IMMEDIATE``
transaction (:func:`tagtool.store.transaction.write`) on a connection of its
own (:func:`tagtool.store.dbfile.connect_readwrite`): SQLite serialises it with
the window's connection as with another program's, and a failure anywhere —
an error, a crash, a kill — leaves the file as it was.

What is written is decided inside the transaction, on the file as it is then:
an occurrence to label (``only_unlabeled``) is written only when all its
tokens are still unlabeled, so a token labeled since the occurrences were
found (by another program) keeps its label.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError, ProjectError
from tagtool.store import actions as _actions
from tagtool.store import dbfile, transaction, writes
from tagtool.store.corpus_reads import sentence_length
from tagtool.store.label_rows import LabelCache
from tagtool.store.record_types import NotFoundError
from tagtool.store.sentence_rows import parse_stored

#: Tokens of one sentence and the annotations they get (one occurrence, or all a sentence's changes).
Group = Mapping[int, frozenset]
Changes = dict[int, dict[int, frozenset]]


@dataclass(frozen=True)
class BulkResult:
    """What :func:`write_groups` wrote.

    Attributes
    ----------
    before, after : dict
        ``{sentence id: {token: annotation}}`` of the tokens it changed, before and after.
    action_id : int or None
        The logged action (None when no token changed: nothing was written).
    action : Action or None
        That action as logged (its ``n_tokens`` the tokens changed).
    """

    before: Changes = field(default_factory=dict)
    after: Changes = field(default_factory=dict)
    action_id: int | None = None
    action: _actions.Action | None = None

    @property
    def n_tokens(self) -> int:
        return sum(len(c) for c in self.after.values())


def write_groups(
    path: Path,
    labels: LabelSet,
    groups: Mapping[int, Sequence[Group]],
    annotator: str,
    action: _actions.Action,
    action_sentence: int | None,
    only_unlabeled: bool,
    progress: Callable[[int, int], None] | None = None,
) -> BulkResult:
    """Write ``groups`` (``{sentence id: [group, ...]}``) and log ``action`` in one transaction (module doc).

    ``labels``: the label set the annotations were made with; a file whose
    label set changed since is refused (:class:`~tagtool.errors.LabelError`),
    nothing written.  ``only_unlabeled``: a group is written only if all its
    tokens are unlabeled in the file (else every group, as an undo does).
    ``action`` is logged for ``action_sentence`` (None if that sentence is
    gone), its ``n_tokens`` the tokens changed.  ``progress(done, total)``
    after each sentence.  Raises :class:`~tagtool.errors.ProjectError` when
    the file refuses (read-only, full disk, busy).
    """
    try:
        conn = dbfile.connect_readwrite(Path(path))
    except (sqlite3.Error, OSError) as e:
        raise ProjectError(f"{path} cannot be changed now ({e})") from e
    try:
        cache = LabelCache(Path(path))
        with transaction.write(conn, Path(path), lambda: cache.refresh(conn), cache.forget):
            if cache.get(conn) != labels:
                raise LabelError(
                    f"{path}: the label set was changed (by another program?) since these labels were chosen"
                )
            before, after = _write(conn, Path(path), labels, groups, annotator, only_unlabeled, progress)
            if not after:
                return BulkResult()
            logged = action._replace(n_tokens=sum(len(c) for c in after.values()))
            exists = (
                action_sentence is not None
                and conn.execute("SELECT 1 FROM sentences WHERE id = ?", (action_sentence,)).fetchone()
            )
            action_id = _actions.insert(conn, logged, action_sentence if exists else None, annotator)
            return BulkResult(before, after, action_id, logged)
    finally:
        conn.close()


def _write(
    conn: sqlite3.Connection,
    path: Path,
    labels: LabelSet,
    groups: Mapping[int, Sequence[Group]],
    annotator: str,
    only_unlabeled: bool,
    progress: Callable[[int, int], None] | None,
) -> tuple[Changes, Changes]:
    """The writes of :func:`write_groups` inside its transaction: ``(before, after)`` of the tokens changed."""
    before: Changes = {}
    after: Changes = {}
    for done, (sid, sentence_groups) in enumerate(groups.items(), 1):
        old = _annotations(conn, sid)
        wanted: dict[int, frozenset] = {}
        for group in sentence_groups:
            if only_unlabeled and any(not 0 <= t < len(old) or old[t] or t in wanted for t in group):
                continue
            wanted.update(group)
        bad = [t for t in wanted if not 0 <= t < len(old)]
        if bad:
            raise NotFoundError(f"sentence {sid} has {len(old)} tokens; no token index {bad[0]}")
        changed = {t: a for t, a in wanted.items() if old[t] != a}
        if changed:
            writes.apply(conn, path, labels, sid, changed, annotator)
            before[sid] = {t: old[t] for t in changed}
            after[sid] = changed
        if progress is not None:
            progress(done, len(groups))
    return before, after


def _annotations(conn: sqlite3.Connection, sentence_id: int) -> list[frozenset]:
    """A sentence's annotations in the file (:class:`NotFoundError` for a sentence that is gone)."""
    result: list[frozenset] = [frozenset()] * sentence_length(conn, sentence_id)
    for t, text in conn.execute("SELECT token, labels FROM annotations WHERE sentence_id = ?", (sentence_id,)):
        result[t] = parse_stored(text)
    return result

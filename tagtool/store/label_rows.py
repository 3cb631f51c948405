"""The label set of a project file: read and cached, added to, renamed, removed, coloured and keyed.

Every change of the label set increments a counter in ``meta``
(:data:`LABELS_VERSION_KEY`) in the same transaction, so another process
holding the project re-reads its labels (:class:`LabelCache`) before it
writes with a label that is gone.  The functions that change rows run
inside the caller's transaction (:func:`tagtool.store.transaction.write`).
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

from tagtool.core.annotation import make_annotation
from tagtool.core.labels import CANDIDATE_SEPARATOR, LabelSet
from tagtool.errors import LabelError, ProjectError
from tagtool.store import colors as _colors
from tagtool.store import sentence_rows as _rows
from tagtool.store import team as _team
from tagtool.store import writes as _writes
from tagtool.store.record_types import LabelInfo

log = logging.getLogger(__name__)

#: ``meta`` key of the counter that every change of the label set increments
#: (another process holding the project re-reads its labels when it moves).
LABELS_VERSION_KEY = "labels_version"


class _Sentinel:
    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return self._name


#: "Leave this attribute as it is" (``set_label_info``).
UNCHANGED: Any = _Sentinel("UNCHANGED")
#: "Choose for me" (``add_label``'s shortcut: the lowest free digit 1–9).
AUTO: Any = _Sentinel("AUTO")

#: The stored label spellings a rename rewrites: (table, key columns, label columns).
_LABELED_COLUMNS = (
    ("annotations", ("sentence_id", "token"), ("labels",)),
    ("annotator_labels", ("sentence_id", "token", "annotator"), ("labels",)),
    ("adjudicated", ("sentence_id", "token"), ("labels",)),
    ("annotation_log", ("id",), ("old", "new")),
)


def version(conn: sqlite3.Connection) -> int:
    """The file's labels version (:data:`LABELS_VERSION_KEY`)."""
    row = conn.execute(f"SELECT value FROM meta WHERE key = '{LABELS_VERSION_KEY}'").fetchone()
    return int((row and row[0]) or 0)


class LabelCache:
    """A connection's label set, read once and again only when another program changed it.

    ``PRAGMA data_version`` moves only when another connection commits, so
    the common case costs one pragma and no table read.
    """

    def __init__(self, path: Path):
        self.path = path
        self.value: LabelSet | None = None
        # What the value was read at: the file's labels version and SQLite's
        # data_version (which moves when another connection commits).
        self._version_seen: int | None = None
        self._data_version: int | None = None

    def get(self, conn: sqlite3.Connection) -> LabelSet:
        """The label set Σ in its fixed order, re-read if the file's labels version moved."""
        self.refresh(conn)
        if self.value is None:
            names = [r[0] for r in conn.execute("SELECT name FROM labels ORDER BY position")]
            try:
                self.value = LabelSet(names)
            except LabelError as e:  # a label row written outside tagtool
                raise ProjectError(
                    f"{self.path} is damaged: its label set is invalid ({e}); was the file changed outside tagtool?"
                ) from e
        return self.value

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Drop the cached label set when the file's labels version moved."""
        data_version = conn.execute("PRAGMA data_version").fetchone()[0]
        if data_version == self._data_version and self.value is not None:
            return
        self._data_version = data_version
        seen = version(conn)
        if seen != self._version_seen:
            if self._version_seen is not None:
                log.info("%s: the label set was changed by another program; re-read", self.path)
            self.value = None
            self._version_seen = seen

    def forget(self) -> None:
        """Drop the cached label set (a transaction that may have changed it rolled back)."""
        self.value = None

    def bump(self, conn: sqlite3.Connection) -> None:
        """Record a change of the label set (inside the caller's transaction)."""
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) "
            "DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)",
            (LABELS_VERSION_KEY,),
        )
        self.value = None
        self._version_seen = None


def infos(conn: sqlite3.Connection) -> list[LabelInfo]:
    """Name, colour and shortcut of every label, in label-set order."""
    rows = conn.execute("SELECT name, color, shortcut FROM labels ORDER BY position")
    return [LabelInfo(*row) for row in rows]


def set_info(conn: sqlite3.Connection, name: str, color: Any, shortcut: Any) -> None:
    """Change a label's colour and/or shortcut (:data:`UNCHANGED` leaves one as it is)."""
    if color is not UNCHANGED:
        conn.execute("UPDATE labels SET color = ? WHERE name = ?", (_colors.check_color(color), name))
    if shortcut is not UNCHANGED:
        set_shortcut(conn, name, _colors.check_shortcut(shortcut))


def reset_style(conn: sqlite3.Connection, names: tuple[str, ...] | list[str]) -> None:
    """Give every label the default colour and key of the label set (:mod:`tagtool.store.colors`)."""
    rows = zip(_colors.default_colors(names), _colors.default_shortcuts(names), names)
    conn.execute("UPDATE labels SET shortcut = NULL")  # keys change hands: none may be held twice
    conn.executemany("UPDATE labels SET color = ?, shortcut = ? WHERE name = ?", list(rows))


def set_shortcut(conn: sqlite3.Connection, name: str, shortcut: str | None) -> None:
    """Give ``name`` the key ``shortcut`` (None: no key); :class:`LabelError` when another label has it."""
    row = (
        None
        if shortcut is None
        else conn.execute("SELECT name FROM labels WHERE shortcut = ? AND name <> ?", (shortcut, name)).fetchone()
    )
    if row is not None:
        raise LabelError(f"shortcut {shortcut!r} already belongs to label {row[0]!r}")
    conn.execute("UPDATE labels SET shortcut = ? WHERE name = ?", (shortcut, name))


def check_new_name(labels: LabelSet, name: str) -> None:
    """:class:`LabelError` when ``name`` is already a label."""
    if name in labels:
        raise LabelError(f"label {name!r} exists already")


def new_style(conn: sqlite3.Connection, name: str, color: str | None, shortcut: Any) -> tuple[str, str | None]:
    """The checked colour and key of a label about to be added (None and :data:`AUTO`: chosen for it)."""
    known = infos(conn)
    if color is None:
        color = _colors.color_for_new_label(name, {i.name: i.color for i in known})
    if shortcut is AUTO:
        shortcut = _colors.shortcut_for_new_label(name, {i.name: i.shortcut for i in known})
    return _colors.check_color(color), _colors.check_shortcut(shortcut)


def append(conn: sqlite3.Connection, name: str, color: str, shortcut: str | None) -> None:
    """Append a label at the end of the label set (the caller bumps the version)."""
    conn.execute(
        "INSERT INTO labels (name, position, color, shortcut) "
        "SELECT ?, coalesce(max(position), -1) + 1, ?, NULL FROM labels",
        (name, color),
    )
    set_shortcut(conn, name, shortcut)


def add_missing(conn: sqlite3.Connection, cache: LabelCache, wanted) -> LabelSet:
    """Append the labels of ``wanted`` the project lacks, each with its default colour and key."""
    labels = cache.get(conn)
    new = [name for name in wanted if name not in labels]
    for name in new:
        existing = {n: c for n, c in conn.execute("SELECT name, color FROM labels")}
        keys = {n: k for n, k in conn.execute("SELECT name, shortcut FROM labels")}
        conn.execute(
            "INSERT INTO labels (name, position, color, shortcut) "
            "SELECT ?, coalesce(max(position), -1) + 1, ?, ? FROM labels",
            (name, _colors.color_for_new_label(name, existing), _colors.shortcut_for_new_label(name, keys)),
        )
    if new:
        cache.bump(conn)
    return cache.get(conn)


def rename(conn: sqlite3.Connection, old: str, new: str) -> int:
    """Rename a label in the label set, the annotations, each annotator's labels and the log;
    annotated tokens rewritten (the caller checks both names and bumps the version)."""

    def renamed(text: str) -> str:
        parts = text.split(CANDIDATE_SEPARATOR)
        return CANDIDATE_SEPARATOR.join(new if n == old else n for n in parts)

    conn.execute("UPDATE labels SET name = ? WHERE name = ?", (new, old))
    changed = 0
    for table, key, columns in _LABELED_COLUMNS:
        for column in columns:
            rows = conn.execute(
                f"SELECT {', '.join(key)}, {column} FROM {table} WHERE instr({column}, ?) > 0", (old,)
            ).fetchall()
            updates = [(renamed(r[-1]), *r[:-1]) for r in rows if renamed(r[-1]) != r[-1]]
            where = " AND ".join(f"{k} = ?" for k in key)
            conn.executemany(f"UPDATE {table} SET {column} = ? WHERE {where}", updates)
            if table == "annotations":
                changed = len(updates)
    return changed


def remaining_without(labels: LabelSet, name: str) -> tuple[int, LabelSet]:
    """Position of ``name`` and the label set without it (:class:`LabelError`: the last label)."""
    position = labels.index(name)
    if len(labels) == 1:
        raise LabelError("the last label cannot be removed")
    return position, LabelSet(n for n in labels if n != name)


def changes_without(conn: sqlite3.Connection, name: str, remaining: LabelSet) -> dict[int, dict[int, frozenset]]:
    """``{sentence: {token: new annotation}}`` of the training labels that change when ``name`` goes.

    Sets that hold the label shrink; sets naming every other label (they
    only said "not this one") become no label.
    """
    changes: dict[int, dict[int, frozenset]] = {}
    for sid, t, text in conn.execute(
        "SELECT sentence_id, token, labels FROM annotations WHERE instr(labels, '|') > 0 OR labels = ?", (name,)
    ):
        old = _rows.parse_stored(text)
        new = make_annotation(old - {name}, remaining)
        if new != old:
            changes.setdefault(sid, {})[t] = new
    return changes


def annotator_rows_without(
    conn: sqlite3.Connection, name: str, remaining: LabelSet
) -> list[tuple[str | None, int, int, str]]:
    """``annotator_labels`` rows that hold ``name``: (new spelling or None, sentence, token, annotator)."""
    rows = conn.execute(
        "SELECT sentence_id, token, annotator, labels FROM annotator_labels WHERE instr(labels, '|') > 0 OR labels = ?",
        (name,),
    ).fetchall()
    out = []
    for sid, t, who, text in rows:
        old = _rows.parse_stored(text)
        if name in old:
            out.append((_rows.spell(make_annotation(old - {name}, remaining), remaining), sid, t, who))
    return out


def drop(
    conn: sqlite3.Connection, name: str, position: int, remaining: LabelSet, own: list[tuple[str | None, int, int, str]]
) -> None:
    """Take ``name`` out of the label set, the annotators' rows ``own`` and the resolutions
    (the training labels are the caller's: they are logged)."""
    where = "WHERE sentence_id = ? AND token = ? AND annotator = ?"
    conn.executemany(f"DELETE FROM annotator_labels {where}", [r[1:] for r in own if r[0] is None])
    conn.executemany(f"UPDATE annotator_labels SET labels = ? {where}", [r for r in own if r[0] is not None])
    _team.drop_label(conn, name, remaining)
    conn.execute("DELETE FROM labels WHERE name = ?", (name,))
    # two steps keep positions unique during the shift
    conn.execute("UPDATE labels SET position = -position - 1 WHERE position > ?", (position,))
    conn.execute("UPDATE labels SET position = -position - 2 WHERE position < 0")


def remove(conn: sqlite3.Connection, cache: LabelCache, name: str, force: bool, annotator: str) -> int:
    """Remove a label inside the caller's transaction; annotated tokens changed.

    When annotations would change, ``force`` False refuses (:class:`LabelError`);
    True takes the label out of every annotation (a candidate set shrinks, a
    full label or a set of all other labels becomes no label) and logs each
    change as an edit by ``annotator``.
    """
    position, remaining = remaining_without(cache.get(conn), name)
    changes = changes_without(conn, name, remaining)
    n_changed = sum(len(c) for c in changes.values())
    own = annotator_rows_without(conn, name, remaining)
    if (n_changed or own) and not force:
        raise LabelError(
            f"removing label {name!r} changes the annotations of {n_changed} tokens"
            + (f" and {len(own)} annotators' own labels" if own else "")
            + "; use force=True to take it out of them"
        )
    drop(conn, name, position, remaining, own)
    cache.bump(conn)
    for sid, anns in changes.items():
        _writes.apply(conn, cache.path, remaining, sid, anns, annotator)
    return n_changed

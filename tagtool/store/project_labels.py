"""The label-set part of a :class:`~tagtool.store.project.Project` (``project.label_set``):
colours and keys, labels added, renamed, removed (:mod:`tagtool.store.label_rows`).

The label set itself is ``project.labels``; each change here is one write
transaction, which re-reads a label set another program changed first.
"""

from __future__ import annotations

from typing import Any

from tagtool.core.labels import check_label_name
from tagtool.store import label_rows as _labels
from tagtool.store.label_rows import AUTO, UNCHANGED
from tagtool.store.project_db import ProjectDb
from tagtool.store.record_types import LabelInfo


class LabelSetPart:
    """The label set: read, coloured and keyed, added to, renamed, removed (each change one transaction)."""

    def __init__(self, db: ProjectDb):
        self.db = db

    @property
    def labels_version(self) -> int:
        """Counter in the file that every change of the label set increments."""
        return _labels.version(self.db.conn)

    def label_infos(self) -> list[LabelInfo]:
        """Name, colour and shortcut of every label, in label-set order."""
        return _labels.infos(self.db.conn)

    def set_label_info(self, name: str, *, color: Any = UNCHANGED, shortcut: Any = UNCHANGED) -> None:
        """Change a label's colour (``#rrggbb``) and/or shortcut (None removes it); :class:`LabelError`
        for an unknown label, a malformed colour, or a shortcut another label has."""
        self.db.labels.index(name)
        with self.db.write() as conn:
            _labels.set_info(conn, name, color, shortcut)

    def reset_label_style(self) -> None:
        """Give every label the default colour and key of the label set (:mod:`tagtool.store.colors`)."""
        names = self.db.labels.names
        with self.db.write() as conn:
            _labels.reset_style(conn, names)

    def add_label(self, name: str, color: str | None = None, shortcut: Any = AUTO) -> None:
        """Append a label (annotations keep their meaning; "no label" now allows it too).

        ``color`` ``#rrggbb``, by default the type's for ``B-X``/``I-X``, else the
        next unused one; ``shortcut`` :data:`AUTO` picks the type's key (Shift +
        it for ``I-X``) or the lowest free digit (:func:`~tagtool.store.colors.shortcut_for_new_label`), None none.
        """
        check_label_name(name)
        _labels.check_new_name(self.db.labels, name)
        color, shortcut = _labels.new_style(self.db.conn, name, color, shortcut)
        with self.db.write() as conn:
            _labels.check_new_name(self.db.labels, name)  # again: the labels may have been re-read
            _labels.append(conn, name, color, shortcut)
            self.db.label_cache.bump(conn)

    def rename_label(self, old: str, new: str) -> int:
        """Rename a label everywhere (annotations, answers, the log), one transaction; tokens rewritten."""
        self.db.labels.index(old)
        check_label_name(new)
        _labels.check_new_name(self.db.labels, new)
        with self.db.write() as conn:
            self.db.labels.index(old)  # again: the labels may have been re-read
            _labels.check_new_name(self.db.labels, new)
            changed = _labels.rename(conn, old, new)
            self.db.label_cache.bump(conn)
        return changed

    def remove_label(self, name: str, force: bool = False, annotator: str = "user") -> int:
        """Remove a label, out of every annotation only with ``force``; tokens changed
        (:func:`tagtool.store.label_rows.remove`)."""
        _labels.remaining_without(self.db.labels, name)
        with self.db.write() as conn:
            return _labels.remove(conn, self.db.label_cache, name, force, annotator)

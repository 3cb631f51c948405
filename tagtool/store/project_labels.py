"""The label-set part of :class:`~tagtool.store.project.Project`'s front (:mod:`tagtool.store.label_rows`).

The methods rely on what :class:`~tagtool.store.project.Project` provides:
``_db`` (the open connection), ``_write()`` (one write transaction, which
re-reads a label set another program changed) and ``_label_cache``
(:class:`~tagtool.store.label_rows.LabelCache`).
"""

from __future__ import annotations

from typing import Any

from tagtool.core.labels import LabelSet, check_label_name
from tagtool.store import label_rows as _labels
from tagtool.store.label_rows import AUTO, UNCHANGED
from tagtool.store.record_types import LabelInfo


class LabelsFront:
    """The label set: read, coloured and keyed, added to, renamed, removed (each change one transaction)."""

    @property
    def labels(self) -> LabelSet:
        """The label set Σ in its fixed order, re-read when another program changed it."""
        return self._label_cache.get(self._db)

    @property
    def labels_version(self) -> int:
        """Counter in the file that every change of the label set increments."""
        return _labels.version(self._db)

    def label_infos(self) -> list[LabelInfo]:
        """Name, colour and shortcut of every label, in label-set order."""
        return _labels.infos(self._db)

    def set_label_info(self, name: str, *, color: Any = UNCHANGED, shortcut: Any = UNCHANGED) -> None:
        """Change a label's colour (``#rrggbb``) and/or shortcut (None removes it); :class:`LabelError`
        for an unknown label, a malformed colour, or a shortcut another label has."""
        self.labels.index(name)
        with self._write() as conn:
            _labels.set_info(conn, name, color, shortcut)

    def reset_label_style(self) -> None:
        """Give every label the default colour and key of the label set (:mod:`tagtool.store.colors`)."""
        names = self.labels.names
        with self._write() as conn:
            _labels.reset_style(conn, names)

    def add_label(self, name: str, color: str | None = None, shortcut: Any = AUTO) -> None:
        """Append a label (annotations keep their meaning; "no label" now allows it too).

        ``color`` ``#rrggbb``, by default the type's for ``B-X``/``I-X``, else the
        next unused one; ``shortcut`` :data:`AUTO` picks the type's key (Shift +
        it for ``I-X``) or the lowest free digit (:func:`~tagtool.store.colors.shortcut_for_new_label`), None none.
        """
        check_label_name(name)
        _labels.check_new_name(self.labels, name)
        color, shortcut = _labels.new_style(self._db, name, color, shortcut)
        with self._write() as conn:
            _labels.check_new_name(self.labels, name)  # again: the labels may have been re-read
            _labels.append(conn, name, color, shortcut)
            self._label_cache.bump(conn)

    def rename_label(self, old: str, new: str) -> int:
        """Rename a label everywhere (annotations, answers, the log), one transaction; tokens rewritten."""
        self.labels.index(old)
        check_label_name(new)
        _labels.check_new_name(self.labels, new)
        with self._write() as conn:
            self.labels.index(old)  # again: the labels may have been re-read
            _labels.check_new_name(self.labels, new)
            changed = _labels.rename(conn, old, new)
            self._label_cache.bump(conn)
        return changed

    def remove_label(self, name: str, force: bool = False, annotator: str = "user") -> int:
        """Remove a label, out of every annotation only with ``force``; tokens changed
        (:func:`tagtool.store.label_rows.remove`)."""
        _labels.remaining_without(self.labels, name)
        with self._write() as conn:
            return _labels.remove(conn, self._label_cache, name, force, annotator)

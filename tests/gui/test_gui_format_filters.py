"""The app's file dialogs follow the format catalog (tagtool.store.format_catalog)."""

from __future__ import annotations

from tagtool.gui.file_fields import CORPUS_FILTER
from tagtool.gui.transfer import EXPORT_FILTERS, EXPORT_SUFFIX, IMPORT_FILTER
from tagtool.store.format_catalog import CATALOG


def test_open_dialogs_list_every_readable_extension():
    for info in CATALOG.values():
        for ext in (*info.extensions, *info.shown) if info.readable else ():
            assert f"*{ext}" in CORPUS_FILTER.split(";;")[0] and f"*{ext}" in IMPORT_FILTER.split(";;")[0], ext


def test_the_export_dialog_offers_every_exported_format_with_its_extension():
    exported = [f.name for f in CATALOG.values() if f.export_label is not None]
    assert list(EXPORT_FILTERS.values()) == exported
    assert EXPORT_SUFFIX == {name: CATALOG[name].extensions[0] for name in exported}
    assert "CoNLL column file (*.conll *.txt)" in EXPORT_FILTERS

"""One place for each fact about a format (tagtool.store.format_catalog): every derived list follows it."""

from __future__ import annotations

import pytest

from tagtool.cli.parser import build_parser
from tagtool.services import batch_output
from tagtool.services.batch_count import quick_count
from tagtool.store.format_catalog import CATALOG, TAG_FORMATS, extension_formats, open_filter
from tagtool.store.formats import EXPORT_FORMATS, FORMATS, detect_format
from tagtool.store.formats.detect import EXTENSIONS


def test_the_reader_registry_holds_every_catalogued_format():
    assert list(FORMATS) == [f.name for f in CATALOG.values() if f.readable]
    assert list(EXPORT_FORMATS) == [f.name for f in CATALOG.values() if not f.readable]
    for fmt in (*FORMATS.values(), *EXPORT_FORMATS.values()):
        info = CATALOG[fmt.name]
        assert (fmt.streaming, fmt.description) == (info.streaming, info.description)


def test_detection_knows_every_extension(tmp_path):
    assert EXTENSIONS == extension_formats()
    for info in CATALOG.values():
        for ext in info.extensions if info.readable else ():
            path = tmp_path / f"f{ext}"
            path.write_text("token\tlabel\nHello\tO\n\n", encoding="utf-8")  # a .tsv with a table header
            assert detect_format(path) == info.name, ext


def test_open_filters_list_every_readable_extension():
    text = open_filter("Files")
    for info in CATALOG.values():
        for ext in (*info.extensions, *info.shown) if info.readable else ():
            assert f"*{ext} " in text or f"*{ext})" in text, ext


def test_tag_writes_the_catalogued_formats_and_counts_their_sentences(tmp_path):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    choices = next(a for a in sub.choices["tag"]._actions if a.dest == "format").choices
    assert tuple(choices) == TAG_FORMATS == batch_output.TAG_FORMATS
    assert TAG_FORMATS == tuple(f.name for f in CATALOG.values() if f.tagged_output)
    assert set(batch_output.OWN_FORMAT) == set(TAG_FORMATS)
    path = tmp_path / "two.txt"
    path.write_text("a\tB\nb\tB\n\nc\tB\n", encoding="utf-8")
    counted = {name: quick_count(path, name, "utf-8") for name in CATALOG}
    expected = {"line": 3, "block": 2, "block-docstart": 2, None: None}
    assert counted == {name: expected[info.counted_by] for name, info in CATALOG.items()}


@pytest.mark.parametrize("name", [f.name for f in CATALOG.values() if f.export_label is not None])
def test_every_format_the_app_exports_has_an_extension_and_a_writer(name):
    assert CATALOG[name].extensions and (name in FORMATS or name in EXPORT_FORMATS)

"""Column files read in blocks give what the line-by-line reference gives: sentences, documents, errors and lines.

The fast path (:mod:`tagtool.store.formats.blocks`,
:mod:`tagtool.store.formats.column_blocks`) is run with blocks as small as
one character, so that sentences, lines and ``-DOCSTART-`` lines straddle
every block boundary; the reference is the reader's own line-by-line loop
(``_ColumnReader.lines``) for the whole file.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from tagtool.errors import FormatError
from tagtool.store.formats import conll, iter_located
from tagtool.store.formats.blocks import iter_blocks

DATA = Path(__file__).resolve().parent.parent / "data"
SLICES = ["conll2000_train_head.txt", "conll2002_esp_train_head.txt", "ptb_wsj_sample_head.txt"]
BLOCK_SIZES = [1, 2, 3, 7, 64, 1 << 20]

TEXTS = {
    "documents": "-DOCSTART- -X- O\n\na B-X\nb I-X\n\n-DOCSTART- -X- O\nc O\n\n\n-DOCSTART- -X- O\n",
    "docstart elsewhere": "a -DOCSTART-\nb O\n-DOCSTART- x y z\nc O\n",
    "whitespace": "  a\tB-X \n b  O\n \t \n\nc\x1fO\n\x0b\nd O",
    "crlf": "a O\r\nb O\r\n\r\nc O\rd O\r\n",
    "unicode": "caf\u00e9 O\nno\u00a0break O\nline\u2028sep O\n\n\u4e2d O\n",
    "candidates": "a A|B\nb _\n\nc A\n",
    "one column": "a\nb\n\nc\n",
    "ragged": "a O\nb O\n\nc O\nd O x\ne O\n",
    "ragged first": "a O x\nb O\n",
    "too many tokens": "a O\n\n" + "w O\n" * 12 + "\nz O\n",
    "long token": "a O\n\nb O\n" + "x" * 50 + " O\n",
    "long line": "a O\n\nb O\n" + "x" * 300 + " O\n",
    "nul": "a O\n\nb O\nc\x00 O\n",
    "no label column": "a\n\n-DOCSTART-\n",
}
LIMITS = {"max_sentence_tokens": 10, "max_token_chars": 40, "max_line_chars": 200}


def _outcome(path: Path, **options) -> tuple[list, tuple | None]:
    """``(located items before any error, (line, message) of the error or None)``."""
    items: list = []
    try:
        for document, sentence, lines in iter_located(path, "conll", **options):
            items.append((document, sentence, lines))
    except FormatError as exc:
        return items, (exc.line, str(exc))
    return items, None


def _reference(path: Path, monkeypatch, **options) -> tuple[list, tuple | None]:
    with monkeypatch.context() as patch:
        patch.setattr(conll._ColumnReader, "block", conll._ColumnReader.lines)
        return _outcome(path, **options)


def _blocked(path: Path, monkeypatch, chars: int, pending: int = conll.PENDING_CHARS, **options):
    """The fast path with blocks of ``chars`` characters, unfinished sentences carried up to ``pending``."""
    with monkeypatch.context() as patch:
        patch.setattr(conll, "iter_blocks", functools.partial(iter_blocks, chars=chars))
        patch.setattr(conll, "PENDING_CHARS", pending)
        return _outcome(path, **options)


@pytest.mark.parametrize("name", SLICES)
def test_the_data_slices_read_alike_in_any_block_size(name, monkeypatch):
    expected = _reference(DATA / name, monkeypatch)
    assert expected[1] is None and len(expected[0]) > 10
    for chars in (1, 5, 4096):
        assert _blocked(DATA / name, monkeypatch, chars) == expected
        assert _blocked(DATA / name, monkeypatch, chars, pending=20) == expected


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_sentences_and_errors_are_the_references(name, tmp_path, monkeypatch):
    path = tmp_path / "corpus.txt"
    path.write_bytes(TEXTS[name].encode("utf-8"))
    options = {"label_column": None} if name == "no label column" else {}
    options.update(LIMITS)
    expected = _reference(path, monkeypatch, **options)
    for chars in BLOCK_SIZES:
        assert _blocked(path, monkeypatch, chars, **options) == expected, chars
        # a sentence longer than the carried text goes on line by line
        assert _blocked(path, monkeypatch, chars, pending=4, **options) == expected, chars


def test_errors_keep_their_lines(tmp_path, monkeypatch):
    """The references above are not vacuous: each hostile text fails where it should."""
    lines = {"ragged": 5, "ragged first": 2, "too many tokens": 3, "long token": 4, "long line": 4, "nul": 4}
    for name, line in lines.items():
        path = tmp_path / f"{name}.txt"
        path.write_bytes(TEXTS[name].encode("utf-8"))
        items, error = _blocked(path, monkeypatch, 3, **LIMITS)
        assert error is not None and error[0] == line and str(path) in error[1], name
        # a NUL in the file's head refuses the whole file
        first = {"ragged": [("a", "b")], "ragged first": [], "nul": []}.get(name, [("a",)])
        assert [s.tokens for _, s, _ in items] == first, name


def test_an_undecodable_byte_names_its_line_after_the_sentences_before_it(tmp_path, monkeypatch):
    path = tmp_path / "latin.txt"
    path.write_bytes(b"a O\n\n" * 5000 + b"c\xe9 O\n")  # past the first buffer the decoder reads
    expected = _reference(path, monkeypatch)
    assert expected[1][0] == 10001 and len(expected[0]) > 1000
    for chars in BLOCK_SIZES:
        assert _blocked(path, monkeypatch, chars) == expected

"""Malformed input in every format, and atomic writes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError, TagtoolError
from tagtool.store.formats import FORMATS, iter_sentences, read_corpus, write_corpus
from tagtool.store.formats import conll as conll_module

GOOD_LINES = {
    "conll": ["Anna NNP B-PER", "Berg NNP I-PER", "", "left VBD O", ""],
    "conllu": ["1\tAnna\tAnna\tPROPN\tNNP\t_\t0\troot\t_\t_", "", "1\tleft\tleave\tVERB\tVBD\t_\t0\troot\t_\t_", ""],
    "text": ["Anna Berg", "left now"],
    "jsonl": [json.dumps({"tokens": ["Anna"], "labels": ["B-PER"]}), json.dumps({"tokens": ["left"], "labels": ["O"]})],
    "csv": ["sentence,token,label", "1,Anna,B-PER", "2,left,O"],
    "tsv": ["sentence\ttoken\tlabel", "1\tAnna\tB-PER", "2\tleft\tO"],
}
SCHEMA = LabelSet(["O", "B-PER", "I-PER", "PROPN", "VERB"])


def _bytes_file(tmp_path: Path, fmt: str, data: bytes) -> Path:
    path = tmp_path / f"input.{fmt}"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_undecodable_bytes_name_their_line(tmp_path, fmt):
    lines = [line.encode() for line in GOOD_LINES[fmt]]
    index = next(i for i, line in enumerate(lines) if i >= 1 and b"e" in line)
    lines[index] = lines[index].replace(b"e", b"\xff", 1)
    path = _bytes_file(tmp_path, fmt, b"\n".join(lines) + b"\n")
    with pytest.raises(FormatError, match="decode") as err:
        read_corpus(path, fmt, labels=SCHEMA)
    assert (err.value.path, err.value.line) == (str(path), index + 1)


def test_undecodable_bytes_far_into_a_big_file(tmp_path):
    # Beyond the first decoding chunk, to check the line is found again.
    body = b"x O\n\n" * 20000 + b"caf\xe9 O\n\n"
    path = _bytes_file(tmp_path, "conll", body)
    with pytest.raises(FormatError) as err:
        read_corpus(path)
    assert err.value.line == 40001
    assert read_corpus(path, encoding="latin-1").sentences[-1].tokens == ("café",)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_file(tmp_path, fmt, content):
    path = _bytes_file(tmp_path, fmt, content)
    with pytest.raises(FormatError, match="empty") as err:
        read_corpus(path, fmt, labels=SCHEMA)
    assert (err.value.path, err.value.line) == (str(path), 1)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_binary_file(tmp_path, fmt):
    path = _bytes_file(tmp_path, fmt, b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + bytes(range(256)) * 4)
    with pytest.raises(FormatError, match="binary") as err:
        read_corpus(path, fmt, labels=SCHEMA)
    assert (err.value.path, err.value.line) == (str(path), 1)


def test_nul_byte_after_the_sniffed_head(tmp_path):
    body = b"x O\n\n" * 20000 + b"a\x00b O\n\n"
    path = _bytes_file(tmp_path, "conll", body)
    with pytest.raises(FormatError, match="NUL") as err:
        read_corpus(path)
    assert err.value.line == 40001


@pytest.mark.parametrize("fmt", ["conll", "conllu", "jsonl", "csv", "tsv"])
def test_label_outside_schema(tmp_path, fmt):
    lines = list(GOOD_LINES[fmt])
    bad = {
        "conll": "left VBD B-LOC",
        "conllu": "1\tleft\tleave\tNOUN\tVBD\t_\t0\troot\t_\t_",
        "jsonl": json.dumps({"tokens": ["left"], "labels": ["B-LOC"]}),
        "csv": "2,left,B-LOC",
        "tsv": "2\tleft\tB-LOC",
    }[fmt]
    index = {"conll": 3, "conllu": 2, "jsonl": 1, "csv": 2, "tsv": 2}[fmt]
    lines[index] = bad
    path = _bytes_file(tmp_path, fmt, ("\n".join(lines) + "\n").encode())
    with pytest.raises(FormatError, match="not in the label set") as err:
        read_corpus(path, fmt, labels=SCHEMA)
    assert (err.value.path, err.value.line) == (str(path), index + 1)


def test_candidate_with_unknown_label(tmp_path):
    path = _bytes_file(tmp_path, "conll", b"Anna B-PER|B-XYZ\n\n")
    with pytest.raises(FormatError, match="B-XYZ") as err:
        read_corpus(path, labels=SCHEMA)
    assert err.value.line == 1


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("Anna NNP B-PER\nBerg I-PER\n\n", 2),
        ("Anna NNP B-PER\n\nleft VBD O extra\n\n", 3),
        ("-DOCSTART- -X- O\n\nAnna B-PER\nBerg NNP I-PER\n", 4),
    ],
)
def test_ragged_lines(tmp_path, text, line):
    path = _bytes_file(tmp_path, "conll", text.encode())
    with pytest.raises(FormatError, match="columns") as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), line)


def test_ragged_txt_is_still_read_as_conll(tmp_path):
    lines = [f"w{i} NN O" for i in range(30)]
    lines[20] = "w20 O"
    path = tmp_path / "data.txt"
    path.write_text("\n".join(lines[:10]) + "\n\n" + "\n".join(lines[10:]) + "\n\n")
    with pytest.raises(FormatError, match="columns") as err:
        read_corpus(path)
    assert err.value.line == 22
    assert "format 'text'" in err.value.message  # sniffed: the other reading is suggested
    with pytest.raises(FormatError) as err:
        read_corpus(path, "conll")
    assert "format 'text'" not in err.value.message


def test_tiny_ragged_txt(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a DT B-NP\nb NN\n")
    with pytest.raises(FormatError, match="2 columns where line 1 has 3") as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), 2)


def test_bad_column_choices(tmp_path):
    path = _bytes_file(tmp_path, "conll", b"Anna NNP B-PER\n\n")
    for kwargs, message in [
        ({"label_column": 3}, "does not exist"),
        ({"token_column": -4}, "does not exist"),
        ({"label_column": 0}, "both column 0"),
        ({"column_names": ["a", "b"]}, "2 column names"),
        ({"column_names": ["a", "a", "b"]}, "duplicate"),
        ({"token_column": "word"}, "integer"),
    ]:
        with pytest.raises(FormatError, match=message) as err:
            read_corpus(path, **kwargs)
        assert err.value.line == 1


def test_usage_errors(tmp_path):
    path = _bytes_file(tmp_path, "conll", b"Anna B-PER\n\n")
    with pytest.raises(ValueError, match="unknown format"):
        read_corpus(path, "xml")
    with pytest.raises(FileNotFoundError):
        read_corpus(tmp_path / "missing.conll")
    with pytest.raises(FormatError, match="encoding"):
        read_corpus(path, encoding="no-such-codec")
    with pytest.raises(TypeError):
        read_corpus(path, nonsense_option=1)


def test_errors_are_tagtool_errors_with_readable_text(tmp_path):
    path = _bytes_file(tmp_path, "conll", b"Anna B-PER\nBerg\tNNP I-PER\n")
    with pytest.raises(TagtoolError) as err:
        list(iter_sentences(path))
    assert str(err.value).startswith(f"{path}:2: ")


# ---------------------------------------------------------------------------
# atomic writes


def _corpus(n: int = 50) -> Corpus:
    return Corpus.from_sentences([Sentence([f"w{i}", "x"], [{"A"}, {"B"}]) for i in range(n)])


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "corpus.conll"
    target.write_text("old content\n")
    bad = Corpus.from_sentences([*_corpus().sentences, Sentence(["two words"], [{"A"}])])
    with pytest.raises(FormatError):
        write_corpus(bad, target)
    assert target.read_text() == "old content\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.conll"]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_crash_midway_keeps_the_old_file(tmp_path, monkeypatch, fmt):
    target = tmp_path / f"corpus.{fmt}"
    target.write_text("old content\n")
    real_write = FORMATS[fmt].write

    def crashing(corpus, fh, ctx, **options):
        real_write(corpus, fh, ctx, **options)
        fh.flush()
        raise OSError("disk full")

    monkeypatch.setitem(FORMATS, fmt, FORMATS[fmt].__class__(fmt, FORMATS[fmt].read, crashing, True, ""))
    with pytest.raises(OSError, match="disk full"):
        write_corpus(_corpus(), target, fmt)
    assert target.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_crash_in_the_middle_of_a_sentence(tmp_path, monkeypatch):
    target = tmp_path / "corpus.conll"
    target.write_text("old content\n")
    calls = 0
    real = conll_module._check_cell

    def fail_on_the_30th(*args):
        nonlocal calls
        calls += 1
        if calls == 30:
            raise KeyboardInterrupt
        real(*args)

    monkeypatch.setattr(conll_module, "_check_cell", fail_on_the_30th)
    with pytest.raises(KeyboardInterrupt):
        write_corpus(_corpus(), target)
    assert target.read_text() == "old content\n"
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_unencodable_characters(tmp_path):
    target = tmp_path / "corpus.conll"
    target.write_text("old content\n")
    corpus = Corpus.from_sentences([Sentence(["naïve", "😀"], [{"A"}, {"B"}])])
    with pytest.raises(FormatError, match="encode") as err:
        write_corpus(corpus, target, encoding="latin-1")
    assert err.value.path == str(target)
    assert target.read_text() == "old content\n"


def test_new_file_permissions_follow_the_old_file(tmp_path):
    target = tmp_path / "corpus.conll"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    write_corpus(_corpus(), target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    fresh = tmp_path / "fresh.conll"
    write_corpus(_corpus(), fresh)
    assert stat.S_IMODE(fresh.stat().st_mode) & 0o600 == 0o600
    assert stat.S_IMODE(fresh.stat().st_mode) & 0o077 == 0o666 & ~_umask() & 0o077


def test_atomic_write_binary_mode(tmp_path):
    from tagtool.store.atomic import atomic_write

    target = tmp_path / "blob.bin"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    data = bytes(range(256)) + b"\r\n\n"
    with atomic_write(target, encoding=None) as fh:
        assert "b" in fh.mode
        fh.write(data)
    assert target.read_bytes() == data and stat.S_IMODE(target.stat().st_mode) == 0o640
    # an error of the writer, even a UnicodeEncodeError, passes through unchanged
    with pytest.raises(UnicodeEncodeError), atomic_write(target, encoding=None) as fh:
        fh.write("😀".encode("ascii"))
    assert target.read_bytes() == data and [p.name for p in tmp_path.iterdir()] == [target.name]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask

"""Invalid CoNLL-U IDs and fields are refused naming file and line; BOM and CRLF files round-trip byte for byte."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"
T = "\t"


def word(i: int, form: str, head: int = 0) -> str:
    return T.join([str(i), form, "_", "X", "_", "_", str(head), "root" if head == 0 else "dep", "_", "_"])


def extra(ident: str, form: str = "ab") -> str:
    return T.join([ident, form, "_", "_", "_", "_", "_", "_", "_", "_"])


A, B, C = word(1, "a"), word(2, "b", 1), word(3, "c", 1)

#: (lines of the second sentence, line of the error in the file, what the message says)
INVALID = {
    "overlapping ranges": ([extra("1-2"), A, extra("2-3"), B, C], 7, "overlaps multiword token 1-2"),
    "nested ranges": ([extra("1-3"), extra("1-2"), A, B, C], 6, "overlaps multiword token 1-3"),
    "range past the sentence": ([A, extra("2-9"), B, C], 6, "2-9 goes past the sentence's last word 3"),
    "huge range": ([A, extra("2-99999999999"), B, C], 6, "goes past the sentence's last word 3"),
    "single-word range": ([A, extra("2-2"), B, C], 6, "2-2 must span two or more words"),
    "misplaced range": ([extra("2-3"), A, B, C], 5, "2-3 is out of place"),
    "range at the end": ([A, B, extra("1-2")], 7, "1-2 is out of place"),
    "range with no words after it": ([A, B, extra("3-4")], 7, "3-4 at the end of the sentence"),
    "empty node past the sentence": ([A, B, extra("7.1", "x")], 7, "empty node 7.1 after word 2"),
    "empty node numbered from 2": ([A, extra("1.2", "x"), B], 6, "1.2 where 1.1 was expected"),
    "empty node inside a range's lines": ([extra("1-2"), extra("0.1", "x"), A, B], 6, "between multiword token 1"),
    "empty FORM": ([A, word(2, "")], 6, "empty FORM field"),
    "empty LEMMA": ([A, B.replace("\tb\t_\t", "\tb\t\t")], 6, "empty LEMMA field"),
}


@pytest.mark.parametrize("case", INVALID)
def test_invalid_ids_and_fields_are_refused_naming_file_and_line(tmp_path, case):
    lines, line, message = INVALID[case]
    path = tmp_path / "bad.conllu"
    path.write_text("# sent_id = ok\n" + A + "\n\n# sent_id = bad\n" + "\n".join(lines) + "\n\n", encoding="utf-8")
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path)
    assert err.value.path == str(path) and err.value.line == line
    assert f"{path}:{line}:" in str(err.value)


def test_an_empty_form_is_refused_at_import_with_file_and_line(tmp_path, capsys):
    from tagtool.cli.main import main

    path = tmp_path / "bad.conllu"
    path.write_text("# text = a\n" + word(1, "") + "\n\n", encoding="utf-8")
    assert main(["import", str(path), "-p", str(tmp_path / "p.tagproj")]) != 0
    err = capsys.readouterr().err
    assert f"{path}:2: empty FORM field" in err and "<input>" not in err


def test_valid_ranges_and_empty_nodes_still_read_and_write_back(tmp_path):
    text = "\n".join([extra("0.1", "x"), extra("1-2"), A, B, extra("2.1", "y"), extra("2.2", "z"), C]) + "\n\n"
    src, out = tmp_path / "ok.conllu", tmp_path / "out.conllu"
    src.write_text(text, encoding="utf-8")
    write_corpus(read_corpus(src), out)
    assert out.read_bytes() == src.read_bytes()


SOURCES = ("ewt_test_slice.conllu", "ud_en_ewt_train_head.conllu")
VARIANTS = {
    "CRLF": lambda b: b.replace(b"\n", b"\r\n"),
    "BOM": lambda b: codecs.BOM_UTF8 + b,
    "BOM and CRLF": lambda b: codecs.BOM_UTF8 + b.replace(b"\n", b"\r\n"),
    "CR": lambda b: b.replace(b"\n", b"\r"),
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("source", SOURCES)
def test_bom_and_line_endings_round_trip_through_a_project(tmp_path, capsys, source, variant):
    from tagtool.cli.main import main

    data = VARIANTS[variant]((DATA / source).read_bytes())
    path, project, out = tmp_path / "in.conllu", tmp_path / "p.tagproj", tmp_path / "out.conllu"
    path.write_bytes(data)
    assert main(["import", str(path), "-p", str(project)]) == 0
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert out.read_bytes() == data
    write_corpus(read_corpus(path), out)
    assert out.read_bytes() == data


def test_a_line_ending_otherwise_is_repaired_with_a_warning_naming_it(tmp_path):
    path = tmp_path / "mixed.conllu"
    path.write_bytes(f"{A}\r\n{B}\n\r\n".encode())
    corpus = read_corpus(path)
    assert [w for w in corpus.warnings if f"{path}:2:" in w and "ends with LF" in w]
    write_corpus(corpus, tmp_path / "out.conllu")
    assert (tmp_path / "out.conllu").read_bytes() == f"{A}\r\n{B}\r\n\r\n".encode()


def test_a_bom_is_not_doubled_in_an_encoding_that_writes_its_own(tmp_path):
    path = tmp_path / "bom.conllu"
    path.write_bytes(codecs.BOM_UTF8 + f"{A}\n\n".encode())
    write_corpus(read_corpus(path), tmp_path / "out.conllu", encoding="utf-16")
    assert (tmp_path / "out.conllu").read_text(encoding="utf-16") == f"{A}\n\n"

"""Hostile corpora end in a FormatError naming the file and line (file-safety case 7 of benchmarks/reliability.py).

The inputs are made on the fly; most tests shrink the limits through the
reader keyword arguments so that the files stay small, and a few use the
defaults on a file just over one.
"""

from __future__ import annotations

import json
import tracemalloc

import pytest

from tagtool.errors import FormatError
from tagtool.services.batch import tag_file
from tagtool.services.batch_count import quick_count
from tagtool.store.formats import ReadLimits, iter_sentences, read_corpus
from tagtool.store.formats.limits import DEFAULT_LIMITS


def _conllu_row(i: int, form: str, label: str = "NOUN") -> str:
    return f"{i}\t{form}\t_\t{label}\t_\t_\t_\t_\t_\t_\n"


#: A sentence of ``n`` tokens in each format, the ``k``-th token replaced by ``token`` (1-based).
WRITERS = {
    "conll": lambda n, token="w", k=0: "".join(f"{token if i == k else 'w'} L{i % 3}\n" for i in range(1, n + 1)),
    "conllu": lambda n, token="w", k=0: "".join(_conllu_row(i, token if i == k else "w") for i in range(1, n + 1)),
    "text": lambda n, token="w", k=0: " ".join(token if i == k else "w" for i in range(1, n + 1)) + "\n",
    "jsonl": lambda n, token="w", k=0: (
        json.dumps({"tokens": [token if i == k else "w" for i in range(1, n + 1)]}) + "\n"
    ),
    "csv": lambda n, token="w", k=0: (
        "sentence,token,label\n" + "".join(f"1,{token if i == k else 'w'},L\n" for i in range(1, n + 1))
    ),
}


def _write(tmp_path, fmt: str, text: str, prefix: str = ""):
    path = tmp_path / f"hostile.{fmt}"
    path.write_text(prefix + text, encoding="utf-8")
    return path


def _error(path, fmt: str, **limits) -> FormatError:
    with pytest.raises(FormatError) as info:
        read_corpus(path, fmt, **limits)
    assert str(path) in str(info.value)
    return info.value


# A first sentence that is fine, so the hostile one starts on a known line.
OK = {
    "conll": "ok L0\n\n",
    "conllu": _conllu_row(1, "ok") + "\n",
    "text": "ok\n",
    "jsonl": '{"tokens": ["ok"]}\n',
    "csv": "",
}
START = {"conll": 3, "conllu": 3, "text": 2, "jsonl": 2, "csv": 2}


@pytest.mark.parametrize("fmt", ["conll", "conllu", "text", "jsonl", "csv"])
def test_a_sentence_of_too_many_tokens_names_its_first_line(tmp_path, fmt):
    path = _write(tmp_path, fmt, WRITERS[fmt](50), OK[fmt])
    error = _error(path, fmt, max_sentence_tokens=10)
    assert error.line == START[fmt]
    assert "more than 10 tokens" in str(error) and "max_sentence_tokens" in str(error)


@pytest.mark.parametrize("fmt", ["conll", "conllu", "text", "jsonl", "csv"])
def test_a_token_too_long_names_its_line(tmp_path, fmt):
    path = _write(tmp_path, fmt, WRITERS[fmt](5, "x" * 300, k=4), OK[fmt])
    error = _error(path, fmt, max_token_chars=100)
    one_line_a_token = fmt in ("conll", "conllu", "csv")
    assert error.line == START[fmt] + (3 if one_line_a_token else 0)
    assert "token 4 has 300 characters" in str(error) and "max_token_chars" in str(error)


@pytest.mark.parametrize("fmt", ["conll", "conllu", "text", "jsonl"])
def test_a_line_too_long_is_refused_without_reading_it_whole(tmp_path, fmt):
    path = _write(tmp_path, fmt, WRITERS[fmt](2, "x" * 5000, k=1), OK[fmt])
    error = _error(path, fmt, max_line_chars=1000, max_token_chars=10_000)
    assert error.line == START[fmt]
    assert "longer than 1,000 characters" in str(error)


@pytest.mark.parametrize("fmt", ["conll", "conllu", "jsonl", "csv"])
def test_too_many_distinct_labels_name_the_first_one_beyond(tmp_path, fmt):
    rows = {
        "conll": "".join(f"w L{i}\n\n" for i in range(20)),
        "conllu": "".join(_conllu_row(1, "w", f"L{i}") + "\n" for i in range(20)),
        "jsonl": "".join(json.dumps({"tokens": ["w"], "labels": [f"L{i}"]}) + "\n" for i in range(20)),
        "csv": "sentence,token,label\n" + "".join(f"{i},w,L{i}\n" for i in range(20)),
    }[fmt]
    error = _error(_write(tmp_path, fmt, rows), fmt, max_labels=10)
    assert error.line == {"conll": 21, "conllu": 21, "jsonl": 11, "csv": 12}[fmt]
    assert "'L10'" in str(error) and "max_labels" in str(error)


def test_a_schema_lifts_the_label_limit(tmp_path):
    from tagtool.core.labels import LabelSet

    path = _write(tmp_path, "conll", "".join(f"w L{i}\n\n" for i in range(20)))
    corpus = read_corpus(path, "conll", labels=LabelSet([f"L{i}" for i in range(20)]), max_labels=10)
    assert len(corpus) == 20


def test_a_table_too_large_is_refused_before_it_is_loaded(tmp_path):
    path = _write(tmp_path, "csv", WRITERS["csv"](50))
    error = _error(path, "csv", max_table_bytes=100)
    assert error.line == 1 and "max_table_bytes" in str(error) and "column file" in str(error)


def test_limits_given_whole_or_one_by_one(tmp_path):
    path = _write(tmp_path, "conll", WRITERS["conll"](50))
    with pytest.raises(FormatError, match="more than 10 tokens"):
        list(iter_sentences(path, "conll", limits=ReadLimits(max_sentence_tokens=10)))
    with pytest.raises(FormatError, match="more than 20 tokens"):
        list(iter_sentences(path, "conll", limits=ReadLimits(max_sentence_tokens=10), max_sentence_tokens=20))
    assert len(read_corpus(path, "conll", max_sentence_tokens=50).sentences[0]) == 50
    with pytest.raises(ValueError, match="max_labels must be a positive int"):
        ReadLimits(max_labels=0)


# ---------------------------------------------------------------------------
# the defaults, on files just over them


def test_default_sentence_limit(tmp_path):
    path = _write(tmp_path, "conll", "w\n" * (DEFAULT_LIMITS.max_sentence_tokens + 1))
    with pytest.raises(FormatError, match="more than 100,000 tokens") as info:
        read_corpus(path, "conll")
    assert info.value.line == 1


def test_default_line_limit_reads_no_more_than_the_limit(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("x" * (DEFAULT_LIMITS.max_line_chars + 10) + "\n", encoding="ascii")
    tracemalloc.start()
    try:
        with pytest.raises(FormatError, match="longer than 16,777,216 characters") as info:
            read_corpus(path, "text")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line == 1
    assert peak < 3 * DEFAULT_LIMITS.max_line_chars  # the line read up to the limit, not beyond


def test_default_token_and_label_limits(tmp_path):
    path = _write(tmp_path, "text", "a " + "x" * (DEFAULT_LIMITS.max_token_chars + 1) + "\n")
    with pytest.raises(FormatError, match="token 2 has 4,097 characters"):
        read_corpus(path, "text")
    path = _write(tmp_path, "conll", "".join(f"w L{i}\n" for i in range(DEFAULT_LIMITS.max_labels + 1)))
    with pytest.raises(FormatError, match="1,000 distinct labels") as info:
        read_corpus(path, "conll")
    assert info.value.line == DEFAULT_LIMITS.max_labels + 1


def test_default_table_limit(tmp_path):
    path = tmp_path / "big.csv"
    with open(path, "wb") as fh:
        fh.write(b"sentence,token,label\n")
        fh.truncate(DEFAULT_LIMITS.max_table_bytes + 1)  # sparse: no time spent writing
    with pytest.raises(FormatError, match="32 MiB"):
        read_corpus(path, "csv")


# ---------------------------------------------------------------------------
# tagging


def test_tag_file_stops_at_the_sentence_beyond_the_limit(tmp_path):
    from tests.test_tagger_bounds import _tiny_tagger

    path = _write(tmp_path, "conll", "a\n\n" + "w\n" * (DEFAULT_LIMITS.max_sentence_tokens + 1))
    with pytest.raises(FormatError, match="more than 100,000 tokens") as info:
        tag_file(_tiny_tagger(), path, tmp_path / "out.txt", progress=lambda *a: None)
    assert info.value.line == 3 and str(path) in str(info.value)
    assert not (tmp_path / "out.txt").exists()


def test_the_counting_pass_does_not_hold_a_long_line(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text("a\n\n" + "x" * (32 * 2**20) + "\nb\n", encoding="ascii")
    tracemalloc.start()
    try:
        assert quick_count(path, "text", "utf-8") == 3
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1000])
def test_the_counting_pass_sees_the_same_lines_in_any_chunk_size(chunk, tmp_path, monkeypatch):
    import tagtool.services.batch_count as batch_count

    text = "a b\n\n  \n-DOCSTART- -X- O\n" + "x" * 20 + "\n \t\nlast"
    path = tmp_path / "in.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(batch_count, "_BLOCK", chunk)
    assert quick_count(path, "text", "utf-8") == sum(bool(line.strip()) for line in text.split("\n")) == 4
    assert quick_count(path, "conll", "utf-8") == 3  # "a b"; the x line (after the -DOCSTART- line); "last"
    assert quick_count(path, "conllu", "utf-8") == 3  # "a b"; the -DOCSTART- and x lines; "last"


def test_tag_help_says_what_memory_stays_flat_covers(capsys):
    from tagtool.cli.main import main

    with pytest.raises(SystemExit):
        main(["tag", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "loaded whole" in text and "32 MiB" in text
    assert "16 Mi characters" in text and "100,000 tokens" in text and "4,096 characters" in text


def test_the_cli_raises_a_read_limit(tmp_path, capsys):
    # The defaults refuse some valid files (a large CSV, a big tag set): --limit lets them in.
    from tagtool.cli.main import main

    data = tmp_path / "long.txt"
    data.write_text("".join(f"w{i} O\n" for i in range(30)), encoding="utf-8")
    project = tmp_path / "p.tagproj"
    assert main(["import", str(data), "-p", str(project), "--limit", "max_sentence_tokens=20"]) == 1
    assert "max_sentence_tokens" in capsys.readouterr().err and not project.exists()
    assert main(["import", str(data), "-p", str(project), "--limit", "max_sentence_tokens=40"]) == 0
    with pytest.raises(SystemExit):
        main(["import", str(data), "-p", str(project), "--limit", "max_words=3"])
    assert "the limits are max_line_chars" in capsys.readouterr().err

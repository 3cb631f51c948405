"""Plain text: raw text tokenised and split with offsets, pre-tokenised lines, token/LABEL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import iter_located, iter_sentences, read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"
LABELS = LabelSet(["O", "B-PER", "I-PER"])


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


PRE = {"tokenizer": "whitespace", "sentence_split": False}


def test_pretokenized_one_sentence_a_line_blank_lines_skipped(tmp_path):
    path = _file(tmp_path, "raw.txt", "Anna met Berg .\n\n  \nHe left .\n")
    corpus = read_corpus(path, "text", labels=LABELS, **PRE)
    assert [s.tokens for s in corpus] == [("Anna", "met", "Berg", "."), ("He", "left", ".")]
    assert all(s.status == "none" for s in corpus)
    assert [d.name for d in corpus.documents] == ["raw.txt"]
    # each line keeps its text, as a {"text": line} record would
    assert [s.meta for s in corpus] == [{"text": "Anna met Berg ."}, {"text": "He left ."}]


def test_without_labels_the_label_set_is_empty(tmp_path):
    path = _file(tmp_path, "raw.txt", "Anna met Berg.\n")
    corpus = read_corpus(path, "text")
    assert len(corpus.labels) == 0 and corpus.labels == LabelSet.empty()
    assert corpus.labels.union(["O"]).names == ("O",)
    assert [s.tokens for s in iter_sentences(path, "text")] == [("Anna", "met", "Berg", ".")]


def test_raw_text_is_tokenised_and_split_with_offsets(tmp_path):
    text = "Great pizza in New Haven, Conn. and Dr. Lee's pasta! We'll be back.\nSecond review, e.g. this one."
    path = _file(tmp_path, "reviews.txt", text + "\n")
    corpus = read_corpus(path)
    tokens = [s.tokens for s in corpus]
    assert tokens == [
        ("Great", "pizza", "in", "New", "Haven", ",", "Conn.", "and", "Dr.", "Lee", "'s", "pasta", "!"),
        ("We", "'ll", "be", "back", "."),
        ("Second", "review", ",", "e.g.", "this", "one", "."),
    ]
    first, second, third = corpus.sentences
    line = text.split("\n")[0]
    # stored exactly as the span record {"text": line} is stored
    assert first.meta == {"text": line[: line.index("!") + 1], "text_start": "0", "record_text": line}
    assert second.meta == {"text": "We'll be back.", "text_start": str(line.index("We"))}
    assert third.meta == {"text": "Second review, e.g. this one."}
    records = tmp_path / "reviews.jsonl"
    records.write_text("".join(json.dumps({"text": t}) + "\n" for t in text.split("\n")), encoding="utf-8")
    as_records = read_corpus(records)
    assert [(s.tokens, s.meta) for s in as_records] == [(s.tokens, s.meta) for s in corpus]


def test_paragraphs_are_documents_when_the_file_has_blank_lines(tmp_path):
    path = _file(tmp_path, "p.txt", "First line of a\nparagraph. Its second\nsentence.\n\n\nNext paragraph.\n")
    corpus = read_corpus(path)
    assert [" ".join(s.tokens) for s in corpus] == [
        "First line of a paragraph .",
        "Its second sentence .",
        "Next paragraph .",
    ]
    assert corpus.sentences[0].meta["record_text"] == "First line of a\nparagraph. Its second\nsentence."
    lines = [line for _, _, line in iter_located(path)]
    assert [ls[0] for ls in lines] == [1, 2, 6]
    assert lines[1] == (2, 2, 3, 3)
    # the other unit, asked for
    by_line = read_corpus(path, document_unit="line")
    assert [" ".join(s.tokens) for s in by_line] == [
        "First line of a",
        "paragraph .",
        "Its second",
        "sentence .",
        "Next paragraph .",
    ]
    # one sentence a line: lines, whatever the file
    assert len(read_corpus(path, **PRE)) == 4


def test_lines_are_documents_without_blank_lines(tmp_path):
    path = _file(tmp_path, "l.txt", "One review. Two sentences.\nAnother review\n")
    corpus = read_corpus(path)
    assert [" ".join(s.tokens) for s in corpus] == ["One review .", "Two sentences .", "Another review"]
    assert len(read_corpus(path, sentence_split=False)) == 2
    assert len(read_corpus(path, document_unit="paragraph")) == 3
    assert [" ".join(s.tokens) for s in read_corpus(path, document_unit="paragraph", sentence_split=False)] == [
        "One review . Two sentences . Another review"
    ]


def test_bad_options_are_refused(tmp_path):
    path = _file(tmp_path, "l.txt", "One review.\n")
    with pytest.raises(FormatError, match="tokenizer"):
        read_corpus(path, tokenizer="spacy")
    with pytest.raises(FormatError, match="document unit"):
        read_corpus(path, document_unit="page")


def test_round_trip(tmp_path):
    out_name = "ptb_wsj_sample_head.txt"
    out = tmp_path / out_name
    corpus = read_corpus(DATA / out_name)
    bare = Corpus.from_sentences([Sentence(s.tokens) for s in corpus], corpus.labels, name=out_name)
    write_corpus(corpus, out, "text")
    assert (
        out.read_text().splitlines()[0]
        == "Pierre Vinken , 61 years old , will join the board as a nonexecutive director Nov. 29 ."
    )
    back = read_corpus(out, "text", labels=corpus.labels, **PRE)
    assert [s.tokens for s in back] == [s.tokens for s in bare]


def test_tagged_round_trip_keeps_candidates(tmp_path):
    corpus = Corpus.from_sentences(
        [Sentence(["Anna", "a/b", "left"], [{"B-PER"}, {"O", "B-PER"}, set()])], labels=LABELS, name="t.txt"
    )
    out = tmp_path / "t.txt"
    write_corpus(corpus, out, "text", tagged=True)
    assert out.read_text() == "Anna/B-PER a/b/O|B-PER left/_\n"
    assert read_corpus(out, "text", tagged=True, labels=LABELS) == corpus
    # Without the schema, O|B-PER names every label seen: it allows anything.
    assert read_corpus(out, "text", tagged=True).sentences[0].annotations[1] == frozenset()


def test_tagged_errors(tmp_path):
    path = _file(tmp_path, "t.txt", "Anna/B-PER\nBerg\n")
    with pytest.raises(FormatError, match="token/LABEL") as err:
        read_corpus(path, "text", tagged=True)
    assert err.value.line == 2
    path = _file(tmp_path, "u.txt", "Anna/B-PER Berg/B-XYZ\n")
    with pytest.raises(FormatError, match="B-XYZ") as err:
        read_corpus(path, "text", tagged=True, labels=LABELS)
    assert err.value.line == 1


def test_writer_refuses_tokens_with_spaces(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["New York"], [{"O"}])])
    with pytest.raises(FormatError, match="New York"):
        write_corpus(corpus, tmp_path / "x.txt", "text")


def test_raw_text_goes_back_out_as_span_records_of_its_documents(tmp_path):
    text = "Dr. Lee lives in New Haven, Conn. He cooks.\n\nSecond   paragraph,\nwrapped.\n"
    path = _file(tmp_path, "raw.txt", text)
    corpus = read_corpus(path, labels=LABELS)
    sentences = [
        Sentence(s.tokens, [{"B-PER"} if t == "Lee" else {"O"} for t in s.tokens], meta=s.meta) for s in corpus
    ]
    out = tmp_path / "out.jsonl"
    write_corpus(Corpus.from_sentences(sentences, LABELS, name="raw.txt"), out, spans=True)
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [r["text"] for r in records] == [
        "Dr. Lee lives in New Haven, Conn. He cooks.",
        "Second   paragraph,\nwrapped.",
    ]
    assert records[0]["label"] == [[4, 7, "PER"]]


def test_blank_lines_only_around_the_text_leave_lines_documents(tmp_path):
    path = _file(tmp_path, "l.txt", "\n\nFirst line\nSecond line.\n\n\n")
    assert [" ".join(s.tokens) for s in read_corpus(path, "text")] == ["First line", "Second line ."]

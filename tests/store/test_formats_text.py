"""Plain text: one sentence a line, tokenised or raw, optionally token/LABEL."""

from __future__ import annotations

from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import iter_sentences, read_corpus, write_corpus
from tagtool.store.formats.text import tokenize

DATA = Path(__file__).resolve().parent.parent / "data"
LABELS = LabelSet(["O", "B-PER", "I-PER"])


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_one_sentence_a_line_blank_lines_skipped(tmp_path):
    path = _file(tmp_path, "raw.txt", "Anna met Berg .\n\n  \nHe left .\n")
    corpus = read_corpus(path, "text", labels=LABELS)
    assert [s.tokens for s in corpus] == [("Anna", "met", "Berg", "."), ("He", "left", ".")]
    assert all(s.status == "none" for s in corpus)
    assert [d.name for d in corpus.documents] == ["raw.txt"]


def test_without_labels_the_label_set_is_empty(tmp_path):
    path = _file(tmp_path, "raw.txt", "Anna met Berg .\n")
    corpus = read_corpus(path, "text")
    assert len(corpus.labels) == 0 and corpus.labels == LabelSet.empty()
    assert corpus.labels.union(["O"]).names == ("O",)
    assert [s.tokens for s in iter_sentences(path, "text")] == [("Anna", "met", "Berg", ".")]


def test_raw_text_tokenizer():
    assert tokenize("Hello, world. Don't stop state-of-the-art (now)!") == [
        "Hello", ",", "world", ".", "Don't", "stop", "state-of-the-art", "(", "now", ")", "!",
    ]
    assert tokenize("Ünïcode café 3.5") == ["Ünïcode", "café", "3", ".", "5"]


def test_untokenized_reading(tmp_path):
    path = _file(tmp_path, "raw.txt", "Hello, world.\n")
    sentence = next(iter_sentences(path, "text", tokenized=False))
    assert sentence.tokens == ("Hello", ",", "world", ".")


def test_round_trip(tmp_path):
    out_name = "ptb_wsj_sample_head.txt"
    out = tmp_path / out_name
    corpus = read_corpus(DATA / out_name)
    bare = Corpus.from_sentences([Sentence(s.tokens) for s in corpus], corpus.labels, name=out_name)
    write_corpus(corpus, out, "text")
    assert out.read_text().splitlines()[0] == "Pierre Vinken , 61 years old , will join the board as a nonexecutive director Nov. 29 ."
    assert read_corpus(out, "text", labels=corpus.labels) == bare


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

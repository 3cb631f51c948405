"""Format detection from extensions and content, for reading and writing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.store.formats import detect_format, read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("a.conllu", "conllu"),
        ("a.CONLLU", "conllu"),
        ("a.jsonl", "jsonl"),
        ("a.json", "jsonl"),
        ("a.csv", "csv"),
        ("a.tsv", "tsv"),
        ("a.conll", "conll"),
        ("a.iob", "conll"),
        ("a.bio", "conll"),
    ],
)
def test_extensions_win(tmp_path, name, expected):
    path = tmp_path / name
    path.write_text("whatever is inside\n")
    assert detect_format(path) == expected


@pytest.mark.parametrize("slice_name", ["conll2000_train_head.txt", "ptb_wsj_sample_head.txt"])
@pytest.mark.parametrize("target", ["train.txt", "esp.train", "noextension"])
def test_column_files_are_sniffed(tmp_path, slice_name, target):
    path = tmp_path / target
    shutil.copy(DATA / slice_name, path)
    assert detect_format(path) == "conll"
    assert len(read_corpus(path)) == 100


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("The cat sat on the mat .\nIt was a sunny day , wasn't it ?\n", "text"),
        ("Hello world\n", "text"),
        ("Paragraph one has words.\n\nParagraph two has more words than that.\n", "text"),
        ("Hello\n\nWorld\n", "text"),
        ("Anna B-PER\nBerg I-PER\n", "conll"),  # one sentence, no blank line
        ("a DT B-NP\nb NN\n", "conll"),  # ragged: the reader names line 2
        ("Roses are red\nViolets are blue, they say\nSugar is sweet and so are you\n", "text"),
        ("Anna B-PER\nBerg I-PER\n\n", "conll"),
        ("-DOCSTART- -X- O\nAnna NNP B-PER\n", "conll"),
        ("Anna\nBerg\n\nleft\nnow\n\n", "conll"),
        ('{"tokens": ["a"]}\n', "jsonl"),
        ('\n  [{"text": "a b"}]', "jsonl"),
        ("# sent_id = 1\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n", "conllu"),
        ("", "text"),
    ],
)
def test_content_sniffing(tmp_path, content, expected):
    path = tmp_path / "input.txt"
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == expected


def test_sniffed_jsonl_and_conllu_read(tmp_path):
    path = tmp_path / "records.txt"
    path.write_text(json.dumps({"tokens": ["a", "b"], "labels": ["X", "Y"]}) + "\n")
    assert read_corpus(path).sentences[0].tokens == ("a", "b")


def test_write_format_from_extension_or_content(tmp_path):
    labeled = Corpus.from_sentences([Sentence(["a", "b"], [{"X"}, {"Y"}])])
    bare = Corpus.from_sentences([Sentence(["a", "b"])], labels=LabelSet(["X"]))
    write_corpus(labeled, tmp_path / "l.txt")
    write_corpus(bare, tmp_path / "b.txt")
    write_corpus(labeled, tmp_path / "l.jsonl")
    assert (tmp_path / "l.txt").read_text() == "a X\nb Y\n\n"
    assert (tmp_path / "b.txt").read_text() == "a b\n"
    assert json.loads((tmp_path / "l.jsonl").read_text())["labels"] == ["X", "Y"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("Anna\tB-PER\nBerg\tI-PER\nleft\tO\n\nHe\tO\n", "conll"),  # two columns, no header
        ("Anna\tB-PER\n", "tsv"),  # one line: nothing says column file
        ("token\tlabel\nAnna\tB-PER\nBerg\tI-PER\n", "tsv"),  # a header: a table
        ("sentence\ttoken\tlabel\n1\tAnna\tB-PER\n1\tBerg\tI-PER\n\n", "tsv"),
        ("\ufeffToken\tLabel\nAnna\tB-PER\nBerg\tI-PER\n", "tsv"),
        ("", "tsv"),
    ],
)
def test_tsv_without_a_header_is_a_column_file(tmp_path, content, expected):
    path = tmp_path / "input.tsv"
    path.write_text(content, encoding="utf-8")
    assert detect_format(path) == expected


def test_headerless_two_column_tsv_reads_as_a_column_file(tmp_path):
    path = tmp_path / "ner.tsv"
    path.write_text("Anna\tB-PER\nBerg\tI-PER\nleft\tO\n\nHe\tO\nsmiled\tO\n", encoding="utf-8")
    corpus = read_corpus(path)
    assert [s.tokens for s in corpus] == [("Anna", "Berg", "left"), ("He", "smiled")]
    assert corpus.sentences[0].annotations == ({"B-PER"}, {"I-PER"}, {"O"})


def test_paragraphs_of_equal_word_counts_are_text(tmp_path):
    """Two blank-line-separated paragraphs of six words each agree on their 'columns': still prose."""
    path = tmp_path / "more-news.txt"
    path.write_text("Shares rose sharply in Tokyo today.\n\nThe bank cut rates, analysts said.\n", encoding="utf-8")
    assert detect_format(path) == "text"


def test_a_lemma_column_with_an_abbreviation_stays_a_column_file(tmp_path):
    path = tmp_path / "lemmas.txt"
    path.write_text("books book NNS\netc. etc. FW\n\nthe the DT\ncats cat NNS\n", encoding="utf-8")
    assert detect_format(path) == "conll"

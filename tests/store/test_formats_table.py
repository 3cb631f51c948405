"""CSV and TSV tables through pandas."""

from __future__ import annotations

from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"

CSV = """\
sentence,token,label,pos
s1,Anna,B-PER,NNP
s1,Berg,I-PER|B-PER,NNP
s1,NA,_,NN

s2,null,O,NN
s2,"a,b",,SYM
s2,\"\"\"\",O,''
"""


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _rewrite(corpus: Corpus, tmp_path: Path, name: str, **options) -> Path:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    write_corpus(corpus, out / name, **options)
    return out / name


def test_reads_rows_into_sentences_strings_stay_strings(tmp_path):
    corpus = read_corpus(_file(tmp_path, "t.csv", CSV))
    first, second = corpus.sentences
    assert first.tokens == ("Anna", "Berg", "NA")
    assert first.annotations == ({"B-PER"}, {"I-PER", "B-PER"}, frozenset())
    assert first.columns == {"pos": ("NNP", "NNP", "NN")}
    assert second.tokens == ("null", "a,b", '"')
    assert second.annotations == ({"O"}, frozenset(), {"O"})
    assert [d.name for d in corpus.documents] == ["t.csv"]


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_round_trip(tmp_path, fmt):
    corpus = read_corpus(_file(tmp_path, "t.csv", CSV))
    name = f"t.{fmt}"
    corpus = Corpus.from_sentences(corpus.sentences, corpus.labels, name=name)
    written = _rewrite(corpus, tmp_path, name)
    assert read_corpus(written) == corpus
    header = written.read_text().splitlines()[0]
    assert header == ("sentence,token,label,pos" if fmt == "csv" else "sentence\ttoken\tlabel\tpos")


def test_conll_slice_through_csv(tmp_path):
    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    written = _rewrite(corpus, tmp_path, "conll2000_train_head.txt", format="csv")
    assert read_corpus(written, "csv") == corpus
    assert written.read_text().splitlines()[1] == "1,Confidence,B-NP,NN"


def test_document_column(tmp_path):
    a = Sentence(["x", "y"], [{"A"}, {"B"}])
    corpus = Corpus(LabelSet(["A", "B"]), (Document("d1", (a, a)), Document("d2", (a,))))
    written = _rewrite(corpus, tmp_path, "docs.csv")
    assert written.read_text().splitlines()[:2] == ["document,sentence,token,label", "d1,1,x,A"]
    assert read_corpus(written) == corpus


def test_sentence_ids_from_conllu_meta(tmp_path):
    sentences = [Sentence(["x"], [{"A"}], meta={"sent_id": "w-1"}), Sentence(["y"], [{"A"}], meta={"sent_id": "w-2"})]
    written = _rewrite(Corpus.from_sentences(sentences, name="ids.csv"), tmp_path, "ids.csv")
    assert written.read_text().splitlines()[1:] == ["w-1,x,A", "w-2,y,A"]


def test_header_names_choose_columns(tmp_path):
    path = _file(tmp_path, "t.csv", "sent,word,tag,ner\n1,Anna,NNP,B-PER\n1,Berg,NNP,I-PER\n")
    corpus = read_corpus(path, token_column="word", label_column="ner", sentence_column="sent")
    assert corpus.sentences[0].tokens == ("Anna", "Berg")
    assert corpus.sentences[0].columns == {"tag": ("NNP", "NNP")}
    with pytest.raises(FormatError, match="header name") as err:
        read_corpus(path, token_column=2, sentence_column="sent")
    assert err.value.line == 1


def test_table_without_label_column_is_unlabeled(tmp_path):
    path = _file(tmp_path, "t.tsv", "sentence\ttoken\n1\tAnna\n1\tBerg\n")
    corpus = read_corpus(path, labels=LabelSet(["O"]))
    assert corpus.sentences[0].status == "none"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("sentence,label\n1,O\n", 1, "missing column 'token'"),
        ("token,label\nAnna,O\n", 1, "missing column 'sentence'"),
        ("sentence,token,label\n1,Anna,O\n1,Berg,O,extra\n", 3, "malformed"),
        ("sentence,token,label\n1,Anna,O\n\n1,,O\n", 4, "empty token"),
        ("sentence,token,label\n1,Anna,O\n,Berg,O\n", 3, "empty sentence"),
        ("sentence,token,label\n1,Anna,O\n2,Berg,O\n1,Cy,O\n", 4, "not contiguous"),
        ("sentence,token,label\n1,Anna,O\n1,Berg,B X\n", 3, "whitespace"),
        ("sentence,token,label\n1,Anna,O\n1,Berg,O||B\n", 3, "empty label"),
        ("", 1, "empty"),
        ("sentence,token,label\n", 1, "empty"),
    ],
)
def test_errors_name_the_row_line(tmp_path, text, line, message):
    path = _file(tmp_path, "bad.csv", text)
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path)
    assert (err.value.path, err.value.line) == (str(path), line)


def test_label_outside_schema(tmp_path):
    path = _file(tmp_path, "t.csv", CSV)
    with pytest.raises(FormatError, match="I-PER") as err:
        read_corpus(path, labels=LabelSet(["O", "B-PER"]))
    assert err.value.line == 3


def test_tsv_writer_refuses_tabs(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["a\tb"], [{"A"}])])
    with pytest.raises(FormatError, match="tab"):
        write_corpus(corpus, tmp_path / "x.tsv")
    assert not (tmp_path / "x.tsv").exists()

"""CoNLL column files: the shared-data slices, CoNLL-2003 documents, column choice."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import FormatError
from tagtool.store.formats import FORMATS, iter_sentences, read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"
SLICES = ["conll2000_train_head.txt", "conll2002_esp_train_head.txt", "ptb_wsj_sample_head.txt"]

CONLL2003 = """\
-DOCSTART- -X- -X- O

Anna NNP B-NP B-PER
Berg NNP I-NP I-PER
visited VBD B-VP O
Oslo NNP B-NP B-LOC
. . O O

She PRP B-NP O
left VBD B-VP O
. . O O

-DOCSTART- -X- -X- O

Acme NNP B-NP B-ORG
Corp NNP I-NP I-ORG
grew VBD B-VP O
. . O O

"""

PARTIAL = """\
Anna B-PER
Berg I-PER|B-PER
visited _
Oslo B-LOC|B-ORG|O
. O

"""


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _rewrite(corpus: Corpus, tmp_path: Path, name: str, fmt: str = "conll", **options) -> Path:
    """Write to a file of the same name in another folder (names are document names)."""
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    write_corpus(corpus, out / name, fmt, **options)
    return out / name


@pytest.mark.parametrize("name", SLICES)
def test_slices_round_trip_byte_for_byte(name, tmp_path):
    corpus = read_corpus(DATA / name)
    written = _rewrite(corpus, tmp_path, name)
    assert written.read_bytes() == (DATA / name).read_bytes()
    assert read_corpus(written) == corpus


def test_conll2000_slice_contents():
    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    assert len(corpus) == 100 and corpus.n_tokens == 2440
    assert [d.name for d in corpus.documents] == ["conll2000_train_head.txt"]
    first = corpus.sentences[0]
    assert first.tokens[:3] == ("Confidence", "in", "the")
    assert first.columns == {"col1": first.columns["col1"]} and first.columns["col1"][:3] == ("NN", "IN", "DT")
    assert first.annotations[:4] == ({"B-NP"}, {"B-PP"}, {"B-NP"}, {"I-NP"})
    assert corpus.labels.names[0] == "O" and corpus.labels.is_span_scheme
    assert all(s.status == "full" for s in corpus)


def test_ptb_slice_has_two_columns_and_pos_labels():
    corpus = read_corpus(DATA / "ptb_wsj_sample_head.txt")
    assert corpus.column_names == ()
    assert corpus.sentences[0].tokens[:3] == ("Pierre", "Vinken", ",")
    assert {"NNP", ",", "CD", "''", "``"} <= set(corpus.labels)


def test_conll2002_label_set_is_the_nine_ner_labels():
    corpus = read_corpus(DATA / "conll2002_esp_train_head.txt")
    assert set(corpus.labels) == {"O"} | {f"{p}-{t}" for p in "BI" for t in ("PER", "ORG", "LOC", "MISC")}
    assert corpus.sentences[0].tokens[:3] == ("Melbourne", "(", "Australia")


def test_choose_pos_as_label_and_chunk_as_column():
    corpus = read_corpus(DATA / "conll2000_train_head.txt", "conll", label_column=1)
    first = corpus.sentences[0]
    assert first.annotations[:2] == ({"NN"}, {"IN"})
    assert first.columns["col2"][:2] == ("B-NP", "B-PP")
    assert read_corpus(DATA / "conll2000_train_head.txt", label_column=-2) == corpus


def test_column_names_name_every_file_column():
    corpus = read_corpus(DATA / "conll2000_train_head.txt", column_names=["word", "pos", "chunk"])
    assert corpus.column_names == ("pos",)


def test_unlabeled_read_without_schema_has_an_empty_label_set():
    corpus = read_corpus(DATA / "conll2000_train_head.txt", label_column=None)
    assert len(corpus.labels) == 0 and all(s.status == "none" for s in corpus)


def test_no_label_column_keeps_every_other_column(tmp_path):
    corpus = read_corpus(DATA / "conll2000_train_head.txt", label_column=None, labels=LabelSet(["B-NP"]))
    assert corpus.column_names == ("col1", "col2")
    assert all(s.status == "none" for s in corpus)


def test_token_column_other_than_first(tmp_path):
    path = _file(tmp_path, "t.conll", "1 Anna B-PER\n2 Berg I-PER\n\n")
    corpus = read_corpus(path, token_column=1)
    assert corpus.sentences[0].tokens == ("Anna", "Berg")
    assert corpus.sentences[0].columns == {"col0": ("1", "2")}


def test_conll2003_docstart_starts_documents_and_round_trips(tmp_path):
    path = _file(tmp_path, "eng.train", CONLL2003)
    corpus = read_corpus(path)
    assert [d.name for d in corpus.documents] == ["eng.train:1", "eng.train:2"]
    assert [len(d.sentences) for d in corpus.documents] == [2, 1]
    assert corpus.column_names == ("col1", "col2")
    assert corpus.sentences[0].annotations[:2] == ({"B-PER"}, {"I-PER"})
    written = _rewrite(corpus, tmp_path, "eng.train")
    assert written.read_text(encoding="utf-8") == CONLL2003
    assert read_corpus(written) == corpus


def test_docstart_written_only_where_needed(tmp_path):
    one = Corpus.from_sentences([Sentence(["a"], [{"X"}])], name="plain.txt")
    assert "-DOCSTART-" not in _rewrite(one, tmp_path, "plain.txt").read_text()
    assert "-DOCSTART-" not in _rewrite(one, tmp_path, "other.txt").read_text()  # name is lost anyway
    assert "-DOCSTART-" in _rewrite(one, tmp_path, "plain.txt", docstart=True).read_text()
    section = Corpus.from_sentences(one.sentences, name="plain.txt:1")
    assert _rewrite(section, tmp_path, "plain.txt").read_text() == "-DOCSTART- O\n\na X\n\n"
    first_unmarked = Corpus(one.labels, (Document("plain.txt", one.sentences), Document("plain.txt:1", one.sentences)))
    written = _rewrite(first_unmarked, tmp_path, "plain.txt")
    assert written.read_text() == "a X\n\n-DOCSTART- O\n\na X\n\n"
    assert read_corpus(written) == first_unmarked
    two = Corpus(one.labels, (Document("x", one.sentences), Document("y", one.sentences)))
    text = _rewrite(two, tmp_path, "two.txt", docstart=None).read_text()
    assert text == "-DOCSTART- O\n\na X\n\n-DOCSTART- O\n\na X\n\n"
    reread = read_corpus(tmp_path / "out" / "two.txt")
    assert [len(d.sentences) for d in reread.documents] == [1, 1]


def test_candidate_sets_and_no_label_round_trip(tmp_path):
    path = _file(tmp_path, "partial.conll", PARTIAL)
    corpus = read_corpus(path)
    anns = corpus.sentences[0].annotations
    assert anns == ({"B-PER"}, {"I-PER", "B-PER"}, frozenset(), {"B-LOC", "B-ORG", "O"}, {"O"})
    assert corpus.sentences[0].status == "partial"
    written = _rewrite(corpus, tmp_path, "partial.conll")
    assert read_corpus(written) == corpus
    # candidates come back in label-set order, so the text is canonical
    assert "Berg B-PER|I-PER" in written.read_text()


def test_candidate_set_of_every_label_means_no_label(tmp_path):
    path = _file(tmp_path, "all.conll", "a A|B\nb A\nc B\n\n")
    corpus = read_corpus(path)
    assert corpus.sentences[0].annotations == (frozenset(), {"A"}, {"B"})


def test_schema_given_keeps_its_order(tmp_path):
    labels = LabelSet(["I-PER", "B-PER", "B-LOC", "B-ORG", "O"])
    corpus = read_corpus(_file(tmp_path, "p.conll", PARTIAL), labels=labels)
    assert corpus.labels is labels


def test_tab_separated_with_exact_separator_keeps_empty_cells(tmp_path):
    path = _file(tmp_path, "t.tsv.conll", "Anna\t\tB-PER\nBerg\tNNP\tI-PER\n\n")
    corpus = read_corpus(path, sep="\t")
    assert corpus.sentences[0].columns["col1"] == ("", "NNP")
    with pytest.raises(FormatError) as err:
        read_corpus(path)  # runs of whitespace: the empty cell vanishes
    assert err.value.line == 2


def test_tabs_and_spaces_mixed_and_crlf(tmp_path):
    path = tmp_path / "mixed.conll"
    path.write_bytes(b"Anna\tNNP  B-PER\r\nBerg NNP\tI-PER\r\n\r\n")
    corpus = read_corpus(path)
    assert corpus.sentences[0].tokens == ("Anna", "Berg")
    assert corpus.sentences[0].columns["col1"] == ("NNP", "NNP")


def test_no_break_space_stays_inside_a_token(tmp_path):
    path = _file(tmp_path, "nbsp.conll", "10\u00a0000 CD\nfrancs NNS\n\n")
    corpus = read_corpus(path)
    assert corpus.sentences[0].tokens == ("10\u00a0000", "francs")
    assert read_corpus(_rewrite(corpus, tmp_path, "nbsp.conll")) == corpus


def test_single_column_file_holds_tokens_only(tmp_path):
    path = _file(tmp_path, "tokens.conll", "Anna\nBerg\n\nHi\n\n")
    sentences = list(iter_sentences(path))
    assert [s.tokens for s in sentences] == [("Anna", "Berg"), ("Hi",)]
    assert all(s.status == "none" for s in sentences)


def test_latin1_encoding(tmp_path):
    path = tmp_path / "latin1.conll"
    path.write_bytes("Río NC B-LOC\nAñez NP B-PER\n\n".encode("latin-1"))
    corpus = read_corpus(path, encoding="latin-1")
    assert corpus.sentences[0].tokens == ("Río", "Añez")
    write_corpus(corpus, tmp_path / "latin1.conll", encoding="latin-1")
    assert path.read_bytes() == "Río NC B-LOC\nAñez NP B-PER\n\n".encode("latin-1")


def test_utf8_byte_order_mark_is_skipped(tmp_path):
    path = tmp_path / "bom.conll"
    path.write_bytes(b"\xef\xbb\xbfAnna B-PER\n\n")
    assert read_corpus(path).sentences[0].tokens == ("Anna",)


def test_iter_sentences_streams(tmp_path):
    # The ragged line sits far after the first sentence: a streaming reader
    # hands that sentence out before it gets there.
    lines = ["Anna B-PER", "", *(["x O", ""] * 5000), "bad line O", ""]
    path = _file(tmp_path, "long.conll", "\n".join(lines))
    stream = iter_sentences(path)
    assert next(stream).tokens == ("Anna",)
    with pytest.raises(FormatError) as err:
        list(stream)
    assert err.value.line == 10003 and err.value.path == str(path)
    assert FORMATS["conll"].streaming


def test_writer_refuses_tokens_that_would_split(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["New York"], [{"B-LOC"}])])
    with pytest.raises(FormatError, match="New York"):
        write_corpus(corpus, tmp_path / "x.conll")
    corpus = Corpus.from_sentences([Sentence(["-DOCSTART-"], [{"O"}])])
    with pytest.raises(FormatError, match="DOCSTART"):
        write_corpus(corpus, tmp_path / "x.conll")
    assert not (tmp_path / "x.conll").exists()


def test_slice_copy_outside_data_folder_reads_the_same(tmp_path):
    copy = tmp_path / "conll2000_train_head.txt"
    shutil.copy(DATA / "conll2000_train_head.txt", copy)
    assert read_corpus(copy) == read_corpus(DATA / "conll2000_train_head.txt")


def test_reading_a_conll2000_sized_file(tmp_path):
    # 87 copies of the slice = 212k tokens, the size of CoNLL-2000 train.txt.  Its speed is measured
    # in benchmarks/store.py, not here: a timed assertion failed on the shared, loaded machine.
    path = tmp_path / "big.txt"
    path.write_bytes((DATA / "conll2000_train_head.txt").read_bytes() * 87)
    corpus = read_corpus(path)
    assert corpus.n_tokens == 2440 * 87 and len(corpus) == 100 * 87

"""CoNLL-U: fields as columns, comments as meta, documents, label fields."""

from __future__ import annotations

from pathlib import Path

import conllu
import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus

DATA = Path(__file__).resolve().parent.parent / "data"

T = "\t"
SAMPLE = "\n".join(
    [
        "# newdoc id = doc-a",
        "# sent_id = a-1",
        "# text = Anna's cats sleep.",
        T.join(["1-2", "Anna's", "_", "_", "_", "_", "_", "_", "_", "_"]),
        T.join(["1", "Anna", "Anna", "PROPN", "NNP", "Number=Sing", "3", "nmod:poss", "3:nmod:poss", "NER=B-PER"]),
        T.join(["2", "'s", "'s", "PART", "POS", "_", "1", "case", "1:case", "_"]),
        T.join(["3", "cats", "cat", "NOUN", "NNS", "Number=Plur", "4", "nsubj", "4:nsubj", "_"]),
        T.join(["4", "sleep", "sleep", "VERB", "VBP", "Mood=Ind|Tense=Pres", "0", "root", "0:root", "SpaceAfter=No"]),
        T.join(["5", ".", ".", "PUNCT", ".", "_", "4", "punct", "4:punct", "_"]),
        "",
        "# sent_id = a-2",
        "# a free comment",
        T.join(["1", "Oslo", "Oslo", "PROPN", "NNP", "_", "2", "nsubj", "2:nsubj|2.1:nsubj", "SpaceAfter=No|NER=B-LOC"]),
        T.join(["2", "wins", "win", "VERB", "VBZ", "_", "0", "root", "0:root", "NER=O"]),
        T.join(["2.1", "wins", "win", "VERB", "VBZ", "_", "_", "_", "0:root", "_"]),
        "",
        "# newdoc id = doc-b",
        "# sent_id = b-1",
        T.join(["1", "Hi", "hi", "INTJ|NOUN", "UH", "_", "0", "root", "_", "_"]),
        T.join(["2", "there", "there", "_", "RB", "_", "1", "advmod", "_", "_"]),
        "",
        "",
    ]
)


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    path = tmp_path / "sample.conllu"
    path.write_text(SAMPLE, encoding="utf-8")
    return path


def _rewrite(corpus: Corpus, tmp_path: Path, name: str, **options) -> Path:
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    write_corpus(corpus, out / name, **options)
    return out / name


def test_reads_forms_upos_columns_and_comments(sample):
    corpus = read_corpus(sample)
    assert [d.name for d in corpus.documents] == ["doc-a", "doc-b"]
    first, second, third = corpus.sentences
    assert first.tokens == ("Anna", "'s", "cats", "sleep", ".")  # range 1-2 skipped
    assert first.annotations[:3] == ({"PROPN"}, {"PART"}, {"NOUN"})
    assert set(first.columns) == {"lemma", "xpos", "feats", "head", "deprel", "deps", "misc"}
    assert first.columns["feats"][3] == "Mood=Ind|Tense=Pres"
    assert first.columns["head"] == ("3", "1", "4", "0", "4")
    assert dict(first.meta) == {"newdoc id": "doc-a", "sent_id": "a-1", "text": "Anna's cats sleep."}
    assert second.tokens == ("Oslo", "wins")  # empty node 2.1 skipped
    assert second.columns["deps"] == ("_", "_")  # pointed at the dropped node
    assert second.meta["a free comment"] == ""
    assert third.annotations == ({"INTJ", "NOUN"}, frozenset())


def test_round_trip_and_output_is_valid_conllu(sample, tmp_path):
    corpus = read_corpus(sample)
    written = _rewrite(corpus, tmp_path, "sample.conllu")
    assert read_corpus(written) == corpus
    text = written.read_text(encoding="utf-8")
    parsed = conllu.parse(text)
    assert len(parsed) == 3
    assert parsed[0].metadata["newdoc id"] == "doc-a"
    assert [t["form"] for t in parsed[0]] == ["Anna", "'s", "cats", "sleep", "."]
    assert parsed[0][3]["feats"] == {"Mood": "Ind", "Tense": "Pres"}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            assert len(line.split("\t")) == 10
    assert "# a free comment\n" in text


def test_ner_in_misc(sample, tmp_path):
    corpus = read_corpus(sample, label_field="misc:NER")
    first, second, third = corpus.sentences
    assert first.annotations[0] == {"B-PER"} and first.annotations[1] == frozenset()
    assert second.annotations == ({"B-LOC"}, {"O"})
    assert second.columns["misc"] == ("SpaceAfter=No", "_")
    assert "upos" in first.columns and first.columns["upos"][0] == "PROPN"
    assert set(corpus.labels) == {"O", "B-PER", "B-LOC"}
    written = _rewrite(corpus, tmp_path, "sample.conllu", label_field="misc:NER")
    assert read_corpus(written, label_field="misc:NER") == corpus
    assert "SpaceAfter=No|NER=B-LOC" in written.read_text()


def test_misc_cannot_hold_candidate_sets(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["a", "b"], [{"B-X", "O"}, {"O"}])])
    with pytest.raises(FormatError, match="candidate set"):
        write_corpus(corpus, tmp_path / "x.conllu", label_field="misc:NER")


def test_other_label_fields_and_no_labels(sample):
    corpus = read_corpus(sample, label_field="xpos")
    assert corpus.sentences[0].annotations[0] == {"NNP"}
    assert corpus.sentences[0].columns["upos"][0] == "PROPN"
    from tagtool.core.labels import LabelSet

    bare = read_corpus(sample, label_column=None, labels=LabelSet(["NOUN"]))
    assert "upos" in bare.sentences[0].columns and bare.sentences[0].status == "none"
    with pytest.raises(ValueError, match="label_field"):
        read_corpus(sample, label_field="nonsense")


def test_conll_corpus_exported_as_conllu(tmp_path):
    corpus = read_corpus(DATA / "ptb_wsj_sample_head.txt")
    written = _rewrite(corpus, tmp_path, "ptb_wsj_sample_head.txt.conllu", label_field="xpos")
    again = read_corpus(written, label_field="xpos")
    assert [s.tokens for s in again] == [s.tokens for s in corpus]
    assert [s.annotations for s in again] == [s.annotations for s in corpus]
    assert [d.name for d in again.documents] == ["ptb_wsj_sample_head.txt"]  # from "# newdoc id"
    assert len(conllu.parse(written.read_text())) == 100


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        ("1\tOslo\tOslo\tPROPN", "fields"),
        ("x\tOslo\tOslo\tPROPN\tNNP\t_\t0\troot\t_\t_", "ID"),
        ("3\tOslo\tOslo\tPROPN\tNNP\t_\t0\troot\t_\t_", "expected"),
        ("# late comment", "comment"),
    ],
)
def test_malformed_lines_name_their_line(tmp_path, bad_line, message):
    good = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_"
    path = tmp_path / "bad.conllu"
    path.write_text(f"# sent_id = 1\n{good}\n\n# sent_id = 2\n{good}\n{bad_line}\n\n", encoding="utf-8")
    with pytest.raises(FormatError, match=message) as err:
        read_corpus(path)
    assert err.value.line == 6 and err.value.path == str(path)


def test_comments_without_tokens(tmp_path):
    path = tmp_path / "c.conllu"
    path.write_text("1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n\n# orphan = 1\n", encoding="utf-8")
    with pytest.raises(FormatError, match="no tokens") as err:
        read_corpus(path)
    assert err.value.line == 3

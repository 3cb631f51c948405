"""CoNLL-U: fields as columns, comments as meta, documents, label fields."""

from __future__ import annotations

from pathlib import Path

import conllu
import pytest

from tagtool.core.corpus import Corpus, Sentence
from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.formats.conllu import LABEL_FIELD_KEY, LINES_KEY

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
        T.join(
            ["1", "Oslo", "Oslo", "PROPN", "NNP", "_", "2", "nsubj", "2:nsubj|2.1:nsubj", "SpaceAfter=No|NER=B-LOC"]
        ),
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
    assert first.tokens == ("Anna", "'s", "cats", "sleep", ".")  # range 1-2 is no token
    assert first.annotations[:3] == ({"PROPN"}, {"PART"}, {"NOUN"})
    assert set(first.columns) == {"lemma", "xpos", "feats", "head", "deprel", "deps", "misc"}
    assert first.columns["feats"][3] == "Mood=Ind|Tense=Pres"
    assert first.columns["head"] == ("3", "1", "4", "0", "4")
    range_line = T.join(["1-2", "Anna's", "_", "_", "_", "_", "_", "_", "_", "_"])
    assert dict(first.meta) == {
        "newdoc id": "doc-a",
        "sent_id": "a-1",
        "text": "Anna's cats sleep.",
        LINES_KEY: range_line,
    }
    assert second.tokens == ("Oslo", "wins")  # empty node 2.1 is no token, kept in meta
    assert second.meta[LINES_KEY].startswith("2.1\twins")
    assert second.columns["deps"] == ("2:nsubj|2.1:nsubj", "0:root")  # kept: the node is kept
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
    assert [t["form"] for t in parsed[0]] == ["Anna's", "Anna", "'s", "cats", "sleep", "."]
    assert text == sample.read_text(encoding="utf-8")  # byte for byte, range and empty node included
    assert parsed[0][4]["feats"] == {"Mood": "Ind", "Tense": "Pres"}
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


# ---------------------------------------------------------------------------
# byte-identical round trips (UD English EWT slice: multiword tokens, an empty node)

EWT = DATA / "ewt_test_slice.conllu"


def _changed_lines(before: bytes, after: bytes) -> list[tuple[str, str]]:
    old, new = before.decode("utf-8").split("\n"), after.decode("utf-8").split("\n")
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new) if a != b]


def test_read_write_corpus_is_byte_identical(tmp_path):
    text = EWT.read_text(encoding="utf-8")
    assert "\n6-7\twasn't" in text and "\n24.1\tleft" in text and "24.1:nsubj" in text
    corpus = read_corpus(EWT)
    written = _rewrite(corpus, tmp_path, "copy.conllu")
    assert written.read_bytes() == EWT.read_bytes()
    assert read_corpus(written).sentences == corpus.sentences


def test_import_export_through_a_project_is_byte_identical(tmp_path, capsys):
    from tagtool.cli.main import main

    project, out = tmp_path / "p.tagproj", tmp_path / "y.conllu"
    assert main(["import", str(EWT), "-p", str(project)]) == 0
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert out.read_bytes() == EWT.read_bytes()


def test_relabeled_token_is_the_only_change(tmp_path):
    from tagtool.store.project import Project

    path = tmp_path / "p.tagproj"
    with Project.create(path, read_corpus(EWT)) as project:
        sid = project.sentence_ids()[22]  # the sentence with the empty node 24.1
        assert project.sentence(sid).meta[LINES_KEY].startswith("24.1\tleft")
        assert project.annotations(sid)[23] == {"ADJ"}
        project.set_annotation(sid, 23, "NOUN")  # token 24, "many"
    with Project.open(path, readonly=True) as project:
        corpus = project.corpus()
    written = _rewrite(corpus, tmp_path, "y.conllu")
    changed = _changed_lines(EWT.read_bytes(), written.read_bytes())
    assert len(changed) == 1
    before, after = (line.split("\t") for line in changed[0])
    assert before[:2] == ["24", "many"] and before[3] == "ADJ" and after[3] == "NOUN"
    assert before[:3] + before[4:] == after[:3] + after[4:]


def test_other_label_field_goes_back_where_it_came_from(tmp_path):
    corpus = read_corpus(EWT, label_field="xpos")
    first = corpus.sentences[0]
    assert first.meta[LABEL_FIELD_KEY] == "xpos" and "xpos" not in first.columns
    relabeled = Corpus(
        corpus.labels.union(read_corpus(EWT).labels),
        [
            type(d)(d.name, [s.with_annotations([{"NN"}] + [set(a) for a in s.annotations[1:]]) for s in d.sentences])
            for d in corpus.documents
        ],
    )
    written = _rewrite(relabeled, tmp_path, "y.conllu")
    for before, after in _changed_lines(EWT.read_bytes(), written.read_bytes()):
        b, a = before.split("\t"), after.split("\t")
        assert b[0] == "1" and a[4] == "NN" and b[:4] + b[5:] == a[:4] + a[5:]


def test_unlabeled_import_keeps_the_label_field(tmp_path, capsys):
    from tagtool.cli.main import main

    project, out = tmp_path / "p.tagproj", tmp_path / "y.conllu"
    assert main(["import", str(EWT), "-p", str(project), "--no-labels", "--labels", "NOUN,VERB"]) == 0
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert out.read_bytes() == EWT.read_bytes()  # UPOS not blanked by "no label"


ODD = "\n".join(
    [
        "#text=No space",
        "# sent_id = s1   ",
        "# sent_id = s1-again",
        "# newpar",
        T.join(["0.1", "_", "_", "_", "_", "_", "_", "_", "_", "_"]),
        T.join(["1", "Hi", "hi", "INTJ", "UH", "_", "0", "root", "0:root", "_"]),
        "",
        "",
    ]
)


def test_odd_comments_are_kept_verbatim_until_meta_changes(tmp_path):
    path = tmp_path / "odd.conllu"
    path.write_text(ODD, encoding="utf-8")
    corpus = read_corpus(path)
    (sentence,) = corpus.sentences
    assert dict(sentence.meta)["sent_id"] == "s1-again"
    assert _rewrite(corpus, tmp_path, "odd.conllu").read_text(encoding="utf-8") == ODD
    meta = {**sentence.meta, "sent_id": "new"}
    changed = Corpus(
        corpus.labels,
        [
            type(corpus.documents[0])(
                "odd.conllu", [Sentence(sentence.tokens, sentence.annotations, sentence.columns, meta)]
            )
        ],
    )
    text = _rewrite(changed, tmp_path, "odd.conllu").read_text(encoding="utf-8")
    assert text.startswith("# text = No space\n# sent_id = new\n# newpar\n0.1\t")


def test_reserved_comment_key_and_bad_kept_lines_are_errors(tmp_path):
    path = tmp_path / "r.conllu"
    path.write_text(f"# {LINES_KEY} = x\n" + ODD.split("\n", 5)[5], encoding="utf-8")
    with pytest.raises(FormatError, match="reserved") as err:
        read_corpus(path)
    assert err.value.line == 1
    bad = Corpus.from_sentences([Sentence(["a"], [{"X"}], meta={LINES_KEY: "not a line"})])
    with pytest.raises(FormatError, match="multiword range or empty node"):
        write_corpus(bad, tmp_path / "bad.conllu")


def test_misc_label_goes_back_to_its_place_in_misc(tmp_path):
    path = tmp_path / "misc.conllu"
    rows = [["1", "Anna", "NER=B-PER|SpaceAfter=No"], ["2", "Oslo", "A=1|NER=B-LOC|Z=2"], ["3", "x", "Z=1"]]
    text = "".join(T.join([i, form, "_", "X", "_", "_", "0", "root", "_", misc]) + "\n" for i, form, misc in rows)
    path.write_text(f"# sent_id = m\n{text}\n", encoding="utf-8")
    corpus = read_corpus(path, label_field="misc:NER")
    (sentence,) = corpus.sentences
    assert sentence.columns["misc"] == ("SpaceAfter=No", "A=1|Z=2", "Z=1")
    assert _rewrite(corpus, tmp_path, "misc.conllu").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    relabeled = Corpus(
        corpus.labels.union(read_corpus(path, label_field="misc:NER").labels),
        [type(corpus.documents[0])("misc.conllu", [sentence.with_annotations([{"B-LOC"}, {"B-PER"}, {"B-PER"}])])],
    )
    lines = _rewrite(relabeled, tmp_path, "misc.conllu").read_text(encoding="utf-8").splitlines()
    assert [line.split("\t")[9] for line in lines[1:4]] == [
        "NER=B-LOC|SpaceAfter=No",
        "A=1|NER=B-PER|Z=2",
        "Z=1|NER=B-PER",
    ]

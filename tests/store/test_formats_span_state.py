"""Span exports (doccano, Label Studio) of a project being worked on, read back into a new project:
every training label, candidate set, unlabeled token and annotator's answer is there again."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tagtool.core import Corpus, LabelSet
from tagtool.core.corpus import Sentence
from tagtool.errors import FormatError
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.project import Project

LABELS = LabelSet(["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"])
TEXT = "Ann Lee met Bob in Paris. Acme Corp. hired them. Nobody knew why."


def _tasks(tmp_path):
    """Two annotators on one task of three sentences, and a task nobody labeled."""

    def result(start, end, label):
        return {"type": "labels", "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]}}

    tasks = [
        {
            "id": 1,
            "data": {"text": TEXT},
            "annotations": [
                {
                    "completed_by": "alice",
                    "result": [
                        result(0, 7, "PER"),
                        result(12, 15, "PER"),
                        result(19, 24, "LOC"),
                        result(26, 35, "ORG"),
                    ],
                },
                {"completed_by": "bob", "result": [result(0, 7, "PER"), result(12, 15, "ORG"), result(19, 24, "LOC")]},
            ],
        },
        {"id": 2, "data": {"text": "Plain words here. More of them."}, "annotations": []},
    ]
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def _state(project: Project) -> list[tuple]:
    corpus, reviews = project.review.export_corpus(), project.review.all()
    return [
        (s.tokens, s.annotations, dict(s.annotator_labels), reviews.get(i))
        for s, i in zip(corpus, project.sentence_ids())
    ]


@pytest.fixture
def worked_on(tmp_path):
    """A project in the middle of the work: answers of two annotators, a candidate set, tokens cleared,
    a sentence half labeled and one not at all, a flag with a comment and a skipped sentence."""
    project = Project.create(tmp_path / "p.tagproj", read_corpus(_tasks(tmp_path)))
    ids = project.sentence_ids()
    assert len(ids) == 5
    first = project.annotations(ids[0])
    assert first[3] == {"B-PER", "B-ORG"}  # Bob: alice PER, bob ORG
    project.set_annotations(ids[0], {0: "_", 1: "_"}, annotator="carol")  # cleared
    project.set_annotations(ids[1], {0: "B-ORG|B-LOC", 2: "_"}, annotator="carol")  # a candidate set, a gap
    project.set_annotations(ids[3], {0: "O", 2: "I-PER"}, annotator="carol")  # unfinished, a lone I- after a gap
    project.review.flag(ids[1], "is Acme Corp. one name?")
    project.review.set_skipped(ids[4], True)
    yield project
    project.close()


@pytest.mark.parametrize("fmt, name", [("doccano", "out.jsonl"), ("labelstudio", "out.json")])
def test_a_partly_labeled_project_exported_and_read_back_loses_nothing(worked_on, tmp_path, fmt, name):
    out = tmp_path / name
    write_corpus(worked_on.review.export_corpus(), out, format=fmt)
    again = Project.create(tmp_path / f"again-{fmt}.tagproj", read_corpus(out))
    try:
        assert _state(again) == _state(worked_on)
    finally:
        again.close()


def test_the_label_studio_export_of_unfinished_work(worked_on, tmp_path):
    out = tmp_path / "out.json"
    write_corpus(worked_on.review.export_corpus(), out, format="labelstudio")
    first, second = json.loads(out.read_text(encoding="utf-8"))
    # the annotators' answers stay annotations; the candidate sets are scored prediction results
    assert [a["completed_by"] for a in first["annotations"]] == ["alice", "bob"]
    (candidates,) = [p for p in first["predictions"] if p["model_version"] == "tagtool candidate sets"]
    scored = {(r["value"]["text"], r["value"]["labels"][0], r["score"]) for r in candidates["result"]}
    assert ("Acme", "ORG", 0.5) in scored and ("Acme", "LOC", 0.5) in scored
    assert first["meta"]["tagtool"]["state"] == "partial"
    assert first["meta"]["tagtool"]["sentences"] == [0, 26, 49]
    # a task nobody finished and nobody answered: a prediction, no annotation
    assert second["annotations"] == []
    (unfinished,) = second["predictions"]
    assert unfinished["model_version"] == "tagtool unfinished"
    assert second["meta"]["tagtool"]["labels"]["unlabeled"]


def test_the_doccano_export_of_unfinished_work(worked_on, tmp_path):
    out = tmp_path / "out.jsonl"
    write_corpus(worked_on.review.export_corpus(), out, format="doccano")
    first, second = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
    assert first["text"] == TEXT and second["text"] == "Plain words here. More of them."
    state = first["tagtool"]
    assert state["state"] == "partial" and state["unlabeled"][0] == [0, 7]  # "Ann Lee" cleared
    assert set(state["annotators"]) == {"alice", "bob"}
    assert state["annotators"]["alice"]["spans"][0] == [0, 7, "PER"]
    assert second["tagtool"]["state"] == "partial" and second["label"] == []


def test_errors_name_the_sentence_and_token_that_do_not_fit(tmp_path):
    good = Sentence(
        ("Ann", "left", "."),
        [{"B-PER"}, {"O"}, {"O"}],
        meta={"text": "Ann left.", "text_start": "0", "record_text": "Ann left. Then Bob came."},
    )
    bad = Sentence(
        ("Then", "Bob", "came", "."),
        [{"O"}, {"I-PER"}, {"O"}, {"O"}],
        meta={"text": "Then Bob came.", "text_start": "10"},
    )
    corpus = Corpus.from_sentences([good, bad], LABELS)
    for fmt in ("doccano", "labelstudio"):
        with pytest.raises(FormatError, match=r"sentence 2: label 'I-PER' of token 2 does not fit the BIO scheme"):
            write_corpus(corpus, tmp_path / "x.json", format=fmt)


LABEL = st.sampled_from(
    [
        frozenset(),
        frozenset({"O"}),
        frozenset({"B-PER"}),
        frozenset({"I-PER"}),
        frozenset({"B-LOC"}),
        frozenset({"B-PER", "B-LOC"}),
        frozenset({"O", "I-PER"}),
    ]
)


def _bio(labels: list[frozenset]) -> bool:
    """No full I-X after a full label that is not its chunk's (the writer refuses those)."""
    for prev, ann in zip([frozenset({"O"}), *labels], labels):
        if len(ann) == 1 and next(iter(ann)).startswith("I-") and len(prev) == 1:
            if next(iter(prev))[2:] != next(iter(ann))[2:] or next(iter(prev)) == "O":
                return False
    return True


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.lists(LABEL, min_size=1, max_size=6).filter(_bio), min_size=1, max_size=3),
    st.sampled_from(["doccano", "labelstudio"]),
)
def test_any_labels_of_a_record_read_back_the_same(tmp_path, sentences, fmt):
    words = ["Ann", "saw", "Rome", "and", "Bob", "there"]
    parts, sents, pos = [], [], 0
    text = " . ".join(" ".join(words[: len(s)]) for s in sentences) + " ."
    for n, labels in enumerate(sentences):
        tokens = words[: len(labels)] + ["."]
        labels = list(labels) + [frozenset({"O"})]
        meta = {"text_start": str(pos), "text": text[pos : pos + len(" ".join(tokens))]}
        if n == 0:
            meta["record_text"] = text
        pos += len(" ".join(tokens)) + 1
        sents.append(Sentence(tokens, labels, meta=meta))
        parts.append(labels)
    corpus = Corpus.from_sentences(sents, LABELS)
    out = tmp_path / f"x.{'jsonl' if fmt == 'doccano' else 'json'}"
    write_corpus(corpus, out, format=fmt)
    again = read_corpus(out, labels=LABELS)
    assert [s.tokens for s in again] == [s.tokens for s in corpus]
    assert [s.annotations for s in again] == [s.annotations for s in corpus]


@pytest.mark.parametrize("fmt, name", [("doccano", "out.jsonl"), ("labelstudio", "out.json")])
def test_one_annotators_answers_read_from_an_export(worked_on, tmp_path, fmt, name):
    out = tmp_path / name
    corpus = worked_on.review.export_corpus()
    write_corpus(corpus, out, format=fmt)
    bob = read_corpus(out, annotator="bob")
    # the task both annotated; in a record that names nobody, its labels are the one annotator's (as ever)
    assert [dict(s.annotator_labels) for s in bob][:3] == [{"bob": s.annotator_labels["bob"]} for s in list(corpus)[:3]]
    assert [s.annotations for s in bob][0] == corpus.sentences[0].annotator_labels["bob"]


@pytest.mark.parametrize("fmt", ["doccano", "labelstudio"])
def test_tokens_the_default_tokenizer_would_not_give_are_kept(tmp_path, fmt):
    sentence = Sentence(
        ("Joe's", "Diner", "opened."), [{"B-ORG"}, {"I-ORG"}, set()], meta={"text": "Joe's Diner opened."}
    )  # read with the whitespace tokenizer
    out = tmp_path / "x.json"
    write_corpus(Corpus.from_sentences([sentence], LABELS), out, format=fmt)
    again = read_corpus(out, labels=LABELS)
    assert [(s.tokens, s.annotations) for s in again] == [(sentence.tokens, sentence.annotations)]


@pytest.mark.parametrize("fmt", ["doccano", "labelstudio"])
def test_a_sentence_the_splitter_would_cut_stays_one(tmp_path, fmt):
    sentence = Sentence(("It", "rained", ".", "We", "left", "."), [{"O"}] * 3 + [set()] * 3)  # no text of its own
    out = tmp_path / "x.json"
    write_corpus(Corpus.from_sentences([sentence], LABELS), out, format=fmt)
    again = read_corpus(out, labels=LABELS)
    assert [(s.tokens, s.annotations) for s in again] == [(sentence.tokens, sentence.annotations)]

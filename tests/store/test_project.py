"""The project store's API: round trips, edits, labels, imports, models, read-only."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from project_samples import LABELS, ann, plain_corpus, sample_corpus

from tagtool.core import Corpus, Document, LabelSet, Sentence
from tagtool.core.annotation import annotation_kind, annotation_status, make_annotation
from tagtool.errors import FormatError, LabelError, ProjectError
from tagtool.store import schema
from tagtool.store.project import Project
from tagtool.store.record_types import NotFoundError


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", sample_corpus()) as p:
        yield p


def expected_counts(corpus: Corpus) -> dict[str, int]:
    kinds = [annotation_kind(a) for s in corpus for a in s.annotations]
    return {k: kinds.count(k) for k in ("full", "partial", "none")}


def check_cached_counts(p: Project) -> None:
    """The cached per-sentence counts agree with the annotations themselves."""
    corpus = p.corpus()
    assert p.listing.annotation_counts() == expected_counts(corpus)
    summaries = p.listing.sentence_summaries()
    for summary, sentence in zip(summaries, corpus, strict=True):
        kinds = [annotation_kind(a) for a in sentence.annotations]
        assert (summary.n_full, summary.n_partial) == (kinds.count("full"), kinds.count("partial"))
        assert summary.status == annotation_status(sentence.annotations)


# ----------------------------------------------------------------------
# round trip


def test_create_then_reopen_gives_back_every_token_column_meta_and_annotation(tmp_path):
    corpus = sample_corpus()
    path = tmp_path / "p.tagproj"
    Project.create(path, corpus).close()
    with Project.open(path) as p:
        again = p.corpus()
        assert again == corpus
        assert again.labels.names == corpus.labels.names
        assert [d.name for d in again.documents] == ["wsj_0001", "wsj_0002"]
        ids = p.sentence_ids()
        assert p.sentences(ids) == list(corpus)
        assert p.sentences(ids[::-1]) == list(corpus)[::-1]
        for sid, sentence in zip(ids, corpus):
            assert p.sentence(sid) == sentence
            assert p.annotations(sid) == sentence.annotations
        assert dict(p.sentence(ids[0]).columns) == {
            "pos": ("NN", "IN", "DT", "NN"),
            "lemma": ("confidence", "in", "the", "pound"),
        }
        assert p.sentence(ids[0]).meta["sent_id"] == "wsj-1"
        assert (p.n_sentences, p.n_tokens) == (4, 15)
        assert p.listing.annotation_counts() == {"full": 5, "partial": 2, "none": 8}


def test_project_file_is_a_wal_sqlite_database_that_passes_integrity_check(project):
    project.close()
    conn = sqlite3.connect(project.path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x54414754
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.CURRENT_VERSION
    conn.close()


def test_meta_records_version_creation_time_and_name(tmp_path):
    with Project.create(tmp_path / "x.tagproj", sample_corpus(), name="Chunks") as p:
        meta = p.meta
        assert meta["schema_version"] == str(schema.CURRENT_VERSION) and p.schema_version == schema.CURRENT_VERSION
        assert meta["name"] == "Chunks" == p.name
        assert meta["created"].endswith("+00:00")
        assert meta["tagtool_version"]
        assert not p.readonly and not p.newer_schema and p.migrated_from is None
    with Project.create(tmp_path / "default.tagproj", sample_corpus()) as p:
        assert p.name == "default"


_label = st.text(alphabet="ABCOXYZ-", min_size=1, max_size=3)
_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6)


@st.composite
def corpora(draw):
    names = draw(st.lists(_label, min_size=1, max_size=5, unique=True))
    labels = LabelSet(names)
    column_names = draw(st.lists(st.sampled_from(["pos", "chunk", "ne"]), max_size=2, unique=True))
    documents = []
    for _ in range(draw(st.integers(1, 3))):
        sentences = []
        for _ in range(draw(st.integers(1, 4))):
            tokens = draw(st.lists(_text, min_size=1, max_size=6))
            anns = [make_annotation(draw(st.sets(st.sampled_from(names))), labels) for _ in tokens]
            columns = {c: draw(st.lists(_text, min_size=len(tokens), max_size=len(tokens))) for c in column_names}
            meta = draw(st.dictionaries(_text, _text, max_size=2))
            sentences.append(Sentence(tokens, anns, columns, meta))
        documents.append(Document(draw(st.text(max_size=5)), sentences))
    return Corpus(labels, documents)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corpora())
def test_round_trip_of_arbitrary_corpora(corpus):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.tagproj"
        Project.create(path, corpus).close()
        with Project.open(path, readonly=True) as p:
            assert p.corpus() == corpus
            assert p.labels == corpus.labels
            assert p.listing.annotation_counts() == expected_counts(corpus)


# ----------------------------------------------------------------------
# annotations


def test_set_annotation_full_partial_and_clear_persist_with_counts(project):
    first, second = project.sentence_ids()[:2]
    project.set_annotation(second, 0, ["B-NP"])
    project.set_annotation(second, 1, ["I-NP", "O"])
    project.set_annotation(second, 2, "B-VP|I-VP")
    project.set_annotation(first, 0, [])
    project.set_annotation(first, 3, "_")
    project.set_annotation(first, 2, LABELS.names)  # every label = no information
    expected = (ann("B-NP"), ann("O", "I-NP"), ann("B-VP", "I-VP")) + (ann(),) * 4
    assert project.annotations(second) == expected
    assert project.annotations(first) == (ann(), ann("O", "B-VP"), ann(), ann())
    check_cached_counts(project)
    path = project.path
    project.close()
    with Project.open(path) as again:
        assert again.annotations(second) == expected
        assert again.annotations(first) == (ann(), ann("O", "B-VP"), ann(), ann())
        check_cached_counts(again)


def test_set_annotations_logs_changes_and_skips_no_ops(project):
    sid = project.sentence_ids()[0]
    changes = {0: ["B-NP"], 1: ["O"], 2: ["B-NP", "I-NP"]}
    changed = project.set_annotations(sid, changes, annotator="ann1")
    assert changed == 2  # token 0 already was B-NP
    history = project.annotation_history()
    assert [(e.sentence_id, e.token, e.old, e.new, e.annotator) for e in history] == [
        (sid, 1, ann("O", "B-VP"), ann("O"), "ann1"),
        (sid, 2, ann(), ann("B-NP", "I-NP"), "ann1"),
    ]
    assert history[0].id < history[1].id
    assert project.set_annotations(sid, {1: "O"}) == 0
    assert len(project.annotation_history()) == 2


def test_invalid_annotations_change_nothing(project):
    sid = project.sentence_ids()[0]
    before = project.annotations(sid)
    with pytest.raises(LabelError):
        project.set_annotations(sid, {0: ["O"], 1: ["NOPE"]})
    with pytest.raises(NotFoundError):
        project.set_annotations(sid, {0: ["O"], 4: ["O"]})
    with pytest.raises(NotFoundError):
        project.set_annotation(sid, -1, ["O"])
    with pytest.raises(NotFoundError):
        project.set_annotation(10_000, 0, ["O"])
    with pytest.raises(NotFoundError):
        project.annotations(10_000)
    with pytest.raises(NotFoundError):
        project.sentences([sid, 10_000])
    assert project.annotations(sid) == before
    assert project.annotation_history() == []
    check_cached_counts(project)


def test_random_edits_keep_cached_counts_exact(project):
    rng = np.random.default_rng(3)
    ids = project.sentence_ids()
    lengths = {s.id: s.n_tokens for s in project.listing.sentence_summaries()}
    for _ in range(60):
        sid = int(rng.choice(ids))
        size = int(rng.integers(0, 4))
        labels = rng.choice(LABELS.names, size=size, replace=False).tolist()
        project.set_annotation(sid, int(rng.integers(lengths[sid])), labels)
    check_cached_counts(project)
    statuses = [s.status for s in project.corpus()]
    assert project.listing.status_counts() == {k: statuses.count(k) for k in ("full", "partial", "none")}


def test_annotation_history_filters_and_orders(project):
    a, b = project.sentence_ids()[:2]
    project.set_annotation(a, 2, ["O"])
    project.set_annotation(b, 0, ["O"])
    project.set_annotation(b, 1, ["O"])
    newest = project.annotation_history(newest_first=True, limit=2)
    assert [(e.sentence_id, e.token) for e in newest] == [(b, 1), (b, 0)]
    assert [e.token for e in project.annotation_history(sentence_id=b)] == [0, 1]
    assert project.annotation_history(since=newest[0].time + 1) == []
    assert len(project.annotation_history(since=0)) == 3


def test_sentence_summaries_filter_search_and_page(tmp_path):
    corpus = plain_corpus(30, 4)
    with Project.create(tmp_path / "s.tagproj", corpus) as p:
        ids = p.sentence_ids()
        for sid in ids[:5]:
            p.set_annotations(sid, {t: ["O"] for t in range(4)})
        for sid in ids[5:8]:
            p.set_annotation(sid, 0, ["O", "B-NP"])
        assert [s.id for s in p.listing.sentence_summaries(status="full")] == ids[:5]
        assert [s.id for s in p.listing.sentence_summaries(status="partial")] == ids[5:8]
        assert [s.id for s in p.listing.sentence_summaries(status="none")] == ids[8:]
        assert [s.id for s in p.listing.sentence_summaries(status="incomplete")] == ids[5:]
        assert [s.id for s in p.listing.sentence_summaries(status=["full", "partial"])] == ids[:8]
        assert p.listing.count_sentences(status="none") == 22
        page = p.listing.sentence_summaries(offset=10, limit=5)
        assert [s.id for s in page] == ids[10:15]
        assert page[0].preview == "w10_0 w10_1 w10_2 w10_3"
        assert p.listing.sentence_summaries(preview_chars=4)[0].preview == "w0_0"
        assert [s.id for s in p.listing.sentence_summaries(search="W2_3")] == [ids[2]]
        assert p.listing.count_sentences(search="w1") == 11  # w1_, w10_..w19_
        assert p.listing.sentence_summaries(search="w%") == []  # % is literal
        assert p.listing.sentence_summaries(search="w_") == []  # _ is literal
        assert p.listing.count_sentences(search="_1 w", status="full") == 5
        with pytest.raises(ValueError):
            p.listing.sentence_summaries(status="done")


# ----------------------------------------------------------------------
# importing


def test_import_corpus_appends_documents(project):
    before = project.corpus()
    sentence = Sentence(("a", "b"), (ann("O"), ann()))
    extra = Corpus(LabelSet(["O", "B-NP"]), [Document("more", [sentence])])
    new_ids = project.imports.import_corpus(extra)
    assert len(new_ids) == 1 and new_ids[0] not in project.sentence_ids()[:-1]
    assert project.sentence_ids()[-1] == new_ids[0]
    after = project.corpus()
    assert after.documents[:2] == before.documents
    assert after.documents[2] == extra.documents[0]
    assert [d.name for d in project.documents()] == ["wsj_0001", "wsj_0002", "more"]
    assert project.documents()[2].n_tokens == 2
    check_cached_counts(project)


def test_import_corpus_with_unknown_labels_needs_add_labels(project):
    extra = Corpus(LabelSet(["B-PP", "O"]), [Document("pp", [Sentence(("in",), (ann("B-PP"),))])])
    with pytest.raises(LabelError, match="B-PP"):
        project.imports.import_corpus(extra)
    assert project.labels == LABELS and project.n_sentences == 4
    project.imports.import_corpus(extra, add_labels=True)
    assert project.labels.names == LABELS.names + ("B-PP",)
    assert project.sentence(project.sentence_ids()[-1]).annotations == (ann("B-PP"),)


@pytest.mark.parametrize("bad", ["token", "label"])
def test_import_corpus_is_all_or_nothing(project, bad):
    good = [Sentence((f"t{i}", "x"), (ann("O"), ann())) for i in range(5)]
    if bad == "token":
        broken = Sentence(("fine", 42))  # Sentence does not check token types
        error = FormatError
    else:
        broken = Sentence(("fine",), (ann("B-ZZ"),))
        error = LabelError
    labels = LABELS if bad == "token" else LABELS.union(["B-ZZ"])
    extra = Corpus(labels, [Document("ok", good), Document("bad", good[:2] + [broken] + good[2:])])
    before = project.corpus()
    documents_before = project.documents()
    with pytest.raises(error, match="document 'bad', sentence 3"):
        project.imports.import_corpus(extra)
    assert project.corpus() == before
    assert project.documents() == documents_before
    assert project.n_sentences == 4
    # the ids the failed import used are free again
    assert project.imports.import_corpus(Corpus(LABELS, [Document("ok", good)]))[0] == 5


def test_import_annotations_replace_and_fill(project):
    corpus = project.corpus()
    other = [s.with_annotations([["O"]] * len(s)) for s in corpus]
    replacement = Corpus(
        LABELS, [Document(d.name, other[i:j]) for d, i, j in ((corpus.documents[0], 0, 2), (corpus.documents[1], 2, 4))]
    )
    fill_changed = project.imports.import_annotations(replacement, mode="fill")
    filled = project.corpus()
    for old, new in zip(corpus, filled):
        assert new.annotations == tuple(a or ann("O") for a in old.annotations)
    assert fill_changed == sum(not a for s in corpus for a in s.annotations)
    changed = project.imports.import_annotations(replacement, mode="replace", match="document")
    assert all(s.annotations == (ann("O"),) * len(s) for s in project.corpus())
    assert changed == sum(a != ann("O") for s in filled for a in s.annotations)
    cleared = Corpus(LABELS, [Document("all", [s.unlabeled() for s in corpus])])
    project.imports.import_annotations(cleared, mode="replace")
    assert project.listing.annotation_counts() == {"full": 0, "partial": 0, "none": 15}
    check_cached_counts(project)
    assert project.annotation_history() == []  # bulk imports are not logged per token


def test_import_annotations_refuses_different_tokens_and_changes_nothing(project):
    corpus = project.corpus()
    sentences = list(corpus)
    sentences[3] = Sentence(("is", "widely", "EXPECTED"), (ann("O"),) * 3)
    with pytest.raises(ProjectError, match="token 3: 'expected' in the project, 'EXPECTED'"):
        project.imports.import_annotations(Corpus(LABELS, [Document("x", sentences)]))
    with pytest.raises(ProjectError, match="3 sentences, the project 4"):
        project.imports.import_annotations(Corpus(LABELS, [Document("x", sentences[:3])]))
    with pytest.raises(ProjectError, match="no document named"):
        project.imports.import_annotations(Corpus(LABELS, [Document("x", sentences)]), match="document")
    assert project.corpus() == corpus


# ----------------------------------------------------------------------
# labels


def test_default_label_infos_colours_and_shortcuts(tmp_path):
    names = ["O"] + [f"{p}-T{i}" for i in range(5) for p in "BI"]
    corpus = Corpus(LabelSet(names), [Document("d", [Sentence(("a",))])])
    with Project.create(tmp_path / "l.tagproj", corpus, label_colors={"B-T4": "#ABCDEF"}) as p:
        infos = p.label_set.label_infos()
        assert [i.name for i in infos] == names
        # O, then each type's digit: B- on it, I- on Shift + it
        shortcut = {i.name: i.shortcut for i in infos}
        assert [shortcut[n] for n in ["O"] + [f"B-T{i}" for i in range(5)]] == list("123456")
        assert [shortcut[f"I-T{i}"] for i in range(5)] == [f"Shift+{d}" for d in "23456"]
        colour = {i.name: i.color for i in infos}
        assert all(c.startswith("#") and len(c) == 7 for c in colour.values())
        assert colour["B-T0"] == colour["I-T0"] != colour["B-T1"]
        assert len({colour[f"B-T{i}"] for i in range(4)}) == 4
        assert colour["B-T4"] == "#abcdef"
    with pytest.raises(LabelError):
        Project.create(tmp_path / "bad.tagproj", corpus, label_colors={"O": "red"})
    with pytest.raises(LabelError):
        Project.create(tmp_path / "bad.tagproj", corpus, label_colors={"NOPE": "#000000"})
    assert not (tmp_path / "bad.tagproj").exists()


def _style(path: Path, labels: list[str], annotated: list[list[str]]) -> dict:
    sentences = [Sentence(tuple("x" * len(tags)), tuple(frozenset([t]) for t in tags)) for tags in annotated]
    with Project.create(path, Corpus(LabelSet(labels), [Document("d", sentences)])) as p:
        return {i.name: (i.shortcut, i.color) for i in p.label_set.label_infos()}


def test_default_keys_and_colours_follow_the_label_set_alone(tmp_path):
    """Keys follow the label set alone, not label frequency or first-seen order (which made O 3 here, 2 there)."""
    kinds = ["ADJP", "ADVP", "CONJP", "INTJ", "LST", "NP", "PP", "PRT", "SBAR", "VP"]
    names = ["O"] + [f"{p}-{k}" for k in kinds for p in "BI"]
    one = _style(tmp_path / "a.tagproj", names, [["B-NP", "I-NP", "O", "B-VP"], ["O", "O"]])
    shuffled = names[5:][::-1] + names[:5]  # another first-seen order, O in the middle
    two = _style(tmp_path / "b.tagproj", shuffled, [["B-PP", "B-PP", "I-PP", "B-ADJP"]])
    assert one == two
    key = {n: k for n, (k, _) in one.items()}
    # O, then the types alphabetically; after the ninth group a letter of the type's name
    assert [key[f"B-{k}"] for k in kinds] == ["2", "3", "4", "5", "6", "7", "8", "9", "s", "v"]
    assert all(key[f"I-{k}"] == f"Shift+{key[f'B-{k}']}" for k in kinds) and key["O"] == "1"
    colour = {n: c for n, (_, c) in one.items()}
    assert all(colour[f"B-{k}"] == colour[f"I-{k}"] for k in kinds)
    assert len({colour[f"B-{k}"] for k in kinds} | {colour["O"]}) == len(kinds) + 1

    # letters never take a command key (n, p, j): such a type is left to the picker
    names = ["O"] + [
        f"{p}-{k}" for k in ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "NP", "JN", "ZNP"] for p in "BI"
    ]
    key = {n: k for n, (k, _) in _style(tmp_path / "c.tagproj", names, [["O"]]).items()}
    assert key["B-NP"] is None and key["I-NP"] is None and key["B-JN"] is None and key["B-ZNP"] == "z"
    # BIOES: B- and I- have keys, E- and S- come from the picker; IOB1's lone I- type takes the digit
    key = {
        n: k for n, (k, _) in _style(tmp_path / "d.tagproj", ["O", "B-X", "I-X", "E-X", "S-X", "I-Y"], [["O"]]).items()
    }
    assert key == {"O": "1", "B-X": "2", "I-X": "Shift+2", "E-X": None, "S-X": None, "I-Y": "3"}
    # outside span schemes: alphabetical, nine digits
    pos = ["VBZ", "NN", "DT", "CC", "IN", "JJ", "NNS", "PRP", "RB", "VB", "VBD"]
    key = {n: k for n, (k, _) in _style(tmp_path / "pos.tagproj", pos, [["NN", "NN", "VBZ"]]).items()}
    assert [key[n] for n in sorted(pos)] == list("123456789") + [None, None]


def test_label_counts_full_and_candidate(project):
    # computed by SQL; checked against the annotations themselves
    corpus = project.corpus()
    project.set_annotations(project.sentence_ids()[0], {0: {"O", "B-NP"}})
    corpus = project.corpus()
    full = {n: 0 for n in corpus.labels.names}
    candidate = dict(full)
    for s in corpus:
        for a in s.annotations:
            for name in a:
                (full if len(a) == 1 else candidate)[name] += 1
    counts = project.listing.label_counts()
    assert list(counts) == list(corpus.labels.names)
    assert counts == {n: (full[n], candidate[n]) for n in corpus.labels.names}
    assert counts["O"][1] >= 1 and counts["B-NP"][1] >= 1


def test_set_label_info_and_add_label(project):
    project.label_set.set_label_info("O", color="#123456")
    project.label_set.set_label_info("B-NP", shortcut=None)
    project.label_set.set_label_info("I-NP", shortcut="n")
    with pytest.raises(LabelError, match="already belongs"):
        project.label_set.set_label_info("B-VP", shortcut="n")
    with pytest.raises(LabelError):
        project.label_set.set_label_info("B-VP", color="#12345")
    with pytest.raises(LabelError):
        project.label_set.set_label_info("NOPE", color="#123456")
    project.label_set.add_label("B-PP")  # takes the lowest free digit: "2" (B-NP gave it up)
    project.label_set.add_label("I-PP", shortcut=None, color="#010203")
    with pytest.raises(LabelError):
        project.label_set.add_label("O")
    with pytest.raises(LabelError):
        project.label_set.add_label("A|B")
    infos = {i.name: i for i in project.label_set.label_infos()}
    assert infos["O"].color == "#123456"
    assert infos["B-NP"].shortcut is None and infos["I-NP"].shortcut == "n"
    assert infos["B-PP"].shortcut == "2" and infos["I-PP"].shortcut is None
    assert infos["I-PP"].color == "#010203"
    assert project.labels.names == LABELS.names + ("B-PP", "I-PP")
    project.set_annotation(project.sentence_ids()[0], 2, ["B-PP", "O"])
    path = project.path
    project.close()
    with Project.open(path) as p:
        assert {i.name: i for i in p.label_set.label_infos()} == infos
        assert p.annotations(p.sentence_ids()[0])[2] == ann("O", "B-PP")


def test_rename_label_rewrites_annotations_and_log(project):
    sid = project.sentence_ids()[3]
    project.set_annotation(sid, 0, ["B-NP", "I-VP"])
    assert project.label_set.rename_label("I-VP", "I-VX") == 3
    assert project.labels.names == ("O", "B-NP", "I-NP", "B-VP", "I-VX")
    assert project.annotations(sid) == (ann("B-NP", "I-VX"), ann("I-VX", "I-NP", "O"), ann("I-VX"))
    assert project.annotation_history()[0].new == ann("B-NP", "I-VX")
    with pytest.raises(LabelError):
        project.label_set.rename_label("O", "B-NP")
    with pytest.raises(LabelError):
        project.label_set.rename_label("NOPE", "X")
    check_cached_counts(project)


def test_remove_label_refuses_when_used_unless_forced(project):
    with pytest.raises(LabelError, match="annotations of 3 tokens"):
        project.label_set.remove_label("O")
    assert project.labels == LABELS
    ids = project.sentence_ids()
    before = project.corpus()
    assert project.label_set.remove_label("O", force=True) == 3
    assert project.labels.names == ("B-NP", "I-NP", "B-VP", "I-VP")
    assert project.annotations(ids[0])[1] == ann("B-VP")  # {O, B-VP} -> full
    assert project.annotations(ids[2]) == (ann(),)  # {O} -> none
    assert project.annotations(ids[3])[1] == ann("I-VP", "I-NP")
    assert [(e.old, e.new) for e in project.annotation_history()] == [
        (ann("O", "B-VP"), ann("B-VP")),
        (ann("O"), ann()),
        (ann("I-VP", "I-NP", "O"), ann("I-VP", "I-NP")),
    ]
    assert project.corpus().documents[0].sentences[1] == before.documents[0].sentences[1]
    check_cached_counts(project)
    # a candidate set naming every remaining label says nothing any more
    project.set_annotation(ids[1], 0, ["B-NP", "I-NP", "B-VP"])
    project.label_set.remove_label("I-VP", force=True)
    assert project.annotations(ids[1])[0] == ann()
    project.label_set.add_label("X")
    project.label_set.remove_label("X")  # unused: no force needed
    project.label_set.add_label("X")
    project.set_annotation(ids[1], 0, ["B-NP", "I-NP", "B-VP"])  # means "not X"
    with pytest.raises(LabelError, match="annotations of 1 tokens"):
        project.label_set.remove_label("X")
    assert project.label_set.remove_label("X", force=True) == 1
    assert project.annotations(ids[1])[0] == ann()
    assert project.labels.names == ("B-NP", "I-NP", "B-VP")
    for name in ("I-NP", "B-VP"):
        project.label_set.remove_label(name, force=True)
    with pytest.raises(LabelError, match="last label"):
        project.label_set.remove_label("B-NP", force=True)
    path = project.path
    project.close()
    with Project.open(path) as p:
        assert p.labels.names == ("B-NP",)
        check_cached_counts(p)


# ----------------------------------------------------------------------
# models


def test_models_round_trip_bytes_and_metadata(project):
    blob = os.urandom(300_000) + b"\x00" * 10
    first = project.stored.add_model(
        "crf",
        {"c2": 0.1, "max_iter": np.int64(5)},
        {"f1": np.float64(0.93), "per_label": np.array([0.5, 1.0])},
        blob,
        note="baseline",
    )
    second = project.stored.add_model("mvhmp", {}, {}, b"")
    records = project.stored.models()
    assert [r.id for r in records] == [first, second]
    assert records[0].learner == "crf" and records[0].note == "baseline"
    assert records[0].params == {"c2": 0.1, "max_iter": 5}
    assert records[0].metrics == {"f1": 0.93, "per_label": [0.5, 1.0]}
    assert records[0].size == len(blob) and records[0].created > 0
    assert project.stored.model_data(first) == blob
    assert project.stored.model_data(second) == b""
    project.stored.delete_model(second)
    with pytest.raises(NotFoundError):
        project.stored.model_data(second)
    with pytest.raises(NotFoundError):
        project.stored.delete_model(second)
    with pytest.raises(ProjectError):
        project.stored.add_model("x", {"bad": object()}, {}, b"")
    assert project.stored.add_model("next", {}, {}, b"1") > second  # ids are never reused
    path = project.path
    project.close()
    with Project.open(path) as p:
        assert p.stored.model_data(first) == blob


# ----------------------------------------------------------------------
# read-only, closed, threads


def test_readonly_project_refuses_every_edit_and_keeps_file_bytes(project):
    path = project.path
    model_id = project.stored.add_model("crf", {}, {}, b"abc")
    project.close()
    before = digest(path)
    with Project.open(path, readonly=True) as p:
        assert p.readonly
        sid = p.sentence_ids()[0]
        edits = [
            lambda: p.set_annotation(sid, 0, ["O"]),
            lambda: p.set_annotations(sid, {0: ["O"]}),
            lambda: p.imports.import_corpus(plain_corpus(1, 2)),
            lambda: p.imports.import_annotations(p.corpus()),
            lambda: p.label_set.add_label("X"),
            lambda: p.label_set.rename_label("O", "X"),
            lambda: p.label_set.remove_label("O", force=True),
            lambda: p.label_set.set_label_info("O", color="#000000"),
            lambda: p.stored.add_model("x", {}, {}, b""),
            lambda: p.stored.delete_model(model_id),
        ]
        for edit in edits:
            with pytest.raises(ProjectError, match="read-only"):
                edit()
        assert p.corpus() == sample_corpus()
        assert p.stored.model_data(model_id) == b"abc"
    assert digest(path) == before


def test_closed_project_raises_and_context_manager_closes(tmp_path):
    with Project.create(tmp_path / "c.tagproj", sample_corpus()) as p:
        pass
    assert p.closed
    with pytest.raises(ProjectError, match="closed"):
        p.sentence_ids()
    with pytest.raises(ProjectError, match="closed"):
        p.set_annotation(1, 0, ["O"])
    p.close()  # idempotent


def test_project_belongs_to_its_thread(project):
    errors = []

    def other_thread():
        try:
            project.sentence_ids()
        except sqlite3.ProgrammingError as e:
            errors.append(e)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert len(errors) == 1


def test_edit_while_another_program_holds_the_write_lock_fails_cleanly(project):
    project._db.execute("PRAGMA busy_timeout = 50")
    sid = project.sentence_ids()[0]
    other = sqlite3.connect(project.path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(ProjectError, match="cannot be changed now"):
            project.set_annotation(sid, 2, ["O"])
    finally:
        other.execute("ROLLBACK")
        other.close()
    project.set_annotation(sid, 2, ["O"])
    assert project.annotations(sid)[2] == ann("O")

"""The project's listing queries for big projects: ids by filter and order,
rows by id, the next sentence, the whole snapshot, and the indexes they use."""

from __future__ import annotations

import pytest

from tagtool.core import Corpus, Document, Sentence
from tagtool.store.corpus_reads import CHECKPOINT_EVERY
from tagtool.store.project import Project
from tagtool.store.record_types import NotFoundError
from tests.store.project_samples import LABELS, ann, plain_corpus, sample_corpus, write_v1_project


@pytest.fixture
def mixed(tmp_path):
    """60 sentences in three documents, of lengths 1..5: full, partial and none mixed."""
    docs = []
    for d in range(3):
        sentences = []
        for i in range(20):
            n = 1 + (i * 7 + d) % 5
            tokens = tuple(f"d{d}s{i}t{t}" for t in range(n))
            kind = (i + d) % 3
            if kind == 0:
                anns = (ann("O"),) * n
            elif kind == 1:
                anns = (ann("O", "B-NP"),) + (ann(),) * (n - 1)
            else:
                anns = (ann(),) * n
            sentences.append(Sentence(tokens, anns))
        docs.append(Document(f"doc{d}", sentences))
    with Project.create(tmp_path / "mixed.tagproj", Corpus(LABELS, docs)) as project:
        yield project


def expected_ids(project, keep=lambda s: True, key=None, descending=False):
    """The same listing computed in Python from the whole corpus."""
    ids = project.sentence_ids()
    rows = [(sid, s) for sid, s in zip(ids, project.corpus()) if keep(s)]
    if key is not None:
        rows.sort(key=lambda r: key(r[1]), reverse=descending)  # stable: ties in document order
    elif descending:
        rows.reverse()
    return [sid for sid, _ in rows]


def test_sentence_ids_filter_like_the_summaries(mixed):
    for status in ("full", "partial", "none", "incomplete"):
        assert mixed.sentence_ids(status=status) == [s.id for s in mixed.listing.sentence_summaries(status=status)]
    assert mixed.sentence_ids(status="partial") == expected_ids(mixed, lambda s: s.status == "partial")
    assert mixed.sentence_ids(search="S1T") == expected_ids(mixed, lambda s: "s1t" in " ".join(s.tokens))
    doc1 = mixed.documents()[1].id
    assert mixed.sentence_ids(doc1) == mixed.sentence_ids()[20:40]
    assert mixed.sentence_ids(doc1, status="full") == [
        sid for sid in mixed.sentence_ids(status="full") if sid in set(mixed.sentence_ids(doc1))
    ]


@pytest.mark.parametrize("descending", [False, True])
def test_sentence_ids_sorted_with_ties_in_document_order(mixed, descending):
    rank = {"none": 0, "partial": 1, "full": 2}
    assert mixed.sentence_ids(descending=descending) == expected_ids(mixed, descending=descending)
    assert mixed.sentence_ids(order_by="status", descending=descending) == expected_ids(
        mixed, key=lambda s: rank[s.status], descending=descending
    )
    assert mixed.sentence_ids(order_by="length", status="incomplete", descending=descending) == expected_ids(
        mixed, lambda s: s.status != "full", key=len, descending=descending
    )
    assert mixed.sentence_ids(order_by="text", descending=descending) == expected_ids(
        mixed, key=lambda s: " ".join(s.tokens).lower(), descending=descending
    )
    with pytest.raises(ValueError, match="order_by"):
        mixed.sentence_ids(order_by="informativeness")


def test_summaries_by_id_keep_the_order_asked_and_refuse_unknown_ids(mixed):
    ids = mixed.sentence_ids()
    wanted = [ids[-1], ids[0], ids[30]]
    rows = mixed.listing.sentence_summaries_by_id(wanted)
    assert [r.id for r in rows] == wanted
    all_rows = {r.id: r for r in mixed.listing.sentence_summaries()}
    assert rows == [all_rows[i] for i in wanted]
    assert mixed.listing.sentence_summaries_by_id([]) == []
    assert mixed.listing.sentence_summaries_by_id([ids[0]], preview_chars=3)[0].preview == "d0s"
    with pytest.raises(NotFoundError, match="no sentence with id 9999"):
        mixed.listing.sentence_summaries_by_id([ids[0], 9999])


def test_next_sentence_goes_forward_and_wraps(mixed):
    ids = mixed.sentence_ids()
    incomplete = mixed.sentence_ids(status="incomplete")
    for sid in ids:
        later = [i for i in incomplete if ids.index(i) > ids.index(sid)]
        others = [i for i in incomplete if i != sid]
        assert mixed.listing.next_sentence(sid, status="incomplete") == (later or others)[0]
    assert mixed.listing.next_sentence() == ids[0]
    assert mixed.listing.next_sentence(ids[-1]) == ids[0]
    assert mixed.listing.next_sentence(ids[5], search="d2s19") == ids[-1]
    only = mixed.sentence_ids(search="d1s3t")
    assert len(only) == 1 and mixed.listing.next_sentence(only[0], search="d1s3t") is None
    with pytest.raises(NotFoundError):
        mixed.listing.next_sentence(9999)


def test_snapshot_is_the_corpus_in_document_order(tmp_path):
    corpus = sample_corpus()
    with Project.create(tmp_path / "s.tagproj", corpus) as project:
        ids, sentences = project.snapshot()
        assert ids == project.sentence_ids()
        assert sentences == list(corpus)
        project.set_annotation(ids[1], 3, ["O", "I-NP"])
        assert project.snapshot()[1][1].annotations[3] == {"O", "I-NP"}


def test_snapshot_checkpoint_is_called_and_can_stop(tmp_path):
    with Project.create(tmp_path / "p.tagproj", plain_corpus(3 * CHECKPOINT_EVERY + 5, 2)) as project:
        calls = []
        ids, sentences = project.snapshot(lambda: calls.append(1) and False)
        assert len(sentences) == len(ids) == 3 * CHECKPOINT_EVERY + 5
        assert len(calls) == 4
        with pytest.raises(InterruptedError):
            project.snapshot(lambda: len(calls) > 5 or bool(calls.append(1)))
        assert not project._db.in_transaction


def test_snapshot_of_an_old_file_opened_read_only(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    with Project.open(path, readonly=True) as project:
        assert project.snapshot()[1] == list(sample_corpus())


def plan(project, sql, params=()):
    return " / ".join(row[3] for row in project._db.execute("EXPLAIN QUERY PLAN " + sql, params))


def test_listing_queries_use_indexes(mixed, monkeypatch):
    """No listing query reads the sentences table row by row: ids come from the
    covering index of the list, rows by primary key."""
    seen = []
    real = mixed._db

    class Recorder:
        def execute(self, sql, params=()):
            seen.append((sql, params))
            return real.execute(sql, params)

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(mixed.db, "_conn", Recorder())
    ids = mixed.sentence_ids(status="incomplete")
    mixed.listing.count_sentences(status="partial")
    mixed.listing.sentence_summaries_by_id(ids[:5])
    mixed.listing.next_sentence(ids[3], status="none")
    monkeypatch.undo()
    assert seen
    for sql, params in seen:
        text = plan(mixed, sql, params)
        assert "SCAN s " not in text + " " and "SCAN sentences" not in text, (sql, text)
        assert "TEMP B-TREE" not in text, (sql, text)  # document order comes from the indexes
        assert "sentences_list" in text or "PRIMARY KEY" in text, (sql, text)

"""Flags for review with a comment, skipped sentences (schema 6): store, filters, training, export, migration."""

from __future__ import annotations

import sqlite3

import pytest
from project_samples import LABELS, ann, sample_corpus, write_v1_project

from tagtool.core import Corpus, Document, Sentence
from tagtool.errors import ProjectError
from tagtool.store import schema
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.project import Project
from tagtool.store.record_types import NotFoundError
from tagtool.store.review import NOTHING, Review, for_training


def writable_corpus() -> Corpus:
    """:func:`sample_corpus` with a second sentence every format can write (no tab inside a token)."""
    first, second = sample_corpus().documents
    plain = Sentence(("Hello", "world"), (ann(), ann()), {"pos": ("UH", "NN")})
    return Corpus(LABELS, (Document(first.name, (first.sentences[0], plain)), second))


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", writable_corpus()) as p:
        yield p


def test_flag_with_a_comment_unflag_and_skip_are_kept_apart(project, tmp_path):
    first, second, third, _ = project.sentence_ids()
    project.review.flag(first, "is *pound* a\ncurrency   here?")
    project.review.set_skipped(second)
    project.review.flag(second, "")
    assert project.review.get(first) == Review(True, "is *pound* a currency here?", False)
    assert project.review.get(second) == Review(True, "", True)
    assert project.review.get(third) == NOTHING
    project.review.flag(first, "a new comment replaces the old")
    project.review.set_skipped(second, False)
    project.review.unflag(second)
    assert project.review.all() == {first: Review(True, "a new comment replaces the old")}
    project.review.unflag(first)
    assert project.review.all() == {}
    with pytest.raises(NotFoundError):
        project.review.flag(999, "x")
    project.review.set_skipped(third)
    project.close()
    with Project.open(tmp_path / "p.tagproj", readonly=True) as again:  # committed, read by a fresh connection
        assert again.review.all() == {third: Review(skipped=True)}
        with pytest.raises(ProjectError, match="read-only"):
            again.review.flag(third, "x")


def test_status_filters_flagged_skipped_and_open(project):
    ids = project.sentence_ids()
    statuses = [project.sentence(i).status for i in ids]
    assert statuses == ["partial", "none", "full", "partial"]
    project.review.flag(ids[3], "check")
    project.review.set_skipped(ids[1])
    assert project.sentence_ids(status="flagged") == [ids[3]]
    assert project.sentence_ids(status="skipped") == [ids[1]]
    assert project.sentence_ids(status="open") == [ids[0], ids[3]]  # not full, not skipped
    assert project.listing.count_sentences(status=["flagged", "skipped"]) == 2
    # J's fallback in document order: the next open sentence, around the end, past the skipped one
    assert project.listing.next_sentence(ids[0], status="open") == ids[3]
    assert project.listing.next_sentence(ids[3], status="open") == ids[0]
    # a sentence deleted with its document takes its review row with it (ON DELETE CASCADE)
    conn = project._db
    conn.execute("DELETE FROM sentences WHERE id = ?", (ids[1],))
    assert project.review.all() == {ids[3]: Review(True, "check")}


def test_skipped_sentences_train_as_unlabeled_text(project):
    ids = project.sentence_ids()
    project.review.set_skipped(ids[0])
    training = list(project.review.training_corpus())
    assert training[0].annotations == (frozenset(),) * 4 and training[0].tokens == project.sentence(ids[0]).tokens
    assert training[1:] == list(project.corpus())[1:]
    assert project.annotations(ids[0])[0] == ann("B-NP"), "the project keeps the skipped sentence's labels"
    sentences = list(project.corpus())
    assert for_training(ids, sentences, [ids[3]])[3].status == "none"
    assert for_training(ids, sentences, []) == tuple(sentences)


@pytest.mark.parametrize("suffix", [".conllu", ".jsonl"])
def test_flags_and_skips_go_out_with_an_export_and_come_back_with_an_import(project, tmp_path, suffix):
    ids = project.sentence_ids()
    project.review.flag(ids[0], "boundary of the NP?")
    project.review.set_skipped(ids[2])
    project.review.flag(ids[3], "")
    out = tmp_path / f"out{suffix}"
    write_corpus(project.review.export_corpus(), out)
    text = out.read_text()
    if suffix == ".conllu":
        assert "# tagtool:flag = boundary of the NP?" in text and "# tagtool:skipped = yes" in text
    corpus = read_corpus(out)
    with Project.create(tmp_path / f"back{suffix}.tagproj", corpus) as back:
        new = back.sentence_ids()
        assert back.review.all() == {
            new[0]: Review(True, "boundary of the NP?"),
            new[2]: Review(skipped=True),
            new[3]: Review(True, ""),
        }
        # the keys became flags: they are not sentence attributes any more
        assert all("tagtool:flag" not in s.meta and "tagtool:skipped" not in s.meta for s in back.corpus())
        assert [s.tokens for s in back.corpus()] == [s.tokens for s in project.corpus()]
        assert [s.annotations for s in back.corpus()] == [s.annotations for s in project.corpus()]
        imported = back.imports.import_corpus(corpus)
        assert back.review.get(imported[0]) == Review(True, "boundary of the NP?")


def test_plain_column_export_has_no_review_lines(project, tmp_path):
    project.review.flag(project.sentence_ids()[0], "x")
    out = tmp_path / "out.conll"
    write_corpus(project.review.export_corpus(), out)
    assert "tagtool" not in out.read_text()


def test_an_older_file_is_migrated_to_hold_reviews(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    with Project.open(path) as p:
        assert p.migrated_from == 1 and p.schema_version == schema.CURRENT_VERSION
        assert p.review.all() == {}
        sid = p.sentence_ids()[0]
        p.review.flag(sid, "after the migration")
    with Project.open(path) as p:
        assert p.review.get(sid) == Review(True, "after the migration")
    # a version-5 file (the last before reviews) gains the table, empty
    v5 = tmp_path / "v5.tagproj"
    conn = sqlite3.connect(v5, isolation_level=None)
    conn.execute("BEGIN")
    schema.create_schema(conn, version=5)
    conn.execute("INSERT INTO meta (key, value) VALUES ('name', 'v5')")
    conn.execute("INSERT INTO labels (name, position, color) VALUES ('O', 0, '#aabbcc')")
    conn.execute("COMMIT")
    conn.close()
    with Project.open(v5) as p:
        assert p.migrated_from == 5 and p.review.all() == {}
    conn = sqlite3.connect(v5)
    assert conn.execute("SELECT count(*) FROM sentence_review").fetchone() == (0,)
    conn.close()


def test_the_table_refuses_a_row_that_says_nothing(project):
    with pytest.raises(sqlite3.IntegrityError):
        project._db.execute(
            "INSERT INTO sentence_review (sentence_id, flagged, skipped, annotator, time) VALUES (1, 0, 0, 'x', 0)"
        )

"""The trigram search index: same answers as the scan, kept in step with every
change of a sentence, and a scan where this SQLite cannot use it."""

from __future__ import annotations

import logging
import sqlite3
from contextlib import contextmanager
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from project_samples import LABELS, ann
from search_samples import (
    TRICKY,
    expected_search,
    index_in_step,
    index_objects,
    tricky_corpus,
    tricky_sentences,
)

from tagtool.core import Corpus, Document, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError
from tagtool.store import search_index
from tagtool.store.project import Project

ALL_OBJECTS = {search_index.TABLE, *search_index.TRIGGERS}


@contextmanager
def plan(project: Project, how: str):
    """Make the project's searches use the index ("index"), scan ("scan"), or choose ("auto")."""
    if how == "scan":
        with mock.patch.object(project.listing, "search_index", False):
            yield
    elif how == "index":  # every search of 3 characters or more goes through the index
        with mock.patch.object(search_index, "INDEX_SHARE", 2.0):
            yield
    else:
        yield


@pytest.fixture(scope="module")
def tricky(tmp_path_factory):
    path = tmp_path_factory.mktemp("search") / "tricky.tagproj"
    with Project.create(path, tricky_corpus()) as project:
        yield project


# ----------------------------------------------------------------------
# the same answers as the scan


SPECIAL_SEARCHES = [
    "the",
    "THE",
    "pound",
    "the pound",
    "50 %",
    "%",
    "_",
    "a_b",
    "a%b",
    "\\",
    "back\\slash",
    "'",
    '"',
    "don't",
    '"quote"',
    "Ñandú",
    "ñandú",
    "ÑAND",
    "École",
    "école",
    "ÉCOLE",
    "\u212aelvin",
    "kelvin",
    "KELVIN",
    "ſ",
    "ss",
    "ß",
    "İ",
    "😀",
    "e",
    "ee",
    "eee",
    " ",
    "  ",
    "a b",
    "%%%",
    "___",
    "\\\\",
    "zzz",
]


@pytest.mark.parametrize("how", ["auto", "index", "scan"])
def test_special_searches_find_what_a_substring_test_finds(tricky, how):
    assert search_index.ready(tricky._db) and tricky.listing.search_index
    with plan(tricky, how):
        for search in SPECIAL_SEARCHES:
            expected = expected_search(tricky, search)
            assert tricky.sentence_ids(search=search) == expected, search
            assert tricky.listing.count_sentences(search=search) == len(expected), search
            assert [s.id for s in tricky.listing.sentence_summaries(search=search)] == expected, search
    with plan(tricky, how):  # the non-ASCII case rule, as LIKE had it
        assert tricky.sentence_ids(search="ñandú") != tricky.sentence_ids(search="Ñandú")
        assert tricky.sentence_ids(search="the pound") == tricky.sentence_ids(search="THE POUND")


def _substrings(texts: list[str]):
    """A piece of one of the texts, its ASCII letters' case maybe swapped."""
    return st.tuples(st.sampled_from(texts), st.integers(0, 40), st.integers(1, 12), st.booleans()).map(
        lambda t: (lambda piece: piece.swapcase() if t[3] else piece)(t[0][t[1] % len(t[0]) :][: t[2]])
    )


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_search_finds_what_a_substring_test_finds(tricky, data):
    """Property: index, scan and automatic plan all return the Python answer."""
    texts = [s.preview for s in tricky.listing.sentence_summaries(preview_chars=10_000)]
    search = data.draw(st.one_of(st.text(TRICKY, min_size=1, max_size=8), _substrings(texts)), label="search")
    expected = expected_search(tricky, search)
    for how in ("auto", "index", "scan"):
        with plan(tricky, how):
            assert tricky.sentence_ids(search=search) == expected, (how, search)


def test_searches_combine_with_filters_order_and_next(tricky):
    first = tricky.documents()[1].id
    with plan(tricky, "index"):
        ids = tricky.sentence_ids(search="the")
        assert ids and tricky.sentence_ids(first, search="the") == [
            sid for sid in ids if tricky.listing.sentence_summaries_by_id([sid])[0].document_id == first
        ]
        by_length = tricky.sentence_ids(search="the", order_by="length", descending=True)
        assert sorted(by_length) == sorted(ids)
        lengths = [s.n_tokens for s in tricky.listing.sentence_summaries_by_id(by_length)]
        assert lengths == sorted(lengths, reverse=True)
        assert tricky.listing.next_sentence(ids[0], search="the") == ids[1]
        assert tricky.listing.next_sentence(ids[-1], search="the") == ids[0]  # wraps
        assert tricky.sentence_ids(status="full", search="the") == []


def test_the_index_answers_rare_searches_and_the_scan_common_ones(tmp_path):
    sentences = [Sentence(("the", "cat", f"n{i:04d}")) for i in range(200)] + [Sentence(("a", "pound"))]
    with Project.create(tmp_path / "p.tagproj", Corpus(LABELS, (Document("d", sentences),))) as project:
        conn = project._db
        assert search_index.use_index(conn, True, "pound")
        assert not search_index.use_index(conn, True, "the cat"), "every sentence is a candidate"
        assert not search_index.use_index(conn, True, "po"), "too short for a trigram"
        assert not search_index.use_index(conn, False, "pound"), "no index ready"
        source, where, params = project.listing.summary_filter(None, "pound", None)
        assert source == search_index.INDEXED_SENTENCES
        steps = " / ".join(r[3] for r in conn.execute(f"EXPLAIN QUERY PLAN SELECT s.id {source} {where}", params))
        assert steps.startswith("SCAN sentences_fts VIRTUAL TABLE") and "PRIMARY KEY" in steps, steps


def test_a_long_search_asks_for_at_most_a_few_trigrams():
    query = search_index.match_query("abcdefghijklmnopqrstuvwxyz0123456789")  # 34 trigrams
    assert query.count(" AND ") == search_index.MAX_TRIGRAMS - 1
    assert query.startswith('"abc"') and query.endswith('"789"')
    assert search_index.match_query("abcabcabc") == '"abc" AND "bca" AND "cab"', "each trigram once"
    assert search_index.match_query('a"b"') == '"a""b" AND """b"""'


# ----------------------------------------------------------------------
# kept in step with every change of a sentence


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", tricky_corpus(60, seed=3)) as p:
        yield p


def found(project: Project, search: str) -> list[int]:
    with plan(project, "index"):
        return project.sentence_ids(search=search)


def test_a_new_project_has_its_index(project):
    assert index_objects(project._db) == ALL_OBJECTS
    assert search_index.ready(project._db) and index_in_step(project._db)


def test_imported_sentences_are_indexed_and_the_trigger_stays(project):
    new = project.imports.import_corpus(Corpus(LABELS, (Document("more", [Sentence(("quokka", "jumps"))] * 3),)))
    assert index_in_step(project._db)
    assert found(project, "quokka") == new
    assert "sentences_fts_insert" in index_objects(project._db)
    project._db.execute(
        "INSERT INTO sentences (document_id, position, n_tokens, tokens, text) "
        "VALUES (?, 99, 1, '[\"wombat\"]', 'wombat')",
        (project.documents()[0].id,),
    )
    assert index_in_step(project._db) and len(found(project, "wombat")) == 1, "an insert by plain SQL"


def test_a_failed_import_leaves_index_and_trigger_as_they_were(project):
    before = found(project, "%")
    labels = LabelSet([*LABELS.names, "NOPE"])
    bad = Corpus(labels, (Document("bad", [Sentence(("quokka",)), Sentence(("x",), (frozenset({"NOPE"}),))]),))
    with pytest.raises(LabelError):
        project.imports.import_corpus(bad)
    assert index_objects(project._db) == ALL_OBJECTS and index_in_step(project._db)
    assert found(project, "quokka") == [] and found(project, "%") == before


def test_a_changed_text_is_found_by_its_new_text_only(project):
    """What a split or merge of tokens does to a sentence row, by plain SQL."""
    sid = project.sentence_ids()[5]
    project._db.execute(
        "UPDATE sentences SET tokens = '[\"platypus\",\"swims\"]', text = 'platypus swims', n_tokens = 2 WHERE id = ?",
        (sid,),
    )
    assert index_in_step(project._db)
    assert found(project, "platypus") == [sid] and found(project, "swims") == [sid]
    project._db.execute("UPDATE sentences SET text = 'echidna' WHERE id = ?", (sid,))
    assert index_in_step(project._db) and found(project, "platypus") == [] and found(project, "echidna") == [sid]


def test_label_edits_leave_the_index_alone(project):
    sid = project.sentence_ids()[0]
    index_data = "SELECT count(*), sum(length(block)) FROM sentences_fts_data"
    before = project._db.execute(index_data).fetchone()
    project.set_annotation(sid, 0, ["B-NP"])  # updates the sentence's counts, not its text
    assert project.annotations(sid)[0] == ann("B-NP")
    assert project._db.execute(index_data).fetchone() == before and index_in_step(project._db)


def test_deleted_sentences_leave_the_index(project):
    doc = project.documents()[0]
    gone = set(project.sentence_ids(doc.id))
    project._db.execute("DELETE FROM documents WHERE id = ?", (doc.id,))  # sentences go by cascade
    assert index_in_step(project._db)
    rows = {
        r
        for (r,) in project._db.execute(
            "SELECT rowid FROM sentences_fts WHERE sentences_fts MATCH ?", (search_index.match_query("the"),)
        )
    }
    assert not rows & gone
    assert set(found(project, "%")).isdisjoint(gone)


# ----------------------------------------------------------------------
# where this SQLite cannot use the index


def test_without_fts5_the_project_has_no_index_and_scans(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(search_index, "available", lambda: False)
    path = tmp_path / "plain.tagproj"
    with caplog.at_level(logging.WARNING):
        project = Project.create(path, tricky_corpus(40, seed=5))
    with project:
        assert "no FTS5 trigram tokenizer" in caplog.text and "searching scans the text" in caplog.text
        assert index_objects(project._db) == set() and not project.listing.search_index
        for search in ("the", "%", "Ñandú", "e"):
            assert project.sentence_ids(search=search) == expected_search(project, search)
        project.imports.import_corpus(Corpus(LABELS, (Document("more", [Sentence(("quokka",))]),)))
    monkeypatch.undo()
    with Project.open(path) as project:  # an SQLite with FTS5: the index is built at opening
        assert index_objects(project._db) == ALL_OBJECTS and project.listing.search_index
        assert index_in_step(project._db) and len(found(project, "quokka")) == 1


def _break_tokenizer(path, tokenizer: str) -> None:
    """Make the file's index need a tokenizer this SQLite lacks (or give it back)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA writable_schema = ON")
    current = "trigram" if tokenizer != "trigram" else "no_such_tokenizer"
    conn.execute(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = 'sentences_fts'",
        (f"'{current}'", f"'{tokenizer}'"),
    )
    conn.execute("PRAGMA writable_schema = OFF")
    conn.close()


def test_an_index_this_sqlite_cannot_use_loses_its_triggers_and_is_rebuilt_later(tmp_path, caplog):
    path = tmp_path / "p.tagproj"
    Project.create(path, tricky_corpus(40, seed=6)).close()
    _break_tokenizer(path, "no_such_tokenizer")
    conn = sqlite3.connect(path)
    with pytest.raises(sqlite3.OperationalError, match="no such tokenizer"):  # what the triggers would do
        conn.execute("UPDATE sentences SET text = 'x' WHERE id = 1")
    conn.close()
    with caplog.at_level(logging.WARNING), Project.open(path) as project:
        assert "cannot use the project's search index" in caplog.text
        assert index_objects(project._db) == {search_index.TABLE} and not project.listing.search_index
        new = project.imports.import_corpus(Corpus(LABELS, (Document("more", [Sentence(("quokka",))]),)))
        project.set_annotation(new[0], 0, ["O"])
        assert project.sentence_ids(search="quokka") == new
        assert project.sentence_ids(search="the") == expected_search(project, "the")
    _break_tokenizer(path, "trigram")  # an SQLite that has it again
    with Project.open(path) as project:
        assert index_objects(project._db) == ALL_OBJECTS and project.listing.search_index
        assert index_in_step(project._db)
        assert found(project, "quokka") == new


def test_read_only_with_an_unusable_index_scans_and_changes_nothing(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, tricky_corpus(40, seed=7)).close()
    _break_tokenizer(path, "no_such_tokenizer")
    before = path.read_bytes()
    with Project.open(path, readonly=True) as project:
        assert not project.listing.search_index
        assert project.sentence_ids(search="the") == expected_search(project, "the")
    assert path.read_bytes() == before


def test_tricky_sentences_are_stored_as_written():
    """The generator's tokens are valid sentences (no spaces inside, none empty)."""
    for sentence in tricky_sentences(50):
        assert all(token and " " not in token for token in sentence.tokens)


# ----------------------------------------------------------------------
# text as written


def _project_of(tmp_path, sentences: list[list[str]]) -> Project:
    from tagtool.core import Corpus, Document, Sentence

    corpus = Corpus(LABELS, (Document("doc", tuple(Sentence(tuple(tokens)) for tokens in sentences)),))
    return Project.create(tmp_path / "written.tagproj", corpus)


@pytest.mark.parametrize("how", ["auto", "index", "scan"])
def test_text_as_written_finds_its_tokens(tmp_path, how):
    with (
        _project_of(
            tmp_path,
            [
                ["We", "ate", "at", "Hot", "Pot", ",", "which", "was", "fine", "."],
                ["They", "do", "n't", "like", "U.S.", "food", "."],
                ["Hot", "Pot", "closed", "."],
            ],
        ) as project,
        plan(project, how),
    ):
        first, second, third = project.sentence_ids()
        assert project.sentence_ids(search="Hot Pot, which") == [first]
        assert project.sentence_ids(search="Hot Pot , which") == [first]  # the tokens as they are
        assert project.sentence_ids(search="hot pot, WHICH") == [first]
        assert project.sentence_ids(search="don't like") == [second]
        assert project.sentence_ids(search="Pot.") == []  # neither "Pot." nor "Pot ." is there
        assert project.sentence_ids(search="closed.") == [third]
        assert project.listing.count_sentences(search="fine.") == 1
        assert project.listing.next_sentence(None, search="Hot Pot, which") == first


def test_search_forms():
    assert search_index.search_forms("Hot Pot, which") == ["Hot Pot, which", "Hot Pot , which"]
    assert search_index.search_forms("Hot Pot , which") == ["Hot Pot , which"]
    assert search_index.search_forms("  ") == ["  "]

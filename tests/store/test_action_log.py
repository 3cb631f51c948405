"""The action log (schema version 5): rows written with their edit, read back, migrated into old files."""

from __future__ import annotations

import sqlite3

import pytest
from project_samples import ann, plain_corpus, sample_corpus, write_v1_project

from tagtool.errors import LabelError
from tagtool.store import schema
from tagtool.store.actions import Action, undone_ids
from tagtool.store.project import Project
from tagtool.store.record_types import NotFoundError


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", plain_corpus(5, 4)) as p:
        yield p


def test_an_edit_and_its_action_are_written_together(project):
    sid = project.sentence_ids()[1]
    action = Action("full", 2, 100.0, 103.5, 3.5)
    action_id = project.apply_action(sid, {0: "B-NP", 1: "I-NP"}, action, annotator="ann1")
    assert project.annotations(sid)[:2] == (ann("B-NP"), ann("I-NP"))
    (row,) = project.actions()
    assert row.id == action_id and (row.kind, row.sentence_id, row.n_tokens) == ("full", sid, 2)
    assert (row.started, row.ended, row.active, row.annotator, row.ref) == (100.0, 103.5, 3.5, "ann1", None)
    assert [e.annotator for e in project.annotation_history()] == ["ann1", "ann1"]


def test_an_edit_that_changes_nothing_logs_no_action(project):
    sid = project.sentence_ids()[0]
    project.set_annotation(sid, 0, "O")
    assert project.apply_action(sid, {0: "O"}, Action("full", 1, 0.0, 1.0, 1.0)) is None
    assert project.actions() == []


@pytest.mark.parametrize("changes, error", [({9: "O"}, NotFoundError), ({0: "NOPE"}, LabelError)])
def test_a_refused_edit_leaves_no_action(project, changes, error):
    with pytest.raises(error):
        project.apply_action(project.sentence_ids()[0], changes, Action("full", 1, 0.0, 1.0, 1.0))
    assert project.actions() == [] and project.annotation_history() == []


def test_a_failing_action_row_rolls_the_edit_back(project, monkeypatch):
    from tagtool.store import actions

    def broken(conn, action, sentence_id, annotator):
        conn.execute("INSERT INTO actions (kind) VALUES ('full')")  # NOT NULL columns missing

    monkeypatch.setattr(actions, "insert", broken)
    sid = project.sentence_ids()[0]
    with pytest.raises(Exception, match="could not be saved"):
        project.apply_action(sid, {0: "O"}, Action("full", 1, 0.0, 1.0, 1.0))
    assert project.annotations(sid)[0] == frozenset() and project.annotation_history() == []


@pytest.mark.parametrize(
    "action, message",
    [
        (Action("typing", 1, 0.0, 1.0, 1.0), "unknown action kind"),
        (Action("full", -1, 0.0, 1.0, 1.0), "0 tokens or more"),
        (Action("full", 1, 2.0, 1.0, 1.0), "ended >= started"),
        (Action("full", 1, 0.0, float("nan"), 1.0), "finite"),
        (Action("undo", 1, 0.0, 1.0, 1.0), "needs ref"),
        (Action("full", 1, 0.0, 1.0, 1.0, ref=3), "has no ref"),
    ],
)
def test_malformed_actions_are_refused_before_anything_is_written(project, action, message):
    with pytest.raises(ValueError, match=message):
        project.apply_action(project.sentence_ids()[0], {0: "O"}, action)
    with pytest.raises(ValueError, match=message):
        project.log_action(action)
    assert project.actions() == [] and project.annotations(project.sentence_ids()[0])[0] == frozenset()


def test_skips_undos_and_the_filters(project):
    s1, s2 = project.sentence_ids()[:2]
    first = project.apply_action(s1, {0: "O"}, Action("full", 1, 10.0, 12.0, 2.0), "a")
    project.log_action(Action("skip", 3, 12.0, 13.0, 1.0), s1, "a")
    undo = project.apply_action(s1, {0: "_"}, Action("undo", 1, 13.0, 20.0, 7.0, ref=first), "b")
    project.apply_action(s2, {1: "O|B-NP"}, Action("candidate", 1, 20.0, 21.0, 1.0), "b")
    assert [a.kind for a in project.actions()] == ["full", "skip", "undo", "candidate"]
    assert [a.kind for a in project.actions(kinds=["skip", "candidate"])] == ["skip", "candidate"]
    assert [a.kind for a in project.actions(since=13.0)] == ["skip", "undo", "candidate"]
    assert [a.kind for a in project.actions(annotator="b")] == ["undo", "candidate"]
    assert [a.kind for a in project.actions(after_id=first + 1)] == ["undo", "candidate"]
    records = project.actions()
    assert records[2].id == undo and records[2].ref == first
    assert undone_ids(records) == {first}
    redo = project.apply_action(s1, {0: "O"}, Action("redo", 1, 21.0, 22.0, 1.0, ref=first))
    assert undone_ids(project.actions()) == set() and redo > undo
    with pytest.raises(NotFoundError):
        project.log_action(Action("skip", 1, 0.0, 1.0, 1.0), 999)


def test_the_log_keeps_its_time_when_a_sentence_is_removed(project):
    sid = project.sentence_ids()[0]
    project.apply_action(sid, {0: "O"}, Action("full", 1, 0.0, 1.0, 1.0))
    conn = project._db
    conn.execute("DELETE FROM sentences WHERE id = ?", (sid,))  # as a merge of two sentences would
    (row,) = project.actions()
    assert row.sentence_id is None and row.active == 1.0


def test_a_readonly_project_refuses_actions(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, plain_corpus(2, 2)).close()
    with Project.open(path, readonly=True) as p:
        with pytest.raises(Exception, match="read-only"):
            p.log_action(Action("skip", 1, 0.0, 1.0, 1.0))
        assert p.actions() == []


# ----------------------------------------------------------------------
# migration


def test_a_v1_file_gains_an_empty_action_log_and_a_backup(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    with Project.open(path) as p:
        assert p.migrated_from == 1 and p.schema_version == schema.CURRENT_VERSION
        assert p.backup_path == tmp_path / "old.tagproj.bak-v1" and p.backup_path.exists()
        assert p.actions() == []
        sid = p.sentence_ids()[1]
        p.apply_action(sid, {0: "O"}, Action("full", 1, 1.0, 2.0, 1.0))
    with Project.open(path) as p:
        assert [a.kind for a in p.actions()] == ["full"]
    backup = sqlite3.connect(tmp_path / "old.tagproj.bak-v1")
    tables = {r[0] for r in backup.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    backup.close()
    assert "actions" not in tables, "the backup is the file as it was"


def test_a_v4_file_is_migrated_to_the_action_log(tmp_path):
    path = tmp_path / "v4.tagproj"
    Project.create(path, sample_corpus()).close()
    conn = sqlite3.connect(path)  # turn it back into version 4 by hand
    with conn:
        conn.execute("DROP TABLE actions")
        conn.execute("DROP TABLE sentence_review")  # version 6's table, after the log
        for trigger in ("sentences_fts_insert", "sentences_fts_delete", "sentences_fts_update"):
            conn.execute(f"DROP TRIGGER {trigger}")  # version 7's search index
        conn.execute("DROP TABLE sentences_fts")
        conn.execute("DROP TABLE adjudicated")  # version 8's
        conn.execute("DROP TABLE resources")  # version 9's
        schema.set_version(conn, 4)
    conn.close()
    with Project.open(path) as p:
        assert p.migrated_from == 4 and p.backup_path.name == "v4.tagproj.bak-v4"
        assert p.corpus() == sample_corpus() and p.actions() == []
    fresh = tmp_path / "fresh.tagproj"
    Project.create(fresh, sample_corpus()).close()

    def schema_of(file):
        c = sqlite3.connect(file)
        sql = sorted(r[0] for r in c.execute("SELECT sql FROM sqlite_master WHERE name LIKE 'actions%'"))
        c.close()
        return sql

    assert schema_of(path) == schema_of(fresh) and len(schema_of(path)) == 2


def test_a_v4_file_opened_readonly_reads_an_empty_log_and_stays_v4(tmp_path):
    path = tmp_path / "v4.tagproj"
    conn = sqlite3.connect(path)
    with conn:
        schema.create_schema(conn, version=4)
    conn.close()
    with Project.open(path, readonly=True) as p:
        assert p.actions() == []
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
    conn.close()


def test_an_open_is_written_just_before_its_first_action_or_not_at_all(project):
    sid = project.sentence_ids()[2]
    opened, first = Action("open", 4, 10.0, 17.0, 7.0), Action("full", 1, 17.0, 17.0, 0.0)
    with pytest.raises(LabelError):
        project.apply_action(sid, {0: "NOPE"}, first, opened=opened)
    assert project.actions() == [], "a refused first action takes its open with it"
    assert project.apply_action(sid, {0: "O"}, first, opened=opened) is not None
    assert [(a.kind, a.sentence_id, a.n_tokens, a.active) for a in project.actions()] == [
        ("open", sid, 4, 7.0),
        ("full", sid, 1, 0.0),
    ]
    assert project.apply_action(sid, {0: "O"}, first, opened=opened) is None, "nothing changed: no open either"
    with pytest.raises(ValueError, match="an open action goes with"):
        project.apply_action(sid, {1: "O"}, Action("skip", 1, 17.0, 18.0, 1.0), opened=opened)
    assert len(project.actions()) == 2

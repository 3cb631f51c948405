"""Faults: damaged and truncated files, migrations, full and read-only disks.

A damaged file is refused and left as it was; an edit the store could not
save raises ProjectError and changes nothing, and every edit it reported
saved is in the file when it is opened again.
"""

from __future__ import annotations

import logging
import random
import sqlite3
from pathlib import Path

import pytest
from project_damage import corruptions, digest, truncations, try_open
from project_samples import LABELS, ann, plain_corpus, sample_corpus, write_v1_project
from sqlite_faults import failing, fill_disk, free_disk, read_only_disk

from tagtool.errors import ProjectError
from tagtool.store import dbfile
from tagtool.store.project import Project


@pytest.fixture(scope="module")
def project_bytes(tmp_path_factory) -> bytes:
    """A closed project file with edits, a log and a stored model (~35 pages)."""
    path = tmp_path_factory.mktemp("good") / "good.tagproj"
    with Project.create(path, plain_corpus(300, 12)) as p:
        ids = p.sentence_ids()
        for i in range(60):
            p.set_annotation(ids[i], i % 12, [LABELS.names[i % len(LABELS)]])
        p.stored.add_model("perceptron", {"max_iter": 2}, {"f1": 0.5}, b"model bytes" * 100)
    return path.read_bytes()


def test_a_file_cut_anywhere_is_refused_and_left_alone(tmp_path, project_bytes):
    rng = random.Random(5)
    path = tmp_path / "cut.tagproj"
    cases = list(truncations(project_bytes, rng, n_random=25))
    assert len(cases) > 50
    for what, data in cases:
        path.write_bytes(data)
        for readonly in (True, False):
            assert try_open(path, readonly) == "refused", what


def test_random_damage_is_refused_or_reads_without_crashing(tmp_path, project_bytes):
    """Bits flipped, bytes overwritten, pages zeroed or swapped: refused with
    the file untouched, or (damage inside a value, which no check sees)
    opened and read in full without an error other than a TagtoolError."""
    rng = random.Random(11)
    path = tmp_path / "damaged.tagproj"
    outcomes = []
    for _, data in corruptions(project_bytes, rng, n=60):
        path.write_bytes(data)
        outcomes.append(try_open(path, readonly=bool(len(outcomes) % 2)))
        for side in dbfile.side_files(path):
            side.unlink(missing_ok=True)  # an opened file may leave its WAL index
    assert "refused" in outcomes and "opened" in outcomes


def test_damage_inside_json_values_is_refused_at_opening(tmp_path):
    path = tmp_path / "json.tagproj"
    Project.create(path, sample_corpus()).close()
    conn = sqlite3.connect(path)
    conn.execute('UPDATE sentences SET tokens = \'["Confidence", "in\' WHERE id = 1')
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(ProjectError, match="damaged.*sentences holds broken data"):
        Project.open(path)
    assert digest(path) == before


def test_undecodable_text_reads_as_replacement_characters(tmp_path):
    """Damage inside a text value passes every check: it must not break reading."""
    path = tmp_path / "text.tagproj"
    Project.create(path, sample_corpus()).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sentences SET text = CAST(x'77ff20e2' AS TEXT) WHERE id = 1")
    conn.execute("UPDATE labels SET color = CAST(x'23ff' AS TEXT) WHERE position = 0")
    conn.commit()
    conn.close()
    with Project.open(path) as p:
        assert p.listing.sentence_summaries()[0].preview.startswith("w\ufffd")
        assert p.label_set.label_infos()[0].color == "#\ufffd"


# ----------------------------------------------------------------------
# migrations back the file up first


def test_migration_writes_a_complete_backup_before_changing_the_file(tmp_path, monkeypatch):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    original, content = digest(path), _dump(path)
    seen = {}

    real_migrate = __import__("tagtool.store.schema", fromlist=["migrate"]).migrate

    def migrate(conn, version):
        backup = path.with_name("old.tagproj.bak-v1")
        seen["backup at migration"] = backup.exists() and _dump(backup) == content
        seen["file at migration"] = digest(path) == original
        real_migrate(conn, version)

    monkeypatch.setattr("tagtool.store.schema.migrate", migrate)
    Project.open(path).close()
    assert seen == {"backup at migration": True, "file at migration": True}
    with Project.open(tmp_path / "old.tagproj.bak-v1", readonly=True) as backup:
        assert backup.migrated_from == 1 and backup.corpus() == sample_corpus()


def _dump(path: Path) -> list[str]:
    """The statements that rebuild a database: its content, not its bytes."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def test_no_backup_no_migration(tmp_path, monkeypatch):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    before = digest(path)

    def disk_full(conn, dest):
        Path(dest).write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(dbfile, "write_backup", disk_full)
    with pytest.raises(ProjectError, match="backup .* could not be written.*unchanged"):
        Project.open(path)
    assert digest(path) == before
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)


# ----------------------------------------------------------------------
# full and read-only disks


@pytest.fixture
def project(tmp_path):
    path = tmp_path / "p.tagproj"
    with Project.create(path, plain_corpus(60, 10)) as p:
        yield p


def _reopened(path: Path) -> dict:
    with Project.open(path, readonly=True) as p:
        return {sid: p.annotations(sid) for sid in p.sentence_ids()}


def test_full_disk_keeps_every_saved_edit_and_loses_only_the_refused_one(project):
    ids = project.sentence_ids()
    fill_disk(project)
    saved, refused = {}, None
    for i in range(2000):
        sid, token, label = ids[i % len(ids)], (i // len(ids)) % 10, LABELS.names[i % len(LABELS)]
        try:
            project.set_annotation(sid, token, [label])
        except ProjectError as e:
            assert "the disk is full" in str(e) and str(project.path) in str(e)
            refused = (sid, token, label)
            break
        saved[(sid, token)] = ann(label)
    assert refused is not None and len(saved) > 10, "the disk never filled up"
    assert project.annotations(refused[0])[refused[1]] == saved.get(refused[:2], frozenset())
    # each saved edit labeled a token that had none: each is in the log, once
    assert sorted((e.sentence_id, e.token) for e in project.annotation_history()) == sorted(saved)
    free_disk(project)
    project.set_annotation(refused[0], refused[1], [refused[2]])  # the retry goes through
    saved[refused[:2]] = ann(refused[2])
    project.close()
    state = _reopened(project.path)
    for (sid, token), labels in saved.items():
        assert state[sid][token] == labels


@pytest.mark.parametrize("statement", ["COMMIT", "BEGIN IMMEDIATE"])
def test_a_disk_failing_at_commit_or_begin_changes_nothing(project, statement):
    sid = project.sentence_ids()[0]
    project.set_annotation(sid, 0, ["O"])
    with failing(project, statement) as conn:
        with pytest.raises(ProjectError, match="disk is full"):
            project.set_annotations(sid, {0: ["B-NP"], 1: ["I-NP"]})
        assert conn.failures == 1 and not conn.in_transaction
    assert project.annotations(sid)[:2] == (ann("O"), ann())
    assert [e.new for e in project.annotation_history()] == [ann("O")]
    project.set_annotations(sid, {0: ["B-NP"], 1: ["I-NP"]})  # usable again
    project.close()
    assert _reopened(project.path)[sid][:2] == (ann("B-NP"), ann("I-NP"))


def test_a_failing_rollback_does_not_hide_the_error(project, caplog):
    sid = project.sentence_ids()[0]
    with failing(project, "COMMIT", "ROLLBACK"), caplog.at_level(logging.WARNING):
        with pytest.raises(ProjectError, match="could not be saved: the disk is full"):
            project.set_annotation(sid, 0, ["O"])
    assert "rollback failed" in caplog.text
    project._db.execute("ROLLBACK")  # what SQLite does itself after a real full disk
    project.set_annotation(sid, 0, ["O"])
    assert project.annotations(sid)[0] == ann("O")


def test_read_only_disk_refuses_every_kind_of_change_and_keeps_the_file(project):
    sid = project.sentence_ids()[0]
    project.set_annotation(sid, 0, ["O"])
    with read_only_disk(project):
        for change in (
            lambda: project.set_annotation(sid, 1, ["O"]),
            lambda: project.label_set.add_label("B-X"),
            lambda: project.stored.add_model("crf", {}, {}, b"x"),
            lambda: project.imports.import_corpus(plain_corpus(1, 2)),
        ):
            with pytest.raises(ProjectError, match="read-only"):
                change()
        assert project.annotations(sid)[:2] == (ann("O"), ann())
    project.close()
    assert _reopened(project.path)[sid][:2] == (ann("O"), ann())


def test_closing_on_a_failing_disk_is_logged_not_raised(project, caplog):
    class Unclosable:
        def close(self):
            raise sqlite3.OperationalError("disk I/O error")

    real = project.db._conn
    project.db._conn = Unclosable()
    with caplog.at_level(logging.WARNING):
        project.close()
    assert project.closed and "closing failed" in caplog.text
    real.close()


@pytest.mark.parametrize(
    "table, column", [("labels", "shortcut"), ("sentences", "n_tokens"), ("adjudicated", "labels")]
)
def test_a_flipped_byte_in_a_column_name_of_the_schema_is_refused_at_opening(tmp_path, table, column):
    """A byte flipped inside the schema's text passes every page check; the file opened, then its
    first read of that column failed with "no such column" instead of a named error."""
    import sqlite3

    from tagtool.store.project import Project

    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute(
        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE name = ?",
        (column, column[:-1] + chr(ord(column[-1]) ^ 1), table),
    )
    conn.commit()
    conn.close()
    before = path.read_bytes()
    for readonly in (False, True):
        with pytest.raises(ProjectError, match=rf"is damaged.*{table}.*{column}"):
            Project.open(path, readonly=readonly)
    assert path.read_bytes() == before

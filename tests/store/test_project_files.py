"""Project files: atomic create, refusing foreign or damaged files, migrations,
files from a newer tagtool."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest
from project_samples import LABELS, ann, plain_corpus, sample_corpus, write_v1_project

from tagtool.core import Corpus, Document, Sentence
from tagtool.errors import FormatError, ProjectError
from tagtool.store import lifecycle, schema
from tagtool.store.project import NewerSchemaWarning, Project


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def dump(path: Path) -> list[str]:
    """Every statement that rebuilds the database: its content, not its bytes."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def folder_listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def schema_sql(path: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
    finally:
        conn.close()


# ----------------------------------------------------------------------
# create


def test_create_refuses_to_overwrite_unless_asked(tmp_path):
    path = tmp_path / "p.tagproj"
    path.write_text("my precious notes")
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(path, sample_corpus())
    assert path.read_text() == "my precious notes"
    assert folder_listing(tmp_path) == ["p.tagproj"]
    with Project.create(path, sample_corpus(), overwrite=True) as p:
        assert p.corpus() == sample_corpus()
    with pytest.raises(ProjectError, match="already exists"):
        Project.create(path, plain_corpus(2, 2))
    with pytest.raises(ProjectError, match="folder"):
        Project.create(tmp_path, sample_corpus())


def test_create_discards_a_stale_wal_left_beside_the_path(tmp_path):
    # A WAL of some earlier database would be replayed into the new file.
    old = tmp_path / "p.tagproj"
    with Project.create(old, plain_corpus(50, 5)) as p:
        p.close()
    conn = sqlite3.connect(old)
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("UPDATE meta SET value = 'stale' WHERE key = 'name'")
    conn.commit()
    wal = old.with_name(old.name + "-wal")
    stale_wal = wal.read_bytes()  # copied before closing checkpoints and deletes it
    conn.close()
    old.unlink()
    wal.write_bytes(stale_wal)
    with Project.create(old, sample_corpus()) as p:
        assert p.name == "p" and p.corpus() == sample_corpus()


def test_failed_create_leaves_no_file_and_no_temporary_file(tmp_path):
    bad = Corpus(LABELS, [Document("d", [Sentence(("ok",)), Sentence(("ok", None))])])
    with pytest.raises(FormatError, match="sentence 2, token 2"):
        Project.create(tmp_path / "p.tagproj", bad)
    assert folder_listing(tmp_path) == []


def test_create_interrupted_at_the_final_rename_leaves_nothing(tmp_path, monkeypatch):
    def broken(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(lifecycle.os, "link", broken)
    monkeypatch.setattr(lifecycle.os, "replace", broken)
    with pytest.raises(ProjectError, match="could not be created .the disk is full"):
        Project.create(tmp_path / "p.tagproj", sample_corpus())
    assert folder_listing(tmp_path) == []
    # overwriting: the old file stays intact
    monkeypatch.undo()
    Project.create(tmp_path / "p.tagproj", plain_corpus(3, 3)).close()
    before = digest(tmp_path / "p.tagproj")
    monkeypatch.setattr(lifecycle.os, "replace", broken)
    with pytest.raises(ProjectError, match="the disk is full"):
        Project.create(tmp_path / "p.tagproj", sample_corpus(), overwrite=True)
    assert digest(tmp_path / "p.tagproj") == before
    assert folder_listing(tmp_path) == ["p.tagproj"]


# ----------------------------------------------------------------------
# refusing files that are not (intact) projects


def _other_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    conn.commit()
    conn.close()


def _our_id_without_tables(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("CREATE TABLE other (x)")
    conn.commit()
    conn.close()


def _project(path: Path) -> None:
    Project.create(path, plain_corpus(400, 20)).close()


def _truncated(fraction: float):
    def make(path: Path) -> None:
        _project(path)
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.truncate(int(size * fraction))

    return make


def _page_overwritten(path: Path) -> None:
    _project(path)
    with open(path, "r+b") as f:
        f.seek(4096 * 5)
        f.write(b"\xde\xad\xbe\xef" * 1024)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda p: p.write_bytes(b""), "not an SQLite database"),
        (lambda p: p.write_text("Confidence NN B-NP\nin IN B-PP\n"), "not an SQLite database"),
        (lambda p: p.write_bytes(os.urandom(8192)), "not an SQLite database"),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + os.urandom(4000)), "another application"),
        (_other_sqlite, "another application"),
        (_our_id_without_tables, "not a tagtool project"),
        (_truncated(0.6), "damaged"),
        (_truncated(0.05), "damaged"),
        (_page_overwritten, "damaged"),
    ],
    ids=[
        "empty",
        "text",
        "garbage",
        "sqlite-magic",
        "other-sqlite",
        "no-meta",
        "truncated",
        "truncated-to-header",
        "overwritten-page",
    ],
)
def test_non_projects_and_damaged_files_are_refused_and_left_alone(tmp_path, make, message):
    path = tmp_path / "x.tagproj"
    make(path)
    before = digest(path)
    for readonly in (False, True):
        with pytest.raises(ProjectError, match=message):
            Project.open(path, readonly=readonly)
    assert digest(path) == before
    assert folder_listing(tmp_path) == ["x.tagproj"]


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(ProjectError, match="no such project file"):
        Project.open(tmp_path / "nope.tagproj")
    assert folder_listing(tmp_path) == []


# ----------------------------------------------------------------------
# migrations


def test_v1_file_is_backed_up_and_migrated_with_data_preserved(tmp_path):
    path = tmp_path / "old.tagproj"
    corpus = sample_corpus()
    write_v1_project(path, corpus)
    original = dump(path)
    with Project.open(path) as p:
        assert p.migrated_from == 1 and p.schema_version == schema.CURRENT_VERSION
        assert p.backup_path == tmp_path / "old.tagproj.bak-v1"
        assert p.corpus() == corpus
        assert p.meta["schema_version"] == str(schema.CURRENT_VERSION)
        assert p.meta["created"] == "2024-01-01T00:00:00+00:00"
        # the column and index version 2 added are filled and used
        assert [s.preview for s in p.listing.sentence_summaries(search="widely")] == ["is widely expected"]
        assert p.listing.count_sentences(status="partial") == 2
        assert [(e.token, e.new) for e in p.annotation_history()] == [(0, ann("B-NP"))]
        assert p.stored.model_data(p.stored.models()[0].id) == b"\x00\x01\x02"
        p.set_annotation(p.sentence_ids()[2], 0, ["B-NP"])
    assert dump(tmp_path / "old.tagproj.bak-v1") == original
    assert schema_sql(path) == schema_sql(_fresh(tmp_path))
    with Project.open(path) as p:  # migrated once, for good
        assert p.migrated_from is None and p.backup_path is None
        assert p.annotations(p.sentence_ids()[2]) == (ann("B-NP"),)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("PRAGMA user_version").fetchone()[0] == schema.CURRENT_VERSION
    conn.close()


def _fresh(folder: Path) -> Path:
    path = folder / "fresh.tagproj"
    Project.create(path, plain_corpus(1, 1)).close()
    return path


def test_a_second_migration_never_overwrites_an_earlier_backup(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    Project.open(path).close()
    first_backup = digest(tmp_path / "old.tagproj.bak-v1")
    path.unlink()
    write_v1_project(path, plain_corpus(2, 2))
    with Project.open(path) as p:
        assert p.backup_path == tmp_path / "old.tagproj.bak-v1-2"
    assert digest(tmp_path / "old.tagproj.bak-v1") == first_backup


def test_v1_file_opened_read_only_is_migrated_in_memory_only(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    before = digest(path)
    with Project.open(path, readonly=True) as p:
        assert p.readonly and p.migrated_from == 1 and p.backup_path is None
        assert p.corpus() == sample_corpus()
        assert p.listing.count_sentences(search="pound") == 1
        with pytest.raises(ProjectError, match="read-only"):
            p.set_annotation(1, 0, ["O"])
    assert digest(path) == before
    assert not (tmp_path / "old.tagproj.bak-v1").exists()


def test_failed_migration_rolls_back_and_keeps_the_backup(tmp_path, monkeypatch):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())

    def half_done(conn):
        schema.migrate_1_to_2(conn)  # does real work, then fails
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(schema, "MIGRATIONS", (half_done,))
    with pytest.raises(ProjectError, match="upgrade from schema 1 failed.*bak-v1"):
        Project.open(path)
    monkeypatch.undo()
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(sentences)")]
    assert "text" not in columns
    conn.close()
    assert (tmp_path / "old.tagproj.bak-v1").exists()
    with Project.open(path) as p:  # the real migration still works afterwards
        assert p.corpus() == sample_corpus()


# ----------------------------------------------------------------------
# a file from a newer tagtool


def _bump_version(path: Path, version: int) -> None:
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    conn.execute(f"PRAGMA user_version = {version}")
    conn.execute("CREATE TABLE future_things (x)")
    conn.commit()
    conn.close()  # last connection: checkpoints the WAL into the file


def test_newer_schema_opens_read_only_and_is_never_modified(tmp_path):
    path = tmp_path / "new.tagproj"
    Project.create(path, sample_corpus()).close()
    _bump_version(path, schema.CURRENT_VERSION + 1)
    before = digest(path)
    for readonly in (False, True):
        with pytest.warns(NewerSchemaWarning, match="newer tagtool"):
            p = Project.open(path, readonly=readonly)
        with p:
            assert p.readonly and p.newer_schema
            assert p.schema_version == schema.CURRENT_VERSION + 1
            assert p.corpus() == sample_corpus()
            with pytest.raises(ProjectError, match="read-only"):
                p.set_annotation(p.sentence_ids()[0], 0, ["O"])
            with pytest.raises(ProjectError, match="read-only"):
                p.stored.add_model("crf", {}, {}, b"")
            with pytest.raises(sqlite3.OperationalError):  # not even by going around the API
                p._db.execute("DELETE FROM annotations")
    assert digest(path) == before
    assert not any(name.startswith("new.tagproj.bak") for name in folder_listing(tmp_path))


# ----------------------------------------------------------------------
# schema 3: every annotator's labels


def test_several_annotators_are_kept_beside_the_agreed_annotation(tmp_path):
    from tagtool.store.formats import read_corpus

    data = Path(__file__).resolve().parent.parent / "data"
    corpus = read_corpus(data / "labelstudio_full.json")
    with Project.create(tmp_path / "ls.tagproj", corpus) as p:
        first, second = p.sentence_ids()
        assert p.annotations(first)[5] == {"B-LOC", "B-ORG"}  # they differ: a candidate set
        by = p.team.annotator_labels(first)
        assert set(by) == {"1", "ben@example.com"}
        assert by["1"][5] == {"B-LOC"} and by["ben@example.com"][5] == {"B-ORG"}
        assert by["1"][:4] == by["ben@example.com"][:4] == ({"B-ORG"}, {"O"}, {"B-PER"}, {"I-PER"})
        assert set(p.team.annotator_labels(second)) == {"1"}
        ids = p.imports.import_corpus(corpus)
        assert p.team.annotator_labels(ids[0]) == by
    with Project.create(tmp_path / "plain.tagproj", sample_corpus()) as p:
        assert p.team.annotator_labels(p.sentence_ids()[0]) == {}


def test_migration_to_3_adds_an_empty_annotator_labels_table(tmp_path):
    path = tmp_path / "old.tagproj"
    write_v1_project(path, sample_corpus())
    with Project.open(path) as p:
        assert p.migrated_from == 1 and p.schema_version == schema.CURRENT_VERSION
        assert all(p.team.annotator_labels(i) == {} for i in p.sentence_ids())
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT count(*) FROM annotator_labels").fetchone() == (0,)
    conn.close()

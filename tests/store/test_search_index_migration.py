"""The search index's migration: an old file is backed up, migrated and searchable;
read-only it is migrated in memory; a kill during the migration leaves it as it was."""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from project_samples import sample_corpus, write_v1_project
from search_samples import (
    SEARCH_MIGRATION,
    SEARCH_VERSION,
    expected_search,
    index_in_step,
    index_objects,
    tricky_corpus,
    write_pre_index_project,
)

from tagtool.store import schema, search_index
from tagtool.store.project import Project

MIGRATOR = Path(__file__).with_name("crash_migrator.py")
ALL_OBJECTS = {search_index.TABLE, *search_index.TRIGGERS}
SEARCHES = ("the", "THE POUND", "%", "a_b", "\\", "Ñandú", "école", "e", "zzz")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def dump(path: Path) -> list[str]:
    """The statements that rebuild a database: its content, not its bytes."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def version_in(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return schema.read_version(conn)
    finally:
        conn.close()


def schema_sql(path: Path) -> list[tuple]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return sorted(
            conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        )
    finally:
        conn.close()


def check_searches(project: Project) -> None:
    for search in SEARCHES:
        assert project.sentence_ids(search=search) == expected_search(project, search), search


def test_the_index_comes_with_its_own_version():
    assert SEARCH_VERSION <= schema.CURRENT_VERSION
    assert schema.MIGRATIONS[SEARCH_VERSION - 2] is SEARCH_MIGRATION


def test_an_old_file_is_backed_up_migrated_and_searched_through_the_index(tmp_path):
    path = tmp_path / "old.tagproj"
    corpus = tricky_corpus(80, seed=11)
    write_pre_index_project(path, corpus)
    assert version_in(path) == SEARCH_VERSION - 1
    before = dump(path)
    with Project.open(path) as project:
        assert project.migrated_from == SEARCH_VERSION - 1 and project.schema_version == schema.CURRENT_VERSION
        assert project.backup_path.name == f"old.tagproj.bak-v{SEARCH_VERSION - 1}"
        assert index_objects(project._db) == ALL_OBJECTS and project.listing.search_index
        assert index_in_step(project._db)
        assert search_index.use_index(project._db, True, "Ñandú")
        check_searches(project)
        assert project.corpus() == corpus
    assert dump(tmp_path / f"old.tagproj.bak-v{SEARCH_VERSION - 1}") == before
    fresh = tmp_path / "fresh.tagproj"
    Project.create(fresh, sample_corpus()).close()
    assert schema_sql(path) == schema_sql(fresh), "a migrated file is a new file"


def test_a_version_1_file_gets_the_index_too(tmp_path):
    path = tmp_path / "v1.tagproj"
    write_v1_project(path, tricky_corpus(30, seed=12))
    with Project.open(path) as project:
        assert project.migrated_from == 1 and project.listing.search_index and index_in_step(project._db)
        check_searches(project)


def test_an_old_file_opened_read_only_is_indexed_in_memory_only(tmp_path):
    path = tmp_path / "old.tagproj"
    write_pre_index_project(path, tricky_corpus(60, seed=13))
    before = digest(path)
    with Project.open(path, readonly=True) as project:
        assert project.readonly and project.migrated_from == SEARCH_VERSION - 1
        assert project.listing.search_index and project.live_file is None
        check_searches(project)
    assert digest(path) == before and version_in(path) == SEARCH_VERSION - 1
    assert not list(tmp_path.glob("*.bak-*"))


def test_a_project_opened_from_its_file_reads_it_live(tmp_path):
    path = tmp_path / "p.tagproj"
    Project.create(path, sample_corpus()).close()
    for readonly in (False, True):
        with Project.open(path, readonly=readonly) as project:
            assert project.live_file == path


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_kill_during_the_migration_leaves_the_old_file(tmp_path):
    path, marker = tmp_path / "old.tagproj", tmp_path / "marker"
    corpus = tricky_corpus(200, seed=14)
    write_pre_index_project(path, corpus)
    content = dump(path)
    child = subprocess.Popen(
        [sys.executable, str(MIGRATOR), str(path), str(marker)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert marker.exists(), child.stderr.read() if child.poll() is not None else "no marker in 60 s"
    finally:
        child.kill()  # SIGKILL inside the migration's transaction
        child.wait()
        child.stdout.read(), child.stderr.read()
    assert child.returncode == -9
    # The file reads as the old version, with the old content and no index.
    assert dump(path) == content and version_in(path) == SEARCH_VERSION - 1
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        assert index_objects(conn) == set()
    backup = tmp_path / f"old.tagproj.bak-v{SEARCH_VERSION - 1}"
    assert dump(backup) == content, "the backup was complete before the migration began"
    with Project.open(path) as project:  # and the next open migrates it
        assert project.migrated_from == SEARCH_VERSION - 1 and project.listing.search_index
        assert index_in_step(project._db) and project.corpus() == corpus
        check_searches(project)

"""The ``resources`` table: vectors, dictionaries and patterns kept in a project (schema 9)."""

import sqlite3

import pytest
from project_samples import sample_corpus

from tagtool.store import schema
from tagtool.store.project import Project
from tagtool.store.resources import KINDS, records


def test_resources_round_trip_replace_and_remove(tmp_path):
    with Project.create(tmp_path / "p.tagproj", sample_corpus()) as project:
        stored = project.stored
        assert stored.resources() == []
        stored.add_resource("gazetteer", "PER", b"Ada Lovelace\nAlan Turing\n", {"source": "people.txt"})
        stored.add_resource("vectors", "vectors", b"\x00\x01", {"format": "word2vec"})
        assert [(r.kind, r.name, r.size) for r in stored.resources()] == [
            ("gazetteer", "PER", 25),
            ("vectors", "vectors", 2),
        ]
        assert stored.resources("gazetteer")[0].info == {"source": "people.txt"}
        stored.add_resource("gazetteer", "PER", b"Grace Hopper\n")
        assert stored.resource_data("gazetteer", "PER") == b"Grace Hopper\n"
        assert stored.resources("gazetteer")[0].info == {}
        assert stored.remove_resource("gazetteer", "PER") and not stored.remove_resource("gazetteer", "PER")
        assert stored.resource_data("gazetteer", "PER") is None
    with Project.open(tmp_path / "p.tagproj") as project:
        assert [r.kind for r in project.stored.resources()] == ["vectors"]


def test_resources_reject_unknown_kind_and_empty_name(tmp_path):
    with Project.create(tmp_path / "p.tagproj", sample_corpus()) as project:
        with pytest.raises(ValueError, match="no resource kind"):
            project.stored.add_resource("pickles", "x", b"")
        with pytest.raises(ValueError, match="needs a name"):
            project.stored.add_resource("patterns", "", b"")
        assert project.stored.resources() == []


def test_version_8_file_gains_the_table():
    conn = sqlite3.connect(":memory:")
    schema.create_schema(conn, version=8)
    schema.migrate(conn, 8)
    assert schema.read_version(conn) == schema.CURRENT_VERSION == 9
    assert records(conn) == [] and set(KINDS) == {"vectors", "gazetteer", "patterns"}

"""``SentenceIdQuery``: the project's id listing on a connection of its own (a worker thread's)."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from project_samples import LABELS
from search_samples import tricky_corpus, write_pre_index_project

from tagtool.core import Corpus, Document, Sentence
from tagtool.store import worker_reads
from tagtool.store.project import Project
from tagtool.store.worker_reads import SentenceIdQuery


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", tricky_corpus(120, seed=21)) as p:
        yield p


@pytest.mark.parametrize(
    "filters",
    [
        {"search": "the"},
        {"search": "%"},
        {"search": "e", "order_by": "length", "descending": True},
        {"status": "none", "search": "ab"},
        {"status": ["full", "partial"]},
        {"order_by": "text"},
    ],
)
def test_it_answers_what_the_project_answers(project, filters):
    project.set_annotation(project.sentence_ids()[3], 0, ["O"])
    query = SentenceIdQuery.of(project, **filters)
    assert query is not None and query.path == project.path
    assert query() == project.sentence_ids(**filters)


def test_it_runs_on_another_thread_while_the_project_is_edited(project):
    new = project.imports.import_corpus(Corpus(LABELS, (Document("more", [Sentence(("quokka",))] * 2),)))
    query = SentenceIdQuery.of(project, search="quokka")
    answers = []
    worker = threading.Thread(target=lambda: answers.append(query()))
    worker.start()
    project.set_annotation(new[0], 0, ["O"])  # a write meanwhile: WAL readers do not block it
    worker.join(30)
    assert answers == [new]


def test_a_stop_request_interrupts_it(project, monkeypatch):
    monkeypatch.setattr(worker_reads, "STOP_CHECK_STEPS", 10)  # this project is read in fewer steps
    query = SentenceIdQuery.of(project, search="e")
    with pytest.raises(sqlite3.OperationalError, match="interrupt"):
        query(lambda: True)


def test_an_in_memory_copy_has_no_query(tmp_path):
    path = tmp_path / "old.tagproj"
    write_pre_index_project(path, tricky_corpus(10, seed=22))
    with Project.open(path, readonly=True) as project:
        assert project.live_file is None
        assert SentenceIdQuery.of(project, search="the") is None

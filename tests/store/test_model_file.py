"""A model stored through a connection of the calling thread (the app's worker) is the project's like any."""

from __future__ import annotations

import threading

import pytest

from tagtool.core import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import ProjectError
from tagtool.store.model_file import add_model_in_file
from tagtool.store.project import Project


@pytest.fixture
def path(tmp_path):
    corpus = Corpus.from_sentences([Sentence(["a", "b"], [{"O"}, set()])], labels=LabelSet(["O", "B-X"]))
    path = tmp_path / "p.tagproj"
    Project.create(path, corpus).close()
    return path


def test_a_model_stored_from_another_thread_is_read_by_the_project(path):
    with Project.open(path) as project:
        first = project.stored.add_model("hmm", {"a": 1}, {}, b"one")
        ids = []
        worker = threading.Thread(
            target=lambda: ids.append(
                add_model_in_file(path, "perceptron", {"max_iter": 3}, {"f1": 0.5}, b"two" * 1000, note="worker")
            )
        )
        worker.start()
        worker.join()
        records = project.stored.models()
        assert [r.id for r in records] == [first, ids[0]]
        last = records[-1]
        assert (last.learner, last.params, last.metrics, last.note, last.size) == (
            "perceptron",
            {"max_iter": 3},
            {"f1": 0.5},
            "worker",
            3000,
        )
        assert project.stored.model_data(ids[0]) == b"two" * 1000


def test_keep_deletes_all_but_the_newest(path):
    made = [add_model_in_file(path, "hmm", {}, {}, bytes([i]), keep=2) for i in range(4)]
    with Project.open(path, readonly=True) as project:
        assert [r.id for r in project.stored.models()] == made[-2:]
    with pytest.raises(ProjectError):
        add_model_in_file(path, "hmm", {"x": object()}, {}, b"")

"""A big project's list reads the ids of a search, filter or order in a worker
thread: the rows stay until the answer arrives, an answer to an older search
is dropped, and the GUI thread never runs the query."""

from __future__ import annotations

import logging
import threading

import pytest
from PySide6.QtCore import Qt

from tagtool.gui import sentence_list
from tagtool.store.project import Project
from tagtool.store.worker_reads import SentenceIdQuery
from tests.store.project_samples import sample_corpus, write_v1_project

TIMEOUT = 30_000


def row_ids(model) -> list[int]:
    return [model.index(row, 0).data(Qt.UserRole) for row in range(model.rowCount())]


@pytest.fixture
def background(monkeypatch):
    """Every project counts as big enough to search in the background."""
    monkeypatch.setattr(sentence_list, "BACKGROUND_LIST_MIN", 0)


@pytest.fixture
def gui_thread_searches(monkeypatch):
    """Searches run through the window's own project, on whichever thread."""
    calls = []
    real = Project.sentence_ids

    def recording(self, *args, **kwargs):
        if kwargs.get("search"):
            calls.append((self, threading.current_thread()))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Project, "sentence_ids", recording)
    return calls


def search(panel, text: str) -> None:
    panel.search.setText(text)
    panel.apply_filter()


def test_the_answer_arrives_from_a_worker_and_the_current_row_follows(window, background, gui_thread_searches, qtbot):
    panel, session, model = window.list_panel, window.session, window.list_panel.model
    project = session.project
    expected = project.sentence_ids(search="the")
    gui_thread_searches.clear()
    session.go_to(expected[2])
    search(panel, "the")
    assert model.reading and model.rowCount() == session.n_sentences, "the old rows, until the answer"
    with qtbot.waitSignal(model.rowsReplaced, timeout=TIMEOUT):
        pass
    assert not model.reading and row_ids(model) == expected
    assert panel.table.currentIndex().row() == 2, "the current sentence is selected in the new rows"
    assert all(
        owner is not project and thread is not threading.main_thread() for owner, thread in gui_thread_searches
    ), "no search query on the GUI thread"
    assert gui_thread_searches, "the worker's own reader ran it"


def test_an_answer_to_an_older_search_is_dropped(window, background, qtbot):
    panel, model, project = window.list_panel, window.list_panel.model, window.session.project
    search(panel, "the")
    older = model._generation
    search(panel, "pound")  # before the first answer is taken
    with qtbot.waitSignal(model.rowsReplaced, timeout=TIMEOUT):
        pass
    assert row_ids(model) == project.sentence_ids(search="pound")
    model._read_done(older, project.sentence_ids(search="the"))  # arriving late
    assert row_ids(model) == project.sentence_ids(search="pound")
    search(panel, "")  # no search: at once, and a pending answer can no longer land
    assert not model.reading and model.rowCount() == window.session.n_sentences


def test_filters_and_orders_are_read_in_the_background_too(window, background, qtbot):
    panel, model, project = window.list_panel, window.list_panel.model, window.session.project
    panel.set_status_filter("Unlabeled")
    assert model.reading
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert row_ids(model) == project.sentence_ids(status="none")
    panel.table.horizontalHeader().setSortIndicator(1, Qt.DescendingOrder)
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert row_ids(model) == project.sentence_ids(status="none", order_by="status", descending=True)
    panel.table.horizontalHeader().setSortIndicator(0, Qt.AscendingOrder)
    panel.set_status_filter("All sentences")  # the whole project in order: the session's own list, at once
    assert not model.reading and model.rowCount() == window.session.n_sentences


def test_sorting_a_searched_list_sorts_in_the_background_too(window, background, qtbot):
    panel, model, project = window.list_panel, window.list_panel.model, window.session.project
    search(panel, "the")
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    panel.table.horizontalHeader().setSortIndicator(2, Qt.DescendingOrder)
    assert model.reading
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert row_ids(model) == project.sentence_ids(search="the", order_by="length", descending=True)
    ids = project.sentence_ids(search="the")
    model.scores = {sid: float(i % 7) for i, sid in enumerate(ids)}
    panel.sort_by_informativeness()
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert row_ids(model) == sorted(ids, key=lambda sid: -model.scores[sid])


def test_a_failed_background_search_is_done_on_the_gui_thread(window, background, qtbot, monkeypatch, caplog):
    panel, model, project = window.list_panel, window.list_panel.model, window.session.project

    def broken(self, should_stop=None):
        raise OSError("the file went away")

    monkeypatch.setattr(SentenceIdQuery, "__call__", broken)
    with caplog.at_level(logging.WARNING):
        search(panel, "pound")
        qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert "the file went away" in caplog.text
    assert row_ids(model) == project.sentence_ids(search="pound")


def test_small_projects_and_in_memory_copies_search_at_once(open_window, chunk_project, tmp_path, monkeypatch):
    window = open_window(chunk_project)
    assert window.session.n_sentences < sentence_list.BACKGROUND_LIST_MIN
    search(window.list_panel, "pound")
    assert not window.list_panel.model.reading
    assert row_ids(window.list_panel.model) == window.session.project.sentence_ids(search="pound")
    window.close_project()
    monkeypatch.setattr(sentence_list, "BACKGROUND_LIST_MIN", 0)
    old = tmp_path / "old.tagproj"
    write_v1_project(old, sample_corpus())
    monkeypatch.setattr(Project, "open", _read_only(Project.open))  # an old file read-only: a migrated copy
    window = open_window(old)
    assert window.session.project.live_file is None
    search(window.list_panel, "pound")
    assert not window.list_panel.model.reading, "no other connection can read an in-memory copy"
    assert row_ids(window.list_panel.model) == window.session.project.sentence_ids(search="pound") != []


def _read_only(open_):
    return classmethod(lambda cls, path, readonly=False: open_(path, readonly=True))


def test_closing_the_project_while_searching(window, background, qtbot):
    search(window.list_panel, "the")
    window.close_project()  # waits for the worker; its answer lands nowhere
    qtbot.wait(50)
    assert window.session is None


def test_ordering_by_info_sorts_in_the_worker_and_new_scores_drop_the_old_answer(
    window, background, qtbot, monkeypatch
):
    panel, model, session = window.list_panel, window.list_panel.model, window.session
    threads = []
    real = sentence_list.by_score

    def recording(ids, scores, descending):
        threads.append(threading.current_thread())
        return real(ids, scores, descending)

    monkeypatch.setattr(sentence_list, "by_score", recording)
    ids = list(session.sentence_ids)
    model.set_scores({sid: float(i % 7) for i, sid in enumerate(ids)})
    panel.sort_by_informativeness()
    newer = {sid: float(i % 5) for i, sid in enumerate(ids)}
    model.set_scores(newer)  # before the first answer is in: that one is dropped
    qtbot.waitUntil(lambda: not model.reading, timeout=TIMEOUT)
    assert threads and all(t is not threading.main_thread() for t in threads)
    assert row_ids(model) == sorted(ids, key=lambda sid: -newer[sid])
    assert model.row_of(session.current_id) is not None

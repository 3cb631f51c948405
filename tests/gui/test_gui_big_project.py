"""A big project in the window: the list reads pages lazily, filters and
finds far rows by id, and the training sentences are read in a worker.

5,000 sentences (the CoNLL-2000 slice of tests/data repeated 50 times):
enough to be read in the background (``BACKGROUND_READ_MIN``) and to span
many pages of the list, small enough to build in a second.
"""

from __future__ import annotations

import gc
import shutil
import threading

import pytest
from PySide6.QtCore import Qt

from tagtool.core import Corpus, Document
from tagtool.gui import sentence_list
from tagtool.gui.session_cache import BACKGROUND_READ_MIN
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tagtool.store.project_listing import ListingPart
from tests.gui.helpers import DATA_DIR

N = 5000
TIMEOUT = 60_000


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """Every 10th sentence fully labeled, every 10th + 1 partly, the rest not."""
    gold = read_corpus(DATA_DIR / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    docs = []
    for d in range(N // len(gold.sentences)):
        sentences = []
        for i, s in enumerate(gold.sentences):
            k = (d * len(gold.sentences) + i) % 10
            if k == 1:
                s = s.with_annotations([a if t % 2 == 0 else () for t, a in enumerate(s.annotations)])
            elif k:
                s = s.unlabeled()
            sentences.append(s)
        docs.append(Document(f"part{d}", sentences))
    path = tmp_path_factory.mktemp("big") / "big.tagproj"
    Project.create(path, Corpus(gold.labels, docs)).close()
    return path


@pytest.fixture
def big_project(big_file, tmp_path):
    path = tmp_path / "big.tagproj"
    shutil.copy(big_file, path)
    return path


@pytest.fixture
def statuses(big_file):
    """``[(id, status)]`` in document order, from the whole corpus (the expected answers)."""
    with Project.open(big_file, readonly=True) as project:
        return [(sid, s.status) for sid, s in zip(project.sentence_ids(), project.corpus())]


def row_ids(model) -> list[int]:
    return [model.index(row, 0).data(Qt.UserRole) for row in range(model.rowCount())]


def wait_ready(qtbot, session):
    if not session.cache.sentences_ready:
        with qtbot.waitSignal(session.sentencesReady, timeout=TIMEOUT):
            pass
    assert session.cache.sentences_ready


def test_opening_reads_a_page_and_no_sentence_on_the_gui_thread(open_window, big_project, qtbot, monkeypatch):
    readers = []
    snapshot = Project.snapshot

    def recording_snapshot(self, *args, **kwargs):
        readers.append(threading.current_thread())
        return snapshot(self, *args, **kwargs)

    monkeypatch.setattr(Project, "snapshot", recording_snapshot)
    monkeypatch.setattr(Project, "corpus", lambda self: pytest.fail("the window read the whole corpus"))
    window = open_window(big_project)
    model, session = window.list_panel.model, window.session
    assert N >= BACKGROUND_READ_MIN and not session.cache.sentences_ready
    assert model.rowCount() == N
    qtbot.waitUntil(lambda: model.pages_read > 0)  # the list has painted
    assert model.pages_read == 1, "only the rows on screen"
    assert tuple(window.editor.tokens) == session.project.sentence(session.sentence_ids[0]).tokens
    assert window.list_panel.table.currentIndex().row() == 0
    wait_ready(qtbot, session)
    assert readers and threading.main_thread() not in readers, "read in a worker thread only"
    # the string-match index, built in a worker from the read sentences, pauses the collector too
    qtbot.waitUntil(lambda: window.model_loop.string_suggestions.index is not None, timeout=TIMEOUT)
    assert gc.isenabled() and gc.get_freeze_count() > 0, "the read sentences are out of the collector's way"
    window.close_project()
    assert gc.get_freeze_count() == 0, "and back in its reach once the project closes"


def test_statistics_behind_their_tab_count_nothing_until_shown(open_window, big_project, qtbot, monkeypatch):
    counted = []
    label_counts = ListingPart.label_counts
    monkeypatch.setattr(ListingPart, "label_counts", lambda self: counted.append(1) or label_counts(self))
    window = open_window(big_project)
    window.legend_dock.raise_()
    qtbot.wait(50)
    assert not window.stats_panel.on_screen() and not counted
    window.stats_dock.raise_()
    qtbot.waitUntil(lambda: bool(counted))
    assert window.stats_panel.on_screen() and "tokens fully labeled" in window.stats_panel.summary.text()


def test_pages_are_read_as_the_view_asks(open_window, big_project, statuses, monkeypatch, qtbot):
    monkeypatch.setattr(sentence_list, "MAX_PAGES", 4)
    window = open_window(big_project)
    model, table = window.list_panel.model, window.list_panel.table
    qtbot.waitUntil(lambda: model.pages_read > 0)
    first = model.pages_read
    table.scrollToBottom()
    last = model.index(N - 1, 0)
    assert last.data() == N and last.data(Qt.UserRole) == statuses[-1][0]
    assert model.pages_read == first + 1
    assert row_ids(model) == [sid for sid, _ in statuses]
    previews = [model.index(row, 4).data() for row in range(N)]  # every page, in turn
    assert previews == [s.preview for s in window.session.project.listing.sentence_summaries()]
    assert model.pages_read == 4, "the cache stays bounded"


@pytest.mark.parametrize("label", list(sentence_list.STATUS_FILTERS))
def test_status_filters_list_the_right_rows(open_window, big_project, statuses, label):
    window = open_window(big_project)
    panel = window.list_panel
    panel.set_status_filter(label)
    wanted = sentence_list.STATUS_FILTERS[label]
    keep = {None: lambda s: True, "incomplete": lambda s: s != "full"}.get(wanted, lambda s: s == wanted)
    assert row_ids(panel.model) == [sid for sid, s in statuses if keep(s)]


def test_search_lists_matching_rows_in_document_order(open_window, big_project):
    window = open_window(big_project)
    panel, project = window.list_panel, window.session.project
    panel.search.setText("pound")
    panel.apply_filter()
    ids = row_ids(panel.model)
    assert len(ids) == N // 100 * sum(
        "pound" in " ".join(s.tokens).lower() for s in project.sentences(project.sentence_ids()[:100])
    )
    assert ids == [sid for sid in project.sentence_ids() if sid in set(ids)]
    assert all("pound" in " ".join(project.sentence(sid).tokens) for sid in ids[:5])


def test_a_sentence_far_down_a_filtered_list_is_selected_and_edited_in_place(open_window, big_project, statuses, qtbot):
    window = open_window(big_project)
    panel, session, model = window.list_panel, window.session, window.list_panel.model
    window.model_loop.auto = False
    panel.set_status_filter("Unlabeled")
    unlabeled = [sid for sid, s in statuses if s == "none"]
    target = unlabeled[-3]
    session.go_to(target)
    row = panel.table.currentIndex().row()
    assert row == len(unlabeled) - 3 and model.index(row, 0).data(Qt.UserRole) == target
    qtbot.keyClick(window.editor, Qt.Key_J)  # the next sentence not fully labeled
    incomplete = [sid for sid, s in statuses if s != "full"]
    assert session.current_id == incomplete[incomplete.index(target) + 1]
    session.go_to(target)
    label = next(n for n in session.style.names if session.style.shortcut(n))
    qtbot.keyClick(window.editor, getattr(Qt, f"Key_{session.style.shortcut(label)}"))
    assert "partial" in model.index(row, 1).data(), "the edited row changes in place"
    assert model.index(row, 0).data(Qt.UserRole) == target
    panel.apply_filter()
    assert model.rowCount() == len(unlabeled) - 1 and model.row_of(target) is None


def test_sorted_lists_find_the_current_row(open_window, big_project, statuses):
    window = open_window(big_project)
    panel, session, model = window.list_panel, window.session, window.list_panel.model
    rank = {"none": 0, "partial": 1, "full": 2}
    panel.table.horizontalHeader().setSortIndicator(1, Qt.DescendingOrder)
    order = [sid for sid, _ in sorted(statuses, key=lambda r: -rank[r[1]])]
    assert row_ids(model) == order
    target = statuses[-2][0]
    session.go_to(target)
    assert panel.table.currentIndex().row() == order.index(target)
    panel.set_status_filter("Not fully labeled")
    panel.table.horizontalHeader().setSortIndicator(0, Qt.DescendingOrder)
    incomplete = [sid for sid, s in reversed(statuses) if s != "full"]
    assert row_ids(model) == incomplete
    assert panel.table.currentIndex().row() == incomplete.index(target) == 1
    assert model.row_of(statuses[-10][0]) is None, "fully labeled: not in the list"
    panel.set_status_filter("All sentences")
    scores = {sid: (i * 37 % 101) / 100 for i, (sid, _) in enumerate(statuses)}
    model.set_scores(scores)
    panel.sort_by_informativeness()
    assert row_ids(model) == sorted((sid for sid, _ in statuses), key=lambda s: -scores[s])
    assert panel.table.currentIndex().row() == model.row_of(target)
    assert model.index(panel.table.currentIndex().row(), 0).data(Qt.UserRole) == target


def test_edits_made_while_the_worker_reads_reach_the_training_sentences(open_window, big_project, qtbot, monkeypatch):
    # The worker's read transaction starts before the edits, so its copy lacks them.
    began, go = threading.Event(), threading.Event()
    snapshot = Project.snapshot

    def late_snapshot(self, *args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            self._db.execute("BEGIN")
            self._db.execute("SELECT count(*) FROM annotations").fetchone()  # the transaction sees now
            began.set()
            go.wait(TIMEOUT / 1000)
        return snapshot(self, *args, **kwargs)

    monkeypatch.setattr(Project, "snapshot", late_snapshot)
    window = open_window(big_project)
    session = window.session
    window.model_loop.auto = False
    assert began.wait(TIMEOUT / 1000) and not session.cache.sentences_ready
    ids = session.sentence_ids
    label = session.style.names[0]
    for sid in (ids[2], ids[N - 2], ids[N // 2]):
        session.go_to(sid)
        assert session.edit({0: frozenset({label})}, "edit")
    window.undo_action.trigger()  # the edit of ids[N // 2] undone
    go.set()
    wait_ready(qtbot, session)
    got_ids, sentences = session.cache.training_sentences()
    assert list(got_ids) == list(ids)
    assert list(sentences) == session.project.snapshot()[1]
    assert sentences[2].annotations[0] == sentences[N - 2].annotations[0] == {label}
    assert sentences[N // 2].annotations[0] != {label}


def test_a_bulk_change_while_the_worker_reads_starts_another_read(open_window, big_project, qtbot):
    window = open_window(big_project)
    session = window.session
    window.model_loop.auto = False
    first_read = session.cache._read
    assert first_read is not None
    session.project.set_annotation(session.sentence_ids[7], 0, session.style.names[0])  # as an import does
    session.reload()
    assert session.cache._read is not None and session.cache._read is not first_read
    wait_ready(qtbot, session)
    assert list(session.cache.training_sentences()[1]) == session.project.snapshot()[1]


def test_training_starts_once_the_sentences_are_read(open_window, big_project, qtbot):
    window = open_window(big_project)
    loop, session = window.model_loop, window.session
    loop.auto, loop.cv_folds = False, 0
    loop.set_learner("hmm", {})
    assert not session.cache.sentences_ready
    assert loop.train() and not loop.busy, "no run before the sentences are in"
    with qtbot.waitSignal(loop.started, timeout=TIMEOUT):
        pass
    assert session.cache.sentences_ready and loop.busy
    with qtbot.waitSignal(loop.cancelled, timeout=TIMEOUT):
        loop.cancel()


def test_cancel_while_a_run_waits_for_the_sentences_drops_it(open_window, big_project, qtbot):
    window = open_window(big_project)
    loop, session, panel = window.model_loop, window.session, window.model_panel
    loop.auto, loop.cv_folds = False, 0
    loop.set_learner("hmm", {})
    assert not session.cache.sentences_ready
    with qtbot.waitSignal(loop.waiting, timeout=TIMEOUT):
        assert loop.train()
    assert panel.cancel_button.isEnabled() and "Reading" in panel.status.text(), (
        "the wait is shown and can be cancelled"
    )
    started = []
    loop.started.connect(started.append)
    with qtbot.waitSignal(loop.cancelled, timeout=TIMEOUT):
        panel.cancel_button.click()
    assert "cancelled" in panel.status.text() and not panel.cancel_button.isEnabled()
    wait_ready(qtbot, session)
    qtbot.wait(50)
    assert not started and not loop.busy, "the cancelled run does not start once the sentences are in"
    assert not loop.cancel(), "nothing left to cancel"


def test_closing_while_the_worker_reads_stops_it(open_window, big_project):
    window = open_window(big_project)
    session = window.session
    reader = session.cache._reader
    assert reader is not None and not session.cache.sentences_ready
    window.close_project()
    assert reader.pool.activeThreadCount() == 0
    assert window.session is None


def test_a_big_projects_labels_are_counted_in_a_worker(open_window, big_project, qtbot, monkeypatch):
    """From BACKGROUND_LABEL_COUNT_MIN sentences the label chart's count is made by a worker thread (on the
    GUI thread, 100,000 sentences took 110 ms); an edit meanwhile drops its answer and counts again."""
    from tagtool.gui import statistics_panel as statistics

    monkeypatch.setattr(statistics, "BACKGROUND_LABEL_COUNT_MIN", 1000)
    threads = []
    label_counts = ListingPart.label_counts
    monkeypatch.setattr(
        ListingPart,
        "label_counts",
        lambda self, *ids: threads.append(threading.current_thread()) or label_counts(self, *ids),
    )
    window = open_window(big_project)
    window.model_loop.auto = False
    panel = window.stats_panel
    window.stats_dock.raise_()
    qtbot.waitUntil(lambda: panel._label_counts is not None and panel._counting is None, timeout=TIMEOUT)
    assert threads and all(t is not threading.main_thread() for t in threads)
    with Project.open(big_project, readonly=True) as project:
        whole = label_counts(project.listing)
    assert panel.label_counts() == whole
    assert [(n, f + c) for n, (f, c) in whole.items()] == [(n, v) for n, v, *_ in panel.labels.items]
    # an edit while counting: the answer is dropped, the count starts again and ends with the edit in it
    release = threading.Event()
    monkeypatch.setattr(ListingPart, "label_counts", lambda self, *ids: (release.wait(10), label_counts(self, *ids))[1])
    panel._label_counts = None
    panel._count_in_background()
    first = panel._counting
    assert first is not None
    session = window.session
    session.go_to(session.sentence_ids[2])
    session.edit({0: frozenset({"B-NP"})}, "an edit")
    release.set()
    qtbot.waitUntil(lambda: panel._label_counts is not None and panel._counting is None, timeout=TIMEOUT)
    with Project.open(big_project, readonly=True) as project:
        assert panel.label_counts() == label_counts(project)

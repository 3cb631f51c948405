"""The window's progress counts (``Session.counts``): read once, then kept up to
date per edit without an SQL aggregate; a big project's count is read in a
worker thread, and an answer that may miss an edit, or that arrives after the
project closed, is dropped."""

from __future__ import annotations

import threading

import pytest

from tagtool.gui import counts as counts_module
from tagtool.gui.counts import edit_delta, sentence_status
from tagtool.store.project import Project
from tagtool.store.project_listing import ListingPart

TIMEOUT = 30_000


def sql_counts(project: Project) -> tuple[dict, dict]:
    return project.listing.status_counts(), project.listing.annotation_counts()


@pytest.fixture
def aggregates(monkeypatch):
    """The threads that ran ``ListingPart.status_counts``/``annotation_counts``."""
    threads = []
    for name in ("status_counts", "annotation_counts"):
        real = getattr(ListingPart, name)

        def recording(self, _real=real):
            threads.append(threading.current_thread())
            return _real(self)

        monkeypatch.setattr(ListingPart, name, recording)
    return threads


@pytest.fixture
def background(monkeypatch):
    """Every project counts as big enough to count in a worker."""
    monkeypatch.setattr(counts_module, "BACKGROUND_COUNT_MIN", 0)


def test_edit_delta_against_counting_before_and_after():
    full, cand, none = frozenset({"B-NP"}), frozenset({"B-NP", "O"}), frozenset()
    cases = [
        ((none, none), {0: full, 1: full}),
        ((full, none), {1: cand}),
        ((full, full), {0: none}),
        ((cand, full), {0: full}),
        ((cand,), {0: none}),
        ((none, cand), {1: full}),
    ]
    for before_all, change in cases:
        after_all = tuple(change.get(t, a) for t, a in enumerate(before_all))
        sentences, tokens = edit_delta(after_all, {t: before_all[t] for t in change}, change)

        def kinds(anns):
            f = sum(len(a) == 1 for a in anns)
            p = sum(len(a) > 1 for a in anns)
            return {"full": f, "partial": p, "none": len(anns) - f - p}

        k0, k1 = kinds(before_all), kinds(after_all)
        assert tokens == {k: k1[k] - k0[k] for k in k0}
        s0 = sentence_status(k0["full"], k0["partial"], len(before_all))
        s1 = sentence_status(k1["full"], k1["partial"], len(after_all))
        expected = {"full": 0, "partial": 0, "none": 0}
        expected[s0] -= 1
        expected[s1] += 1
        assert sentences == expected


def test_counts_follow_edits_undo_redo_and_splits_without_an_aggregate_per_edit(window, aggregates):
    session = window.session
    project = session.project
    assert (session.counts.sentences, session.counts.tokens) == sql_counts(project)
    aggregates.clear()
    label = session.style.names[0]
    for sid in session.sentence_ids[:6]:
        session.go_to(sid)
        n = len(session.annotations)
        session.edit({0: frozenset({label})}, "one")
        session.edit({t: frozenset({label}) for t in range(n)}, "all")
        session.edit({1: frozenset(session.style.names[:2])}, "candidates")
        session.edit({t: frozenset() for t in range(0, n, 2)}, "clear some")
    session.undo_stack.undo()
    session.undo_stack.undo()
    session.undo_stack.redo()
    assert not aggregates, "no SQL aggregate per edit"
    expected = sql_counts(project)
    aggregates.clear()
    assert (session.counts.sentences, session.counts.tokens) == expected
    assert f"{expected[0]['full']} full" in window.progress.text()
    session.edits.split_token(0, 1) if len(session.sentence.tokens[0]) > 1 else session.edits.merge_tokens(0)
    assert (session.counts.sentences, session.counts.tokens) == sql_counts(project)


def test_a_big_projects_count_comes_from_a_worker(open_window, chunk_project, background, aggregates, qtbot):
    window = open_window(chunk_project)
    counts = window.session.counts
    if not counts.known:
        assert window.progress.text() == "Counting…"
        with qtbot.waitSignal(counts.changed, timeout=TIMEOUT):
            pass
    assert counts.known
    assert aggregates and all(t is not threading.main_thread() for t in aggregates)
    aggregates.clear()
    expected = sql_counts(window.session.project)
    assert (counts.sentences, counts.tokens) == expected
    assert f"{expected[0]['full']} full" in window.progress.text()


def test_an_edit_while_the_worker_counts_drops_its_answer_and_counts_again(
    open_window, chunk_project, background, monkeypatch, qtbot
):
    release, started, answers = threading.Event(), threading.Event(), []
    real = counts_module.read_counts

    def slow(project):
        started.set()
        release.wait(10)
        answer = real(project)
        answers.append(answer)
        return answer

    monkeypatch.setattr(counts_module, "read_counts", slow)
    window = open_window(chunk_project)
    session, counts = window.session, window.session.counts
    assert started.wait(10) and not counts.known
    label = session.style.names[0]
    session.go_to(session.sentence_ids[10])
    session.edit({0: frozenset({label})}, "during the count")
    release.set()
    qtbot.waitUntil(lambda: counts.known, timeout=TIMEOUT)
    assert len(answers) == 2, "the first answer was dropped and the count read again"
    assert (counts.sentences, counts.tokens) == sql_counts(session.project)


def test_closing_while_the_worker_counts(open_window, chunk_project, background, monkeypatch, qtbot):
    release = threading.Event()
    real = counts_module.read_counts
    monkeypatch.setattr(counts_module, "read_counts", lambda project: (release.wait(10), real(project))[1])
    window = open_window(chunk_project)
    counts = window.session.counts
    changed = []
    counts.changed.connect(lambda: changed.append(True))
    timer = threading.Timer(0.2, release.set)
    timer.start()
    window.close_project()  # waits for the worker; its answer lands nowhere
    qtbot.wait(100)
    assert window.session is None and not changed and not counts.known

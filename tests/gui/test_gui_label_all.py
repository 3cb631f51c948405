"""Label all occurrences off the GUI thread: its action log rows, its costs, a responsive window, one transaction."""

from __future__ import annotations

import threading
import time

import pytest
from PySide6.QtCore import QTimer

from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.core.labels import LabelSet
from tagtool.errors import ProjectError
from tagtool.services.annotation_costs import ActionClock, logged_cost, measure
from tagtool.services.simulate.config import Costs
from tagtool.store.actions import undone_ids
from tagtool.store.project import Project
from tests.gui import test_gui_string_matches as string_matches
from tests.gui.helpers import key_of, stored
from tests.gui.test_gui_string_matches import _done, _label_span

NAMES = ["O", "B-ORG", "I-ORG", "B-PER", "I-PER"]
ner_project, ner = string_matches.ner_project, string_matches.ner  # the fixtures of its five sentences
ORG = (frozenset({"B-ORG"}), frozenset({"I-ORG"}))


class FakeTime:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _actions(session):
    return [(r.kind, r.sentence_id, r.n_tokens, r.ref) for r in session.project.actions()]


def test_label_all_its_undo_and_redo_are_logged_as_actions(ner, qtbot):
    window, session = ner, ner.session
    now = FakeTime()
    session.clock = ActionClock(now)
    ids = session.sentence_ids
    now.t += 5.0
    _label_span(window, qtbot, 0, 2, "B-ORG")  # "Acme Corp" by hand: an open and a full label of 2 tokens
    now.t += 7.0
    window.editor.set_focus(0)
    _done(window, qtbot, window.label_all_action.trigger)
    log = session.project.actions()
    assert _actions(session) == [("open", ids[0], 6, None), ("full", ids[0], 2, None), ("label_all", ids[0], 6, None)]
    bulk = log[-1]
    assert (bulk.ended - bulk.started, bulk.active) == (7.0, 7.0)  # its own time, one action
    history = session.project.annotation_history()
    assert {e.sentence_id for e in history} == set(ids[:4])  # every token written is in the annotation log too
    now.t += 3.0
    _done(window, qtbot, session.undo_stack.undo)
    assert _actions(session)[-1] == ("undo", ids[0], 6, bulk.id)
    assert undone_ids(session.project.actions()) == {bulk.id}
    now.t += 2.0
    _done(window, qtbot, session.undo_stack.redo)
    assert _actions(session)[-1] == ("redo", ids[0], 6, bulk.id)
    assert undone_ids(session.project.actions()) == set()
    assert stored(session.project.path, ids[3])[:2] == ORG
    # the costs: the hand label's, not 6 more labels typed; the undo and redo count toward its time
    records = session.project.actions()
    kinds = measure(records)
    assert (kinds["full"].tokens, kinds["label_all"].tokens, kinds["label_all"].seconds) == (2, 6, 12.0)
    assert logged_cost(records, Costs()) == 2 * Costs().full
    _done(window, qtbot, session.undo_stack.undo)
    records = session.project.actions()
    assert measure(records)["label_all"].tokens == 0 and logged_cost(records, Costs()) == 2 * Costs().full


@pytest.fixture
def many_project(tmp_path):
    """400 sentences holding "Acme Corp", and one more labeling it."""
    texts = ["Acme Corp hired John Smith ."] + [f"Shares of Acme Corp fell {i} points ." for i in range(400)]
    sentences = [Sentence(tuple(t.split()), (frozenset(),) * len(t.split())) for t in texts]
    path = tmp_path / "many.tagproj"
    Project.create(path, Corpus.from_sentences(sentences, labels=LabelSet(NAMES)), name="many").close()
    return path


@pytest.fixture
def many(open_window, many_project, qtbot, monkeypatch):
    from tagtool.gui import window_menus

    monkeypatch.setattr(window_menus, "_ask", lambda _parent, _question: True)  # above CONFIRM_SENTENCES: yes
    window = open_window(many_project)
    window.model_loop.auto = False
    qtbot.waitUntil(lambda: window.model_loop.string_suggestions.index is not None)
    _label_span(window, qtbot, 0, 2, "B-ORG")
    window.editor.set_focus(0)
    return window


def _ticking(run, window, qtbot, monkeypatch, pause: float = 0.4) -> tuple[list, list]:
    """``run()`` with a 5 ms timer on the GUI thread and the worker's write slowed by ``pause``;
    the timer's ticks while it ran, and the threads that wrote."""
    from tagtool.gui import bulk_write

    real, threads = bulk_write.write_groups, []

    def slow(*args, **kwargs):
        threads.append(threading.get_ident())
        time.sleep(pause)  # a big project's write
        return real(*args, **kwargs)

    monkeypatch.setattr(bulk_write, "write_groups", slow)
    ticks: list[float] = []
    timer = QTimer(interval=5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    _done(window, qtbot, run)
    timer.stop()
    return ticks, threads


def test_a_big_label_all_runs_in_a_worker_while_the_window_turns(many, qtbot, monkeypatch):
    window, session = many, many.session
    seen: list[str] = []
    session.bulk.message.connect(seen.append)
    ticks, threads = _ticking(window.label_all_action.trigger, window, qtbot, monkeypatch)
    assert threads and threads[0] != threading.get_ident()  # written off the GUI thread
    assert len(ticks) > 30 and max(b - a for a, b in zip(ticks, ticks[1:])) < 0.3  # the event loop kept turning
    assert any("showing" in m for m in seen)  # the window learned of the sentences in slices
    assert "Labeled 400 occurrences of “Acme Corp” B-ORG I-ORG in 400 sentences" in seen[-1]
    assert stored(session.project.path, session.sentence_ids[400])[2:4] == ORG
    assert session.counts.token_counts()["full"] == 802
    ticks, threads = _ticking(session.undo_stack.undo, window, qtbot, monkeypatch)  # its undo too
    assert threads[0] != threading.get_ident() and len(ticks) > 30
    assert not any(stored(session.project.path, session.sentence_ids[400]))
    assert session.counts.token_counts()["full"] == 2


def test_edits_wait_while_it_runs(many, qtbot, monkeypatch):
    from tagtool.gui import bulk_write

    window, session = many, many.session
    release = threading.Event()
    real = bulk_write.write_groups
    monkeypatch.setattr(bulk_write, "write_groups", lambda *a, **k: release.wait(10) and real(*a, **k))
    window.label_all_action.trigger()
    qtbot.waitUntil(lambda: "Label all occurrences of “Acme Corp”" in window.statusBar().currentMessage())
    assert session.held and not session.undo_stack.isActive()
    session.go_to(session.sentence_ids[5])  # browsing goes on
    window.editor.set_focus(0)
    qtbot.keyClick(window.editor, key_of(window, "B-PER"))  # a label key: refused, said why
    assert "try again in a moment" in window.statusBar().currentMessage()
    assert not any(stored(session.project.path, session.sentence_ids[5]))
    window.statusBar().clearMessage()
    window.edit_labels()  # the Labels dialog (renames rewrite annotations) waits too
    assert "try again in a moment" in window.statusBar().currentMessage()
    release.set()
    _done(window, qtbot)
    assert session.undo_stack.isActive() and session.undo_stack.count() == 2
    assert session.annotations[2:4] == ORG  # the sentence on screen follows


def test_a_failure_mid_write_writes_nothing(many, qtbot, monkeypatch):
    from tagtool.store import writes

    window, session = many, many.session
    real, calls = writes.apply, []

    def failing(*args, **kwargs):
        calls.append(args[3])
        if len(calls) == 200:
            raise ProjectError("the disk is full (simulated)")
        return real(*args, **kwargs)

    monkeypatch.setattr(writes, "apply", failing)
    errors: list[str] = []
    session.saveFailed.connect(errors.append)
    before = session.project.actions()
    _done(window, qtbot, window.label_all_action.trigger)
    assert len(calls) == 200  # it got halfway
    assert not any(any(stored(session.project.path, sid)) for sid in session.sentence_ids[1:])  # nothing kept
    assert session.project.actions() == before and session.undo_stack.count() == 1
    assert errors and "the disk is full (simulated)" in errors[0]
    assert session.counts.token_counts()["full"] == 2 and session.undo_stack.isActive()
    monkeypatch.setattr(writes, "apply", real)  # and it can be tried again
    window.editor.set_focus(0)
    _done(window, qtbot, window.label_all_action.trigger)
    assert session.undo_stack.count() == 2 and stored(session.project.path, session.sentence_ids[7])[2:4] == ORG


def test_a_refused_undo_writes_nothing_and_stays_undoable(many, qtbot, monkeypatch):
    from tagtool.store import writes

    window, session = many, many.session
    _done(window, qtbot, window.label_all_action.trigger)
    real = writes.apply
    monkeypatch.setattr(writes, "apply", lambda *a, **k: (_ for _ in ()).throw(ProjectError("read-only (simulated)")))
    _done(window, qtbot, session.undo_stack.undo)
    qtbot.waitUntil(lambda: session.undo_stack.index() == 2)  # stepped back: the Label all is still done
    assert stored(session.project.path, session.sentence_ids[9])[2:4] == ORG
    assert [r.kind for r in session.project.actions()][-1] == "label_all"
    monkeypatch.setattr(writes, "apply", real)
    _done(window, qtbot, session.undo_stack.undo)  # tried again: undone
    assert not any(stored(session.project.path, session.sentence_ids[9]))
    assert [r.kind for r in session.project.actions()][-1] == "undo"

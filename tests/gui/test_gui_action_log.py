"""The app logs each annotation action with its time, in the edit's transaction (the real costs of annotation)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.gui.hints import SentenceHints, TokenHint
from tagtool.services.annotation_costs import ActionClock
from tagtool.store.actions import IDLE_SECONDS
from tagtool.store.project import Project
from tests.gui.helpers import go_unlabeled, key_of


class FakeTime:
    def __init__(self, t: float = 1_700_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def stored_actions(path):
    """The action log as the file holds it (a fresh connection)."""
    with Project.open(path, readonly=True) as project:
        return project.actions()


def test_every_kind_of_action_is_logged_with_its_time(window, chunk_project, qtbot):
    window.model_loop.auto = False
    session = window.session
    now = FakeTime()
    session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    sid = session.current_id
    n = len(editor.tokens)
    assert stored_actions(chunk_project) == [], "navigating logs nothing"

    now.t += 3.0
    editor.set_focus(0)
    editor.set_focus(1, extend=True)
    QTest.keyClick(editor, key_of(window, "B-NP"))  # full label on 2 tokens
    now.t += 2.0
    editor.set_focus(3)
    QTest.keyClick(editor, key_of(window, "B-NP"), Qt.ControlModifier)  # toggle: a single label so far
    now.t += 2.5
    QTest.keyClick(editor, key_of(window, "O"), Qt.ControlModifier)  # toggle: the candidate set
    editor.set_hints(SentenceHints(sid, {4: TokenHint(suggestion="O"), 5: TokenHint(suggestion="B-VP")}))
    now.t += 1.0
    QTest.keyClick(editor, Qt.Key_Return)  # accept 2 suggestions
    now.t += 500.0  # away from the desk
    window.undo_action.trigger()
    now.t += 1.0
    session.undo_stack.redo()
    now.t += 2.0
    editor.set_focus(0)
    QTest.keyClick(editor, Qt.Key_Delete)  # clear 1 token
    now.t += 4.0
    QTest.keyClick(editor, Qt.Key_N)  # leave: the unlabeled rest is skipped
    QTest.keyClick(editor, Qt.Key_N)  # browsing on logs nothing
    QTest.keyClick(editor, Qt.Key_P)

    log = stored_actions(chunk_project)
    kinds = [(a.kind, a.n_tokens, a.active) for a in log]
    unlabeled = n - 4  # tokens 1, 3 (candidate set), 4, 5 labeled; 0 cleared
    # the first action of the visit: its time goes to opening the sentence
    assert kinds == [
        ("open", n, 3.0),
        ("full", 2, 0.0),
        ("candidate", 0, 2.0),
        ("candidate", 1, 2.5),
        ("accept", 2, 1.0),
        ("undo", 2, IDLE_SECONDS),
        ("redo", 2, 1.0),
        ("clear", 1, 2.0),
        ("skip", unlabeled, 4.0),
    ]
    assert all(a.sentence_id == sid and a.annotator == "user" for a in log)
    assert log[5].ref == log[4].id and log[6].ref == log[4].id
    assert log[5].ended - log[5].started == 500.0, "the wall clock interval is kept"
    assert all(b.started == a.ended for a, b in zip(log, log[1:])), "consecutive actions share their ends"
    with Project.open(chunk_project, readonly=True) as project:
        assert len(project.annotation_history(sentence_id=sid)) == 2 + 1 + 1 + 2 + 2 + 2 + 1


def test_an_undo_in_another_sentence_logs_the_skip_of_the_one_left_first(window, chunk_project):
    window.model_loop.auto = False
    session = window.session
    now = FakeTime()
    session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    first = session.current_id
    now.t += 2.0
    QTest.keyClick(editor, key_of(window, "B-NP"))
    QTest.keyClick(editor, Qt.Key_N)
    second = session.current_id
    now.t += 3.0
    QTest.keyClick(editor, key_of(window, "O"))
    now.t += 1.0
    window.undo_action.trigger()
    window.undo_action.trigger()  # goes back to the first sentence
    log = stored_actions(chunk_project)
    assert [(a.kind, a.sentence_id) for a in log] == [
        ("open", first),
        ("full", first),
        ("skip", first),
        ("open", second),
        ("full", second),
        ("undo", second),
        ("skip", second),
        ("undo", first),
    ]
    assert log[6].n_tokens == len(session.project.sentence(second).tokens)  # all unlabeled again
    assert session.current_id == first


def test_a_refused_edit_logs_no_action_and_leaves_its_time_to_the_next(window, chunk_project, monkeypatch):
    from tagtool.errors import ProjectError

    window.model_loop.auto = False
    session = window.session
    now = FakeTime()
    session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    real = session.project.apply_action

    def refuse(*args, **kwargs):
        raise ProjectError("the disk is full")

    monkeypatch.setattr(session.project, "apply_action", refuse)
    now.t += 5.0
    QTest.keyClick(editor, key_of(window, "B-NP"))
    assert session.annotations[0] == frozenset()
    monkeypatch.setattr(session.project, "apply_action", real)
    now.t += 1.0
    QTest.keyClick(editor, key_of(window, "B-NP"))
    assert [(a.kind, a.active) for a in stored_actions(chunk_project)] == [("open", 6.0), ("full", 0.0)]


def test_each_visit_opens_its_sentence_once_unless_a_flag_began_it(window, chunk_project):
    window.model_loop.auto = False
    session = window.session
    now = FakeTime()
    session.clock = ActionClock(now)
    editor = go_unlabeled(window)
    first = session.current_id
    now.t += 8.0
    QTest.keyClick(editor, key_of(window, "B-NP"))  # opens the sentence: 8 s
    now.t += 2.0
    editor.set_focus(1)
    QTest.keyClick(editor, key_of(window, "B-VP"))  # same visit: no open
    QTest.keyClick(editor, Qt.Key_N)
    second = session.current_id
    now.t += 5.0
    session.edits.flag("a comment")  # the flag took the reading time: no open here
    now.t += 1.0
    QTest.keyClick(editor, key_of(window, "O"))
    QTest.keyClick(editor, Qt.Key_P)  # back to the first: a new visit
    now.t += 3.0
    editor.set_focus(2)
    QTest.keyClick(editor, key_of(window, "O"))
    log = stored_actions(chunk_project)
    assert [(a.kind, a.sentence_id, a.active) for a in log] == [
        ("open", first, 8.0),
        ("full", first, 0.0),
        ("full", first, 2.0),
        ("skip", first, 0.0),
        ("review", second, 5.0),
        ("full", second, 1.0),
        ("skip", second, 0.0),
        ("open", first, 3.0),
        ("full", first, 0.0),
    ]
    assert log[0].n_tokens == len(session.project.sentence(first).tokens)

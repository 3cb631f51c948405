"""Flag for review, skip, split and merge tokens: keys, menus, list, editor, undo, queue, training."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.core.corpus import Sentence
from tagtool.gui import session_cache as session_module
from tagtool.gui.help import shortcuts_html
from tagtool.gui.keys import KEYS as TABLE
from tagtool.gui.keys import REVIEW
from tagtool.gui.sentence_ops import FlagDialog, SplitDialog, split_offset
from tagtool.gui.sentence_status import SKIPPED_TEXT
from tagtool.store.project import Project
from tagtool.store.review import Review
from tests.gui.helpers import LABELED, stored

#: The review commands' keys and what they do (the key table's Review rows).
KEYS = [(row.keys[0], row.what) for row in TABLE if row.section == REVIEW]

TIMEOUT = 60_000
CTRL_SHIFT = Qt.ControlModifier | Qt.ShiftModifier


def press(window, key, modifiers=Qt.ControlModifier):
    """A key press on the focused editor, as the annotator types it (menu shortcuts included)."""
    window.activateWindow()
    assert QTest.qWaitForWindowActive(window), "menu shortcuts reach the active window only"
    window.editor.setFocus()
    QTest.keyClick(window.editor, key, modifiers)


def open_dialog(window, qtbot, kind):
    qtbot.waitUntil(lambda: isinstance(window.sentence_actions.dialog, kind))
    return window.sentence_actions.dialog


def row_data(window, sid, role=Qt.DisplayRole, column=1):
    model = window.list_panel.model
    return model.index(model.row_of(sid), column).data(role)


def flag_shown(window, sid) -> bool:
    """The Status cell's decoration is the red flag (not the blank of the same size)."""
    model = window.list_panel.model
    icon = row_data(window, sid, Qt.DecorationRole)
    return icon.toImage() == model.flag_icon(True).toImage() != model.flag_icon(False).toImage()


def test_flag_with_a_comment_shows_in_the_list_and_the_editor_and_undoes(window, qtbot):
    session, panel = window.session, window.editor_panel
    sid = session.project.sentence_ids()[5]
    session.go_to(sid)
    assert not panel.review.isVisible()
    press(window, Qt.Key_F, CTRL_SHIFT)
    dialog = open_dialog(window, qtbot, FlagDialog)
    assert not dialog.remove.isVisible()
    dialog.comment.setText("is Rockwell an ORG here?")
    dialog.accept()
    with Project.open(session.project.path, readonly=True) as p:  # saved at once
        assert p.review.get(sid) == Review(True, "is Rockwell an ORG here?")
    assert flag_shown(window, sid)
    assert "is Rockwell an ORG here?" in row_data(window, sid, Qt.ToolTipRole)
    assert panel.review.isVisible() and "is Rockwell an ORG here?" in panel.review.text()
    # again: the comment is edited, or the flag removed
    press(window, Qt.Key_F, CTRL_SHIFT)
    dialog = open_dialog(window, qtbot, FlagDialog)
    assert dialog.remove.isVisible() and dialog.comment.text() == "is Rockwell an ORG here?"
    dialog.remove.click()
    assert session.edits.review(sid) == Review() and not flag_shown(window, sid)
    window.undo_action.trigger()  # the flag is back ...
    assert session.project.review.get(sid).comment == "is Rockwell an ORG here?" and panel.review.isVisible()
    window.undo_action.trigger()  # ... and gone
    assert session.project.review.get(sid) == Review() and not panel.review.isVisible()
    window.redo_action.trigger()
    assert session.edits.review(sid).flagged


def test_next_flagged_key_and_the_flagged_filter(window, qtbot):
    session = window.session
    ids = session.project.sentence_ids()
    for sid, comment in ((ids[40], "b"), (ids[7], "a")):
        session.go_to(sid)
        session.edits.flag(comment)
    session.go_to(ids[0])
    press(window, Qt.Key_G)
    assert session.current_id == ids[7]
    press(window, Qt.Key_G)
    assert session.current_id == ids[40]
    press(window, Qt.Key_G)  # around the end
    assert session.current_id == ids[7]
    window.list_panel.set_status_filter("Flagged for review")
    model = window.list_panel.model
    assert [model.index(r, 0).data(Qt.UserRole) for r in range(model.rowCount())] == [ids[7], ids[40]]


def test_a_skipped_sentence_leaves_the_queue_and_training_and_comes_back(window, qtbot):
    session, loop = window.session, window.model_loop
    ids = session.project.sentence_ids()
    loop.auto = False
    window.model_panel.select_learner("mv-perceptron", {"max_iter": 2})
    window.model_panel.folds.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        window.model_panel.train_button.click()
    first = session.queue[0]
    session.go_to(first)
    press(window, Qt.Key_K)
    assert session.project.review.get(first).skipped
    assert first not in session.queue
    assert session.current_id == session.queue[0] != first  # went on to what J offers
    assert row_data(window, first) == SKIPPED_TEXT
    for _ in range(len(ids)):  # J never offers it, even without the model's queue
        press(window, Qt.Key_J, Qt.NoModifier)
        assert session.current_id != first
    session.queue = []
    for _ in range(len(ids)):
        press(window, Qt.Key_J, Qt.NoModifier)
        assert session.current_id != first
    # a labeled sentence that is skipped trains as unlabeled text
    session.go_to(ids[0])
    assert session.sentence.status == "full"
    press(window, Qt.Key_K)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        window.model_panel.train_button.click()
    assert loop.result.status[ids[0]] == "none" and loop.result.status[ids[1]] == "full"
    assert first not in session.queue and ids[0] not in session.queue
    # un-skip: back in the queue and in the list
    session.go_to(first)
    press(window, Qt.Key_K)
    assert not session.project.review.get(first).skipped
    assert first in session.queue and row_data(window, first) != SKIPPED_TEXT
    window.undo_action.trigger()  # undo the un-skip: out again
    assert first not in session.queue and session.project.review.get(first).skipped


def test_split_and_merge_keys_rewrite_the_sentence_with_undo(window, qtbot):
    session, editor = window.session, window.editor
    sid = session.project.sentence_ids()[0]  # labeled: Confidence/B-NP in/B-PP the/B-NP pound/I-NP ...
    session.go_to(sid)
    tokens, anns = session.sentence.tokens, session.annotations
    editor.set_focus(0)
    press(window, Qt.Key_S, CTRL_SHIFT)
    dialog = open_dialog(window, qtbot, SplitDialog)
    dialog.text.setCursorPosition(4)
    assert dialog.offset() == 4 and "Conf" in dialog.preview.text()
    dialog.accept()
    assert session.sentence.tokens[:3] == ("Conf", "idence", tokens[1])
    assert session.annotations[:3] == (anns[0], frozenset({"I-NP"}), anns[1])
    assert editor.tokens == session.sentence.tokens and editor.focus == 0
    assert stored(session.project.path, sid) == session.annotations  # saved at once
    assert row_data(window, sid, column=2) == len(tokens) + 1
    assert row_data(window, sid, column=4).startswith("Conf idence")
    # merge the halves again: the labels agree (B-NP + I-NP is one B-NP)
    press(window, Qt.Key_M, CTRL_SHIFT)
    assert session.sentence.tokens == tokens and session.annotations == anns
    window.undo_action.trigger()  # the merge undone: split again
    assert session.sentence.tokens[:2] == ("Conf", "idence")
    window.undo_action.trigger()  # the split undone
    assert session.sentence.tokens == tokens and stored(session.project.path, sid) == anns
    assert row_data(window, sid, column=2) == len(tokens)
    window.redo_action.trigger()
    assert session.sentence.tokens[:2] == ("Conf", "idence")
    # the last token has nothing to merge with: a message, no change
    editor.set_focus(len(editor.tokens) - 1)
    press(window, Qt.Key_M, CTRL_SHIFT)
    assert "no next token" in window.statusBar().currentMessage()
    assert len(session.sentence) == len(tokens) + 1


def test_split_and_merge_from_the_context_menu(window, qtbot):
    editor = window.editor
    editor.set_focus(1)
    menu = editor.build_menu()
    texts = [a.text() for a in menu.actions()]
    assert "S&plit token…" in texts and "&Merge token with next" in texts
    before = len(editor.tokens)
    next(a for a in menu.actions() if a.text() == "&Merge token with next").trigger()
    assert len(editor.tokens) == before - 1


def test_a_split_while_the_models_guidance_is_cached_draws_no_stale_hints(window, qtbot):
    session, loop, editor = window.session, window.model_loop, window.editor
    loop.auto = False
    window.model_panel.select_learner("mv-perceptron", {"max_iter": 2})
    window.model_panel.folds.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        window.model_panel.train_button.click()
    sid = session.project.sentence_ids()[LABELED]
    session.go_to(sid)
    n = len(session.sentence)
    assert len(editor.hints.tokens) == n
    assert session.edits.split_token(0, 1)
    assert len(loop.result.guidance[sid].suggestions) == n, "the cached guidance is of the old tokens"
    assert not [h for h in editor.hints.tokens.values() if not h.source]  # string matches are of the new tokens
    assert not editor.grab().isNull()  # paints without the old hints
    # as many tokens as the guidance has, but other ones: still no hints from it
    t = next(t for t in range(2, n - 1) if session.sentence.tokens[t])
    assert session.edits.merge_tokens(t) and len(session.sentence) == n
    assert not [h for h in editor.hints.tokens.values() if not h.source]  # string matches are of the new tokens
    session.go_to(session.project.sentence_ids()[LABELED + 1])
    assert len(editor.hints.tokens) == len(session.sentence), "other sentences keep theirs"
    session.go_to(sid)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        window.model_panel.train_button.click()
    assert len(loop.result.guidance[sid].suggestions) == n == len(editor.hints.tokens)
    ids, sentences = session.cache.training_sentences()
    assert sentences[list(ids).index(sid)].tokens == session.sentence.tokens


def test_a_split_while_the_worker_reads_reaches_the_training_sentences(open_window, chunk_project, qtbot, monkeypatch):
    monkeypatch.setattr(session_module, "BACKGROUND_READ_MIN", 10)
    began, go = threading.Event(), threading.Event()
    snapshot = Project.snapshot

    def late_snapshot(self, *args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            self._db.execute("BEGIN")
            self._db.execute("SELECT count(*) FROM sentences").fetchone()  # the transaction sees now
            began.set()
            go.wait(TIMEOUT / 1000)
        return snapshot(self, *args, **kwargs)

    monkeypatch.setattr(Project, "snapshot", late_snapshot)
    window = open_window(chunk_project)
    session = window.session
    window.model_loop.auto = False
    assert began.wait(TIMEOUT / 1000) and not session.cache.sentences_ready
    sid = session.sentence_ids[4]
    session.go_to(sid)
    assert session.edits.split_token(0, 1)
    go.set()
    with qtbot.waitSignal(session.sentencesReady, timeout=TIMEOUT):
        pass
    _, sentences = session.cache.training_sentences()
    assert sentences[4] == session.project.sentence(sid) and len(sentences[4]) == len(session.sentence)


def test_a_read_only_project_refuses_and_says_so(open_window, chunk_project, qtbot, monkeypatch):
    """Root ignores file modes: the writability probe is told the folder is read-only."""
    import os

    from tagtool.store import dbfile

    monkeypatch.setattr(dbfile, "writable", lambda path: False)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: mode != os.W_OK and real_access(path, mode))
    before = chunk_project.read_bytes()
    window = open_window(chunk_project)
    window.error_box.close()
    session = window.session
    sid = session.current_id
    press(window, Qt.Key_K)
    assert window.statusBar().currentMessage().startswith("Not saved: This project is open read-only")
    assert session.edits.review(sid) == Review() and session.current_id == sid and not window.undo_action.isEnabled()
    window.error_box.close()
    window.editor.set_focus(0)
    press(window, Qt.Key_M, CTRL_SHIFT)
    assert "Not merged" in window.statusBar().currentMessage()
    assert len(session.sentence) == len(session.project.sentence(sid))
    window.close()
    assert chunk_project.read_bytes() == before


def test_the_keys_are_in_the_shortcuts_help_and_free_of_label_keys(window):
    html = shortcuts_html(window.session.style)
    for key, _ in KEYS:
        assert key in html
    shortcuts = {a.shortcut().toString() for a in window.findChildren(type(window.undo_action)) if a.shortcut()}
    for key, _ in KEYS:
        assert key in shortcuts
    taken = [
        a.shortcut().toString()
        for a in window.findChildren(type(window.undo_action))
        if a.shortcut().toString() in {k for k, _ in KEYS}
    ]
    assert len(taken) == len(set(taken)) == len(KEYS), "each key names one command"


@pytest.mark.parametrize(
    "token, text, cursor, expected",
    [
        ("NewYork", "NewYork", 3, 3),
        ("NewYork", "New York", 0, 3),
        ("end.", "end.", 3, 3),
        ("NewYork", "NewYork", 0, None),
        ("NewYork", "NewYork", 7, None),
        ("NewYork", "New Yrk", 3, None),
        ("NewYork", "Ne w York", 3, None),
    ],
)
def test_split_offset_from_the_dialog(token, text, cursor, expected):
    assert split_offset(token, text, cursor) == expected


def test_retokenized_sentence_is_a_valid_sentence(window):
    session = window.session
    session.go_to(session.project.sentence_ids()[0])
    session.edits.split_token(0, 2)
    s = session.sentence
    assert s.columns and isinstance(s, Sentence)
    assert all(len(v) == len(s.tokens) == len(s.annotations) for v in s.columns.values())


def test_each_is_an_action_of_the_log_with_its_own_time(window, qtbot):
    """Flag, skip, split and merge are logged as ``review``/``retokenize`` (and their undos), so their
    time is not charged to the next label."""
    session = window.session
    now = [1000.0]
    session.clock.now = lambda: now[0]
    session.clock.last = now[0]
    sid = session.current_id
    n = len(session.sentence)
    now[0] += 30  # writing a comment
    session.edits.flag("why")
    now[0] += 5
    session.edits.split_token(0, 1)
    now[0] += 2
    window.undo_action.trigger()  # the split
    now[0] += 4
    session.edit({1: frozenset({"O"})}, "label")
    got = [(a.kind, a.sentence_id, a.n_tokens, a.active) for a in session.project.actions()]
    assert got == [("review", sid, n, 30.0), ("retokenize", sid, 2, 5.0), ("undo", sid, 1, 2.0), ("full", sid, 1, 4.0)]
    actions = session.project.actions()
    assert actions[2].ref == actions[1].id

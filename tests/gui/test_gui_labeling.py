"""Labeling by keys: full labels, candidate sets, BIO spans, clearing, undo/redo."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.gui.helpers import go_unlabeled, key_of, label_keys, stored


def test_full_label_by_key_is_saved_and_moves_on(window, qtbot, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    assert editor.focus == 0
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    assert editor.annotations[0] == {"B-NP"}
    assert editor.focus == 1, "a full label moves to the next token"
    qtbot.keyClick(editor, *label_keys(window, "I-NP"))  # Shift + the type's digit
    assert editor.annotations[:2] == ({"B-NP"}, {"I-NP"})
    assert stored(chunk_project, sid)[:2] == ({"B-NP"}, {"I-NP"})
    assert "2 partial" not in window.progress.text()
    assert "1 partial" in window.progress.text()


def test_candidate_set_by_modifier_keys(window, qtbot, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    qtbot.keyClick(editor, Qt.Key_Right)
    qtbot.keyClick(editor, key_of(window, "B-NP"), Qt.ControlModifier)
    assert editor.annotations[1] == {"B-NP"}  # one candidate is a full label
    qtbot.keyClick(editor, key_of(window, "B-PP"), Qt.AltModifier)
    qtbot.keyClick(editor, key_of(window, "O"), Qt.ControlModifier)
    assert editor.annotations[1] == {"B-NP", "B-PP", "O"}
    qtbot.keyClick(editor, key_of(window, "O"), Qt.ControlModifier)  # toggles off
    assert editor.annotations[1] == {"B-NP", "B-PP"}
    assert editor.focus == 1, "candidate toggles stay on the token"
    assert stored(chunk_project, sid)[1] == {"B-NP", "B-PP"}
    row = window.list_panel.model.row_of(sid)
    assert "partial" in window.list_panel.model.index(row, 1).data()


def test_bio_span_gets_b_and_i(window, qtbot, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    assert editor.selection() == [0, 1, 2]
    qtbot.keyClick(editor, *label_keys(window, "I-NP"))  # either key of the type
    assert editor.annotations[:3] == ({"B-NP"}, {"I-NP"}, {"I-NP"})
    assert editor.focus == 3 and editor.selection() == [3]
    # a candidate toggle on a span: B-PP on the first token, I-PP on the rest
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(editor, key_of(window, "B-PP"), Qt.ControlModifier)
    assert editor.annotations[3:5] == ({"B-PP"}, {"I-PP"})
    qtbot.keyClick(editor, key_of(window, "B-NP"), Qt.ControlModifier)
    assert editor.annotations[3:5] == ({"B-PP", "B-NP"}, {"I-PP", "I-NP"})
    assert stored(chunk_project, sid)[:5] == editor.annotations[:5]


def test_zero_and_delete_clear(window, qtbot, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    for _ in range(3):
        qtbot.keyClick(editor, key_of(window, "O"))
    qtbot.keyClick(editor, Qt.Key_Home)
    qtbot.keyClick(editor, Qt.Key_0)
    qtbot.keyClick(editor, Qt.Key_Right)
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(editor, Qt.Key_Delete)
    assert editor.annotations[:3] == (frozenset(),) * 3
    assert stored(chunk_project, sid)[:3] == (frozenset(),) * 3


def test_undo_and_redo_write_back_to_the_project(window, qtbot, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(editor, key_of(window, "B-NP"))  # one command for two tokens
    qtbot.keyClick(editor, key_of(window, "B-PP"), Qt.ControlModifier)
    qtbot.keyClick(editor, key_of(window, "O"), Qt.ControlModifier)
    assert editor.annotations[:3] == ({"B-NP"}, {"I-NP"}, {"B-PP", "O"})
    stack = window.session.undo_stack
    assert stack.count() == 3

    window.undo_action.trigger()
    assert editor.annotations[2] == {"B-PP"}
    assert stored(chunk_project, sid)[2] == {"B-PP"}
    window.undo_action.trigger()
    window.undo_action.trigger()
    assert editor.annotations[:3] == (frozenset(),) * 3
    assert stored(chunk_project, sid)[:3] == (frozenset(),) * 3

    window.redo_action.trigger()
    assert editor.annotations[:2] == ({"B-NP"}, {"I-NP"})
    assert stored(chunk_project, sid)[:2] == ({"B-NP"}, {"I-NP"})

    # undo from another sentence goes back to the one it changes
    qtbot.keyClick(editor, Qt.Key_N)
    assert window.session.current_id != sid
    window.undo_action.trigger()
    assert window.session.current_id == sid
    assert editor.annotations[:2] == (frozenset(),) * 2
    assert stored(chunk_project, sid)[:2] == (frozenset(),) * 2


def test_undo_by_keyboard_shortcut(window, qtbot):
    editor = go_unlabeled(window)
    window.activateWindow()
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    qtbot.keyClick(editor, Qt.Key_Z, Qt.ControlModifier)
    assert editor.annotations[0] == frozenset()
    qtbot.keyClick(editor, Qt.Key_Z, Qt.ControlModifier | Qt.ShiftModifier)
    assert editor.annotations[0] == {"B-NP"}


def test_label_picker_sets_and_toggles(window, qtbot):
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, Qt.Key_Slash)
    picker = editor.picker
    assert picker.isVisible()
    qtbot.keyClicks(picker.filter, "b-vp")
    qtbot.keyClick(picker.filter, Qt.Key_Return)
    assert editor.annotations[0] == {"B-VP"} and not picker.isVisible()
    qtbot.keyClick(editor, Qt.Key_L, Qt.ControlModifier)
    qtbot.keyClicks(picker.filter, "I-VP")
    qtbot.keyClick(picker.filter, Qt.Key_Return, Qt.ControlModifier)
    qtbot.keyClick(editor, Qt.Key_L, Qt.ControlModifier)
    qtbot.keyClicks(picker.filter, "B-VP")
    qtbot.keyClick(picker.filter, Qt.Key_Return, Qt.ControlModifier)
    assert editor.annotations[1] == {"I-VP", "B-VP"}


def test_mouse_click_shift_click_and_context_menu(window, qtbot):
    editor = go_unlabeled(window)
    rects = editor._rects
    qtbot.mouseClick(editor, Qt.LeftButton, pos=rects[2].center().toPoint())
    assert editor.focus == 2
    qtbot.mouseClick(editor, Qt.LeftButton, Qt.ShiftModifier, rects[4].center().toPoint())
    assert editor.selection() == [2, 3, 4]
    menu = editor.build_menu()
    full = menu.actions()[0].menu()
    next(a for a in full.actions() if a.text().startswith("B-NP")).trigger()
    assert editor.annotations[2:5] == ({"B-NP"}, {"I-NP"}, {"I-NP"})

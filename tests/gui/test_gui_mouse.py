"""The mouse in the editor: real press, move and release events on the chips (tagtool.gui.editor_mouse)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tagtool.gui.edits import suggested_span
from tagtool.gui.help import shortcuts_html
from tagtool.gui.label_palette import palette_entries
from tests.gui.helpers import LABELED, go_unlabeled, label_keys, stored
from tests.gui.test_gui_token_questions import asking_on, first_torn, train
from tools.mouse_script import chip_point, click, click_button, drag


def test_a_drag_across_tokens_selects_the_span(window):
    editor = go_unlabeled(window)
    drag(editor, 1, 4)
    assert editor.selection() == [1, 2, 3, 4]
    assert (editor.anchor, editor.focus) == (1, 4), "the press is the anchor, the release the focused token"
    assert "4 tokens selected" in window.editor_panel.token_info.text()
    drag(editor, 5, 3)  # right to left
    assert editor.selection() == [3, 4, 5] and editor.focus == 3


def test_a_drag_that_passes_between_chips_ends_on_the_nearest(window):
    editor = go_unlabeled(window)
    a, b = editor._rects[2], editor._rects[3]
    gap = chip_point(editor, 2)
    gap.setX(int((a.right() + b.left()) / 2) + 1)  # between two chips of a row: the nearer one
    QTest.mousePress(editor, Qt.LeftButton, Qt.NoModifier, chip_point(editor, 0))
    QTest.mouseMove(editor, gap)
    QTest.mouseRelease(editor, Qt.LeftButton, Qt.NoModifier, gap)
    assert editor.selection() == [0, 1, 2, 3]


def test_a_label_key_on_a_dragged_span_gives_b_then_i(window, chunk_project):
    editor = go_unlabeled(window)
    sid = window.session.current_id
    drag(editor, 0, 2)
    QTest.keyClick(editor, *label_keys(window, "B-NP"))
    assert editor.annotations[:4] == ({"B-NP"}, {"I-NP"}, {"I-NP"}, frozenset())
    assert stored(chunk_project, sid)[:3] == ({"B-NP"}, {"I-NP"}, {"I-NP"})
    assert editor.focus == 3, "then on to the token after the span, as by the keys"


def test_a_palette_click_labels_the_dragged_span(window):
    editor = go_unlabeled(window)
    palette = window.editor_panel.palette_bar
    np_button = palette.buttons["B-NP"]
    assert np_button.text() == f"NP  {window.session.style.shortcut('B-NP')}", "one button per type, with its key"
    assert "O" in palette.buttons and "I-NP" not in palette.buttons
    drag(editor, 1, 3)
    click_button(np_button)
    assert editor.annotations[1:4] == ({"B-NP"}, {"I-NP"}, {"I-NP"})
    assert editor.hasFocus(), "the editor keeps the keys after a click in the palette"
    click(editor, 4)
    click_button(np_button, Qt.ShiftModifier)  # Shift: the I- label (a token continuing the span)
    assert editor.annotations[4] == {"I-NP"}


def test_a_ctrl_click_in_the_palette_toggles_a_candidate_and_clear_clears(window):
    editor = go_unlabeled(window)
    palette = window.editor_panel.palette_bar
    click(editor, 2)
    click_button(palette.buttons["B-NP"], Qt.ControlModifier)
    click_button(palette.buttons["B-PP"], Qt.ControlModifier)
    assert editor.annotations[2] == {"B-NP", "B-PP"} and editor.focus == 2
    click_button(palette.buttons["B-PP"], Qt.ControlModifier)
    assert editor.annotations[2] == {"B-NP"}
    drag(editor, 1, 2)
    click_button(palette.buttons["O"])
    assert editor.annotations[1:3] == ({"O"}, {"O"})
    drag(editor, 1, 2)
    click_button(palette.buttons[""])  # Clear
    assert editor.annotations[1:3] == (frozenset(), frozenset())


def test_a_right_click_in_a_dragged_span_keeps_it_for_the_menu(window):
    editor = go_unlabeled(window)
    drag(editor, 2, 5)
    click(editor, 3, button=Qt.RightButton)
    assert editor.selection() == [2, 3, 4, 5]
    menu = editor.build_menu()
    full = menu.actions()[0].menu()
    next(a for a in full.actions() if a.text().startswith("B-VP")).trigger()
    assert editor.annotations[2:6] == ({"B-VP"}, {"I-VP"}, {"I-VP"}, {"I-VP"})


def _suggested_span(editor):
    """A span of two or more unlabeled tokens the model suggests (B-X I-X …), and its first token."""
    suggestion = [h.suggestion if (h := editor.hints.get(t)) else None for t in range(len(editor.tokens))]
    for t in range(len(suggestion) - 1):
        if suggestion[t] and suggestion[t].startswith("B-") and suggestion[t + 1] == "I-" + suggestion[t][2:]:
            end = t + 1
            while end + 1 < len(suggestion) and suggestion[end + 1] == suggestion[t + 1]:
                end += 1
            return list(range(t, end + 1)), suggestion
    return None, suggestion


def test_a_click_on_a_suggested_span_accepts_that_span_only(window, qtbot):
    train(window, qtbot)
    session, editor = window.session, window.editor
    span, suggestion = None, None
    for sid in session.project.sentence_ids()[LABELED:]:
        session.go_to(sid)
        span, suggestion = _suggested_span(editor)
        if span:
            break
    assert span, "a suggested span of several tokens"
    click(editor, span[-1], band="token")  # the word: only focused
    assert not any(session.annotations[t] for t in span)
    click(editor, span[-1], band="label")  # the faded suggestion: the whole span
    assert [session.annotations[t] for t in span] == [{suggestion[t]} for t in span]
    others = [t for t in range(len(editor.tokens)) if t not in span]
    assert not any(session.annotations[t] for t in others), "the rest of the sentence is left as it was"
    assert session.project.actions()[-1].kind == "accept"


def test_a_label_key_on_a_dragged_span_labels_every_token_in_token_question_mode(window, qtbot):
    train(window, qtbot)
    asking_on(window)
    session, editor = window.session, window.editor
    session.go_to(session.project.sentence_ids()[0])
    QTest.keyClick(editor, Qt.Key_J)  # opens on its first question
    asked = set(editor.hints.questions())
    quiet = [t for t in range(len(editor.tokens)) if t not in asked and not session.annotations[t]]
    assert asked and quiet, "the sentence has questions and unlabeled tokens the model does not ask about"
    first = max(0, quiet[0] - 1)
    last = min(len(editor.tokens) - 1, quiet[0] + 1)
    drag(editor, first, last)
    QTest.keyClick(editor, *label_keys(window, "O"))
    assert all(session.annotations[t] == {"O"} for t in range(first, last + 1))
    # and a span selected by the keys, over questions and the unlabeled tokens between them
    open_ = [t for t in range(len(editor.tokens)) if not session.annotations[t]]
    start, end = open_[0], open_[min(3, len(open_) - 1)]
    editor.set_focus(start)
    for _ in range(end - start):
        QTest.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    QTest.keyClick(editor, *label_keys(window, "B-NP"))
    assert [session.annotations[t] for t in range(start, end + 1)] == [{"B-NP"}] + [{"I-NP"}] * (end - start)


def test_the_help_names_the_mouse_and_the_palette(window):
    text = shortcuts_html(window.session.style)
    assert "Drag" in text and "palette" in text and "suggestion" in text


def test_the_suggested_span_of_a_token():
    s = ["O", "B-NP", "I-NP", "I-NP", "B-NP", "I-VP", None, "I-PP", "I-PP", "E-X", "B-X"]
    assert suggested_span(s, 2) == [1, 2, 3] == suggested_span(s, 1)
    assert suggested_span(s, 4) == [4], "a B- starts a span of its own"
    assert suggested_span(s, 5) == [5], "an I- of another type starts one too"
    assert suggested_span(s, 0) == [0] and suggested_span(s, 6) == []
    assert suggested_span(s, 8) == [7, 8]
    assert suggested_span(s, 10) == [10], "nothing continues after an E-"


def test_the_palette_has_a_button_per_span_type():
    names = ["O", "B-NP", "I-NP", "B-PP", "I-PP", "I-LST"]
    entries = palette_entries(names, lambda n: {"O": "1", "B-NP": "2", "I-LST": "Shift+4"}.get(n), True)
    assert [(e.text, e.label, e.inside, e.key) for e in entries] == [
        ("O", "O", None, "1"),
        ("NP", "B-NP", "I-NP", "2"),
        ("PP", "B-PP", "I-PP", None),
        ("LST", "I-LST", None, "Shift+4"),
    ]
    assert [e.text for e in palette_entries(["NN", "B-X"], lambda n: None, False)] == ["NN", "B-X"]


def test_a_click_on_a_torn_questions_half_gives_that_label(window, qtbot):
    train(window, qtbot)
    plan = asking_on(window)
    session, editor = window.session, window.editor
    sid, t = first_torn(plan, session)
    session.go_to(sid)
    first, second = editor.hints.get(t).pair
    point = chip_point(editor, t, band="label")
    point.setX(int(editor._rects[t].right()) - 4)  # the right half: the runner-up
    QTest.mouseClick(editor, Qt.LeftButton, Qt.NoModifier, point)
    assert session.annotations[t] == {second} != {first}

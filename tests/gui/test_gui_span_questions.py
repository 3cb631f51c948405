"""Span questions in the editor: Tab and a click select the whole span, one label key labels it, one undo."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from tagtool.gui.hints import SentenceHints, TokenHint
from tests.gui.helpers import LABELED


class _Asks:
    """What Tab asks (the model loop's ``next_question``): the questions ``asked`` of one sentence."""

    def __init__(self, sid: int, asked: list[int], annotations):
        self.sid, self.asked, self.annotations = sid, asked, annotations

    def next_question(self, sid, focus, direction=1):
        open_ = [t for t in self.asked if not self.annotations()[t]]
        ahead = [t for t in open_ if (t > focus if direction >= 0 else t < focus)]
        return (self.sid, ahead[0] if direction >= 0 else ahead[-1]) if ahead else None

    def pair(self, sid, token):
        return None

    def no_question_reason(self) -> str:
        return "no question"


def _ask_spans(window, asked: list[int], spans: bool = True):
    """Sentence ``LABELED`` with the questions ``asked``, held on screen as a model would send them."""
    session, editor = window.session, window.editor
    window.model_loop._refresh_hints = lambda *args: None  # no model here: the hints set below stay
    session.go_to(session.sentence_ids[LABELED])  # an unlabeled sentence
    sid = session.current_id
    hints = {t: TokenHint(suggestion="O", question=True, question_value=0.9) for t in asked}
    editor._arrived = True  # the model's hints of the sentence just opened
    editor.set_hints(SentenceHints(sid, hints, asking=True, spans=spans))
    editor.questions = _Asks(sid, asked, lambda: session.annotations)
    return session, editor


def _press_label(editor, label: str) -> None:
    shortcut = editor.session.style.shortcut(label)
    base = shortcut.removeprefix("Shift+")
    QTest.keyClick(editor, getattr(Qt, f"Key_{base.upper()}"), Qt.ShiftModifier if base != shortcut else Qt.NoModifier)


def test_tab_selects_a_span_question_and_one_key_labels_it_in_one_undo_step(window, tmp_path):
    session, editor = _ask_spans(window, [1, 2, 3, 6])
    assert editor.selection() == [1, 2, 3], "a sentence opens on its first question, the whole span selected"
    editor.set_focus(0)
    QTest.keyClick(editor, Qt.Key_Tab)
    assert editor.selection() == [1, 2, 3]
    editor.grab().save(str(tmp_path / "span_question.png"))
    _press_label(editor, "B-NP")
    assert [session.annotations[t] for t in (1, 2, 3)] == [{"B-NP"}, {"I-NP"}, {"I-NP"}]
    assert editor.selection() == [6], "answered: on to the next question"
    window.undo_action.trigger()  # one undo step takes the whole span back
    assert all(not session.annotations[t] for t in (1, 2, 3))
    QTest.keyClick(editor, Qt.Key_Backtab)
    assert editor.selection() == [1, 2, 3], "Shift+Tab from the next question selects the span before it"
    _press_label(editor, "O")  # outside: the whole span, one key
    assert [session.annotations[t] for t in (1, 2, 3)] == [{"O"}] * 3


def test_a_click_on_a_span_question_selects_the_span(window):
    session, editor = _ask_spans(window, [1, 2, 3, 6])
    editor.set_focus(0)
    centre = editor._rects[2].center()
    QTest.mouseClick(editor, Qt.LeftButton, Qt.NoModifier, QPoint(int(centre.x()), int(editor._rects[2].top() + 4)))
    assert editor.selection() == [1, 2, 3]


def test_token_questions_stay_tokens(window):
    session, editor = _ask_spans(window, [1, 2, 3, 6], spans=False)
    assert editor.selection() == [1]
    QTest.keyClick(editor, Qt.Key_Tab)
    assert editor.selection() == [2]


def test_the_menu_turns_span_questions_on_and_keeps_the_choice(window):
    menu = window.queue_menu
    assert not menu.spans_action.isChecked() and window.settings.questions == "tokens"
    menu.spans_action.trigger()
    assert window.model_loop.questions.spans and window.settings.questions == "spans"
    menu.spans_action.trigger()
    assert not window.model_loop.questions.spans and window.settings.questions == "tokens"

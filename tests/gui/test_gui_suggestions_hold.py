"""Suggestions hold still while a sentence is open; Enter accepts what was shown, then the flow goes on.

A model that arrives while a sentence is open (a quick retrain after an
edit) waits behind a mark until the person leaves the sentence or asks
(F5); Enter accepts the suggestions on screen and opens the queue's next
sentence; a changed learner retrains; the token-question mode is the
project's and shows in the status bar.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QSettings, Qt
from PySide6.QtTest import QTest

from tagtool.gui.main_window import MainWindow
from tagtool.gui.preferences import PreferencesDialog
from tests.gui.helpers import LABELED

TIMEOUT = 60_000


def train(window, qtbot):
    panel, loop = window.model_panel, window.model_loop
    panel.select_learner("mv-perceptron", {"max_iter": 2})
    panel.folds.setValue(0)
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        panel.train_button.click()
    return loop.result


def open_unlabeled(window):
    window.session.go_to(window.session.project.sentence_ids()[LABELED])
    window.editor.setFocus()
    return window.editor


def other_label(window, label: str) -> str:
    return next(name for name in window.session.project.labels.names if name != label)


def arrive_different(window, sids) -> object:
    """A newer model arrives (the loop's arrival path) whose suggestions for ``sids`` all differ."""
    loop = window.model_loop
    result = loop.result
    guidance = dict(result.guidance)
    for sid in sids:
        old = guidance[sid]
        guidance[sid] = replace(old, suggestions=tuple(other_label(window, s) for s in old.suggestions))
    newer = replace(result, guidance=guidance)
    loop._use(newer, unstored=False)
    return newer


def shown_suggestions(editor) -> list:
    return [editor.hints.get(t).suggestion if editor.hints.get(t) else None for t in range(len(editor.tokens))]


def model_suggestions(editor) -> list:
    """The model's suggestions on screen (where a string match shows another, the model's it keeps)."""
    hints = [editor.hints.get(t) for t in range(len(editor.tokens))]
    return [(h.model_suggestion or h.suggestion) if h else None for h in hints]


def test_a_model_arriving_mid_sentence_changes_nothing_and_enter_stores_what_was_shown(window, qtbot):
    train(window, qtbot)
    window.model_loop.auto = False
    editor = open_unlabeled(window)
    sid = window.session.current_id
    before = shown_suggestions(editor)
    assert all(before)
    newer = arrive_different(window, [sid])
    assert shown_suggestions(editor) == before  # held still
    QTest.keyClick(editor, Qt.Key_Return)
    stored = [next(iter(a)) for a in window.session.project.annotations(sid)]
    assert stored == before
    assert stored != list(newer.guidance[sid].suggestions)


def test_f5_or_leaving_shows_the_waiting_suggestions(window, qtbot):
    train(window, qtbot)
    window.model_loop.auto = False
    window.activateWindow()
    assert QTest.qWaitForWindowActive(window)
    editor = open_unlabeled(window)
    sid = window.session.current_id
    nxt = window.session.project.sentence_ids()[LABELED + 1]
    assert not window.editor_panel.waiting.isVisible()
    newer = arrive_different(window, [sid, nxt])
    assert window.model_loop.hold.suggestions_waiting
    assert window.editor_panel.waiting.isVisible()  # the mark
    assert "New suggestions" in window.editor_panel.waiting.text()
    QTest.keyClick(editor, Qt.Key_F5)  # Model › Show new suggestions
    assert model_suggestions(editor) == list(newer.guidance[sid].suggestions)
    assert not window.model_loop.hold.suggestions_waiting and not window.editor_panel.waiting.isVisible()
    # another model; leaving the sentence (N) and coming back (P) shows the newest
    newest = arrive_different(window, [sid])
    assert window.editor_panel.waiting.isVisible()
    QTest.keyClick(editor, Qt.Key_N)
    assert not window.editor_panel.waiting.isVisible()
    QTest.keyClick(editor, Qt.Key_P)
    assert model_suggestions(editor) == list(newest.guidance[sid].suggestions)
    # the mark's link asks for them too
    arrive_different(window, [sid])
    window.editor_panel.waiting.linkActivated.emit("show")
    assert not window.model_loop.hold.suggestions_waiting


def test_enter_opens_the_queue_next_sentence_and_the_list_follows(window, qtbot):
    train(window, qtbot)
    window.model_loop.auto = False
    editor = open_unlabeled(window)
    sid = window.session.current_id
    QTest.keyClick(editor, Qt.Key_Return)
    session = window.session
    head = next(s for s in session.queue if s != sid and s not in session.edits.skipped)
    assert session.current_id == head
    table = window.list_panel.table
    rows = {i.row() for i in table.selectionModel().selectedRows()}
    assert rows == {window.list_panel.model.row_of(head)}
    assert table.visualRect(window.list_panel.model.index(window.list_panel.model.row_of(head), 0)).intersects(
        table.viewport().rect()
    )  # scrolled to
    # Edit › Preferences › Next sentence after Enter, off: Enter stays
    dialog = PreferencesDialog(window.settings, window)
    assert dialog.advance.isChecked()  # on by default
    dialog.advance.setChecked(False)
    dialog.accept()
    assert window.settings.advance_after_accept is False
    editor.advance_after_accept = window.settings.advance_after_accept  # as edit_preferences applies it
    QTest.keyClick(editor, Qt.Key_Return)
    assert session.current_id == head


def test_changing_the_learner_starts_a_retrain(window, qtbot):
    train(window, qtbot)
    loop = window.model_loop
    with qtbot.waitSignal(loop.finished, timeout=TIMEOUT):
        window.model_panel.learner.setCurrentIndex(window.model_panel.learner.findData("hmm"))
    assert loop.result.learner == "hmm"


def test_without_automatic_retraining_the_panel_says_a_run_is_needed(window, qtbot):
    train(window, qtbot)
    window.model_panel.auto.setChecked(False)
    window.model_panel.learner.setCurrentIndex(window.model_panel.learner.findData("hmm"))
    assert "Train now" in window.model_panel.status.text()
    assert not window.model_loop.busy


def test_token_question_mode_is_the_project_s_and_shown_in_the_status_bar(qtbot, tmp_path, chunk_project):
    import shutil

    second = tmp_path / "second.tagproj"
    shutil.copy(chunk_project, second)
    window = MainWindow(QSettings(str(tmp_path / "gui.ini"), QSettings.IniFormat))
    qtbot.addWidget(window)
    assert window.open_project(chunk_project)
    window.show()
    qtbot.waitExposed(window)
    button = window.queue_menu.mode_button
    assert button.isVisible() and button.text() == "Mode: whole sentences"
    qtbot.mouseClick(button, Qt.LeftButton)  # the status bar's switch
    assert window.model_loop.questions.asking and button.text().startswith("Mode: token questions")
    assert window.open_project(second)  # another project keeps its own mode
    assert not window.model_loop.questions.asking and button.text() == "Mode: whole sentences"
    assert not window.queue_menu.asking_action.isChecked()
    assert window.open_project(chunk_project)  # the first one was left asking
    assert window.model_loop.questions.asking and window.queue_menu.asking_action.isChecked()
    assert button.text().startswith("Mode: token questions")


def test_the_quick_retrain_after_an_edit_leaves_the_open_sentence_as_it_was(window, qtbot):
    train(window, qtbot)
    editor = open_unlabeled(window)
    before = shown_suggestions(editor)
    editor.set_focus(0)
    with qtbot.waitSignal(window.model_loop.finished, timeout=TIMEOUT):
        editor.apply_full(other_label(window, before[0]))  # its retrain arrives while the sentence is open
    assert window.session.current_id == window.session.project.sentence_ids()[LABELED]
    assert shown_suggestions(editor)[1:] == before[1:]


def test_opening_a_project_starts_no_run(open_window, chunk_project, qtbot):
    window = open_window(chunk_project)  # labeled sentences, no model yet
    assert not window.model_loop._settings_timer.isActive() and not window.model_loop.busy
    train(window, qtbot)
    window.close_project()
    started = []
    window = open_window(chunk_project)  # with a stored model and labeled sentences
    window.model_loop.started.connect(started.append)
    qtbot.wait(1500)
    assert not started and not window.model_loop._settings_timer.isActive()


def test_a_click_on_a_suggestion_accepts_what_was_shown_while_newer_ones_wait(window, qtbot):
    from tools.mouse_script import chip_point

    train(window, qtbot)
    window.model_loop.auto = False
    editor = open_unlabeled(window)
    sid = window.session.current_id
    before = shown_suggestions(editor)
    arrive_different(window, [sid])
    assert window.model_loop.hold.suggestions_waiting
    QTest.mouseClick(editor, Qt.LeftButton, Qt.NoModifier, chip_point(editor, 0, band="label"))
    first = window.session.project.annotations(sid)[0]
    assert first == {before[0]}


def test_in_the_token_question_mode_enter_stores_the_shown_suggestions_and_moves_on(window, qtbot):
    from tests.gui.test_gui_token_questions import asking_on

    train(window, qtbot)
    window.model_loop.auto = False
    editor = open_unlabeled(window)
    asking_on(window)
    editor.setFocus()
    sid = window.session.current_id
    before = shown_suggestions(editor)
    arrive_different(window, [sid])
    QTest.keyClick(editor, Qt.Key_Return)
    assert [next(iter(a)) for a in window.session.project.annotations(sid)] == before
    assert window.session.current_id != sid

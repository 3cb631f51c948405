"""Reopening a project returns to the sentence and token the window showed when it was closed."""

from __future__ import annotations

from tagtool.gui.main_window import MainWindow


def test_reopening_returns_to_the_sentence_and_token_left(open_window, chunk_project, settings, qtbot):
    window = open_window(chunk_project)
    first = window.session.current_id
    target = window.session.sentence_ids[7]
    window.session.go_to(target)
    window.editor.set_focus(3)
    window.close()
    again = open_window(chunk_project)
    assert again.session.current_id == target != first
    assert again.editor.focus == 3
    again.close()


def test_a_deleted_or_unknown_position_opens_at_the_start(open_window, chunk_project, settings):
    from tagtool.gui.settings import GuiSettings

    window = open_window(chunk_project)
    first = window.session.current_id
    window.close()
    GuiSettings(settings).set_last_position(chunk_project, 10**9, 2)
    again = open_window(chunk_project)
    assert again.session.current_id == first and isinstance(again, MainWindow)
    again.close()
    settings.setValue(next(k for k in settings.allKeys() if k.startswith("positions/")), "garbage")
    assert GuiSettings(settings).last_position(chunk_project) is None

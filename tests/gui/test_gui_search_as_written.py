"""Search finds text as written ("Hot Pot, which" finds the tokens ``Hot Pot , which``) and Enter in the search
box opens the first hit in the editor, for a small project (read at once) and a big one (read in a worker)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tagtool.gui import sentence_list


def _written_phrase(window) -> tuple[int, str]:
    """A sentence holding "word , word" and the phrase as a person would type it ("word, word")."""
    project = window.session.project
    for sid in project.sentence_ids()[10:]:
        tokens = project.sentence(sid).tokens
        for i in range(1, len(tokens) - 1):
            if tokens[i] == "," and tokens[i - 1].isalpha() and tokens[i + 1].isalpha():
                phrase = f"{tokens[i - 1]}, {tokens[i + 1]}"
                first = project.sentence_ids(search=f"{tokens[i - 1]} , {tokens[i + 1]}")[0]
                return first, phrase
    raise AssertionError("no sentence with 'word , word'")


@pytest.mark.parametrize("in_worker", [False, True])
def test_enter_in_the_search_box_opens_the_first_sentence_with_the_text_as_written(
    window, qtbot, monkeypatch, in_worker
):
    if in_worker:
        monkeypatch.setattr(sentence_list, "BACKGROUND_LIST_MIN", 0)
    window.model_loop.auto = False
    first, phrase = _written_phrase(window)
    assert window.session.current_id != first
    window._find()  # Ctrl+F
    qtbot.keyClicks(window.list_panel.search, phrase)
    qtbot.keyClick(window.list_panel.search, Qt.Key_Return)
    qtbot.waitUntil(lambda: window.session.current_id == first)
    assert window.list_panel.model.rowCount() >= 1
    assert window.list_panel.model.data(window.list_panel.model.index(0, 0), Qt.UserRole) == first
    qtbot.waitUntil(lambda: window.editor.hasFocus())


def test_enter_with_no_hit_stays_put(window, qtbot):
    window.model_loop.auto = False
    before = window.session.current_id
    window._find()
    qtbot.keyClicks(window.list_panel.search, "zzqqxx, nothing")
    qtbot.keyClick(window.list_panel.search, Qt.Key_Return)
    assert window.list_panel.model.rowCount() == 0
    assert window.session.current_id == before
    assert window.list_panel.search.hasFocus()

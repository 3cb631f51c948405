"""The adjudication view's keys (pick an annotator's answer, keep the set, take back, Tab), undo, and the
"Annotators disagree" list's order (most disputed first)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tagtool.gui.help import shortcuts_html
from tagtool.gui.settings import GuiSettings
from tagtool.store.project import Project


def _disagree(path, answers: dict[int, dict[int, tuple[str, str]]]) -> None:
    """``{sentence id: {token: (ann's label, bob's label)}}``; other tokens both answer ``O``."""
    with Project.open(path) as p:
        given = []
        for sid, tokens in answers.items():
            n = len(p.sentence(sid))
            ann = [frozenset({tokens.get(t, ("O", "O"))[0]}) for t in range(n)]
            bob = [frozenset({tokens.get(t, ("O", "O"))[1]}) for t in range(n)]
            given.append((sid, f"sentence {sid}", {"ann": ann, "bob": bob}))
        p.team.add_answers(given)


def _key(qtbot, view, key, modifier=Qt.NoModifier) -> None:
    qtbot.keyClick(view.table, key, modifier)


def test_keys_pick_an_answer_keep_the_set_take_back_and_undo(open_window, chunk_project, settings, qtbot):
    with Project.open(chunk_project) as p:
        sid = p.sentence_ids()[5]
    _disagree(chunk_project, {sid: {1: ("B-NP", "I-NP"), 3: ("B-NP", "B-VP")}})
    GuiSettings(settings).annotator = "judge"
    window = open_window(chunk_project)
    session = window.session
    session.go_to(sid)
    window.adjudication.action.trigger()  # View › Adjudication
    view = window.adjudication.view
    assert window.adjudication.dock.isVisible()
    assert view.names == ["ann", "bob"] and view.table.rowCount() == 3
    header = [view.table.horizontalHeaderItem(t).text() for t in range(4)]
    assert header[1].startswith("≠ ") and header[3].startswith("≠ ") and not header[0].startswith("≠")
    view.table.setCurrentCell(0, 1)
    _key(qtbot, view, Qt.Key_2)  # bob's answer
    assert session.annotations[1] == {"I-NP"} and session.team.resolutions()[1].labels == {"I-NP"}
    assert session.team.resolutions()[1].annotator == "judge"
    assert view.token == 3, "a resolution moves on to the sentence's next disagreement"
    assert view.table.horizontalHeaderItem(1).text().startswith("✓ ")
    _key(qtbot, view, Qt.Key_K)  # keep the set
    assert session.team.resolutions()[3].labels == {"B-NP", "B-VP"}
    assert sid not in session.project.sentence_ids(status="disagree")
    assert session.counts.token_counts() == session.project.listing.annotation_counts()  # kept per resolution
    window.undo_action.trigger()
    assert 3 not in session.team.resolutions() and not view.table.horizontalHeaderItem(3).text().startswith("✓")
    view.table.setCurrentCell(0, 1)
    _key(qtbot, view, Qt.Key_Backspace)  # take the resolution back
    assert session.team.resolutions() == {} and session.annotations[1] == {"B-NP", "I-NP"}
    window.undo_action.trigger()
    assert session.team.resolutions()[1].labels == {"I-NP"}
    view.table.setCurrentCell(0, 0)
    _key(qtbot, view, Qt.Key_3)  # no third annotator: nothing happens
    _key(qtbot, view, Qt.Key_1)  # token 0: both said O; resolving an agreement is allowed
    assert session.team.resolutions()[0].labels == {"O"}
    assert session.counts.token_counts() == session.project.listing.annotation_counts()
    assert session.counts.sentences == session.project.listing.status_counts()
    with Project.open(chunk_project, readonly=True) as p:
        assert p.team.resolutions(sid)[1].labels == {"I-NP"} and p.annotations(sid)[1] == {"I-NP"}


def test_tab_goes_to_the_next_disagreement_across_sentences_most_disputed_first(open_window, chunk_project, qtbot):
    with Project.open(chunk_project) as p:
        ids = p.sentence_ids()
    few, many = ids[4], ids[9]
    _disagree(
        chunk_project, {few: {2: ("B-NP", "I-NP")}, many: {0: ("B-NP", "B-VP"), 1: ("I-NP", "B-VP"), 4: ("B-NP", "O")}}
    )
    window = open_window(chunk_project)
    session, view = window.session, window.adjudication.view
    window.adjudication.show()
    session.go_to(ids[0])
    _key(qtbot, view, Qt.Key_Tab)
    assert session.current_id == many and view.token == 0  # the most disputed sentence first
    _key(qtbot, view, Qt.Key_Tab)
    _key(qtbot, view, Qt.Key_Tab)
    assert (session.current_id, view.token) == (many, 4)
    _key(qtbot, view, Qt.Key_Tab)
    assert (session.current_id, view.token) == (few, 2)
    _key(qtbot, view, Qt.Key_Tab, Qt.ShiftModifier)
    assert (session.current_id, view.token) == (many, 4)
    _key(qtbot, view, Qt.Key_1)  # resolve the three: the sentence leaves the disagreement order
    view.table.setCurrentCell(0, 0)
    _key(qtbot, view, Qt.Key_1)
    assert view.token == 1
    _key(qtbot, view, Qt.Key_1)
    assert set(session.team.resolutions()) == {0, 1, 4}
    _key(qtbot, view, Qt.Key_Tab)
    assert (session.current_id, view.token) == (few, 2)
    assert "Ctrl+Shift+A" in shortcuts_html(session.style)


def test_the_disagree_filter_lists_the_most_disputed_sentences_first(open_window, chunk_project):
    with Project.open(chunk_project) as p:
        ids = p.sentence_ids()
    _disagree(
        chunk_project, {ids[4]: {2: ("B-NP", "I-NP")}, ids[9]: {0: ("B-NP", "B-VP"), 1: ("I-NP", "B-VP")}, ids[6]: {}}
    )
    window = open_window(chunk_project)
    panel = window.list_panel
    rows = lambda: [panel.model.index(r, 0).data(Qt.UserRole) for r in range(panel.model.rowCount())]  # noqa: E731
    panel.set_status_filter("Annotators disagree")
    assert rows() == [ids[9], ids[4]]
    panel.table.horizontalHeader().setSortIndicator(0, Qt.AscendingOrder)  # a column's order still works
    assert rows() == [ids[4], ids[9]]
    panel.set_status_filter("All sentences")
    panel.set_status_filter("Annotators disagree")
    assert rows() == [ids[9], ids[4]]
    panel.set_status_filter("All sentences")
    assert rows() == ids and panel.model.sort_column == 0

"""Team work in the app: the preferences' annotator name on every edit, resolutions with undo, the disagree filter."""

from __future__ import annotations

import sqlite3

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from tagtool.gui.preferences import PreferencesDialog
from tagtool.gui.settings import GuiSettings
from tagtool.store.project import Project
from tests.gui.helpers import go_unlabeled, key_of


def _who(path, table: str) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute(f"SELECT DISTINCT annotator FROM {table}")}
    finally:
        conn.close()


def _answers(path, sid: int, token: int, answers: dict[str, str]) -> None:
    """Give ``token`` of ``sid`` these annotators' answers and the training label they make."""
    conn = sqlite3.connect(path)
    with conn:
        conn.executemany(
            "INSERT INTO annotator_labels (sentence_id, token, annotator, labels) VALUES (?, ?, ?, ?)",
            [(sid, token, who, lab) for who, lab in answers.items()],
        )
    conn.close()
    with Project.open(path) as p:
        p.team.unresolve_token(sid, token, "setup")  # the training label their answers make


def test_the_preferences_name_is_recorded_with_every_edit(open_window, chunk_project, settings, qtbot):
    GuiSettings(settings).annotator = "  maria "
    window = open_window(chunk_project)
    assert window.session.annotator == "maria"
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "O"))
    window.session.edits.flag("look")
    window.session.edits.split_token(0, 1)
    assert _who(chunk_project, "annotation_log") == {"maria"}
    assert _who(chunk_project, "actions") == {"maria"} and _who(chunk_project, "sentence_review") == {"maria"}
    assert "maria" in _who(chunk_project, "annotations")


def test_the_preferences_dialog_sets_the_name_for_the_next_edits(window, settings, qtbot):
    assert window.session.annotator == "user"  # the default until set
    dialog = PreferencesDialog(window.settings, window)
    qtbot.addWidget(dialog)
    dialog.name.clear()
    ok = dialog.buttons.button(QDialogButtonBox.Ok)
    assert not ok.isEnabled()
    dialog.accept()
    assert dialog.result() == 0 and GuiSettings(settings).annotator == "user", "an empty name is not taken"
    qtbot.keyClicks(dialog.name, "jo")
    assert ok.isEnabled()
    qtbot.mouseClick(ok, Qt.LeftButton)
    assert GuiSettings(settings).annotator == "jo"
    window.session.annotator = window.settings.annotator  # what edit_preferences does after exec()
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "O"))
    assert _who(window.session.project.path, "annotation_log") == {"jo"}


def test_resolving_a_token_is_saved_logged_and_undone(open_window, chunk_project, settings, qtbot):
    with Project.open(chunk_project) as p:
        sid = p.sentence_ids()[5]
    _answers(chunk_project, sid, 1, {"ann": "B-NP", "bob": "I-NP"})
    GuiSettings(settings).annotator = "judge"
    window = open_window(chunk_project)
    session = window.session
    session.go_to(sid)
    assert session.annotations[1] == {"B-NP", "I-NP"}
    assert session.team.answers()[1] == {"ann": frozenset({"B-NP"}), "bob": frozenset({"I-NP"})}
    assert sid in session.project.sentence_ids(status="disagree")
    seen = []
    session.annotationsChanged.connect(lambda s, ch: seen.append((s, dict(ch))))
    assert session.team.resolve(1, {"I-NP"})
    assert not session.team.resolve(1, {"I-NP"}), "already resolved so"
    assert session.annotations[1] == {"I-NP"} and seen == [(sid, {1: frozenset({"I-NP"})})]
    assert session.team.resolutions()[1].annotator == "judge"
    assert sid not in session.project.sentence_ids(status="disagree")
    window.undo_action.trigger()
    assert session.annotations[1] == {"B-NP", "I-NP"} and session.team.resolutions() == {}
    window.redo_action.trigger()
    assert session.annotations[1] == {"I-NP"} and session.team.resolutions()[1].labels == {"I-NP"}
    assert session.team.unresolve(1)
    assert session.annotations[1] == {"B-NP", "I-NP"}
    window.undo_action.trigger()
    assert session.team.resolutions()[1].labels == {"I-NP"}
    kinds = [(a.kind, a.annotator) for a in session.project.actions()]
    assert kinds == [
        ("adjudicate", "judge"),
        ("undo", "judge"),
        ("redo", "judge"),
        ("adjudicate", "judge"),
        ("undo", "judge"),
    ]
    with Project.open(chunk_project, readonly=True) as p:
        assert p.annotations(sid)[1] == {"I-NP"}


def test_the_list_filters_sentences_whose_annotators_disagree(open_window, chunk_project):
    with Project.open(chunk_project) as p:
        ids = p.sentence_ids()
    _answers(chunk_project, ids[7], 0, {"ann": "B-NP", "bob": "B-VP"})
    _answers(chunk_project, ids[9], 0, {"ann": "B-NP", "bob": "B-NP"})
    window = open_window(chunk_project)
    window.list_panel.set_status_filter("Annotators disagree")
    model = window.list_panel.model
    assert [model.index(r, 0).data(Qt.UserRole) for r in range(model.rowCount())] == [ids[7]]

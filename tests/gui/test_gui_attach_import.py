"""The app's Import annotations of a doccano file made on the project's own text (attached by
offsets, a crossing span joined on request) and Add documents asking about texts already held.
Every dialog is driven as a person would: the choice made in its widgets, its button clicked."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QPushButton

from tagtool.gui import add_documents, transfer
from tagtool.gui.attach_import import AttachDialog
from tagtool.store.project import Project
from tests.store.test_span_attach import PARAGRAPHS, make_project, two_annotators, write_jsonl


def drive(qtbot, steps):
    """Act on the modal dialogs as they open, one step each (``step(dialog)``); the list empties as they go."""
    pending, seen = list(steps), []

    def poll():
        dialog = QApplication.activeModalWidget()
        if dialog is None or not pending or (seen and seen[-1] is dialog and dialog.isVisible()):
            return
        seen.append(dialog)
        pending.pop(0)(dialog)

    timer = QTimer()
    timer.timeout.connect(poll)
    timer.start(30)
    return pending, timer


def click(qtbot, text: str):
    def step(dialog):
        button = next(b for b in dialog.findChildren(QPushButton) if b.text().replace("&", "") == text)
        qtbot.mouseClick(button, Qt.LeftButton)

    return step


def ok(qtbot):
    def step(dialog):
        box = dialog.findChild(QDialogButtonBox)
        qtbot.mouseClick(box.button(QDialogButtonBox.Ok), Qt.LeftButton)

    return step


def use(qtbot, how: str):
    def step(dialog):
        assert isinstance(dialog, AttachDialog)
        dialog.use.setCurrentIndex(dialog.use.findData(how))
        ok(qtbot)(dialog)

    return step


def _menu_action(window, text):
    return next(a for a in window.findChildren(type(window.menuBar().actions()[0])) if a.text() == text)


def test_import_attaches_two_annotators_and_joins_the_crossed_sentences(qtbot, tmp_path, open_window, monkeypatch):
    path, file = make_project(tmp_path), two_annotators(tmp_path)
    window = open_window(path)
    n = window.session.n_sentences
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(file), ""))
    shown = []
    pending, timer = drive(
        qtbot,
        [
            ok(qtbot),  # a file naming its annotators: their answers by default
            lambda box: (shown.append(box.text()), click(qtbot, "Join sentences")(box)),
            lambda box: (shown.append(box.text()), click(qtbot, "OK")(box)),  # what was moved or left out
        ],
    )
    _menu_action(window, "&Import annotations…").trigger()
    timer.stop()
    assert not pending
    assert "'Paris. The' by bob: crosses the boundary" in shown[0]
    assert "inside a token" in shown[1]
    assert window.session.n_sentences == n - 1  # the window shows the joined sentence
    assert "Attached 4 of 4 records by their text" in window.statusBar().currentMessage()
    with Project.open(path, readonly=True) as p:
        first = p.sentence_ids()[0]
        bob = p.team.annotator_labels(first)["bob"]
        tokens = p.sentence(first).tokens
        assert [t for t, a in zip(tokens, bob) if a and a != {"O"}] == ["Dr.", "Smith", "Paris", ".", "The"]
        assert set(p.team.annotator_labels(p.sentence_ids()[1])) == {"alice", "bob"}


def test_leaving_the_crossing_span_out_keeps_the_sentences(qtbot, tmp_path, open_window, monkeypatch):
    path, file = make_project(tmp_path), two_annotators(tmp_path)
    window = open_window(path)
    n = window.session.n_sentences
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(file), ""))
    pending, timer = drive(qtbot, [use(qtbot, "fill"), click(qtbot, "Leave them out"), click(qtbot, "OK")])
    message = transfer.ask_import(window.session, window)
    timer.stop()
    assert not pending and message.startswith("Attached 4 of 4 records") and "training labels changed" in message
    assert window.session.project.n_sentences == n


def test_add_documents_asks_about_texts_already_held(qtbot, tmp_path, open_window, monkeypatch):
    path = make_project(tmp_path)
    window = open_window(path)
    n = window.session.n_sentences
    more = write_jsonl(tmp_path / "more.jsonl", [{"text": PARAGRAPHS[1]}, {"text": "A new text. Two sentences."}])
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(more), ""))
    asked = []
    # cancel: nothing added
    pending, timer = drive(qtbot, [ok(qtbot), lambda box: (asked.append(box.text()), click(qtbot, "Cancel")(box))])
    assert add_documents.ask_add_documents(window.session, window, None, transfer.confirm_new_labels) is None
    timer.stop()
    assert not pending and "1 of the 2 texts of more.jsonl (2 sentences) are already in the project" in asked[0]
    assert window.session.project.n_sentences == n
    # skip them, through the menu: the new text only, and the window shows it
    pending, timer = drive(qtbot, [ok(qtbot), click(qtbot, "Skip them")])
    _menu_action(window, "A&dd documents…").trigger()
    timer.stop()
    assert not pending and window.session.n_sentences == n + 2
    assert "Added 2 sentences from more.jsonl" in window.statusBar().currentMessage()
    # add again: both texts
    pending, timer = drive(qtbot, [ok(qtbot), click(qtbot, "Add again")])
    _menu_action(window, "A&dd documents…").trigger()
    timer.stop()
    assert not pending and window.session.n_sentences == n + 2 + 4


def test_the_open_sentence_shows_what_the_attached_spans_gave_it(qtbot, tmp_path, open_window, monkeypatch):
    path, file = make_project(tmp_path), two_annotators(tmp_path)
    window = open_window(path)
    session = window.session
    session.go_to(session.sentence_ids[1])  # "The next day he met Anna Berg at the Louvre ."
    assert not any(window.editor.annotations)
    session.edit({0: frozenset({"B-ORG"})}, "the project's own label, which the answers leave standing")
    with Project.open(path, readonly=True) as p:
        before = [p.annotations(sid) for sid in p.sentence_ids()]
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(file), ""))
    pending, timer = drive(qtbot, [ok(qtbot), click(qtbot, "Leave them out"), click(qtbot, "OK")])  # as answers
    _menu_action(window, "&Import annotations…").trigger()
    timer.stop()
    assert not pending and session.n_sentences == window.session.n_sentences
    with Project.open(path, readonly=True) as p:
        stored = p.annotations(session.sentence_ids[1])
        after = [p.annotations(sid) for sid in p.sentence_ids()]
    assert any(stored) and window.editor.annotations == stored == session.annotations
    assert stored[0] == {"B-ORG"}, "the person's B-ORG stands beside alice's O: it is no annotator's answer"
    assert session.annotator not in window.session.project.team.answering_annotators()
    changed = sum(a != b for s, t in zip(before, after) for a, b in zip(s, t))
    assert f"answers for 4 sentences, {changed} training labels changed (" in window.statusBar().currentMessage()

"""Projects: reopen and find every edit, the sample project, new/import/export, labels."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tagtool.core.labels import LabelSet
from tagtool.errors import TagtoolError
from tagtool.gui import transfer
from tagtool.gui.labels_dialog import LabelsDialog
from tagtool.gui.new_project import create_project, parse_labels
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tagtool.store.sample import ensure_sample_project
from tests.gui.helpers import DATA_DIR, go_unlabeled, key_of, stored


def test_close_and_reopen_finds_every_edit(open_window, chunk_project, qtbot):
    window = open_window(chunk_project)
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    qtbot.keyClick(editor, key_of(window, "B-PP"), Qt.ControlModifier)
    qtbot.keyClick(editor, key_of(window, "O"), Qt.ControlModifier)
    qtbot.keyClick(editor, Qt.Key_N)
    qtbot.keyClick(editor, Qt.Key_End)
    qtbot.keyClick(editor, key_of(window, "O"))
    edited = {sid: window.session.project.annotations(sid) for sid in window.session.project.sentence_ids()}
    window.close()
    assert window.session is None

    again = open_window(chunk_project)
    project = again.session.project
    assert {sid: project.annotations(sid) for sid in project.sentence_ids()} == edited
    first = project.sentence_ids()[3]
    assert project.annotations(first)[:3] == ({"B-NP"}, {"I-NP"}, {"B-PP", "O"})
    assert project.annotations(project.sentence_ids()[4])[-1] == {"O"}
    assert again.settings.recent_projects()[0] == chunk_project.resolve()


def test_sample_project_opens_and_labels(tmp_path, monkeypatch, open_window, qtbot):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    path = ensure_sample_project()
    window = open_window(path)
    assert window.session.project.n_sentences == 400
    assert "50 full" in window.progress.text()
    editor = go_unlabeled_sample(window, qtbot)
    # keys follow the label set, not the corpus: O, then the types in alphabetical order, Shift for I-;
    # the tenth and eleventh groups (SBAR, VP) take a letter of their name
    style = window.session.style
    assert [style.shortcut(n) for n in ("O", "B-ADJP", "B-NP", "I-NP", "B-PP", "B-PRT", "B-SBAR", "B-VP", "I-VP")] == [
        "1",
        "2",
        "7",
        "Shift+7",
        "8",
        "9",
        "s",
        "v",
        "Shift+v",
    ]
    assert all(style.shortcut(n) for n in style.names), "every label has a key"
    legend = window.legend.text.text()
    for name, key in (("B-NP", "7"), ("I-NP", "Shift+7"), ("B-VP", "v")):
        assert f">{name}</td><td style='padding-left:6px'>{key}</td>" in legend
    # the picker, whose rows show the keys
    qtbot.keyClick(editor, Qt.Key_Slash)
    qtbot.keyClicks(editor.picker.filter, "B-PRT")
    qtbot.keyClick(editor.picker.filter, Qt.Key_Return)
    qtbot.keyClick(editor, key_of(window, "B-ADJP"), Qt.AltModifier)
    qtbot.keyClick(editor, key_of(window, "O"), Qt.AltModifier)
    sid = window.session.current_id
    assert stored(path, sid)[:2] == ({"B-PRT"}, {"B-ADJP", "O"})
    assert "1 partial" in window.progress.text()


def go_unlabeled_sample(window, qtbot):
    editor = window.editor
    qtbot.keyClick(editor, Qt.Key_J)
    assert window.session.project.sentence(window.session.current_id).status == "none"
    return editor


def test_export_and_import_annotations_keep_candidate_sets(window, qtbot, tmp_path):
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "B-NP"), Qt.ControlModifier)
    qtbot.keyClick(editor, key_of(window, "B-PP"), Qt.ControlModifier)
    sid = window.session.current_id
    for name, fmt in (("out.conll", "conll"), ("out.jsonl", "jsonl")):
        n = transfer.export_annotations(window.session, tmp_path / name, fmt)
        assert n == window.session.project.n_sentences
        back = read_corpus(tmp_path / name, labels=window.session.project.labels)
        assert back.sentences[3].annotations[0] == {"B-NP", "B-PP"}
    text = (tmp_path / "out.conll").read_text()
    assert "B-NP|B-PP" in text
    # clear in the app, then take the file's annotations back
    qtbot.keyClick(editor, Qt.Key_0)
    assert editor.annotations[0] == frozenset()
    changed = transfer.import_annotations(window.session, tmp_path / "out.conll", "fill")
    assert changed == 1
    assert editor.annotations[0] == {"B-NP", "B-PP"}
    assert window.session.undo_stack.count() == 0
    assert window.session.current_id == sid


def test_new_project_from_unlabeled_text_with_typed_labels(tmp_path):
    corpus_file = tmp_path / "raw.txt"
    corpus_file.write_text("Alice met Bob .\nBob left .\n", encoding="utf-8")
    with pytest.raises(TagtoolError):
        create_project(corpus_file, tmp_path / "x.tagproj", "text", None, False)
    labels = parse_labels("O, B-PER I-PER")
    assert labels == LabelSet(["O", "B-PER", "I-PER"])
    path = create_project(corpus_file, tmp_path / "raw.tagproj", "text", labels, False)
    with Project.open(path) as project:
        assert project.labels == labels and project.n_sentences == 2


def test_text_added_in_the_app_is_read_with_the_projects_options(tmp_path, qtbot, monkeypatch):
    """New project keeps the raw-text options it read with; File › Add documents and Import annotations ask
    for plain text too, with those options chosen."""
    from tagtool.gui import span_import
    from tagtool.store.sources import input_format, stored_text_options

    corpus_file = tmp_path / "raw.txt"
    corpus_file.write_text("Great! Visit e.g. Conn. today.\n", encoding="utf-8")
    options = {"tokenizer": "whitespace", "sentence_split": False, "document_unit": "line", "annotator": None}
    path = create_project(corpus_file, tmp_path / "raw.tagproj", "text", parse_labels("O"), False, options)
    with Project.open(path) as project:
        stored = stored_text_options(project.meta, input_format(corpus_file))
    assert stored == {"tokenizer": "whitespace", "sentence_split": False, "document_unit": "line"}
    shown = []

    def exec_(dialog):
        qtbot.addWidget(dialog)
        shown.append(dialog.form.tokenizer.isVisibleTo(dialog))
        return 1

    monkeypatch.setattr(span_import.SpanOptionsDialog, "exec", exec_)
    chosen = span_import.ask_span_options(corpus_file, None, stored)
    assert shown == [True] and {k: chosen[k] for k in stored} == stored
    assert span_import.ask_span_options(DATA_DIR / "conll2000_train_head.txt", None, stored) == {}  # tokens


def test_new_project_reads_labels_from_a_conll_file(tmp_path):
    path = create_project(DATA_DIR / "conll2000_train_head.txt", tmp_path / "c.tagproj", None, None, True)
    with Project.open(path) as project:
        assert "B-NP" in project.labels and project.listing.status_counts()["full"] == 100


def test_labels_dialog_renames_recolours_and_sets_shortcuts(window, qtbot):
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    dialog = LabelsDialog(window.session, window)
    qtbot.addWidget(dialog)
    dialog.set_color("B-NP", "#123456")
    assert window.session.style.color("B-NP").name() == "#123456"
    assert window.session.style.text_color("B-NP").name() == "#ffffff"
    dialog.set_shortcut("B-VP", "v")
    qtbot.keyClick(editor, Qt.Key_V)
    assert editor.annotations[1] == {"B-VP"}
    with pytest.raises(ValueError):
        dialog.set_shortcut("B-VP", "n")
    dialog.rename("B-NP", "B-NX")
    assert editor.annotations[0] == {"B-NX"}
    assert window.session.undo_stack.count() == 0
    assert "B-NX" in window.legend.text.text()


# ----------------------------------------------------------------------
# label sets that do not grow by accident


def test_new_project_dialog_fills_in_the_completed_label_set(tmp_path, qtbot):
    from tagtool.gui.new_project import NewProjectDialog

    data = tmp_path / "ner.txt"
    data.write_text("Ann B-PER\nvisited O\nRome B-LOC\n\nBob _\n", encoding="utf-8")
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.corpus.setText(str(data))
    dialog.corpus.editingFinished.emit()
    assert dialog.labels.text() == "O B-LOC I-LOC B-PER I-PER"
    assert "I-LOC I-PER" in dialog.labels_note.text()
    dialog.labels.setText("O B-LOC I-LOC B-PER I-PER B-ORG I-ORG")  # edited before the first label
    dialog.corpus.editingFinished.emit()  # typed labels are never replaced
    assert dialog.labels.text().endswith("B-ORG I-ORG")
    dialog.accept()
    with Project.open(dialog.created) as project:
        assert list(project.labels) == ["O", "B-LOC", "I-LOC", "B-PER", "I-PER", "B-ORG", "I-ORG"]


def test_new_project_without_typed_labels_completes_the_scheme(tmp_path):
    data = tmp_path / "ner.txt"
    data.write_text("Ann B-PER\nvisited O\n", encoding="utf-8")
    path = create_project(data, tmp_path / "n.tagproj", None, None, True)
    with Project.open(path) as project:
        assert list(project.labels) == ["O", "B-PER", "I-PER"]


def test_import_annotations_asks_before_adding_labels(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    session = window.session
    out = tmp_path / "out.conll"
    transfer.export_annotations(session, out, "conll")
    lines = out.read_text().splitlines()
    first = next(i for i, line in enumerate(lines) if line.strip())
    lines[first] = lines[first].rsplit(" ", 1)[0] + " B-NP,I-NP"
    out.write_text("\n".join(lines) + "\n")
    before = list(session.project.labels)
    with pytest.raises(transfer.NewLabelsError, match="B-NP,I-NP"):
        transfer.import_annotations(session, out)
    asked = []

    def answer(reply):
        def question(parent, title, text, *args):
            asked.append(text)
            return reply

        return question

    monkeypatch.setattr(QMessageBox, "exec", lambda self: None)
    monkeypatch.setattr(QMessageBox, "clickedButton", lambda self: self.buttons()[0])  # "Replace"
    monkeypatch.setattr(transfer.QFileDialog, "getOpenFileName", lambda *a, **k: (str(out), ""))
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.Cancel))
    assert transfer.ask_import(session, window) is None
    assert "B-NP,I-NP" in asked[-1] and "wrong separator" in asked[-1]
    assert list(session.project.labels) == before
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.Yes))
    assert "tokens changed" in transfer.ask_import(session, window)
    assert list(session.project.labels) == before + ["B-NP,I-NP"]


def test_an_import_that_fails_adds_no_label(window, tmp_path):
    session = window.session
    other = tmp_path / "other.conll"
    other.write_text("Completely B-NEW\ndifferent O\n", encoding="utf-8")
    before = list(session.project.labels)
    with pytest.raises(TagtoolError):
        transfer.import_annotations(session, other, add_labels=True)  # sentences do not match
    assert list(session.project.labels) == before


def test_a_project_read_without_labels_warns_of_a_column_that_holds_them(tmp_path):
    # "Read labels from the file" unchecked: the chunk column would become a feature carrying the answers
    corpus_file = DATA_DIR / "conll2000_train_head.txt"
    warnings: list[str] = []
    labels = LabelSet(["O", "B-NP", "I-NP"])
    create_project(corpus_file, tmp_path / "nolabels.tagproj", None, labels, False, warnings=warnings)
    assert any("conll2000_train_head.txt: column col2 holds labels" in w for w in warnings)
    read: list[str] = []
    create_project(corpus_file, tmp_path / "labels.tagproj", None, None, True, warnings=read)
    assert not any("holds labels" in w for w in read)

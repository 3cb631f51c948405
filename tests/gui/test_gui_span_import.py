"""The app's imports of doccano and Label Studio files: span options, the
annotator choice, and the list of skipped spans."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from tagtool.core.corpus import SKIPPED_SPAN, ReadWarning
from tagtool.gui import transfer
from tagtool.gui.new_project import NewProjectDialog, create_project
from tagtool.gui.session import Session
from tagtool.gui.span_import import SpanOptionsDialog, warnings_box
from tagtool.store.project import Project
from tests.gui.helpers import DATA_DIR


def _dialog(qtbot, corpus: Path, project: Path) -> NewProjectDialog:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.corpus.setText(str(corpus))
    dialog.project.setText(str(project))
    return dialog


def test_new_project_offers_the_annotators_of_a_label_studio_file(qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()))
    dialog = _dialog(qtbot, DATA_DIR / "labelstudio_full.json", tmp_path / "ls.tagproj")
    options = dialog.span_options
    assert not options.annotator.isHidden() and not options.tokenizer.isHidden()
    assert [options.annotator.itemData(i) for i in range(options.annotator.count())] == ["all", "1", "ben@example.com"]
    options.annotator.setCurrentIndex(2)
    dialog.accept()
    assert dialog.created == tmp_path / "ls.tagproj"
    # the only note: annotator 3's cancelled annotation was not read
    ((note,),) = [[line for line in text.splitlines() if "labelstudio_full.json" in line] for text in shown]
    assert note.endswith("labelstudio_full.json:2: task 101: 1 cancelled annotation(s) skipped (by 3)")
    with Project.open(dialog.created, readonly=True) as p:
        first = p.sentence_ids()[0]
        assert p.annotations(first)[5] == {"B-ORG"} and set(p.team.annotator_labels(first)) == {"ben@example.com"}


def test_new_project_hides_span_options_for_column_files(qtbot, tmp_path):
    dialog = _dialog(qtbot, DATA_DIR / "conll2000_train_head.txt", tmp_path / "c.tagproj")
    assert dialog.span_options.tokenizer.isHidden() and dialog.span_options.annotator.isHidden()
    dialog.corpus.setText(str(DATA_DIR / "doccano_entities.jsonl"))  # names no annotator
    assert not dialog.span_options.tokenizer.isHidden() and dialog.span_options.annotator.isHidden()
    dialog.corpus.setText(str(DATA_DIR / "doccano_v1.jsonl"))  # "user": 1 and "user": 2
    assert not dialog.span_options.annotator.isHidden()
    offered = [dialog.span_options.annotator.itemData(i) for i in range(dialog.span_options.annotator.count())]
    assert offered[1:] == ["1", "2"]


def test_new_project_lists_the_skipped_spans(qtbot, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append((box.text(), box.detailedText())))
    dialog = _dialog(qtbot, DATA_DIR / "doccano_entities.jsonl", tmp_path / "d.tagproj")
    dialog.span_options.tokenizer.setCurrentIndex(dialog.span_options.tokenizer.findData("whitespace"))
    dialog.accept()
    assert dialog.created is not None
    ((text, details),) = shown
    assert text.startswith("1 span(s) could not be placed") and "'Madrid'" in text and "overlaps" in details
    with Project.open(dialog.created, readonly=True) as p:
        assert "didn't" in p.corpus().sentences[-1].tokens  # the whitespace tokenizer


def test_import_annotations_from_a_span_file_with_options(qtbot, tmp_path):
    project = create_project(
        DATA_DIR / "labelstudio_full.json", tmp_path / "ls.tagproj", None, None, True, {"annotator": "1"}
    )
    session = Session(Project.open(project))
    try:
        warnings: list[str] = []
        changed = transfer.import_annotations(
            session, DATA_DIR / "labelstudio_full.json", "replace", {"annotator": "ben@example.com"}, warnings
        )
        assert changed >= 1 and [w.split(": ", 1)[1] for w in warnings] == [
            "task 101: 1 cancelled annotation(s) skipped (by 3)"
        ]
        assert session.project.annotations(session.project.sentence_ids()[0])[5] == {"B-ORG"}
    finally:
        session.project.close()


def test_span_options_dialog_and_warnings_box(qtbot):
    dialog = SpanOptionsDialog(DATA_DIR / "labelstudio_min.json")
    qtbot.addWidget(dialog)
    assert dialog.form.options() == {"tokenizer": "default", "sentence_split": True, "annotator": "all"}
    assert warnings_box(None, "x", []) is None
    box = warnings_box(
        None, "x", [ReadWarning(f"f:{i}: span [0, 1) 'X' 'a': empty; skipped", SKIPPED_SPAN) for i in range(20)]
    )
    assert "20 span(s)" in box.text() and "and 8 more" in box.text() and box.detailedText().count("\n") == 19


def test_warnings_box_counts_skipped_spans_by_kind_not_by_text(qtbot, tmp_path, monkeypatch):
    # The count was a search for "skipped" in each line: a file whose path
    # holds the word counted its "snapped" note as a skipped span.
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box.text()))
    folder = tmp_path / "skipped"
    folder.mkdir()
    source = folder / "one.jsonl"
    source.write_text('{"text": "Apple hired Tim Cook.", "label": [[0, 4, "ORG"]]}\n', encoding="utf-8")
    dialog = _dialog(qtbot, source, tmp_path / "d.tagproj")
    dialog.accept()
    assert dialog.created is not None
    ((text,),) = [shown]
    assert text.startswith("The file was read with these notes.") and "snapped" in text

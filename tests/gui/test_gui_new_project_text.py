"""File › New project from raw text: a plain text file or pasted text, with the tokenizer, sentence
splitting and what a document is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox

from tagtool.gui.new_project import NewProjectDialog
from tagtool.store.project import Project
from tests.gui.helpers import DATA_DIR

TEXT = "Great pizza in New Haven, Conn. and the staff were kind. We'll be back!\nSecond review here.\n"


def _dialog(qtbot, corpus: Path | None, project: Path) -> NewProjectDialog:
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    if corpus is not None:
        dialog.corpus.setText(str(corpus))
    dialog.project.setText(str(project))
    return dialog


def _rows_shown(dialog) -> tuple[bool, bool, bool]:
    options = dialog.span_options
    return tuple(not w.isHidden() for w in (options.tokenizer, options.split, options.document))


def _tokens(project: Path) -> list[str]:
    with Project.open(project, readonly=True) as p:
        return [" ".join(s.tokens) for s in p.corpus()]


def test_plain_text_gets_tokenizer_splitting_and_document_rows(qtbot, tmp_path):
    raw = tmp_path / "reviews.txt"
    raw.write_text(TEXT, encoding="utf-8")
    dialog = _dialog(qtbot, DATA_DIR / "conll2000_train_head.txt", tmp_path / "c.tagproj")
    assert _rows_shown(dialog) == (False, False, False)
    dialog.corpus.setText(str(raw))
    assert _rows_shown(dialog) == (True, True, True)
    dialog.corpus.setText(str(DATA_DIR / "doccano_entities.jsonl"))
    assert _rows_shown(dialog) == (True, True, False)  # span records: no document unit
    dialog.corpus.setText(str(DATA_DIR / "conll2000_train_head.txt"))
    dialog.format.setCurrentIndex(dialog.format.findData("text"))  # a column file read as text
    assert _rows_shown(dialog) == (True, True, True)


def test_new_project_from_raw_text_is_tokenised_and_split(qtbot, tmp_path):
    raw = tmp_path / "reviews.txt"
    raw.write_text(TEXT, encoding="utf-8")
    dialog = _dialog(qtbot, raw, tmp_path / "r.tagproj")
    dialog.labels.setText("O B-LOC I-LOC")
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.mouseClick(dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.Ok), Qt.LeftButton)
    assert dialog.created == tmp_path / "r.tagproj"
    assert _tokens(dialog.created) == [
        "Great pizza in New Haven , Conn. and the staff were kind .",
        "We 'll be back !",
        "Second review here .",
    ]


def test_pretokenised_lines_and_paragraphs_are_choices(qtbot, tmp_path):
    raw = tmp_path / "pre.txt"
    raw.write_text("Anna met Berg . He left .\n\nNext , please .\n", encoding="utf-8")
    dialog = _dialog(qtbot, raw, tmp_path / "a.tagproj")
    options = dialog.span_options
    options.tokenizer.setCurrentIndex(options.tokenizer.findData("whitespace"))
    dialog.show()
    qtbot.waitExposed(dialog)
    qtbot.mouseClick(options.split, Qt.LeftButton, pos=QPoint(6, options.split.height() // 2))
    assert not options.split.isChecked()
    options.document.setCurrentIndex(options.document.findData("line"))
    dialog.labels.setText("O")
    dialog.accept()
    assert _tokens(dialog.created) == ["Anna met Berg . He left .", "Next , please ."]


def test_pasted_text_makes_a_project(qtbot, tmp_path):
    dialog = _dialog(qtbot, None, tmp_path / "notes.tagproj")
    assert _rows_shown(dialog) == (False, False, False)
    dialog.pasted.setFocus()
    qtbot.keyClicks(dialog.pasted, "First paragraph. It has two sentences.")
    qtbot.keyClick(dialog.pasted, Qt.Key_Return)
    qtbot.keyClick(dialog.pasted, Qt.Key_Return)
    qtbot.keyClicks(dialog.pasted, "Dr. Lee wrote the second one at https://example.com today.")
    assert _rows_shown(dialog) == (True, True, True)
    dialog.labels.setText("O B-PER I-PER")
    dialog.accept()
    assert dialog.created == tmp_path / "notes.tagproj"
    assert _tokens(dialog.created) == [
        "First paragraph .",
        "It has two sentences .",
        "Dr. Lee wrote the second one at https://example.com today .",
    ]
    with Project.open(dialog.created, readonly=True) as p:
        corpus = p.corpus()
    assert [d.name for d in corpus.documents] == ["notes.txt"]
    assert corpus.sentences[0].meta["record_text"] == "First paragraph. It has two sentences."


def test_pasted_text_without_labels_is_refused_with_a_message(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *args: shown.append(args[2]))
    dialog = _dialog(qtbot, None, tmp_path / "n.tagproj")
    dialog.pasted.setPlainText("Some text.")
    dialog.accept()
    assert dialog.created is None and shown == ["The pasted text holds no labels; type the label set"]
    assert not (tmp_path / "n.tagproj").exists()

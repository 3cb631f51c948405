"""Batch-tag, New project and Import in the app: CoNLL-U label fields and output in the input's format."""

from __future__ import annotations

import shutil

import pytest
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from tagtool.gui import transfer
from tagtool.gui.batch_dialog import BatchTagDialog, BatchTagging
from tagtool.gui.new_project import NewProjectDialog
from tagtool.store.project import Project
from tests.gui.helpers import DATA_DIR

EWT = DATA_DIR / "ewt_test_slice.conllu"
TIMEOUT = 60_000


@pytest.fixture(scope="module")
def upos_tagger():
    from tagtool.core import Corpus
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    gold = read_corpus(EWT)
    return train_tagger(
        Corpus.from_sentences(gold.sentences, labels=gold.labels), make_learner("perceptron", max_iter=1)
    )


def _changed_fields(source: str, tagged: str) -> set[int]:
    old, new = source.split("\n"), tagged.split("\n")
    assert len(old) == len(new)
    return {
        i for a, b in zip(old, new) if a != b for i, (x, y) in enumerate(zip(a.split("\t"), b.split("\t"))) if x != y
    }


def test_batch_dialog_writes_conllu_for_conllu_input(upos_tagger, qtbot, tmp_path, monkeypatch):
    source = tmp_path / "in.conllu"
    shutil.copy(EWT, source)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), ""))
    dialog = BatchTagDialog(True, "perceptron")
    qtbot.addWidget(dialog)
    assert not dialog.form.isRowVisible(dialog.label_field)  # no input yet
    dialog.browse_input()
    assert dialog.output.text() == str(tmp_path / "in.tagged.conllu")
    assert dialog.form.isRowVisible(dialog.label_field) and dialog.label_field.currentText() == "upos"
    dialog.format.setCurrentIndex(dialog.format.findData("text"))
    assert not dialog.form.isRowVisible(dialog.label_field)
    dialog.format.setCurrentIndex(dialog.format.findData(None))
    dialog.label_field.setCurrentText("xpos")
    choice = dialog.choice()
    assert choice["format"] is None and choice["label_field"] == "xpos"

    batch = BatchTagging(dialog)
    with qtbot.waitSignal(batch.done, timeout=TIMEOUT) as done:
        batch.start(upos_tagger, choice["input"], choice["output"], choice["format"], choice["label_field"])
    assert done.args[0].output_format == "conllu"
    tagged = choice["output"].read_text(encoding="utf-8")
    assert "\n24.1\tleft\t" in tagged and "\n6-7\twasn't\t" in tagged
    assert _changed_fields(EWT.read_text(encoding="utf-8"), tagged) == {4}  # XPOS only
    batch.shutdown()


def test_batch_dialog_refuses_an_unknown_label_field(qtbot, tmp_path, monkeypatch):
    source = tmp_path / "in.conllu"
    shutil.copy(EWT, source)
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    dialog = BatchTagDialog(True, "perceptron")
    qtbot.addWidget(dialog)
    dialog.input.setText(str(source))
    dialog.output.setText(str(tmp_path / "out.conllu"))
    dialog.label_field.setCurrentText("nonsense")
    dialog._accept()
    assert warnings and "label_field must be one of" in warnings[0] and dialog.result() == 0


def test_new_project_dialog_asks_for_the_label_field_of_a_conllu_file(qtbot, tmp_path, monkeypatch):
    dialog = NewProjectDialog()
    qtbot.addWidget(dialog)
    dialog.corpus.setText(str(DATA_DIR / "conll2000_train_head.txt"))
    assert not dialog.form.isRowVisible(dialog.label_field)
    dialog.corpus.setText(str(EWT))
    assert dialog.form.isRowVisible(dialog.label_field)
    dialog.project.setText(str(tmp_path / "ewt.tagproj"))
    dialog.label_field.setCurrentText("deprel")
    dialog.accept()
    assert dialog.created == tmp_path / "ewt.tagproj"
    with Project.open(dialog.created, readonly=True) as project:
        assert "nsubj" in project.labels and "NOUN" not in project.labels
    warnings = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: warnings.append(text))
    dialog.project.setText(str(tmp_path / "other.tagproj"))
    dialog.label_field.setCurrentText("nonsense")
    dialog.accept()
    assert warnings and "label_field must be one of" in warnings[0]
    assert not (tmp_path / "other.tagproj").exists()


def _xpos_holds_upos(path, change_line: int, label: str):
    """EWT with XPOS := UPOS on every word line, and XPOS := ``label`` on line ``change_line``."""
    lines = EWT.read_text(encoding="utf-8").split("\n")
    for i, line in enumerate(lines):
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            fields[4] = label if i + 1 == change_line else fields[3]
            lines[i] = "\t".join(fields)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_import_annotations_asks_for_the_label_field_of_a_conllu_file(open_window, tmp_path, monkeypatch):
    from tagtool.store.formats import read_corpus

    project_path = tmp_path / "ewt.tagproj"
    Project.create(project_path, read_corpus(EWT)).close()
    window = open_window(project_path)
    line = 1 + EWT.read_text(encoding="utf-8").split("\n").index(
        next(x for x in EWT.read_text(encoding="utf-8").split("\n") if x.startswith("24\tmany\t"))
    )
    source = _xpos_holds_upos(tmp_path / "relabeled.conllu", line, "NOUN")
    asked = []

    def get_item(parent, title, label, items, current, editable):
        asked.append(list(items))
        return "xpos", True

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), ""))
    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    monkeypatch.setattr(QMessageBox, "exec", lambda box: box.buttons()[0].click())
    message = transfer.ask_import(window.session, window)
    assert asked and asked[0][0] == "upos"
    assert message == "Imported annotations: 1 tokens changed"
    sid = window.session.project.sentence_ids()[22]
    assert window.session.project.annotations(sid)[23] == {"NOUN"}

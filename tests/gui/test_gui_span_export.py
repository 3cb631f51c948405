"""File › Export annotations to doccano and Label Studio while the work is under way: the file the
command line writes, and a new project made from it holds the same labels."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog

from tagtool.gui.transfer import EXPORT_FILTERS
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

TEXT = "Ann Lee met Bob in Paris. Acme Corp. hired them. Nobody knew why."


@pytest.fixture
def doccano_project(tmp_path):
    source = tmp_path / "spans.jsonl"
    source.write_text(
        json.dumps({"id": 1, "text": TEXT, "label": [[0, 7, "PER"], [12, 15, "PER"]]})
        + "\n"
        + json.dumps({"id": 2, "text": "Plain words here."})
        + "\n",
        encoding="utf-8",
    )
    path = tmp_path / "p.tagproj"
    Project.create(path, read_corpus(source)).close()
    return path


@pytest.mark.parametrize(
    "kind, name", [("doccano JSONL (spans) (*.jsonl)", "out"), ("Label Studio JSON (tasks) (*.json)", "out")]
)
def test_export_to_span_records_while_partly_labeled(
    open_window, doccano_project, qtbot, monkeypatch, tmp_path, kind, name
):
    assert kind in EXPORT_FILTERS
    window = open_window(doccano_project)
    session = window.session
    session.go_to(session.sentence_ids[3])  # "Plain words here .": label half of it with the keys
    window.editor.setFocus()
    qtbot.keyClick(window.editor, Qt.Key_1)  # O on the first token
    session.edit({2: frozenset({"B-PER", "O"})}, "a candidate set")
    chosen = tmp_path / name
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(chosen), kind))
    errors = []
    monkeypatch.setattr("tagtool.gui.transfer.QMessageBox.warning", lambda *a: errors.append(a[2]))
    (export,) = [a for a in window.findChildren(QAction) if a.text() == "&Export annotations…"]
    export.trigger()  # File › Export annotations…
    assert not errors
    written = chosen.with_suffix(".jsonl" if kind.startswith("doccano") else ".json")
    qtbot.waitUntil(written.exists, timeout=10_000)
    assert window.statusBar().currentMessage().startswith("Exported 4 sentences")
    again = Project.create(tmp_path / "again.tagproj", read_corpus(written))
    try:
        expected = [(s.tokens, s.annotations) for s in session.project.review.export_corpus()]
        assert [(s.tokens, s.annotations) for s in again.review.export_corpus()] == expected
        assert expected[3][1][0] == {"O"} and expected[3][1][2] == {"B-PER", "O"} and not expected[3][1][1]
    finally:
        again.close()

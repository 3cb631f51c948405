"""The app's Export, Export tagger and Batch-tag never write over their inputs or the open project."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog

from tagtool.gui import transfer
from tagtool.gui.batch_dialog import BatchTagDialog
from tagtool.outputs import OutputError

TIMEOUT = 20_000


def test_export_over_the_open_project_is_refused(window, tmp_path):
    path = window.session.project.path
    before = path.read_bytes()
    with pytest.raises(OutputError, match="would overwrite the project"):
        transfer.export_annotations(window.session, path, "conll")
    assert path.read_bytes() == before


def test_batch_tag_over_its_input_or_its_tagger_fails_and_keeps_them(window, qtbot, tagger, tmp_path):
    model, source = tmp_path / "m.tagger", tmp_path / "in.conll"
    tagger.save(model)
    source.write_text("Confidence\nin\nthe\npound\n", encoding="utf-8")
    for victim in (source, model):
        before = victim.read_bytes()
        with qtbot.waitSignal(window.batch.failed, timeout=TIMEOUT) as failed:
            window.batch.start(model, source, victim, "conll")
        assert "would overwrite" in failed.args[0]
        assert victim.read_bytes() == before
        assert window.batch.runner.wait(TIMEOUT)


def test_batch_tag_and_export_tagger_over_the_open_project_are_refused(window, tagger, tmp_path, monkeypatch):
    project = window.session.project.path
    before = project.read_bytes()
    model = tmp_path / "m.tagger"
    tagger.save(model)
    source = tmp_path / "in.conll"
    source.write_text("Confidence\n", encoding="utf-8")
    started = []
    monkeypatch.setattr(window.batch, "start", lambda *a: started.append(a))
    monkeypatch.setattr(BatchTagDialog, "exec", lambda dialog: 1)
    monkeypatch.setattr(BatchTagDialog, "choice", lambda dialog: {
        "input": source, "output": project, "format": "conll", "tagger": model})
    window.batch_tag()
    assert started == [] and "would overwrite the open project" in window.error_box.text()

    monkeypatch.setattr(type(window.model_loop), "tagger", property(lambda loop: tagger))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(project), ""))
    window.export_tagger_action.trigger()
    assert "would overwrite the open project" in window.error_box.text()
    assert project.read_bytes() == before

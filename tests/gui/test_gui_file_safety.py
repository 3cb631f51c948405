"""The app's Export, Export tagger and Batch-tag never write over their inputs or the open project."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFileDialog

from tagtool.gui import transfer
from tagtool.gui.batch_dialog import BatchTagDialog
from tagtool.store.outputs import OutputError

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
    monkeypatch.setattr(
        BatchTagDialog,
        "choice",
        lambda dialog: {"input": source, "output": project, "format": "conll", "tagger": model},
    )
    window.batch_tag()
    assert started == [] and "would overwrite the open project" in window.error_box.text()

    monkeypatch.setattr(type(window.model_loop), "tagger", property(lambda loop: tagger))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(project), ""))
    window.export_tagger_action.trigger()
    assert "would overwrite the open project" in window.error_box.text()
    assert project.read_bytes() == before


def test_a_project_in_a_read_only_folder_opens_read_only_and_says_why(chunk_project, settings, qtbot, monkeypatch):
    """Root ignores file modes: the folder is made read-only for the writability probe."""
    import os

    from tagtool.gui.main_window import MainWindow
    from tagtool.store import dbfile
    from tests.gui.helpers import go_unlabeled, key_of

    monkeypatch.setattr(dbfile, "writable", lambda path: False)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: mode != os.W_OK and real_access(path, mode))
    before = chunk_project.read_bytes()
    window = MainWindow(settings)
    qtbot.addWidget(window)
    assert window.open_project(chunk_project)
    window.show()
    assert "(read-only)" in window.windowTitle()
    box = window.error_box
    assert box.windowTitle() == "Read-only project" and "cannot be written" in box.text()
    box.close()
    window.model_loop.auto = False
    editor = go_unlabeled(window)
    qtbot.keyClick(editor, key_of(window, "B-NP"))
    assert "open read-only because its folder" in window.error_box.text()
    window.close()
    assert chunk_project.read_bytes() == before
    assert not [p for p in os.listdir(chunk_project.parent) if p.startswith(chunk_project.name + "-")]

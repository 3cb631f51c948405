"""File › Export annotations of a big project: a worker reads the corpus on its own
connection and writes it; the file is the one the window would write, edits
included; the status bar says when it is written; a failure is shown."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtWidgets import QFileDialog

from tagtool.gui import transfer
from tagtool.store.project_review import ReviewPart

TIMEOUT = 30_000


@pytest.fixture
def background(monkeypatch):
    monkeypatch.setattr(transfer, "BACKGROUND_EXPORT_MIN", 0)


def choose(monkeypatch, path, kind="CoNLL column file (*.conll *.txt)"):
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(path), kind))


def test_a_big_projects_export_is_written_by_a_worker(window, background, monkeypatch, qtbot, tmp_path):
    threads = []
    real = ReviewPart.export_corpus
    monkeypatch.setattr(
        ReviewPart, "export_corpus", lambda self: threads.append(threading.current_thread()) or real(self)
    )
    session = window.session
    session.go_to(session.sentence_ids[7])
    session.edit({0: frozenset({"B-NP"}), 1: frozenset({"B-NP", "I-NP"})}, "an edit just before")
    out = tmp_path / "out.conll"
    choose(monkeypatch, out)
    with qtbot.waitSignal(window.exports.done, timeout=TIMEOUT) as done:
        window._export()
        assert window.statusBar().currentMessage().startswith("Exporting")
    assert done.args[0] == f"Exported {session.n_sentences} sentences to {out}"
    assert threads and all(t is not threading.main_thread() for t in threads)
    threads.clear()
    expected = tmp_path / "expected.conll"
    transfer.export_annotations(session, expected, "conll")
    assert out.read_text() == expected.read_text()
    assert "B-NP|I-NP" in out.read_text()
    assert window.statusBar().currentMessage() == done.args[0]


def test_a_failed_background_export_is_shown(window, background, monkeypatch, qtbot, tmp_path):
    out = tmp_path / "a folder"
    out.mkdir()
    choose(monkeypatch, out / "x.conll")

    def broken(corpus, path, format=None):
        raise OSError("the disk is full")

    monkeypatch.setattr(transfer, "write_corpus", broken)
    with qtbot.waitSignal(window.exports.failed, timeout=TIMEOUT):
        window._export()
    assert "the disk is full" in window.error_box.text()


def test_small_projects_export_at_once(window, monkeypatch, tmp_path):
    out = tmp_path / "small.conll"
    choose(monkeypatch, out)
    window._export()
    assert out.exists() and not window.exports.busy
    assert window.statusBar().currentMessage().startswith("Exported")


def test_the_project_file_itself_is_refused(window, background, monkeypatch):
    choose(monkeypatch, window.session.project.path)
    warnings = []
    monkeypatch.setattr(transfer.QMessageBox, "warning", lambda *a: warnings.append(a[2]))
    window._export()
    assert warnings and not window.exports.busy

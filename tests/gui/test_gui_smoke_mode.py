"""``tagtool gui --quit-after MS``: the smoke test of a build opens the window, runs the
event loop for a while and exits (packaging/build.py); and the window icon."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QTimer

import tagtool.gui.app as app_module
from tagtool.cli import main as cli
from tagtool.gui.main_window import MainWindow


@pytest.fixture
def runs(monkeypatch):
    calls = []

    def run(path, quit_after_ms=None):
        calls.append((Path(path), quit_after_ms))
        return 0 if path.name != "fails.tagproj" else 1

    monkeypatch.setattr(app_module, "run", run)
    return calls


def test_quit_after_reaches_the_app_and_reports(chunk_project, runs, capsys):
    assert cli.main(["gui", str(chunk_project), "--quit-after", "250"]) == 0
    assert runs == [(chunk_project, 250)]
    assert capsys.readouterr().out.strip() == f"gui: opened {chunk_project} and closed it after 250 ms"


def test_quit_after_reports_a_project_that_did_not_open(tmp_path, runs, capsys):
    path = tmp_path / "fails.tagproj"
    path.write_bytes(b"")
    assert cli.main(["gui", str(path), "--quit-after", "10"]) == 1
    assert f"{path} did not open" in capsys.readouterr().err


def test_negative_quit_after_is_refused(chunk_project, runs, capsys):
    assert cli.main(["gui", str(chunk_project), "--quit-after", "-1"]) == 1
    assert "--quit-after -1" in capsys.readouterr().err and not runs


@pytest.fixture
def isolated_window(monkeypatch, settings, qapp):
    """run() builds its window on the test's settings, not the user's."""
    windows = []

    def make():
        windows.append(MainWindow(settings))
        return windows[-1]

    monkeypatch.setattr(app_module, "MainWindow", make)
    yield windows
    # Closing the last window inside app.exec() posts a Quit event (quitOnLastWindowClosed); handled
    # after exec() returned, it leaves the application quitting, and every later event loop (a test's
    # wait for a signal) ends at once.  Drop it, and run the main loop once more: exec() clears that.
    QCoreApplication.removePostedEvents(None, QEvent.Quit)
    QTimer.singleShot(0, lambda: QCoreApplication.exit(0))
    QCoreApplication.exec()


def test_run_opens_the_project_then_closes_after_the_delay(chunk_project, isolated_window, caplog):
    with caplog.at_level(logging.INFO, logger="tagtool.gui.app"):
        assert app_module.run(chunk_project, quit_after_ms=50) == 0
    (window,) = isolated_window
    assert not window.isVisible() and window.session is None  # closed, project closed with it
    assert "window 'chunks — tagtool' shows 100 sentences" in caplog.text
    assert "learners offered: " in caplog.text


def test_run_returns_1_when_the_project_does_not_open(tmp_path, isolated_window):
    broken = tmp_path / "broken.tagproj"
    broken.write_bytes(b"not a project")
    # open_project shows a modal error box; the smoke timer closes it instead of waiting forever
    assert app_module.run(broken, quit_after_ms=50) == 1
    assert isolated_window[0].session is None


def test_app_icon_comes_from_resources(qapp):
    icon = app_module.app_icon()
    assert icon is not None and not icon.isNull()
    assert icon.availableSizes() and icon.availableSizes()[0].width() == 256

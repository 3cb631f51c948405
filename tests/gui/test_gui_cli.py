"""``tagtool gui PROJECT`` and ``tagtool`` alone open the window (Qt's loop mocked)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tagtool.gui.app
from tagtool import cli


@pytest.fixture
def opened(monkeypatch):
    calls = []
    monkeypatch.setattr(tagtool.gui.app, "run", lambda path: calls.append(Path(path)) or 0)
    return calls


def test_gui_command_opens_the_project(chunk_project, opened):
    assert cli.main(["gui", str(chunk_project)]) == 0
    assert opened == [chunk_project]


def test_gui_command_refuses_a_missing_file(tmp_path, opened, capsys):
    assert cli.main(["gui", str(tmp_path / "nope.tagproj")]) == 1
    assert "no such project file" in capsys.readouterr().err and not opened


def test_no_command_opens_the_sample_in_the_window(tmp_path, monkeypatch, opened):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.setenv("DISPLAY", ":0")
    assert cli.main([]) == 0
    assert opened == [tmp_path / "tagtool" / "sample.tagproj"]


def test_no_command_without_a_display_prints_the_summary(tmp_path, monkeypatch, opened, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert cli.main([]) == 0
    assert "sentences: 400" in capsys.readouterr().out and not opened

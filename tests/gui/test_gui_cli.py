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


@pytest.mark.parametrize("platform", [None, "xcb", "wayland"])
def test_gui_without_a_display_says_so_and_exits_1(chunk_project, monkeypatch, opened, capsys, platform):
    """Qt would abort the whole process; the command says why in one line instead."""
    monkeypatch.setattr(cli.sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    if platform:
        monkeypatch.setenv("QT_QPA_PLATFORM", platform)
    assert cli.main(["gui", str(chunk_project)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tagtool: error: gui: no display") and err.count("\n") == 1 and not opened


def test_gui_without_a_display_runs_under_an_explicit_offscreen_platform(chunk_project, monkeypatch, opened):
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert cli.main(["gui", str(chunk_project)]) == 0 and opened == [chunk_project]

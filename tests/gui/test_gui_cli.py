"""``tagtool gui PROJECT`` and ``tagtool`` alone open the window (Qt's loop mocked)."""

from __future__ import annotations

from pathlib import Path

import pytest

import tagtool.gui.app
import tagtool.gui.qt_libraries
import tagtool.services.warmup
from tagtool.cli import main as cli


@pytest.fixture
def opened(monkeypatch):
    calls = []
    # the start-up check looks at this machine's libraries and X server (tests/gui/test_qt_libraries.py): not here
    monkeypatch.setattr(tagtool.gui.qt_libraries, "preflight", lambda: None)
    monkeypatch.setattr(tagtool.services.warmup, "start_filling_cache", lambda: "the child")
    monkeypatch.setattr(tagtool.gui.app, "run", lambda path, child=None: calls.append(Path(path)) or 0)
    return calls


def test_gui_command_opens_the_project(chunk_project, opened):
    assert cli.main(["gui", str(chunk_project)]) == 0
    assert opened == [chunk_project]


def test_gui_command_starts_filling_the_cache_before_the_window_loads(chunk_project, opened, monkeypatch):
    handed = []
    monkeypatch.setattr(tagtool.gui.app, "run", lambda path, child=None: handed.append(child) or 0)
    assert cli.main(["gui", str(chunk_project)]) == 0
    assert handed == ["the child"]  # the window waits for it rather than start another


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


# ---------------------------------------------------------------------------
# one display rule for `tagtool` and `tagtool gui`, Qt's `;` platform list read


@pytest.mark.parametrize(
    ("platform", "env", "system", "starts", "shows"),
    [
        ("", {}, "linux", False, False),
        ("", {"DISPLAY": ":0"}, "linux", True, True),
        ("", {"WAYLAND_DISPLAY": "wayland-0"}, "linux", True, True),
        ("", {}, "win32", True, True),
        ("", {}, "darwin", True, True),
        ("xcb", {"WAYLAND_DISPLAY": "wayland-0"}, "linux", False, False),
        ("wayland", {"DISPLAY": ":0"}, "linux", False, False),
        ("wayland;xcb", {}, "linux", False, False),
        ("wayland;xcb", {"DISPLAY": ":0"}, "linux", True, True),
        ("wayland-egl;xcb", {"WAYLAND_DISPLAY": "w"}, "linux", True, True),
        ("xcb;offscreen", {}, "linux", True, False),
        ("offscreen:size=800x600", {}, "linux", True, False),
        ("minimal", {"DISPLAY": ":0"}, "win32", True, False),
        ("vnc", {}, "linux", True, True),
        ("eglfs", {}, "linux", True, True),
        ("linuxfb:fb=/dev/fb1", {}, "linux", True, True),
        ("wayland;eglfs", {}, "linux", True, True),
    ],
)
def test_display_rule(platform, env, system, starts, shows):
    from tagtool.display import check_display

    display = check_display({"QT_QPA_PLATFORM": platform, **env}, system)
    assert (display.starts, display.shows) == (starts, shows)
    assert bool(display.reason) is not starts


@pytest.mark.parametrize(("platform", "window"), [("wayland;xcb", False), ("vnc", True), ("eglfs", True)])
def test_no_command_and_gui_agree_without_an_x_or_wayland_display(
    chunk_project, tmp_path, monkeypatch, opened, capsys, platform, window
):
    monkeypatch.setattr(cli.sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("QT_QPA_PLATFORM", platform)
    assert cli.main([]) == 0
    assert bool(opened) is window and ("sentences: 400" in capsys.readouterr().out) is not window
    opened.clear()
    assert cli.main(["gui", str(chunk_project)]) == (0 if window else 1)
    assert bool(opened) is window


def test_gui_with_a_platform_list_and_no_display_exits_1_instead_of_aborting(chunk_project):
    """A real process: Qt itself would abort it (SIGABRT, exit 134 from a shell)."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(QT_QPA_PLATFORM="wayland;xcb", PYTHONPATH=os.pathsep.join(sys.path))
    code = "import sys; from tagtool.cli.main import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "gui", str(chunk_project)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert done.stderr.startswith("tagtool: error: gui: no display") and done.stderr.count("\n") == 1

"""``tagtool install-desktop``: the menu entry and icons for the current user, on a temporary home."""

from __future__ import annotations

import configparser
import shlex
import sys
from pathlib import Path

import pytest

from tagtool.cli.main import main
from tagtool.services import desktop_entry
from tagtool.services.desktop_entry import DesktopEntryError, entry_text

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def _entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(path)
    return dict(parser["Desktop Entry"])


def test_install_writes_entry_and_icons_with_an_absolute_exec(home, capsys):
    assert main(["install-desktop"]) == 0
    entry = home / "applications" / "tagtool.desktop"
    assert (home / "icons/hicolor/256x256/apps/tagtool.png").read_bytes() == (
        ROOT / "resources/tagtool.png"
    ).read_bytes()
    assert (home / "icons/hicolor/scalable/apps/tagtool.svg").is_file()
    keys = _entry(entry)
    command = shlex.split(keys["Exec"])
    assert Path(command[0]).is_absolute() and Path(keys["TryExec"]).is_absolute()
    assert command[-2:] == ["gui", "%f"] and (command[0] == sys.executable or Path(command[0]).name == "tagtool")
    shipped = _entry(ROOT / "packaging" / "tagtool.desktop")
    assert {k: v for k, v in keys.items() if k not in ("Exec", "TryExec") and not k.startswith("X-")} == {
        k: v for k, v in shipped.items() if k not in ("Exec", "TryExec")
    }
    assert str(entry) in capsys.readouterr().out
    assert main(["install-desktop"]) == 0  # again: its own files are replaced


def test_exec_quotes_a_path_with_spaces_and_percent():
    line = next(x for x in entry_text(["/opt/my apps/tag%tool"]).splitlines() if x.startswith("Exec="))
    assert line == 'Exec="/opt/my apps/tag%%tool" gui %f'


def test_foreign_entry_or_symlink_is_left_alone_and_nothing_is_written(home, tmp_path):
    entry = home / "applications" / "tagtool.desktop"
    entry.parent.mkdir(parents=True)
    entry.write_text("[Desktop Entry]\nName=someone else's\n")
    with pytest.raises(DesktopEntryError, match="did not write"):
        desktop_entry.install([sys.executable])
    assert not (home / "icons").exists() and "someone else" in entry.read_text()
    entry.unlink()
    elsewhere = tmp_path / "elsewhere.png"
    elsewhere.write_bytes(b"not ours")
    icon = home / "icons/hicolor/256x256/apps/tagtool.png"
    icon.parent.mkdir(parents=True)
    icon.symlink_to(elsewhere)
    assert main(["install-desktop"]) == 1
    assert icon.is_symlink() and elsewhere.read_bytes() == b"not ours" and not entry.exists()


def test_remove_deletes_only_what_install_wrote(home, capsys):
    desktop_entry.install([sys.executable])
    svg = home / "icons/hicolor/scalable/apps/tagtool.svg"
    svg.write_text("<svg>another icon</svg>")
    assert main(["install-desktop", "--remove"]) == 0
    assert not (home / "applications" / "tagtool.desktop").exists()
    assert not (home / "icons/hicolor/256x256/apps/tagtool.png").exists()
    assert svg.read_text() == "<svg>another icon</svg>"
    assert main(["install-desktop", "--remove"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("nothing to remove")

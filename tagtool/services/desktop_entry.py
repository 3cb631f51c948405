"""Install the desktop entry and icon of tagtool for the current user, and remove them.

A wheel's data files put ``tagtool.desktop`` and the icon under
``<venv>/share``, where desktop menus never look, and its ``Exec=tagtool``
relies on the session's ``PATH``.  :func:`install` writes them where the
XDG base-directory specification says a user's own applications go —
``$XDG_DATA_HOME/applications`` (default ``~/.local/share/applications``) and
``$XDG_DATA_HOME/icons/hicolor/<size>/apps`` — with an absolute ``Exec=``
path to the command that started this installation (the CLI knows it: the
``tagtool`` script beside Python, or the bundle's executable).
:func:`remove` deletes only what :func:`install` wrote: an entry carrying
:data:`MARK`, icons with the bytes of this installation's icons.

Nothing but a regular file is ever replaced; a symlink, a folder or another
program's ``tagtool.desktop`` at one of those paths is an error, and nothing
is written then.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tagtool.errors import TagtoolError
from tagtool.paths import resource
from tagtool.store.atomic import atomic_write

#: The line that marks an entry as written by :func:`install` (desktop-entry extension keys start with ``X-``).
MARK = "X-Tagtool-Installed-By=tagtool install-desktop"
ENTRY_NAME = "tagtool.desktop"
#: Icon files of ``resources/`` -> their folder under ``icons/hicolor``.
ICONS = {"tagtool.png": "256x256/apps", "tagtool.svg": "scalable/apps"}


class DesktopEntryError(TagtoolError):
    """The entry or an icon cannot be written or removed (a path holds something that is not ours)."""


@dataclass(frozen=True)
class Planned:
    """One file to write: where, and its bytes."""

    path: Path
    data: bytes


def data_home() -> Path:
    """``$XDG_DATA_HOME``, or ``~/.local/share`` when it is unset or not absolute (as the specification says)."""
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def _quoted(argument: str) -> str:
    """An ``Exec=`` argument, quoted as the desktop-entry specification requires when it must be."""
    if not any(c in argument for c in " \t\n\"'\\><~|&;$*?#()`"):
        return argument.replace("%", "%%")
    escaped = "".join("\\" + c if c in '"`$\\' else c for c in argument).replace("%", "%%")
    return f'"{escaped}"'


def entry_text(command: list[str]) -> str:
    """The ``.desktop`` file for ``command`` (absolute paths, so the session's PATH does not matter)."""
    exec_line = " ".join(_quoted(a) for a in command)
    return "\n".join(
        [
            "[Desktop Entry]",
            "Type=Application",
            "Version=1.0",
            "Name=tagtool",
            "GenericName=Token Annotation Tool",
            "Comment=Annotate tokens with full, partial or no labels and train taggers in the loop",
            f"Exec={exec_line} gui %f",
            f"TryExec={command[0]}",
            "Icon=tagtool",
            "Terminal=false",
            "Categories=Science;ComputerScience;",
            "Keywords=annotation;corpus;tagging;NLP;CoNLL;",
            "StartupNotify=true",
            "StartupWMClass=tagtool",
            MARK,
            "",
        ]
    )


def planned(command: list[str], home: Path | None = None) -> list[Planned]:
    """The files :func:`install` writes under ``home`` (default :func:`data_home`) for ``command``."""
    home = data_home() if home is None else Path(home)
    files = [Planned(home / "applications" / ENTRY_NAME, entry_text(command).encode())]
    files += [
        Planned(home / "icons" / "hicolor" / sub / name, resource(name).read_bytes()) for name, sub in ICONS.items()
    ]
    return files


def _check_replaceable(path: Path) -> None:
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise DesktopEntryError(f"{path}: not a regular file; left alone (remove it first)")
    if path.name == ENTRY_NAME and path.exists() and MARK not in path.read_text(errors="replace"):
        raise DesktopEntryError(f"{path}: a desktop entry that tagtool install-desktop did not write; left alone")


def install(command: list[str], home: Path | None = None) -> list[Path]:
    """Write the entry (starting ``command``, absolute paths) and the icons for the current user; the paths written.

    Every path is checked before any is written, so a refusal writes nothing.
    """
    files = planned(command, home)
    for file in files:
        _check_replaceable(file.path)
    for file in files:
        file.path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_write(file.path, None) as fh:
            fh.write(file.data)
    return [file.path for file in files]


def remove(home: Path | None = None) -> list[Path]:
    """Delete what :func:`install` wrote (and nothing else); the paths deleted."""
    removed = []
    for file in planned(["tagtool"], home):
        path = file.path
        if path.is_symlink() or not path.is_file():
            continue
        ours = MARK in path.read_text(errors="replace") if path.name == ENTRY_NAME else path.read_bytes() == file.data
        if ours:
            path.unlink()
            removed.append(path)
    return removed

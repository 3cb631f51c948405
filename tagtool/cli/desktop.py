"""``tagtool install-desktop``: the menu entry and icon for the current user (:mod:`tagtool.services.desktop_entry`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_desktop_command(sub) -> None:
    """Register ``install-desktop``."""
    p = sub.add_parser(
        "install-desktop",
        help="add tagtool to the desktop's application menu for the current user (--remove: take it out)",
        description="Write tagtool.desktop (with the absolute path of this installation's tagtool) and the icon "
        "under $XDG_DATA_HOME (default ~/.local/share), where desktop menus look. Only regular files are "
        "replaced, and --remove deletes only what this command wrote.",
    )
    p.add_argument("--remove", action="store_true", help="remove the entry and icons this command wrote")
    p.set_defaults(func=run_install_desktop)


def launcher() -> list[str]:
    """The command that starts this installation: the bundle, the ``tagtool`` script beside Python, or ``-m``."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    script = Path(sys.executable).with_name("tagtool.exe" if os.name == "nt" else "tagtool")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "tagtool.cli"]


def run_install_desktop(args: argparse.Namespace) -> int:
    from tagtool.services import desktop_entry

    if args.remove:
        paths = desktop_entry.remove()
        print("\n".join(f"removed {p}" for p in paths) if paths else "nothing to remove")
        return 0
    for path in desktop_entry.install(launcher()):
        print(f"wrote {path}")
    print("tagtool is in the application menu (some desktops show it after the next login)")
    return 0

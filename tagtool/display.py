"""Whether Qt can open a window here, told before Qt is started.

Qt aborts the whole process (no exception) when no platform plugin of
``QT_QPA_PLATFORM`` can start, so ``tagtool`` and ``tagtool gui`` ask
:func:`check_display` first. ``QT_QPA_PLATFORM`` is Qt's list of plugins
tried in turn, ``;``-separated, each with optional ``:options``
(``wayland;xcb``, ``offscreen:size=800x600``). Per plugin:

- ``offscreen``, ``minimal``: start anywhere and show nothing;
- ``vnc``, ``eglfs``, ``linuxfb`` (and ``minimalegl``): start without an X
  or Wayland display and show the window (over VNC, on the framebuffer);
- ``xcb`` needs ``DISPLAY``; ``wayland`` (``wayland-egl``, ...) needs
  ``WAYLAND_DISPLAY``;
- the default (variable unset or empty) needs either on Linux and the BSDs,
  nothing on Windows and macOS;
- any other name is the user's explicit choice, left to Qt.

The first plugin that can start decides.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass

#: Plugins that start without any display and show nothing.
INVISIBLE = frozenset(("offscreen", "minimal"))
#: Plugins that start without an X or Wayland display and show the window elsewhere.
NO_DISPLAY_NEEDED = frozenset(("vnc", "eglfs", "linuxfb", "minimalegl"))


@dataclass(frozen=True)
class Display:
    """What Qt would do here.

    Attributes
    ----------
    starts : bool
        A platform plugin can start: Qt will not abort.
    shows : bool
        It shows a window someone can see (not ``offscreen``/``minimal``).
    reason : str
        Why it cannot start, when it cannot ('' otherwise).
    """

    starts: bool
    shows: bool
    reason: str = ""


def check_display(environ: Mapping[str, str] | None = None, system: str | None = None) -> Display:
    """What Qt would do with ``environ`` (default ``os.environ``) on ``system`` (``sys.platform``).

    See the module docstring for the rules.
    """
    environ = os.environ if environ is None else environ
    system = sys.platform if system is None else system
    names = [entry.split(":")[0].strip().lower() for entry in environ.get("QT_QPA_PLATFORM", "").split(";")]
    names = [name for name in names if name] or [""]
    for name in names:
        if name in INVISIBLE:
            return Display(starts=True, shows=False)
        if _starts(name, environ, system):
            return Display(starts=True, shows=True)
    return Display(starts=False, shows=False, reason=_missing(names))


def _starts(name: str, environ: Mapping[str, str], system: str) -> bool:
    """Whether plugin ``name`` ('' the default) can start, :data:`INVISIBLE` ones aside."""
    x11, wayland = bool(environ.get("DISPLAY")), bool(environ.get("WAYLAND_DISPLAY"))
    if name == "":
        return system.startswith(("win", "darwin")) or x11 or wayland
    if name == "xcb":
        return x11
    if name.startswith("wayland"):
        return wayland
    return True  # vnc, eglfs, linuxfb, windows, cocoa, or a plugin we do not know


def _missing(names: list[str]) -> str:
    """Why none of the plugins ``names`` can start."""
    needs = set()
    for name in names:
        if name in ("", "xcb"):
            needs.add("DISPLAY")
        if name == "" or name.startswith("wayland"):
            needs.add("WAYLAND_DISPLAY")
    if needs == {"DISPLAY", "WAYLAND_DISPLAY"}:
        return "neither DISPLAY nor WAYLAND_DISPLAY is set"
    return f"{needs.pop()} is not set"

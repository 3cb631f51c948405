"""Before the window: the system libraries Qt's X11 (xcb) platform plugin needs, named when one is missing.

Qt aborts the process (SIGABRT, exit status 134) when its platform plugin
cannot be loaded, with a hint about ``QT_DEBUG_PLUGINS``; on a plain Debian
or Ubuntu desktop that happens because ``libxcb-cursor0`` is not installed.
So before the QApplication is made, where Qt will use xcb, the plugin is
loaded here (``dlopen``, lazily; Qt loads the same file a moment later) and
a missing library becomes one line naming the packages to install, for
Debian/Ubuntu and Fedora (:data:`PACKAGES`: the plugin's own X libraries,
as ``ldd`` lists them for PySide6's ``libqxcb.so``; the rest of what it
loads every desktop has).
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

#: Library (soname) -> (Debian/Ubuntu package, Fedora package), for the xcb plugin's X libraries.
PACKAGES = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
}
#: What a desktop without them usually lacks (the README's first command names these).
DESKTOP_EXTRAS = (
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-render-util.so.0",
    "libxcb-shape.so.0",
    "libxkbcommon-x11.so.0",
)
_NOT_FOUND = re.compile(r"([\w.+-]+\.so[\d.]*): cannot open shared object file")


def uses_xcb(environ: Mapping[str, str] | None = None, system: str | None = None) -> bool:
    """Whether Qt will start its xcb plugin (Linux, X11 or XWayland; not offscreen, not a Wayland session)."""
    environ = os.environ if environ is None else environ
    system = sys.platform if system is None else system
    if not system.startswith("linux"):
        return False
    first = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip().lower()
    if first:
        return first == "xcb"
    wayland = environ.get("WAYLAND_DISPLAY") and environ.get("XDG_SESSION_TYPE", "").lower() == "wayland"
    return bool(environ.get("DISPLAY")) and not wayland


def xcb_plugin() -> Path | None:
    """PySide6's (or the bundle's) ``libqxcb.so``, if there is one."""
    from PySide6.QtCore import QLibraryInfo

    path = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms" / "libqxcb.so"
    return path if path.is_file() else None


def missing_library(plugin: Path) -> str | None:
    """The library ``plugin`` needs that the system lacks (the loader names the first), else None."""
    try:
        ctypes.CDLL(str(plugin), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError as e:
        found = _NOT_FOUND.search(str(e))
        return found.group(1) if found else None  # another failure: Qt says what it is
    return None


def install_line(missing: str) -> str:
    """One line: what is missing and the packages that bring it and the rest the plugin needs."""
    names = list(dict.fromkeys((missing, *DESKTOP_EXTRAS))) if missing in PACKAGES else list(DESKTOP_EXTRAS)
    debian = " ".join(dict.fromkeys(PACKAGES[n][0] for n in names))
    fedora = " ".join(dict.fromkeys(PACKAGES[n][1] for n in names))
    return (
        f"the window cannot open: Qt's X11 plugin needs {missing}, which is not installed; "
        f"install it with 'sudo apt install {debian}' (Debian/Ubuntu) or 'sudo dnf install {fedora}' (Fedora)"
    )


def check_xcb(plugin: Path | None = None) -> str | None:
    """The one-line message when Qt would abort for a missing system library, else None."""
    if plugin is None:
        if not uses_xcb():
            return None
        plugin = xcb_plugin()
        if plugin is None:
            return None
    missing = missing_library(plugin)
    return None if missing is None else install_line(missing)

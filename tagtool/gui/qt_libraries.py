"""Before the window: the system libraries Qt needs and the X server it talks to, named when missing.

Qt fails without a word a person can act on when the system lacks a library
(an ``ImportError`` traceback from ``PySide6.QtCore`` for ``libglib-2.0``,
``libGL``…; an abort, exit status 134, advising ``libxcb-cursor0`` whatever
the xcb plugin lacks) or when no X server answers on ``DISPLAY`` ("could not
connect to display", then the same abort).  :func:`preflight` runs before Qt
is imported: it lists every library that PySide6's ``QtWidgets`` module and
the platform plugin Qt will start need and the system lacks (``ldd``'s "not
found" lines, or, without ``ldd``, the first one ``dlopen`` names), and says in
one line which packages bring them on Debian/Ubuntu and Fedora
(:data:`PACKAGES`); then, for the xcb plugin, whether anything listens on the
X display's socket.  Nothing here imports Qt.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

#: Library (soname) -> (Debian/Ubuntu package, Fedora package): what PySide6's QtWidgets and its xcb plugin load
#: from the system, as ``ldd`` lists them (libc, libstdc++ and the loader aside: every system has them).
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
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libpcre2-8.so.0": ("libpcre2-8-0", "pcre2"),
    "libexpat.so.1": ("libexpat1", "expat"),
    "libpng16.so.16": ("libpng16-16", "libpng"),
    "libbrotlidec.so.1": ("libbrotli1", "libbrotli"),
    "libzstd.so.1": ("libzstd1", "libzstd"),
    "libz.so.1": ("zlib1g", "zlib"),
}
#: What a desktop without them usually lacks: named with the first missing one when only that one is known.
DESKTOP_EXTRAS = (
    "libxcb-cursor.so.0",
    "libxcb-icccm.so.4",
    "libxcb-image.so.0",
    "libxcb-keysyms.so.1",
    "libxcb-render-util.so.0",
    "libxcb-shape.so.0",
    "libxkbcommon-x11.so.0",
)
#: Where the fontconfig library the bundle carries (built for Debian/Ubuntu) reads its configuration.
FONTCONFIG_FILE = Path("/etc/fonts/fonts.conf")
_NOT_FOUND = re.compile(r"([\w.+-]+\.so[\d.]*): cannot open shared object file")
_LDD_NOT_FOUND = re.compile(r"^\s*(\S+) => not found", re.MULTILINE)


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


def pyside_folder() -> Path | None:
    """PySide6's package folder (the bundle's when frozen), found without importing it."""
    if getattr(sys, "frozen", False):
        folder = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "PySide6"
        return folder if folder.is_dir() else None
    spec = importlib.util.find_spec("PySide6")
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(locations[0]) if locations else None


def xcb_plugin() -> Path | None:
    """PySide6's (or the bundle's) ``libqxcb.so``, if there is one."""
    folder = pyside_folder()
    path = None if folder is None else folder / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return path if path is not None and path.is_file() else None


def qt_modules() -> list[Path]:
    """PySide6's ``QtWidgets`` extension module (it loads QtGui and QtCore and their system libraries)."""
    folder = pyside_folder()
    return sorted(folder.glob("QtWidgets*.so")) if folder is not None else []


def missing_library(plugin: Path) -> str | None:
    """The first library ``plugin`` needs that the system lacks, as the loader names it, else None."""
    try:
        ctypes.CDLL(str(plugin), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError as e:
        found = _NOT_FOUND.search(str(e))
        return found.group(1) if found else None  # another failure: Qt says what it is
    return None


def missing_libraries(files: list[Path]) -> tuple[list[str], bool]:
    """Every library ``files`` need that the system lacks, and whether that list is complete.

    ``ldd`` lists them all (its "not found" lines); without ``ldd`` the
    loader names only the first a file lacks (incomplete).
    """
    ldd = shutil.which("ldd")
    missing: dict[str, None] = {}
    for file in files:
        if ldd is None:
            first = missing_library(file)
            if first is not None:
                return [first], False
            continue
        try:
            out = subprocess.run([ldd, str(file)], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        missing.update(dict.fromkeys(_LDD_NOT_FOUND.findall(out)))
    return list(missing), True


def install_line(missing: str | list[str], complete: bool = False) -> str:
    """One line: what is missing and the packages that bring it (and, if ``complete`` is False, what usually goes
    missing with it on a desktop)."""
    names = [missing] if isinstance(missing, str) else list(missing)
    wanted = names if complete else list(dict.fromkeys((*names, *DESKTOP_EXTRAS)))
    known = [n for n in wanted if n in PACKAGES]
    debian = " ".join(dict.fromkeys(PACKAGES[n][0] for n in known))
    fedora = " ".join(dict.fromkeys(PACKAGES[n][1] for n in known))
    unknown = [n for n in names if n not in PACKAGES]
    these = ", ".join(names)
    line = f"the window cannot open: Qt needs {these}, which {'is' if len(names) == 1 else 'are'} not installed"
    if known:
        line += f"; install with 'sudo apt install {debian}' (Debian/Ubuntu) or 'sudo dnf install {fedora}' (Fedora)"
    if unknown:
        line += f" ({', '.join(unknown)}: from your system's package of that name)"
    return line


def fonts_line(
    bundle: Path | None = None, environ: Mapping[str, str] | None = None, config: Path = FONTCONFIG_FILE
) -> str | None:
    """The one line to print when the bundle's own fontconfig would find no configuration (so no font), else None.

    The bundle carries ``libfontconfig.so.1`` but not its configuration and
    fonts: without them Qt starts and draws every glyph as a box.  A wheel
    install uses the system's library, whose package brings its
    configuration, so only the bundle (``bundle``: its folder, by default
    the running one's when frozen) is checked; ``FONTCONFIG_FILE`` or
    ``FONTCONFIG_PATH`` set means the user points it elsewhere.
    """
    environ = os.environ if environ is None else environ
    if bundle is None:
        if not getattr(sys, "frozen", False):
            return None
        bundle = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    if not (bundle / "libfontconfig.so.1").exists() or config.exists():
        return None
    if environ.get("FONTCONFIG_FILE") or environ.get("FONTCONFIG_PATH"):
        return None
    return (
        f"the window cannot open: fontconfig's configuration ({config}) is not installed, and without it every "
        "letter is drawn as a box; install with 'sudo apt install libfontconfig1' (Debian/Ubuntu) or "
        "'sudo dnf install fontconfig' (Fedora)"
    )


def x_server_answers(display: str, timeout: float = 2.0) -> bool:
    """Whether something accepts connections on the X display ``display`` (``:99``, ``host:10.0``, ``unix:0``)."""
    host, _, rest = display.rpartition(":")
    number = rest.split(".")[0]
    if not number.isdigit() or display.startswith("/"):
        return True  # a launchd path or a form we do not know: Qt decides
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        for address in ("\0" + path, path):  # Linux's abstract socket first, as Xlib tries it
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                try:
                    s.connect(address)
                    return True
                except OSError:
                    continue
        if host == "unix":
            return False
        host = "localhost"
    try:
        socket.create_connection((host, 6000 + int(number)), timeout=timeout).close()
        return True
    except OSError:
        return False


def preflight(environ: Mapping[str, str] | None = None) -> str | None:
    """The one line to print instead of starting Qt, when it could not start; else None.

    Checks the libraries of PySide6's QtWidgets (every platform) and, where
    Qt will use xcb, of its xcb plugin, then the X server.
    """
    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return None
    xcb = uses_xcb(environ)
    plugin = xcb_plugin() if xcb else None
    missing, complete = missing_libraries([*qt_modules(), *([plugin] if plugin is not None else [])])
    if missing:
        return install_line(missing, complete)
    fonts = fonts_line(environ=environ)
    if fonts is not None:
        return fonts
    display = environ.get("DISPLAY", "")
    if xcb and display and not x_server_answers(display):
        return f"the window cannot open: no X server answers on display {display} (DISPLAY={display})"
    return None


def check_xcb(plugin: Path | None = None) -> str | None:
    """The one-line message when Qt would abort for a library the xcb plugin lacks, else None."""
    if plugin is None:
        if not uses_xcb():
            return None
        plugin = xcb_plugin()
        if plugin is None:
            return None
    missing, complete = missing_libraries([plugin])
    return install_line(missing, complete) if missing else None

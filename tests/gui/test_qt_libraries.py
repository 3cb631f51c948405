"""A missing Qt system library gives one line naming the packages (Debian/Ubuntu and Fedora), not an abort.

The loader's real failure is simulated with a small shared object built here that needs a library no system
has (``libxcb-gone.so.0``), standing in for the xcb plugin; the message for the library Debian desktops lack
(``libxcb-cursor.so.0``) is checked with that name in its place."""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tagtool.gui import qt_libraries

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")


@pytest.fixture(scope="module")
def broken_plugin(tmp_path_factory) -> Path:
    """A shared object that needs ``libxcb-gone.so.0``, which is then removed."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler to build the stand-in plugin")
    folder = tmp_path_factory.mktemp("plugin")
    (folder / "gone.c").write_text("int gone(void) { return 1; }\n")
    (folder / "plugin.c").write_text("int gone(void);\nint plugin(void) { return gone(); }\n")
    for name in ("libxcb-gone.so.0", "libgl-gone.so.1"):
        subprocess.run(
            ["cc", "-shared", "-fPIC", "-o", folder / name, f"-Wl,-soname,{name}", folder / "gone.c"], check=True
        )
    libraries = [folder / "libxcb-gone.so.0", folder / "libgl-gone.so.1"]
    subprocess.run(
        ["cc", "-shared", "-fPIC", "-Wl,--no-as-needed", "-o", folder / "libqxcb.so", folder / "plugin.c", *libraries],
        check=True,
    )
    for library in libraries:
        library.unlink()
    return folder / "libqxcb.so"


def test_the_loaders_failure_names_the_missing_library(broken_plugin):
    assert qt_libraries.missing_library(broken_plugin) == "libxcb-gone.so.0"
    message = qt_libraries.check_xcb(broken_plugin)
    assert "libxcb-gone.so.0" in message and "\n" not in message


def test_every_missing_library_is_named_not_only_the_first(broken_plugin):
    if shutil.which("ldd") is None:
        pytest.skip("no ldd: only the first missing library can be named")
    missing, complete = qt_libraries.missing_libraries([broken_plugin])
    assert complete and missing == ["libxcb-gone.so.0", "libgl-gone.so.1"]
    line = qt_libraries.install_line(["libglib-2.0.so.0", "libGL.so.1", "libdbus-1.so.3"], complete=True)
    assert line.startswith("the window cannot open: Qt needs libglib-2.0.so.0, libGL.so.1, libdbus-1.so.3, which are")
    assert "sudo apt install libglib2.0-0 libgl1 libdbus-1-3' (" in line and "libxcb-cursor0" not in line
    assert "sudo dnf install glib2 libglvnd-glx dbus-libs' (Fedora)" in line


def test_the_x_server_check(tmp_path):
    assert not qt_libraries.x_server_answers(":9999", timeout=0.5)
    assert not qt_libraries.x_server_answers("unix:9999.0", timeout=0.5)
    assert qt_libraries.x_server_answers("/private/tmp/launchd-1/org.xquartz:0")
    message = qt_libraries.preflight({"DISPLAY": ":9999"})
    assert message == "the window cannot open: no X server answers on display :9999 (DISPLAY=:9999)"


def test_a_plugin_that_loads_is_fine():
    plugin = qt_libraries.xcb_plugin()
    if plugin is None:
        pytest.skip("no xcb plugin in this Qt")
    # Where this machine lacks a library the result names it; a complete system gives None.
    missing = qt_libraries.missing_library(plugin)
    assert missing is None or missing in qt_libraries.PACKAGES


def test_the_message_for_libxcb_cursor_names_both_families_packages():
    line = qt_libraries.install_line("libxcb-cursor.so.0")
    assert "\n" not in line
    assert "sudo apt install libxcb-cursor0 " in line and "libxkbcommon-x11-0" in line
    assert "sudo dnf install xcb-util-cursor " in line and "xcb-util-wm" in line


def test_only_an_xcb_start_is_checked():
    linux = "linux"
    assert qt_libraries.uses_xcb({"DISPLAY": ":0"}, linux)
    assert qt_libraries.uses_xcb({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, linux)
    assert not qt_libraries.uses_xcb({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, linux)
    assert not qt_libraries.uses_xcb(
        {"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, linux
    )
    assert not qt_libraries.uses_xcb({"DISPLAY": ":0"}, "darwin")
    assert not qt_libraries.uses_xcb({}, linux)


def test_tagtool_gui_prints_one_line_and_exits_1_instead_of_aborting(broken_plugin, chunk_project):
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from tagtool.gui import qt_libraries
        qt_libraries.xcb_plugin = lambda: Path({str(broken_plugin)!r})
        from tagtool.cli.main import main
        sys.exit(main(["gui", {str(chunk_project)!r}]))
    """)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(chunk_project.parent), "QT_QPA_PLATFORM": "xcb", "DISPLAY": ":99"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "libxcb-gone.so.0" in lines[0], done.stderr
    assert "libgl-gone.so.1" in lines[0] or shutil.which("ldd") is None


def test_tagtool_gui_without_an_x_server_says_so_in_one_line(chunk_project):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(chunk_project.parent), "DISPLAY": ":9999"}
    script = f"import sys; from tagtool.cli.main import main; sys.exit(main(['gui', {str(chunk_project)!r}]))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 1, done.stderr
    assert (
        done.stderr.strip()
        == "tagtool: error: the window cannot open: no X server answers on display :9999 (DISPLAY=:9999)"
    )


def test_readme_lists_are_what_the_check_names():
    """The package lists ``benchmarks/bare_desktop.py`` checks on a chroot (read from README.md and
    packaging/README.md) parse, and the start-up check can name every package in them."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bare_desktop import listed_packages

    wheel, bundle = listed_packages()
    debian = {package for package, _ in qt_libraries.PACKAGES.values()}
    assert "libglib2.0-0" in wheel and "libfontconfig1" in bundle
    assert set(bundle) <= set(wheel) <= debian


def test_a_bundle_without_fontconfigs_configuration_says_so(tmp_path):
    """The bundle's own libfontconfig with no configuration draws boxes: one line names the package instead."""
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    config = tmp_path / "etc" / "fonts.conf"
    assert qt_libraries.fonts_line(bundle, {}, config) is None  # no libfontconfig in it: the system's is used
    (bundle / "libfontconfig.so.1").write_bytes(b"")
    line = qt_libraries.fonts_line(bundle, {}, config)
    assert (
        line is not None
        and str(config) in line
        and "libfontconfig1" in line
        and "'sudo dnf install fontconfig'" in line
    )
    assert qt_libraries.fonts_line(bundle, {"FONTCONFIG_FILE": "/elsewhere.conf"}, config) is None
    config.parent.mkdir()
    config.write_text("<fontconfig/>")
    assert qt_libraries.fonts_line(bundle, {}, config) is None
    assert qt_libraries.fonts_line(environ={}) is None  # not frozen: the wheel's system library brings its own

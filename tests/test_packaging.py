"""The desktop bundle's recipe (packaging/), checked without building it:
``python packaging/build.py`` builds and smoke-tests the real thing."""

from __future__ import annotations

import ast
import configparser
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tomllib
import types
import xml.etree.ElementTree as ET

import pytest

from tagtool import paths
from tagtool.learn import REGISTRY

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
RESOURCES = ROOT / "resources"
#: Top-level packages the app imports at run time; the spec must not exclude them.
RUNTIME_PACKAGES = (
    "tagtool",
    "numpy",
    "scipy",
    "numba",
    "llvmlite",
    "cvxopt",
    "pandas",
    "seqeval",
    "sklearn",
    "conllu",
    "rich",
    "PySide6",
    "shiboken6",
    "pyqtgraph",
    "multiprocessing",
    "sqlite3",
)


class Recorder:
    """Stands in for PyInstaller's Analysis, PYZ, EXE and COLLECT in the spec."""

    calls: dict = {}

    def __init__(self, *args, **kwargs):
        Recorder.calls[type(self).__name__] = (args, kwargs)


class Analysis(Recorder):
    binaries: list = []
    datas: list = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.binaries, self.datas = list(Analysis.binaries), list(Analysis.datas)
        self.pure, self.scripts = [], []


class PYZ(Recorder):
    pass


class EXE(Recorder):
    pass


class COLLECT(Recorder):
    pass


def tagtool_modules() -> list[str]:
    """Every tagtool module, from the file tree (importing them would load Qt)."""
    names = []
    for path in sorted((ROOT / "tagtool").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        names.append(".".join(parts).removesuffix(".__init__"))
    return names


@pytest.fixture
def spec(tmp_path, monkeypatch):
    """Run packaging/tagtool.spec with PyInstaller replaced by recorders.

    The fake analysis returns a few Qt files and shared libraries; the fake
    ``get_imports`` says which library each binary links to.
    """
    links = {"/qt/libqxcb.so": ["libxcb-icccm.so.4", "libc.so.6"], "/lib/libxcb-icccm.so.4": []}

    def collect_submodules(package, filter=None):
        found = tagtool_modules() if package == "tagtool" else [package, f"{package}.base"]
        return [name for name in found if filter is None or filter(name)]

    fakes = {
        "PyInstaller": types.ModuleType("PyInstaller"),
        "PyInstaller.utils": types.ModuleType("PyInstaller.utils"),
        "PyInstaller.utils.hooks": types.SimpleNamespace(collect_submodules=collect_submodules),
        "PyInstaller.depend": types.ModuleType("PyInstaller.depend"),
        "PyInstaller.depend.bindepend": types.SimpleNamespace(
            get_imports=lambda path: [(name, None) for name in links.get(path, [])]
        ),
    }
    fakes["PyInstaller.depend"].bindepend = fakes["PyInstaller.depend.bindepend"]
    fakes["PyInstaller.utils"].hooks = fakes["PyInstaller.utils.hooks"]
    for name, module in fakes.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(
        Analysis,
        "binaries",
        [
            ("PySide6/Qt/plugins/platforms/libqxcb.so", "/qt/libqxcb.so", "BINARY"),
            ("PySide6/Qt/plugins/platforms/libqwayland-egl.so", "/qt/libqwayland-egl.so", "BINARY"),
            ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/qt/libqgtk3.so", "BINARY"),
            ("libxcb-icccm.so.4", "/lib/libxcb-icccm.so.4", "BINARY"),
            ("libgtk-3.so.0", "/lib/libgtk-3.so.0", "BINARY"),  # needed only by the dropped GTK plugin
            ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
            ("libpython3.11.so.1.0", "/lib/libpython3.11.so.1.0", "BINARY"),
        ],
    )
    monkeypatch.setattr(
        Analysis,
        "datas",
        [
            ("tagtool/cli/main.py", str(ROOT / "tagtool" / "cli" / "main.py"), "DATA"),
            ("PySide6/Qt/translations/qtbase_de.qm", "/qt/qtbase_de.qm", "DATA"),
        ],
    )
    Recorder.calls = {}
    namespace = {
        "SPECPATH": str(PACKAGING),
        "workpath": str(tmp_path / "work"),
        "Analysis": Analysis,
        "PYZ": PYZ,
        "EXE": EXE,
        "COLLECT": COLLECT,
        "__name__": "__main__",
    }
    exec(compile((PACKAGING / "tagtool.spec").read_text(encoding="utf-8"), "tagtool.spec", "exec"), namespace)
    return namespace, Recorder.calls, tmp_path / "work"


def test_spec_builds_the_console_entry_point_as_one_folder_app_named_tagtool(spec):
    _, calls, _ = spec
    (script,), analysis = calls["Analysis"][0][0], calls["Analysis"][1]
    assert pathlib.Path(script) == PACKAGING / "tagtool_main.py"
    tree = ast.parse(pathlib.Path(script).read_text(encoding="utf-8"))
    imported = {
        (node.module, alias.name) for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    with open(ROOT / "pyproject.toml", "rb") as fh:
        module, func = tomllib.load(fh)["project"]["scripts"]["tagtool"].split(":")
    assert (module, func) in imported and "freeze_support" in pathlib.Path(script).read_text(encoding="utf-8")
    assert calls["EXE"][1]["name"] == calls["COLLECT"][1]["name"] == "tagtool"
    assert calls["EXE"][1]["exclude_binaries"] is True  # one folder, not one file
    assert analysis["module_collection_mode"] == {"tagtool": "py"}  # numba needs the kernels' sources
    assert [pathlib.Path(h) for h in analysis["runtime_hooks"]] == [PACKAGING / "rthook_numba_cache.py"]


def test_spec_bundles_resources_and_a_build_id(spec):
    _, calls, work = spec
    datas = calls["Analysis"][1]["datas"]
    assert (str(RESOURCES), "resources") in datas
    for name in (paths.SAMPLE_CORPUS, paths.ICON_PNG):
        assert (RESOURCES / name).is_file()
    build_id = work / "BUILD_ID"
    assert (str(build_id), "tagtool") in datas
    assert re.fullmatch(r"[0-9a-f]{16}\n", build_id.read_text(encoding="ascii"))


def test_spec_collects_every_learner_and_excludes_nothing_the_app_imports(spec):
    _, calls, _ = spec
    analysis = calls["Analysis"][1]
    for target in REGISTRY.values():  # imported by name: the analysis alone would miss them
        assert target.split(":")[0] in analysis["hiddenimports"]
    assert not any(name.startswith("tools") for name in analysis["hiddenimports"])  # drivers stay out
    excludes = analysis["excludes"]
    used_qt = set()
    for path in (ROOT / "tagtool" / "gui").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used_qt |= {
            n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("PySide6")
        }
    assert {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets"} <= used_qt
    for needed in [*RUNTIME_PACKAGES, *used_qt]:
        assert not any(needed == ex or needed.startswith(ex + ".") for ex in excludes), needed


def test_spec_keeps_the_xcb_and_offscreen_plugins_and_drops_the_rest(spec):
    namespace, _, _ = spec
    dropped = namespace["dropped"]
    for kept in (
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "PySide6/Qt/plugins/platforms/libqoffscreen.so",
        "PySide6/Qt/lib/libQt6Widgets.so.6",
        "PySide6/Qt/plugins/imageformats/libqjpeg.so",
    ):
        assert not dropped(kept), kept
    for gone in (
        "PySide6/Qt/plugins/platforms/libqwayland-egl.so",
        "PySide6/Qt/plugins/platforms/libqeglfs.so",
        "PySide6/Qt/plugins/platforms/libqvnc.so",
        "PySide6/Qt/plugins/platforms/libqminimal.so",
        "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
        "PySide6/Qt/translations/qtbase_de.qm",
        "PySide6/Qt/lib/libQt6Quick.so.6",
        "PySide6/Qt/plugins/imageformats/libqsvg.so",
    ):
        assert dropped(gone), gone


def test_spec_leaves_out_libraries_only_dropped_plugins_needed(spec):
    _, calls, _ = spec
    kept = [dest for dest, _, _ in calls["COLLECT"][0][1]]
    assert kept == [
        "PySide6/Qt/plugins/platforms/libqxcb.so",
        "libxcb-icccm.so.4",
        "libQt6Core.so.6",
        "libpython3.11.so.1.0",
    ]


def test_spec_precompiles_the_tagtool_sources_with_checked_hashes(spec):
    _, calls, work = spec
    datas = calls["COLLECT"][0][2]
    pyc = [(dest, src) for dest, src, _ in datas if dest.endswith(".pyc")]
    assert pyc == [
        (
            f"tagtool/cli/__pycache__/main.{sys.implementation.cache_tag}.pyc",
            str(work / "pyc" / "tagtool" / "cli" / "__pycache__" / f"main.{sys.implementation.cache_tag}.pyc"),
        )
    ]
    header = pathlib.Path(pyc[0][1]).read_bytes()[:16]
    assert struct.unpack("<I", header[4:8])[0] == 0b11  # hash-based, checked against the source
    assert not any(dest.startswith("PySide6/Qt/translations") for dest, _, _ in datas)


def test_runtime_hook_sets_the_cache_folder_in_a_frozen_process(tmp_path):
    bundle = tmp_path / "bundle"
    (bundle / "tagtool").mkdir(parents=True)
    (bundle / "tagtool" / "BUILD_ID").write_text("hooktest", encoding="ascii")
    code = (
        "import os, runpy, sys\n"
        f"sys.frozen = True; sys._MEIPASS = {str(bundle)!r}\n"
        f"runpy.run_path({str(PACKAGING / 'rthook_numba_cache.py')!r})\n"
        "print(os.environ['NUMBA_CACHE_DIR'], 'numba' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    folder = tmp_path / "cache" / "tagtool" / "numba" / "hooktest"
    assert out.stdout.split() == [str(folder), "False"] and folder.is_dir()


def test_desktop_entry_is_valid_and_names_the_icon():
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(PACKAGING / "tagtool.desktop", encoding="utf-8")
    group = entry["Desktop Entry"]
    assert group["Type"] == "Application" and group["Name"] == "tagtool"
    assert group["Exec"].split()[0] == "tagtool" and group["Icon"] == "tagtool"
    assert group["Terminal"] == "false"
    categories = group["Categories"]
    assert categories.endswith(";") and {"Science", "Education", "Development", "Utility"} & set(categories.split(";"))
    assert (RESOURCES / f"{group['Icon']}.png").is_file() and (RESOURCES / f"{group['Icon']}.svg").is_file()
    validator = shutil.which("desktop-file-validate")
    if validator:  # freedesktop's own checker, where installed
        result = subprocess.run([validator, str(PACKAGING / "tagtool.desktop")], capture_output=True, text=True)
        assert result.returncode == 0 and "error" not in result.stdout, result.stdout


def test_icon_files_are_a_square_svg_and_its_256_pixel_png():
    root = ET.parse(RESOURCES / "tagtool.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.get("viewBox") == "0 0 256 256"
    png = (RESOURCES / "tagtool.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (256, 256)
    assert "tagtool.svg" in (RESOURCES / "README.md").read_text(encoding="utf-8")


def test_pyproject_has_the_packaging_extra_and_ships_every_resource_in_a_wheel():
    with open(ROOT / "pyproject.toml", "rb") as fh:
        config = tomllib.load(fh)
    assert any(req.lower().startswith("pyinstaller") for req in config["project"]["optional-dependencies"]["packaging"])
    data_files = config["tool"]["setuptools"]["data-files"]
    shipped = set()
    for folder, files in data_files.items():
        for name in files:
            assert (ROOT / name).is_file(), name
            if folder.startswith(paths.SHARED_RESOURCES.as_posix()):
                shipped.add(
                    pathlib.PurePosixPath(folder, pathlib.Path(name).name).relative_to(
                        paths.SHARED_RESOURCES.as_posix()
                    )
                )
    in_tree = {p.relative_to(RESOURCES) for p in RESOURCES.rglob("*") if p.is_file()}
    assert {pathlib.PurePosixPath(p.as_posix()) for p in in_tree} == shipped


def test_resources_are_found_under_the_install_prefix_of_a_wheel(tmp_path, monkeypatch):
    shared = tmp_path / "prefix" / paths.SHARED_RESOURCES
    (shared / paths.SAMPLE_CORPUS).parent.mkdir(parents=True)
    (shared / paths.SAMPLE_CORPUS).write_text("EU NNP B-NP\n\n", encoding="utf-8")
    monkeypatch.setattr(paths, "__file__", str(tmp_path / "site-packages" / "tagtool" / "paths.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    assert paths.resources_dir() == shared
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "elsewhere"))
    monkeypatch.setattr(paths, "_install_prefixes", lambda: [tmp_path / "elsewhere"])
    with pytest.raises(paths.TagtoolError, match="resources folder is missing"):
        paths.resources_dir()


def test_build_script_documents_its_options_and_output_folders_are_ignored():
    out = subprocess.run(
        [sys.executable, str(PACKAGING / "build.py"), "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "--skip-build" in out and "--clean" in out
    if shutil.which("git") and (ROOT / ".git").exists():
        for path in ("packaging/dist/tagtool/tagtool", "packaging/build/tagtool/BUILD_ID"):
            assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path

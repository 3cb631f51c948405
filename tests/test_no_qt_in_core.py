"""The core must stay importable without Qt (napari's rule, STYLE.md)."""

import ast
import pathlib
import subprocess
import sys

import tagtool

PACKAGE = pathlib.Path(tagtool.__file__).parent
QT_MODULES = ("PySide6", "shiboken6", "superqt", "pyqtgraph", "pytestqt")


def core_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        if rel.parts[1] == "gui":
            continue
        yield ".".join(rel.with_suffix("").parts).removesuffix(".__init__")


def test_importing_every_core_module_loads_no_qt():
    modules = list(core_modules())
    assert "tagtool.core.corpus" in modules and "tagtool.errors" in modules
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"Qt imported by the core: {out.stdout}"


def test_no_source_file_outside_gui_imports_qt():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "gui" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path}: {n}" for n in names if n.split(".")[0] in QT_MODULES]
    assert not offenders, offenders

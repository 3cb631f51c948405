"""The layers of the package (docs/design.md#layout): no module of a lower layer imports a higher one.

core -> decode -> learn | store -> tagger -> services -> gui -> cli: a
module may import its own package, the packages of lower layers and the
small shared modules (errors, paths, ...), never a higher layer nor its
sibling in the same layer (learn and store know nothing of each other).
Imports are read from the source with :mod:`ast`, those inside functions
included, and so are the module names the lazy-attribute maps hold as
strings ("tagtool.learn.crf:CRF"): a lazy import is still an import.
(Qt only in gui: tests/test_no_qt_in_core.py.)
"""

from __future__ import annotations

import ast
import pathlib
import re

import tagtool

PACKAGE = pathlib.Path(tagtool.__file__).parent

#: The layers, lowest first; packages in one layer are siblings.
LAYERS = (("core",), ("decode",), ("learn", "store"), ("tagger",), ("services",), ("gui",), ("cli",))
RANK = {name: rank for rank, names in enumerate(LAYERS) for name in names}
#: The small modules at the top of the package that every layer may use; they import only each other.
SHARED = {"errors", "paths", "display", "pacing", "gil_slices", "collector", "_runtime", "_lazy", "logs"}

#: Modules allowed to import above their layer, with the reason.
EXCEPTIONS = {
    "tagtool": "the package's public front: tagtool.load_tagger, tagtool.Tagger and tagtool.train_tagger are "
    "lazy names of the tagger and services layers, imported on first use",
}

#: A module named in a string: "tagtool.learn.crf" or "tagtool.learn.crf:CRF" (lazy-attribute maps).
_MODULE_STRING = re.compile(r"tagtool(\.\w+)+(:\w+)?")


def _module_name(path: pathlib.Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    """``(line, module)`` of every ``tagtool`` module the source imports or names as a lazy target."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # `from tagtool import core` imports a package; `from tagtool import load_tagger` a lazy name
            found += [(node.lineno, node.module)]
            if node.module == "tagtool":
                found += [(node.lineno, _root_name(alias.name)) for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_STRING.fullmatch(node.value):
            if _exists(node.value.split(":")[0]):  # not a file name such as "tagtool.png"
                found.append((node.lineno, node.value.split(":")[0]))
    return sorted((line, name) for line, name in found if name == "tagtool" or name.startswith("tagtool."))


def _exists(module: str) -> bool:
    path = PACKAGE.parent.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _root_name(name: str) -> str:
    """The module behind ``from tagtool import name``: a subpackage, a lazy name's module, or the root."""
    if name in RANK or name in SHARED:
        return f"tagtool.{name}"
    target = tagtool._LAZY.get(name)
    return target.split(":")[0] if target else "tagtool"


def _part(module: str) -> str | None:
    """The layer package or shared module of ``module`` (None for the root package itself, which every
    module may import: ``from tagtool import __version__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def violations(module: str, tree: ast.AST) -> list[str]:
    """The imports of ``module`` that break the layering rule."""
    own = _part(module)
    bad = []
    for line, target in imported_modules(tree):
        other = _part(target)
        if other is None or other == own:
            continue
        if own is None or own in SHARED:  # the root package and the shared modules: below every layer
            allowed = other in SHARED
        else:
            allowed = other in SHARED or RANK[other] < RANK[own]
        if not allowed:
            bad.append(f"{module}:{line} imports {target}")
    return bad


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield _module_name(path), ast.parse(path.read_text(encoding="utf-8"), str(path))


def test_every_part_of_the_package_has_a_layer():
    parts = {_part(module) for module, _ in _modules()} - {None}
    assert parts <= set(RANK) | SHARED, f"place these in LAYERS or SHARED: {sorted(parts - set(RANK) - SHARED)}"
    assert set(RANK) | SHARED <= parts, "a layer or shared module listed here no longer exists"


def test_no_module_imports_a_higher_layer_or_its_sibling():
    bad = [v for module, tree in _modules() if module not in EXCEPTIONS for v in violations(module, tree)]
    assert not bad, "\n".join(bad)


def test_imports_are_absolute():
    """The layering check reads absolute names; a relative import (``from ..gui import x``) would pass it unseen."""
    relative = [
        f"{module}:{node.lineno}"
        for module, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert not relative, f"write these imports as absolute ones (from tagtool....): {relative}"


def test_the_exceptions_are_still_needed():
    trees = dict(_modules())
    assert all(violations(module, trees[module]) for module in EXCEPTIONS), "drop an exception that no longer applies"


def test_the_check_sees_imports_inside_functions_lazy_maps_and_the_root_s_lazy_names():
    source = (
        "import tagtool.core.corpus\n"
        "def f():\n    from tagtool.services.pipeline import train_tagger\n"
        "LAZY = {'x': 'tagtool.tagger.model:Tagger', 'icon': 'tagtool.png'}\n"
        "from tagtool import load_tagger, errors, __version__\n"
        "import tagtool.store\n"
    )
    assert violations("tagtool.learn.example", ast.parse(source)) == [
        "tagtool.learn.example:3 imports tagtool.services.pipeline",
        "tagtool.learn.example:4 imports tagtool.tagger.model",
        "tagtool.learn.example:5 imports tagtool.tagger.model",
        "tagtool.learn.example:6 imports tagtool.store",
    ]
    assert violations("tagtool.paths", ast.parse("import tagtool.core\nimport tagtool.errors\n")) == [
        "tagtool.paths:1 imports tagtool.core"
    ]
    assert violations("tagtool.cli.main", ast.parse(source)) == []

"""Rooms of one job (docs/development.md): no module over ~400 lines, no function over 60 outside numba kernels.

A module that grows past :data:`MAX_MODULE_LINES` or a function past
:data:`MAX_FUNCTION_LINES` (its docstring not counted) is split by job
before it lands. Numba kernels are exempt: a kernel is one loop nest that
numba compiles as a whole, and splitting it costs calls in its innermost loop.
"""

from __future__ import annotations

import ast
import pathlib

import tagtool

PACKAGE = pathlib.Path(tagtool.__file__).parent
#: "~400": a few lines of slack, so a docstring's wording does not force a split.
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 60
#: Decorators that make a function a numba kernel (tagtool.decode._jit and the modules' own aliases).
KERNEL_DECORATORS = ("njit", "jit", "kernel", "_njit", "_fast")


def _sources() -> list[pathlib.Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _is_kernel(node: ast.FunctionDef) -> bool:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in KERNEL_DECORATORS:
            return True
    return False


def function_lengths(tree: ast.AST):
    """``(name, line, length)`` of every function that is not a kernel; the docstring is not counted."""
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _is_kernel(node):
            continue
        length = node.end_lineno - node.lineno + 1
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            length -= first.end_lineno - first.lineno + 1
        yield node.name, node.lineno, length


def test_no_module_is_over_the_limit():
    too_long = {
        str(path.relative_to(PACKAGE.parent)): n
        for path in _sources()
        if (n := path.read_text(encoding="utf-8").count("\n")) > MAX_MODULE_LINES
    }
    assert not too_long, f"split these by job (lines): {too_long}"


def test_no_function_outside_the_kernels_is_over_the_limit():
    too_long = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {name} ({length} lines)"
        for path in _sources()
        for name, line, length in function_lengths(ast.parse(path.read_text(encoding="utf-8")))
        if length > MAX_FUNCTION_LINES
    ]
    assert not too_long, "split these into short functions:\n" + "\n".join(too_long)


def test_the_check_finds_a_long_function_and_exempts_a_kernel():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES + 1))
    source = f"def long():\n{body}\n\n@_fast\ndef loop():\n{body}\n"
    found = [(name, length) for name, _, length in function_lengths(ast.parse(source))]
    assert found == [("long", MAX_FUNCTION_LINES + 2)]  # the def line and its body

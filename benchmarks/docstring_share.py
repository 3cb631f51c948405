"""Share of docstring lines in the ``tagtool`` package, overall and for core, decode and learn.

A docstring line is a source line inside a module, class or function docstring (found with :mod:`ast`).
The share is docstring lines over all lines, blank ones included.  Prints a table and writes it to
``benchmarks/results/docstring_share.md``, keeping a ``before`` column given with ``--before FILE.json``
(the JSON this script writes with ``--json FILE``).

Usage: ``python benchmarks/docstring_share.py [--json counts.json] [--before counts.json]``.
"""

from __future__ import annotations

import argparse
import ast
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tagtool"
RESULT = ROOT / "benchmarks" / "results" / "docstring_share.md"
#: Rows of the table: the whole package, then the packages whose docstrings carry the algorithms.
PARTS = ("tagtool", "tagtool/core", "tagtool/decode", "tagtool/learn")


def docstring_lines(source: str) -> int:
    """Number of source lines inside docstrings of ``source``."""
    tree = ast.parse(source)
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    count += body[0].end_lineno - body[0].lineno + 1
    return count


def count(part: str) -> dict[str, int]:
    """``{"lines": ..., "docstring": ...}`` over the ``.py`` files under ``part``."""
    lines = doc = 0
    for path in sorted((ROOT / part).rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines += len(source.splitlines())
        doc += docstring_lines(source)
    return {"lines": lines, "docstring": doc}


def table(now: dict, before: dict | None) -> str:
    """The Markdown table of ``now`` (and ``before``, when given)."""
    head = "| part | lines | docstring lines | share |"
    rule = "|---|---:|---:|---:|"
    if before:
        head += " share before | docstring lines before |"
        rule += "---:|---:|"
    rows = [head, rule]
    for part in PARTS:
        n = now[part]
        row = f"| {part} | {n['lines']} | {n['docstring']} | {100 * n['docstring'] / n['lines']:.1f} % |"
        if before:
            b = before[part]
            row += f" {100 * b['docstring'] / b['lines']:.1f} % | {b['docstring']} |"
        rows.append(row)
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=pathlib.Path, help="also write the counts to this JSON file")
    parser.add_argument("--before", type=pathlib.Path, help="counts of an earlier run (its --json file)")
    args = parser.parse_args()
    now = {part: count(part) for part in PARTS}
    before = json.loads(args.before.read_text()) if args.before else None
    text = table(now, before)
    print(text)
    if args.json:
        args.json.write_text(json.dumps(now, indent=1) + "\n")
    RESULT.write_text(
        "# Share of docstring lines\n\n"
        "Written by `python benchmarks/docstring_share.py`: lines inside module, class and function docstrings "
        "over all lines (blank lines included) of the `.py` files under each part.\n\n" + text + "\n"
    )


if __name__ == "__main__":
    main()

"""Share of docstring lines in the ``tagtool`` package, and docstring or comment lines that carry measurements.

A docstring line is a source line inside a module, class or function docstring (found with :mod:`ast`); the
share is docstring lines over all lines, blank ones included.  A *measurement line* is a docstring or comment
line that quotes a result: F1, a ± interval, a percentage, a timing, or a corpus by name with figures
(:data:`MEASUREMENT`) — what belongs in ``benchmarks/results/*.md`` rather than in the code.

Prints a table for the whole package and for each of its subpackages, and writes it to
``benchmarks/results/docstring_share.md``; with ``--before REV`` it adds the same counts at a git revision.

Usage: ``python benchmarks/docstring_share.py [--before REV]``.
"""

from __future__ import annotations

import argparse
import ast
import io
import pathlib
import re
import subprocess
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "docstring_share.md"
#: Rows of the table: the whole package, the packages whose docstrings carry the algorithms, then the others.
PARTS = (
    "tagtool",
    "tagtool/core",
    "tagtool/decode",
    "tagtool/learn",
    "tagtool/services",
    "tagtool/store",
    "tagtool/tagger",
    "tagtool/cli",
    "tagtool/gui",
)
#: A line quoting a result: F1 with a number, a ± interval, a percentage, a timing, or a corpus with a decimal figure.
MEASUREMENT = re.compile(
    r"\bF1\b.*\d|\d.*\bF1\b|\d ?± ?\d|\d ?%|\d ?(ms|µs|s)\b|\d seconds|(CoNLL-\d+|NCBI|EWT|PTB)\b.*\d+\.\d"
)


def docstring_rows(source: str) -> set[int]:
    """Line numbers (1-based) inside docstrings of ``source``."""
    rows: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    rows.update(range(body[0].lineno, body[0].end_lineno + 1))
    return rows


def comment_rows(source: str) -> set[int]:
    """Line numbers of the comments of ``source``."""
    return {
        tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT
    }


def count_source(source: str) -> dict[str, int]:
    lines = source.splitlines()
    docs = docstring_rows(source)
    prose = docs | comment_rows(source)
    measured = sum(1 for row in prose if MEASUREMENT.search(lines[row - 1]))
    return {"lines": len(lines), "docstring": len(docs), "measurement": measured}


def sources(part: str, rev: str | None):
    """The text of every ``.py`` file under ``part``, in the work tree or at git revision ``rev``."""
    if rev is None:
        for path in sorted((ROOT / part).rglob("*.py")):
            yield path.read_text(encoding="utf-8")
        return
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, part], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.split()
    for name in names:
        if name.endswith(".py"):
            yield subprocess.run(
                ["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True, capture_output=True, text=True
            ).stdout


def count(part: str, rev: str | None = None) -> dict[str, int]:
    """Lines, docstring lines and measurement lines of the ``.py`` files under ``part``."""
    total = {"lines": 0, "docstring": 0, "measurement": 0}
    for source in sources(part, rev):
        for key, value in count_source(source).items():
            total[key] += value
    return total


def table(now: dict, before: dict | None, rev: str | None) -> str:
    """The Markdown table of ``now`` (and ``before``, when given)."""
    head = "| part | lines | docstring lines | docstring share | measurement lines |"
    rule = "|---|---:|---:|---:|---:|"
    if before:
        head += f" docstring share at {rev} | measurement lines at {rev} |"
        rule += "---:|---:|"
    rows = [head, rule]
    for part in PARTS:
        n = now[part]
        row = (
            f"| {part} | {n['lines']} | {n['docstring']} | {100 * n['docstring'] / n['lines']:.1f} % | "
            f"{n['measurement']} |"
        )
        if before:
            b = before[part]
            row += f" {100 * b['docstring'] / b['lines']:.1f} % | {b['measurement']} |"
        rows.append(row)
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", metavar="REV", help="also count at this git revision")
    args = parser.parse_args()
    now = {part: count(part) for part in PARTS}
    before = {part: count(part, args.before) for part in PARTS} if args.before else None
    text = table(now, before, args.before)
    print(text)
    RESULT.write_text(
        "# Share of docstring lines\n\n"
        f"Written by `python benchmarks/docstring_share.py{' --before ' + args.before if args.before else ''}`: "
        "lines inside module, class and function docstrings over all lines (blank lines included) of the `.py` "
        "files under each part, and the docstring or comment lines quoting a measurement (F1, ±, a percentage, "
        "a timing, a corpus with figures), which belong in `benchmarks/results/*.md`.\n\n" + text + "\n"
    )


if __name__ == "__main__":
    main()

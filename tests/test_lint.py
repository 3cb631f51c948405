"""ruff's lint and format checks ([tool.ruff] in pyproject.toml) pass on every Python file of the repository
(the package, tests, benchmarks, packaging, tools, docs): imports sorted, no unused names, no bugbear findings,
no noqa that suppresses nothing, lines within 120 characters, and the code as the formatter writes it."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
#: What the checks cover: the repository's root (ruff leaves out .git, virtual environments, build/ and what
#: .gitignore names).
CHECKED = (".",)


def _ruff(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *CHECKED], cwd=ROOT, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "check", [("check", "--output-format", "concise"), ("format", "--check")], ids=["lint", "format"]
)
def test_ruff_finds_nothing(check):
    done = _ruff(*check, "--no-cache")
    assert done.returncode == 0, f"ruff {' '.join(check)}:\n{done.stdout}{done.stderr}"

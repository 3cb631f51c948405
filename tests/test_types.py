"""The layers below the GUI pass the type checker (mypy, configured in pyproject.toml's ``[tool.mypy]``).

A part of the project that uses an attribute it was not given, a function
called with the wrong arguments, an Optional value used as if always set:
mypy finds these before a user does. Its cache (``.mypy_cache``) makes a
second run a few seconds.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    importlib.util.find_spec("mypy") is None,
    reason="mypy is not installed (pip install -e '.[test]' brings it; CI has it)",
)
def test_core_decode_learn_store_tagger_and_services_type_check():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, f"mypy found errors:\n{done.stdout}{done.stderr}"

"""The documentation site builds with ``mkdocs build --strict``: a warning (a broken link, a page missing from
the nav, a generated reference that fails) fails the test, and the generated references are in the pages."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _text(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_strict_with_its_generated_references(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    cli = _text(site, "cli")
    assert "tagtool train" in cli and "--learner" in cli and "tagtool merge" in cli
    keys = _text(site, "keyboard")
    assert "Ctrl+Shift+Q" in keys and "Shift+Space" in keys
    assert "tagtool" in _text(site, "settings")
    assert "<table>" in _text(site, "benchmarks")

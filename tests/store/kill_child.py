"""Run a crash-test child (a script that reports each committed change) and SIGKILL it mid-way."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path


def run_and_kill(editor: Path, path: Path, kill_after: int, delay: float, *extra: str) -> list[str]:
    """Start ``editor`` on ``path``, kill it once it reported ``kill_after`` changes (plus ``delay``); its lines."""
    child = subprocess.Popen(
        [sys.executable, str(editor), str(path), str(kill_after), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines = []
    try:
        for _ in range(kill_after):
            line = child.stdout.readline()
            assert line.startswith("committed"), (line, child.stderr.read())
            lines.append(line)
        time.sleep(delay)
    finally:
        child.kill()  # SIGKILL: no cleanup, no atexit, no checkpoint
        child.wait()
        # Read through the same text wrapper as readline(): communicate() reads the raw pipe and
        # loses lines readline() had already buffered (seen under load: a reported edit missing).
        rest = child.stdout.read()
        child.stderr.read()
    assert child.returncode == -9
    return lines + [line for line in rest.splitlines(keepends=True) if line.endswith("\n")]

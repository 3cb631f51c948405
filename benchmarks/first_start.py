"""The first start: install -> first window, and first labeled sentence -> first suggestions, on a cold cache.

In one run:

1. **Install**: a fresh virtual environment and the README's
   ``pip install -e .`` of this checkout (wall time; pip's own download
   cache is as this machine has it).
2. **First window**: ``benchmarks/_first_start_probe.py window`` with that
   environment's Python, offscreen: process start to the main window shown
   on the sample project, with an empty numba cache (``NUMBA_CACHE_DIR`` a
   new folder) and an empty user data folder (the sample project is made
   on the way), then again with both filled (a later start).
3. **First suggestions**: the probe opens the sample corpus with nothing
   labeled, labels the first sentence (one edit) and times the edit to the
   first model's suggestions (the automatic retrain), each on an empty numba
   cache: without any warm-up (the first model compiles every kernel); as
   the app starts (the child process filling the cache from process start,
   the warm-up at window show) with the first sentence labeled at once, 10 s
   and 20 s after the window showed, and once the warm-up is done; then on
   the cache a previous run filled (every later start), without and with
   the warm-up.

Run: ``python benchmarks/first_start.py`` (writes ``benchmarks/results/first_start.md``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import cpu_name, load_average, write_keeping_analysis

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "_first_start_probe.py"
OUT = Path(__file__).resolve().parent / "results" / "first_start.md"


def install(folder: Path) -> tuple[Path, float]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(ROOT)], check=True, stdout=subprocess.DEVNULL)
    return python, time.perf_counter() - started


def probe(python: Path, kind: str, numba: Path, data: Path, when: str = "done") -> list[float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba), "XDG_DATA_HOME": str(data), "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    done = subprocess.run([str(python), str(PROBE), kind, when], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"probe {kind} {when} failed:\n{done.stderr[-3000:]}")
    words = [line.split() for line in done.stdout.splitlines() if line.startswith(("shown", "suggest"))][-1]
    return [float(w) for w in words[1:]] + [time.perf_counter() - started]


def _row(what: str, run: list[float]) -> str:
    warm = "none" if "no warm-up" in what else "still running at the edit" if run[1] != run[1] else f"{run[1]:.1f} s"
    return f"| {what} | {run[0]:.1f} | {warm} | {1000 * run[2]:.0f} |"


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="first-start-"))
    python, install_seconds = install(tmp / "venv")
    print(f"install: {install_seconds:.1f} s", flush=True)
    cold_window = probe(python, "window", tmp / "numba-window", tmp / "data-window")
    warm_window = probe(python, "window", tmp / "numba-window", tmp / "data-window")
    print(f"first window: cold {cold_window[0]:.1f} s, later {warm_window[0]:.1f} s", flush=True)
    runs = {}
    for when, what in (
        ("none", "no warm-up: the first model compiles every kernel"),
        ("0", "as the app starts; first sentence labeled as the window shows"),
        ("10", "as the app starts; labeled 10 s after the window shows"),
        ("20", "as the app starts; labeled 20 s after the window shows"),
        ("done", "as the app starts; labeled once the warm-up is done"),
    ):
        runs[what] = probe(python, "suggest", tmp / f"numba-{when}", tmp / f"data-{when}", when)
        print(_row(what, runs[what]), flush=True)
    filled = tmp / "numba-done"
    for when, what in (
        ("none", "a later start (cache filled), no warm-up, labeled as the window shows"),
        ("0", "a later start (cache filled), as the app starts, labeled as the window shows"),
    ):
        runs[what] = probe(python, "suggest", filled, tmp / f"data-later-{when}", when)
        print(_row(what, runs[what]), flush=True)
    lines = [
        "# First start: install to first window, first labeled sentence to first suggestions",
        "",
        f"`python benchmarks/first_start.py`; {cpu_name()}, {os.cpu_count()} cores, load average "
        f"{load_average()} at the end (other jobs were running), offscreen.",
        "",
        "| step | seconds |",
        "| --- | ---: |",
        f"| fresh venv + `pip install -e .` | {install_seconds:.1f} |",
        f"| process start → window shown, empty numba cache and data folder | {cold_window[0]:.1f} |",
        f"| process start → window shown, a later start | {warm_window[0]:.1f} |",
        "",
        "First labeled sentence → first suggestions (the automatic retrain's model), on an empty numba cache "
        "unless said:",
        "",
        "| run | edit → suggestions (s) | warm-up, from window shown | longest GUI timer wait before the edit (ms) |",
        "| --- | ---: | ---: | ---: |",
        *(_row(what, run) for what, run in runs.items()),
    ]
    for line in lines[4:]:
        print(line)
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    main()

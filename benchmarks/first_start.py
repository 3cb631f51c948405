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
   first model's suggestions (the automatic retrain), on an empty numba
   cache: without the background warm-up (the first model compiles every
   kernel), and with it (:func:`tagtool.services.warmup.warm_kernels`
   started when the window shows and finished before the edit, as when a
   person reads the first sentence while it runs; its own time is
   reported); then without it on the cache the previous run filled (every
   later start).

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
from _results import cpu_name, load_average, write_keeping_analysis  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "_first_start_probe.py"
OUT = Path(__file__).resolve().parent / "results" / "first_start.md"


def install(folder: Path) -> tuple[Path, float]:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "-e", str(ROOT)], check=True,
                   stdout=subprocess.DEVNULL)
    return python, time.perf_counter() - started


def probe(python: Path, kind: str, numba: Path, data: Path) -> list[float]:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(numba), "XDG_DATA_HOME": str(data), "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    done = subprocess.run([str(python), str(PROBE), kind], capture_output=True, text=True, env=env, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"probe {kind} failed:\n{done.stderr[-3000:]}")
    words = [line.split() for line in done.stdout.splitlines() if line.startswith(("shown", "suggest"))][-1]
    return [float(w) for w in words[1:]] + [time.perf_counter() - started]


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="first-start-"))
    python, install_seconds = install(tmp / "venv")
    print(f"install: {install_seconds:.1f} s", flush=True)
    cold_window = probe(python, "window", tmp / "numba-window", tmp / "data-window")
    warm_window = probe(python, "window", tmp / "numba-window", tmp / "data-window")
    print(f"first window: cold {cold_window[0]:.1f} s, later {warm_window[0]:.1f} s", flush=True)
    without = probe(python, "cold", tmp / "numba-a", tmp / "data-a")
    print(f"first suggestions without warm-up: {without[0]:.1f} s", flush=True)
    warm = probe(python, "warm", tmp / "numba-b", tmp / "data-b")
    print(f"with warm-up: {warm[0]:.1f} s after the edit (warm-up {warm[1]:.1f} s, "
          f"longest GUI wait {1000 * warm[2]:.0f} ms)", flush=True)
    later = probe(python, "cold", tmp / "numba-b", tmp / "data-c")
    print(f"later start (cache filled): {later[0]:.1f} s", flush=True)
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
        f"| first labeled sentence → first suggestions, empty numba cache, no warm-up | {without[0]:.1f} |",
        f"| … with the background warm-up done first (warm-up itself: {warm[1]:.1f} s from window shown) "
        f"| {warm[0]:.1f} |",
        f"| longest wait of the GUI thread's 10 ms timer during the warm-up (ms) | {1000 * warm[2]:.0f} |",
        f"| … a later start (numba cache filled), no warm-up | {later[0]:.1f} |",
    ]
    for line in lines[4:]:
        print(line)
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    main()

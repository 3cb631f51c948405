"""Writing a benchmark's result file while keeping its hand-written analysis."""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path

#: Everything below this line in a result file is analysis written by people.
ANALYSIS_MARKER = "<!-- analysis below is kept across runs -->"


def write_keeping_analysis(out: Path, lines: list[str]) -> None:
    """Write ``lines`` to ``out``, followed by the analysis section already there."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = out.read_text(encoding="utf-8") if out.exists() else ""
    tail = previous[previous.index(ANALYSIS_MARKER) :] if ANALYSIS_MARKER in previous else ANALYSIS_MARKER + "\n"
    out.write_text("\n".join(lines) + "\n\n" + tail, encoding="utf-8")
    print(f"written to {out}", file=sys.stderr)


def cpu_name() -> str:
    """The CPU model from /proc/cpuinfo (Linux), else what :mod:`platform` knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, or ``?`` where the system has none."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def machine_lines(cpu_note: str = "", versions: str = "") -> list[str]:
    """The date / platform / CPU / Python header of a result file (``cpu_note`` and ``versions`` appended)."""
    return [
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- platform: {platform.platform()}",
        f"- CPU: {cpu_name()} ({os.cpu_count()} logical cores{cpu_note})",
        f"- Python {platform.python_version()}{versions}",
    ]

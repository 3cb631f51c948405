"""Writing a benchmark's result file while keeping its hand-written analysis."""

from __future__ import annotations

import sys
from pathlib import Path

#: Everything below this line in a result file is analysis written by people.
ANALYSIS_MARKER = "<!-- analysis below is kept across runs -->"


def write_keeping_analysis(out: Path, lines: list[str]) -> None:
    """Write ``lines`` to ``out``, followed by the analysis section already there."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    previous = out.read_text(encoding="utf-8") if out.exists() else ""
    tail = previous[previous.index(ANALYSIS_MARKER):] if ANALYSIS_MARKER in previous else ANALYSIS_MARKER + "\n"
    out.write_text("\n".join(lines) + "\n\n" + tail, encoding="utf-8")
    print(f"written to {out}", file=sys.stderr)

"""Team work, concurrent edits and odd files: the adversarial trials, one module per kind.

Each module named in :data:`MODULES` exposes ``run(folder, seed, scale)``
returning ``(markdown lines, failed trials)``: a ``###`` subsection with what
was tried and a table of outcomes. ``scale`` multiplies its trial counts
(1.0 gives the counts ``reliability.md`` records). Run one alone with
``python benchmarks/_adv_<kind>.py [--scale X] [--seed S]`` (:func:`run_alone`).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: The trials, in the order the report shows them.
MODULES = (
    "_adv_concurrency",  # retokenization against merge and export, kills during merge
    "_adv_team",  # annotators kept by imports, joint givers, clears, resolutions
    "_adv_conllu",  # split/merge trees and # text, invalid CoNLL-U, BOM and CRLF
    "_adv_labelstudio",  # one annotator twice, "unknown", hypertextlabels
    "_adv_agreement",  # agreement's cost in annotators, progress, --limit
    "_adv_disk",  # full and read-only disks
)

INTRO = (
    "Trials of what an adversarial run against the store found: two processes on one project, kills, "
    "hostile team files and CoNLL-U, many annotators, full and read-only disks. Every trial checks the "
    "promise of its case; a failed one is printed."
)


def adversarial(folder: Path, seed: int, scale: float) -> tuple[list[str], int]:
    """Run every module of :data:`MODULES` in its own sub-folder; the report's lines and the failures."""
    lines, failed = [HEADING, "", INTRO, ""], 0
    for name in MODULES:
        sub = folder / name
        sub.mkdir(parents=True)
        started = time.perf_counter()
        part, bad = importlib.import_module(name).run(sub, seed, scale)
        print(f"{name}: {bad} failed trials, {time.perf_counter() - started:.0f} s", flush=True)
        lines += [*part, ""]
        failed += bad
    return lines, failed


HEADING = "## Team work, concurrent edits and odd files"


def replace_section(text: str, lines: list[str], command: str, machine: list[str]) -> str:
    """``text`` (a ``reliability.md``) with its adversarial section replaced by ``lines``.

    The section runs up to the next ``## `` heading or the scenario tests'
    table; the new one says which command made it and on what machine, as
    the rest of the file may come from an earlier run.
    """
    start = text.index(HEADING)
    ends = [i for i in (text.find("\n## ", start + 1), text.find("\nTests of each scenario", start)) if i >= 0]
    end = min(ends) if ends else len(text)
    head = lines[:4] + [f"Rerun alone: `{command}`", "", *machine, ""] + lines[4:]
    return text[:start] + "\n".join(head).rstrip("\n") + "\n" + text[end:]


def run_alone(run: Callable[[Path, int, float], tuple[list[str], int]], doc: str | None, seed: int = 23) -> None:
    """A module's ``__main__``: ``run`` in a temporary folder at ``--scale`` and ``--seed``, its
    lines printed; exits 1 when a trial failed."""
    parser = argparse.ArgumentParser(description=(doc or "").strip().split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the trial counts (default 1.0)")
    parser.add_argument("--seed", type=int, default=seed)
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="adversarial-") as tmp:
        lines, failed = run(Path(tmp), args.seed, args.scale)
    print("\n".join(lines))
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    sys.exit(1 if failed else 0)

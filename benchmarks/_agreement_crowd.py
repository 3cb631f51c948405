"""Agreement of a crowd: ``n`` annotators all answering one 14-token task, each case in a fresh process.

The worst case for measures taken pair by pair: every annotator shares
every token with every other, so ``n (n - 1) / 2`` pairs share answers.
Each case runs :func:`tagtool.services.agreement.progress.of_project`
(what ``tagtool agreement`` computes, imports done first) in a child
process twice: once timed, with its peak RSS (``VmHWM``: the peak over
its imports, and what the computation added) and the progress reports it
made, once under ``tracemalloc`` for the peak of Python and numpy
allocations.  Its alpha and pooled observed agreement are checked against
a reference computed here another way (the ``krippendorff`` package on the
reliability table; pairs alike counted per token with a Counter), and the
default ``--limit`` is checked to refuse a crowd past it with the named
error.  Used by ``agreement_scale.py`` and ``_adv_agreement.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHILD_ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

#: What the child runs: ``python -c CHILD path limit traced``; prints one JSON line.
CHILD = r"""
import json, sys, time, tracemalloc
import krippendorff, seqeval.metrics  # imported before the clock starts, as in the app
from tagtool.store.project import Project
from tagtool.services.agreement.progress import AgreementLimitError, of_project

def hwm_mb():  # this process's peak RSS (ru_maxrss would carry a big parent's over fork and exec)
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM")) / 1024

path, limit, traced = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
before = hwm_mb()
reports = []
if traced:
    tracemalloc.start()
start = time.perf_counter()
out = {}
try:
    with Project.open(path, readonly=True) as project:
        result = of_project(project, progress=lambda f, m="": reports.append(f), limit=limit)
    a = result.agreement
    out.update(alpha=a.alpha, observed=a.observed, pairs=len(a.pairs), kappa=a.kappa,
               pairs_computed=a.pairs_computed, progress_rows=len(result.progress))
except AgreementLimitError as e:
    out.update(refused=str(e), error=type(e).__name__)
out.update(seconds=time.perf_counter() - start, reports=len(reports), last_report=reports[-1] if reports else None,
           rss_before_mb=before, rss_peak_mb=hwm_mb())
if traced:
    out["traced_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
print(json.dumps(out))
"""


@dataclass
class CrowdCase:
    """One crowd's figures (module doc) and what went wrong (``failures``)."""

    annotators: int
    answers: int
    limit: int
    seconds: float = 0.0
    rss_peak_mb: float = 0.0
    rss_growth_mb: float = 0.0
    traced_peak_mb: float = 0.0
    reports: int = 0
    outcome: str = ""
    failures: list[str] | None = None


def _child(path: Path, limit: int, traced: bool) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(limit), "1" if traced else "0"],
        capture_output=True,
        text=True,
        env=CHILD_ENV,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"child failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def reference(path: Path) -> tuple[float, float]:
    """Alpha (the krippendorff package on the reliability table) and the observed agreement of all pairs."""
    import krippendorff
    import numpy as np

    from tagtool.store.project import Project

    with Project.open(path, readonly=True) as project:
        rows = [(t, name, next(iter(labels))) for _, t, name, labels in project.team.annotator_answers()]
    names = sorted({name for _, name, _ in rows})
    values = sorted({label for _, _, label in rows})
    column = {n: i for i, n in enumerate(names)}
    table = np.full((len(names), 1 + max(t for t, _, _ in rows)), np.nan)
    for t, name, label in rows:
        table[column[name], t] = values.index(label)
    alpha = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    alike = compared = 0
    for t in range(table.shape[1]):
        counts = Counter(table[:, t][~np.isnan(table[:, t])].tolist())
        m = sum(counts.values())
        compared += m * (m - 1) // 2
        alike += sum(c * (c - 1) // 2 for c in counts.values())
    return float(alpha), alike / compared


def run_case(folder: Path, annotators: int, limit: int, seed: int) -> CrowdCase:
    """The crowd of ``annotators`` (``tests.store.agreement_samples.crowd_project``) under ``limit``."""
    from tests.store.agreement_samples import CROWD_GOLD, crowd_project

    path = folder / f"crowd{annotators}_{seed}.tagproj"
    if not path.exists():  # the same crowd under another limit: the same file
        crowd_project(path, annotators, seed)
    case = CrowdCase(annotators, annotators * len(CROWD_GOLD), limit, failures=[])
    timed = _child(path, limit, traced=False)
    traced = _child(path, limit, traced=True)
    case.seconds, case.reports = timed["seconds"], timed["reports"]
    case.rss_peak_mb, case.rss_growth_mb = timed["rss_peak_mb"], timed["rss_peak_mb"] - timed["rss_before_mb"]
    case.traced_peak_mb = traced["traced_peak_mb"]
    if annotators > limit:
        message = timed.get("refused", "")
        case.outcome = f"refused: {timed.get('error', 'not refused')}"
        wanted = (str(path), f"{annotators:,} annotators", f"--limit {annotators}")
        if not all(w in message for w in wanted):
            case.failures.append(f"{annotators} annotators, limit {limit}: not refused as expected: {timed}")
        return case
    alpha, observed = reference(path)
    case.outcome = f"α {timed['alpha']:.4f}, agree {100 * timed['observed']:.2f} %, " + (
        f"{timed['pairs']:,} pairs, κ {timed['kappa']:.4f}" if timed["pairs_computed"] else "overall only"
    )
    if abs(timed["alpha"] - alpha) > 1e-9 or abs(timed["observed"] - observed) > 1e-12:
        case.failures.append(
            f"{annotators} annotators: α {timed['alpha']} / {alpha}, observed {timed['observed']} / {observed}"
        )
    if timed["reports"] < 3 or timed["last_report"] != 1.0:
        case.failures.append(
            f"{annotators} annotators: progress reports {timed['reports']}, last {timed['last_report']}"
        )
    return case


def table_lines(cases: list[CrowdCase]) -> list[str]:
    """The markdown table of ``cases``."""
    lines = [
        "| annotators | answers | --limit | outcome | time | µs per answer | peak RSS (growth) "
        "| tracemalloc peak | progress reports | failures |",
        "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for c in cases:
        per_answer = "–" if c.outcome.startswith("refused") else f"{1e6 * c.seconds / c.answers:.1f}"
        lines.append(
            f"| {c.annotators:,} | {c.answers:,} | {c.limit:,} | {c.outcome} | {c.seconds:.2f} s "
            f"| {per_answer} | {c.rss_peak_mb:.0f} MB (+{c.rss_growth_mb:.0f}) "
            f"| {c.traced_peak_mb:.1f} MB | {c.reports} | {len(c.failures)} |"
        )
    return lines

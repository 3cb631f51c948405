"""Every learner at its defaults on the app's sample project: training time, progress, chunk F1.

Trains each learner on resources/sample/conll2000-train-400.txt (400 fully
labeled CoNLL-2000 sentences) through :func:`tagtool.services.pipeline.train_tagger`
— what the app and ``tagtool train`` run — and scores CoNLL-2000 test.txt.
Per learner: wall seconds, CPU seconds of this process (on a shared machine
the wall time depends on what else runs; the CPU time much less), the
progress reports (how many, whether the fractions only grow and end at 1,
the last message before "done"), and chunk F1.  Numba kernels are compiled
(or loaded from the cache) by one warm-up fit on 20 sentences first: a
fresh installation compiles once, on its first training.

``--baseline PATH`` runs the same in a subprocess on another checkout (e.g.
the main branch) and puts its numbers beside.

Usage: python benchmarks/sample_training.py [--learners a,b] [--baseline /work/main] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import load_average, machine_lines, write_keeping_analysis

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "resources" / "sample" / "conll2000-train-400.txt"
TEST = ROOT.parent / "shared" / "data" / "conll2000" / "test.txt"
OUT = ROOT / "benchmarks" / "results" / "sample_training.md"
LEARNERS = ("cosvm", "mv-perceptron", "entropy-crf", "wdpsl", "hmm", "perceptron", "svm", "crf")
LIMIT_SECONDS = 10.0


def measure(names: list[str]) -> dict[str, dict]:
    """Train every learner on the sample and score test.txt (runs in the checkout on ``sys.path``)."""
    from tagtool.core.metrics import evaluate
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    train, test = read_corpus(SAMPLE), read_corpus(TEST)
    gold = [[next(iter(a)) for a in s.annotations] for s in test]
    labels = train.labels.union(test.labels)
    results = {}
    for name in names:
        train_tagger(train.sentences[:20], make_learner(name))  # numba: compile or load the cache
        seen = []
        started, cpu = time.perf_counter(), time.process_time()
        tagger = train_tagger(train, make_learner(name), progress=lambda f, m: seen.append((f, m)))
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
        fractions = [f for f, _ in seen]
        messages = [m for _, m in seen if m not in ("done", "measuring the loss without the input columns")]
        results[name] = {
            "wall": wall,
            "cpu": cpu,
            "f1": 100 * evaluate(gold, tagger.tag(test), labels).f1,
            "reports": len(seen),
            "monotone": fractions == sorted(fractions),
            "ends_at_one": fractions[-1] == 1.0,
            "last_message": messages[-1] if messages else "",
        }
        print(name, json.dumps(results[name]), file=sys.stderr, flush=True)
    return results


def baseline(path: Path, names: list[str]) -> dict[str, dict]:
    """:func:`measure` in a subprocess on the checkout at ``path``."""
    env = dict(os.environ, PYTHONPATH=str(path))
    code = (
        f"import sys, json; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
        f"import sample_training as s; print(json.dumps(s.measure({names!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=str(path), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(ours: dict, before: dict | None) -> list[str]:
    head = "| learner | wall s | CPU s | ≤ 10 s | progress reports | monotone, ends at 1 | last message | F1 |"
    lines = [head, "|---" * 8 + "|"]
    for name, r in ours.items():
        ok = "yes" if r["wall"] <= LIMIT_SECONDS else "**no**"
        lines.append(
            f"| {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {ok} | {r['reports']} | "
            f"{'yes' if r['monotone'] and r['ends_at_one'] else '**no**'} | {r['last_message']} | "
            f"{r['f1']:.2f} |"
        )
    if before:
        lines += [
            "",
            "Before (baseline checkout, same machine, same run):",
            "",
            "| learner | wall s | CPU s | F1 | last message |",
            "|---|---|---|---|---|",
        ]
        for name, r in before.items():
            lines.append(f"| {name} | {r['wall']:.1f} | {r['cpu']:.1f} | {r['f1']:.2f} | {r['last_message']} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", default=",".join(LEARNERS))
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to measure beside")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    names = [n for n in args.learners.split(",") if n]
    load = load_average()
    ours = measure(names)
    before = baseline(args.baseline, names) if args.baseline else None
    lines = [
        "# Every learner at its defaults on the sample project (400 CoNLL-2000 sentences)",
        "",
        f"Command: `python benchmarks/sample_training.py{' --baseline ' + str(args.baseline) if before else ''}`",
        "",
        *machine_lines(", shared with other jobs"),
        f"- load average at start: {load}",
        "",
        "Training through `train_tagger` (features, fit, input-column check) after a warm-up fit; "
        "F1 = chunk F1 on CoNLL-2000 test.txt (2,012 sentences). Limit: 10 s.",
        "",
        *table(ours, before),
    ]
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

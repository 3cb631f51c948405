"""Start-up of short ``tagtool`` commands, before and after a change, measured side by side.

Each command runs as a fresh process (``python -m tagtool.cli ...``), once
per version to warm caches (the numba cache of a fresh checkout compiles
on its first run), then ``--runs`` times per version, the versions
alternating so that both see the same machine load.  The "before" version is
``--before`` (a commit, default ``main``) exported with ``git archive`` into
a temporary folder and run with that folder first on ``PYTHONPATH``; the
"after" version is this checkout.  Reported: the median wall time and the
median CPU time (user + system) of the child processes.

The commands: ``--version`` (building the parser), ``tag`` and ``evaluate``
of a ten-sentence CoNLL-2000 file with a tagger trained here on the first
100 sentences of tests/data/conll2000_train_head.txt (``crfsuite`` features,
averaged perceptron).

Usage: python benchmarks/startup.py [--before COMMIT] [--runs N] [--out FILE]
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import load_average, machine_lines, write_keeping_analysis  # noqa: E402

SLICE = ROOT / "tests" / "data" / "conll2000_train_head.txt"


def export(commit: str, target: Path) -> str:
    """``commit``'s tree into ``target`` (``git archive``); returns its short hash."""
    short = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", commit], capture_output=True, text=True, check=True
    ).stdout.strip()
    data = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        archive.extractall(target, filter="data")
    return short


def fixtures(folder: Path) -> tuple[Path, Path]:
    """A tagger file and a ten-sentence input, made with this checkout."""
    from tagtool.core.features import FeatureExtractor
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    corpus = read_corpus(SLICE)
    extractor = FeatureExtractor("crfsuite", min_count=1, pos_column="col1")
    model = folder / "chunker.tagger"
    train_tagger(corpus, make_learner("perceptron", max_iter=5), features=extractor).save(model)
    blocks = SLICE.read_text(encoding="utf-8").split("\n\n")
    ten = folder / "ten.txt"
    ten.write_text("\n\n".join(blocks[:10]) + "\n\n", encoding="utf-8")
    return model, ten


def run_once(source: Path, args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -m tagtool.cli ARGS`` with ``source`` first on the path."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    # cwd: ``-m`` puts the working directory first on the path, before PYTHONPATH
    subprocess.run(
        [sys.executable, "-m", "tagtool.cli", *args],
        env=env,
        check=True,
        cwd=source,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(commands: dict[str, list[str]], versions: dict[str, Path], runs: int) -> dict:
    """``{(command, version): [(wall, cpu), ...]}``, versions alternating run by run."""
    times: dict = {}
    for name, args in commands.items():
        for source in versions.values():
            run_once(source, args)  # warm-up: caches, numba's compilation in a fresh checkout
        for _ in range(runs):
            for version, source in versions.items():
                times.setdefault((name, version), []).append(run_once(source, args))
    return times


def table(times: dict, commands: dict[str, list[str]], labels: tuple[str, str]) -> list[str]:
    before, after = labels
    lines = [
        "| command | wall before (s) | wall after (s) | after / before | CPU before (s) | CPU after (s) |",
        "|---|---|---|---|---|---|",
    ]
    for name in commands:
        wb, cb = (statistics.median(x) for x in zip(*times[(name, before)]))
        wa, ca = (statistics.median(x) for x in zip(*times[(name, after)]))
        lines.append(f"| `{name}` | {wb:.2f} | {wa:.2f} | {wa / wb:.2f} | {cb:.2f} | {ca:.2f} |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="main", help="commit to compare with (default main)")
    parser.add_argument("--runs", type=int, default=7, help="timed runs per command and version (default 7)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "startup.md")
    args = parser.parse_args(argv)
    started, load = time.perf_counter(), load_average()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        short = export(args.before, tmp / "before")
        model, ten = fixtures(tmp)
        commands = {
            "tagtool --version": ["--version"],
            "tagtool tag MODEL ten.txt -o OUT": ["tag", str(model), str(ten), "-o", str(tmp / "out.txt")],
            "tagtool evaluate MODEL ten.txt": ["evaluate", str(model), str(ten)],
        }
        labels = (f"before ({short})", "after")
        times = measure(commands, dict(zip(labels, (tmp / "before", ROOT))), args.runs)
    lines = [
        "# Start-up of short commands, before and after",
        "",
        f"Command: `python benchmarks/startup.py --before {args.before} --runs {args.runs}`",
        "",
        *machine_lines(),
        f"- load average at start: {load} (a shared machine: the versions alternate run by run)",
        f"- benchmark time: {time.perf_counter() - started:.0f} s",
        "",
        f"Median of {args.runs} runs per command and version, each a fresh `python -m tagtool.cli` "
        f"process; before = commit {short}, after = this checkout. The input is ten CoNLL-2000 "
        "sentences (312 tokens); the tagger uses the `crfsuite` features (averaged perceptron).",
        "",
        *table(times, commands, labels),
    ]
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Near-duplicate sentences: how many each corpus has, how fast they group, and what passing over them saves.

Three parts, written to ``--out`` (default ``benchmarks/results/near_duplicates.md``; every
simulation's ``tagtool simulate --json`` record in ``--runs``):

1. **Groups** (:func:`tagtool.services.near_duplicates.group_sentences`) of every training file of
   the development corpora (:data:`FILES`) and of their 2,000-sentence pools: groups, sentences
   beyond the first of each, the share of the pool, the largest groups and the pairs joined only
   by the 3-gram cut (not equal after normalising), with their similarity.
2. **Time** to group the biggest file, and 100,000 sentences (the whitespace-split lines of the
   raw-text corpora, :data:`RAW`).
3. **Cost to 95 %** of full-data F1 by ``tagtool simulate`` (the app's defaults: ``mv-perceptron``,
   strategy ``gain``, step 100 growing by 1.25, ``--max-unlabeled 100``) in modes ``tokens`` and
   ``review``, with ``--skip-near-duplicates`` on and off, and ``random`` + ``full`` as the
   denominator, on the first ``--sentences`` sentences of the training files of :data:`POOLS`,
   seeds ``--seeds``.

Usage::

    nice -n 10 python benchmarks/near_duplicates.py [--pools ncbi-disease,conll2002-es,conll2000,ud-en-ewt]
        [--seeds 0,1,2] [--jobs 2] [--part groups,time,cost] [--runs DIR] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _results import machine_lines, write_keeping_analysis

from tagtool.services.near_duplicates import SIMILARITY, group_sentences, jaccard, normalise
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parent / "results" / "near_duplicates.md"
#: corpus -> (training file, test file, read options)
FILES = {
    "conll2000": ("conll2000/train.txt", "conll2000/test.txt", {}),
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testb", {}),
    "ncbi-disease": ("ncbi-disease/train.tsv", "ncbi-disease/test.tsv", {}),
    "ud-en-ewt": ("ud-en-ewt/en_ewt-ud-train.conllu", "ud-en-ewt/en_ewt-ud-test.conllu", {"label_field": "upos"}),
    "ptb-sample": ("ptb-sample/wsj_sample.word_pos.txt", None, {}),
}
POOLS = ("ncbi-disease", "conll2002-es", "conll2000", "ud-en-ewt")
RAW = ("brown", "movie_reviews", "abc", "state_union", "webtext", "inaugural")
MODES = ("tokens", "review")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pools", default=",".join(POOLS))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--jobs", type=int, default=2, help="simulations run at once")
    p.add_argument("--part", default="groups,time,cost")
    p.add_argument("--runs", default="/tmp/near_duplicates_runs", help="pools and --json records")
    p.add_argument("--out", default=str(OUT))
    return p.parse_args(argv)


def pool_file(name: str, n: int, runs: Path) -> Path:
    """The first ``n`` sentences of corpus ``name``'s training file (blank-line separated), written once."""
    out = runs / f"{name}-{n}.pool"
    if not out.exists():
        lines, seen = [], 0
        with open(SHARED / FILES[name][0], encoding="utf-8") as f:
            for line in f:
                lines.append(line)
                if not line.strip():
                    seen += 1
                    if seen >= n:
                        break
        out.write_text("".join(lines), encoding="utf-8")
    return out


def tokens_of(path: Path, options: dict) -> list[tuple[str, ...]]:
    return [s.tokens for s in read_corpus(path, **options)]


def group_rows(name: str, tokens: list[tuple[str, ...]]) -> tuple[str, list[str]]:
    """A table row of the groups of ``tokens``, and example lines."""
    started = time.perf_counter()
    groups = group_sentences(tokens)
    seconds = time.perf_counter() - started
    exact = group_sentences(tokens, similarity=2.0)
    biggest = sorted(groups.members.values(), key=len, reverse=True)[:3]
    examples = [f"  - ×{len(m)}: `{' '.join(tokens[m[0]])[:80]}`" for m in biggest]
    near = [
        (round(jaccard(tokens[a], tokens[b]), 2), a, b)
        for m in groups.members.values()
        for a, b in zip(m, m[1:])
        if normalise(tokens[a]) != normalise(tokens[b])
    ]
    for score, a, b in sorted(near)[:2] + sorted(near)[-1:]:
        examples.append(f"  - near ({score}): `{' '.join(tokens[a])[:70]}` / `{' '.join(tokens[b])[:70]}`")
    row = (
        f"| {name} | {len(tokens):,} | {len(exact.members):,} / {exact.repeats:,} | "
        f"{len(groups.members):,} / {groups.repeats:,} | {100 * groups.repeats / max(len(tokens), 1):.1f} % "
        f"| {seconds:.2f} |"
    )
    return row, examples


def groups_part(args, runs: Path) -> list[str]:
    lines = [
        "## Groups",
        "",
        f"Near-duplicates: equal after lower-casing and mapping digits to 0, or token 3-gram Jaccard ≥ {SIMILARITY}.",
        "groups / repeats: groups of two or more, sentences beyond the first of each (what the rule can pass over).",
        "",
        "| corpus | sentences | equal after normalising: groups / repeats | near-duplicates: groups / repeats "
        "| repeats | seconds |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    examples: list[str] = []
    for name, (train, _test, options) in FILES.items():
        for label, path in ((name, SHARED / train), (f"{name} pool", pool_file(name, args.sentences, runs))):
            row, found = group_rows(label, tokens_of(path, options))
            lines.append(row)
            if not label.endswith("pool"):
                examples += [f"- {name}:", *found]
    return [
        *lines,
        "",
        "Largest groups, and near (not equal) neighbours in a group (joined directly or through a chain):",
        "",
        *examples,
        "",
    ]


def time_part() -> list[str]:
    biggest = max(FILES, key=lambda n: (SHARED / FILES[n][0]).stat().st_size)
    tokens = tokens_of(SHARED / FILES[biggest][0], FILES[biggest][2])
    raw: list[tuple[str, ...]] = []
    for name in RAW:
        with gzip.open(SHARED / "raw-en" / f"{name}.txt.gz", "rt", encoding="utf-8") as f:
            raw += [tuple(line.split()) for line in f if line.split()]
    raw = raw[:100_000]
    lines = ["## Time", "", "| sentences | tokens | groups | seconds (best of 3) |", "| --- | ---: | ---: | ---: |"]
    for label, data in ((f"{biggest} training file", tokens), ("100,000 raw-text lines (raw-en)", raw)):
        best, groups = float("inf"), None
        for _ in range(3):
            started = time.perf_counter()
            groups = group_sentences(data)
            best = min(best, time.perf_counter() - started)
        lines.append(f"| {label}: {len(data):,} | {sum(map(len, data)):,} | {len(groups.members):,} | {best:.2f} |")
    return [*lines, ""]


def simulate(pool: Path, test: Path, options: dict, strategy: str, mode: str, seed: int, skip: str, out: Path):
    """One ``tagtool simulate`` run (its --json record, kept: rerunning reads it)."""
    if not out.exists():
        command = [sys.executable, "-m", "tagtool.cli", "simulate", "--data", str(pool), "--test", str(test)]
        command += ["--strategy", strategy, "--mode", mode, "--step", "100", "--growth", "1.25", "--until-95"]
        command += ["--seed", str(seed), "--max-unlabeled", "100", "--skip-near-duplicates", skip]
        command += ["--json", str(out)] + (["--label-field", options["label_field"]] if options else [])
        subprocess.run(command, check=True, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))


def cost_part(args, runs: Path) -> list[str]:
    seeds = [int(s) for s in args.seeds.split(",")]
    jobs = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for name in args.pools.split(","):
            data, test = pool_file(name, args.sentences, runs), SHARED / FILES[name][1]
            options = FILES[name][2]
            for seed in seeds:
                runs_of = [("random", "full", "off")] + [("gain", m, s) for m in MODES for s in ("off", "on")]
                for strategy, mode, skip in runs_of:
                    out = runs / f"{name}-{strategy}-{mode}-{skip}-{seed}.json"
                    jobs[name, seed, strategy, mode, skip] = pool.submit(
                        simulate, data, test, options, strategy, mode, seed, skip, out
                    )
    lines = [
        "## Cost to 95 % of full-data F1",
        "",
        "As fractions of random + full's cost (min / median / max over the seeds); `off` / `on`: "
        "`--skip-near-duplicates`.",
        "",
        "| pool | mode | off | on | on / off per seed |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name in args.pools.split(","):
        for mode in MODES:
            ratios = {s: [] for s in ("off", "on")}
            for seed in seeds:
                base = jobs[name, seed, "random", "full", "off"].result()["cost_to_95"]
                for skip in ratios:
                    cost = jobs[name, seed, "gain", mode, skip].result()["cost_to_95"]
                    ratios[skip].append(cost / base if cost and base else float("nan"))
            per_seed = " / ".join(f"{b / a:.2f}" for a, b in zip(ratios["off"], ratios["on"]))
            lines.append(f"| {name} | {mode} | {_spread(ratios['off'])} | {_spread(ratios['on'])} | {per_seed} |")
    return [*lines, ""]


def _spread(values: list[float]) -> str:
    return f"{min(values):.3f} / **{statistics.median(values):.3f}** / {max(values):.3f}"


def main(argv=None) -> None:
    args = parse_args(argv)
    runs = Path(args.runs)
    runs.mkdir(parents=True, exist_ok=True)
    parts = args.part.split(",")
    lines = ["# Near-duplicate sentences", "", f"`{' '.join(['python', *sys.argv])}`", "", *machine_lines(), ""]
    if "groups" in parts:
        lines += groups_part(args, runs)
    if "time" in parts:
        lines += time_part()
    if "cost" in parts:
        lines += cost_part(args, runs)
    write_keeping_analysis(Path(args.out), lines)


if __name__ == "__main__":
    main()

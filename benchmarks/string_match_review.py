"""String-match suggestions in review mode: the cost to 95 % of full-data F1 with and without them.

Runs :func:`tagtool.services.simulate.loop.simulate` — the code behind ``tagtool simulate`` —
for the default learner (``mv-perceptron``, with the settings of
``benchmarks/annotation_efficiency_learners.py``: the crfsuite template and the default set stacked, one
view per set, ``c_u = 1``) on two NER corpora and one chunking corpus (:data:`CORPORA`; the data
is the first ``--sentences`` sentences of the training file, 2,000 as in the efficiency
benchmark, scored on the test file).

Per (corpus, seed): the full-data F1 (the learner trained on all of the data), then
``random+full`` until its curve reaches 95 % of it, then ``STRATEGY+review`` with string
matches off, on (``tagtool simulate --string-matches``), and on with the queue ranking the
string-matched tokens as cheap to review (``on+rank``: :class:`tagtool.services.strategies.Tokens`'
``cheap``), each until 95 % with random+full's cost as its budget.  Steps start at ``--step``
and grow by ``--growth`` (the efficiency benchmark's 100 and 1.25).  Reported per run, as fractions of random+full's:

* the review cost to 95 % (corrections at ``full`` = 1, accepted suggestions at ``skip`` = 0.1), at the
  first curve point reaching it and interpolated linearly between the points on either side (the
  points lie a step apart);
* the tokens the annotator went through by then (every token of a shown sentence; random+full's
  tokens are its cost).

Writes the tables, with the command, date and machine, to ``--out`` (default
``benchmarks/results/string_match_review.md``) and every run as a ``tagtool simulate --json``
record beside it (same name, ``.json``).

Usage::

    nice -n 10 python benchmarks/string_match_review.py [--corpora conll2002-es,ncbi-disease,conll2000]
        [--seeds 0,1,2] [--strategies combined] [--jobs 1] [--sentences 2000] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import numpy as np
from _results import machine_lines, write_keeping_analysis
from annotation_efficiency_learners import LEARNERS

from tagtool.core import Corpus
from tagtool.services.simulate.config import Costs, SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.services.simulate.results import SimulationResult
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parent / "results" / "string_match_review.md"
#: corpus -> (kind, training file, test file)
CORPORA = {
    "conll2002-es": ("NER", "conll2002-es/esp.train", "conll2002-es/esp.testb"),
    "ncbi-disease": ("NER", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv"),
    "conll2000": ("chunking", "conll2000/train.txt", "conll2000/test.txt"),
}
LEARNER = "mv-perceptron"
#: The review runs: (name, string matches, the queue ranks string-matched tokens as cheap to review).
VARIANTS = (("off", False, False), ("on", True, False), ("on+rank", True, True))
#: The goal on NER, as fractions of random+full: review cost, tokens gone through.
GOAL = {"review": 0.08, "tokens": 0.15}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default=",".join(CORPORA))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--strategies", default="combined", help="queue strategies of the review runs")
    p.add_argument("--sentences", type=int, default=2000, help="the first N sentences of the training file")
    p.add_argument("--step", type=float, default=100.0)
    p.add_argument("--growth", type=float, default=1.25)
    p.add_argument("--max-unlabeled", type=int, default=100)
    p.add_argument("--jobs", type=int, default=1, help="(corpus, seed) units run in parallel processes")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--resume", action="store_true", help="keep the (corpus, seed) units already in the .json")
    p.add_argument("--from-json", metavar="FILE", help="write the report again from a previous run's .json")
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def load(corpus: str, n: int) -> tuple[Corpus, Corpus]:
    _, train, test = CORPORA[corpus]
    data = read_corpus(SHARED / train)
    return Corpus.from_sentences(data.sentences[:n], labels=data.labels), read_corpus(SHARED / test)


def run_unit(corpus: str, seed: int, args) -> dict:
    """One (corpus, seed): full-data F1, random+full, then each strategy's review off and on."""
    data, test = load(corpus, args.sentences)
    params, features, views = LEARNERS[LEARNER]
    base = dict(
        learner=LEARNER,
        params=params,
        features=features,
        views=views,
        step=args.step,
        growth=args.growth,
        seed=seed,
        costs=Costs(),
        max_unlabeled=args.max_unlabeled,
    )
    started = time.perf_counter()
    full_f1 = Simulation(SimulationConfig(**base, strategy="random"), data, test).full_data_f1()
    log(f"{corpus} seed {seed}: full-data F1 {full_f1:.4f} ({time.perf_counter() - started:.0f} s)")
    base.update(full_data_f1=full_f1, until_95=True)
    runs = {"random+full": timed(SimulationConfig(**base, strategy="random", mode="full"), data, test, corpus)}
    first = runs["random+full"].result
    budget = first.cost_to_95 or first.curve[-1].cost
    for strategy in args.strategies.split(","):
        for name, on, rank in VARIANTS:
            config = SimulationConfig(**base, strategy=strategy, mode="review", budget=budget, string_matches=on)
            runs[f"{strategy}+review {name}"] = timed(config, data, test, corpus, rank)
    return {"corpus": corpus, "seed": seed, "full_data_f1": full_f1, "runs": {k: v.record() for k, v in runs.items()}}


class Run:
    def __init__(self, result: SimulationResult, wall: float):
        self.result, self.wall = result, wall

    def record(self) -> dict:
        return dict(self.result.to_dict(), wall_seconds=self.wall)


def timed(config: SimulationConfig, data: Corpus, test: Corpus, tag: str, rank: bool = False) -> Run:
    started = time.perf_counter()
    simulation = Simulation(config, data, test)
    simulation.rank_matches = rank
    result = simulation.run()
    run = Run(result, time.perf_counter() - started)
    c95 = result.cost_to_95
    matches = f" string matches {'on' if config.string_matches else 'off'}{' +rank' if rank else ''}"
    matches = matches if config.mode == "review" else ""
    log(
        f"  {tag} seed {config.seed} {config.strategy}+{config.mode}{matches}: cost_to_95 "
        f"{'-' if c95 is None else f'{c95:,.0f}'}, F1 {result.final_f1:.4f} ({run.wall:.0f} s)"
    )
    return run


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# report


def at_95(record: dict) -> dict | None:
    """The curve point where the run first reached 95 % (None: never)."""
    target = 0.95 * record["full_data_f1"]
    return next((p for p in record["curve"] if p["f1"] >= target), None)


def crossing(record: dict) -> float | None:
    """The cost where the curve crosses 95 %, interpolated linearly between the points on either side.

    ``cost_to_95`` is a curve point, and the points lie a step apart (steps grow ×1.25): two runs
    whose costs differ by less than a step can show the same ``cost_to_95``.
    """
    target = 0.95 * record["full_data_f1"]
    before = None
    for point in record["curve"]:
        if point["f1"] >= target:
            if before is None or point["f1"] == before["f1"]:
                return point["cost"]
            share = (target - before["f1"]) / (point["f1"] - before["f1"])
            return before["cost"] + share * (point["cost"] - before["cost"])
        before = point
    return None


def fractions(record: dict, random: dict) -> tuple[float | None, float | None, float | None]:
    """(review cost, interpolated review cost, tokens) at 95 %, as fractions of random+full's (None: never)."""
    mine, theirs = at_95(record), at_95(random)
    if mine is None or theirs is None:
        return None, None, None
    between = crossing(record) / crossing(random)  # type: ignore[operator]
    return mine["cost"] / theirs["cost"], between, mine["tokens_labeled"] / theirs["tokens_labeled"]


def cell(value: float | None) -> str:
    return "> 1" if value is None else f"{value:.3f}"


def number(point: dict | None, key: str) -> str:
    return "never" if point is None else f"{point[key]:,.0f}"


def unit_rows(unit: dict) -> list[str]:
    random = unit["runs"]["random+full"]
    r95 = at_95(random)
    lines = []
    for name, record in unit["runs"].items():
        if name == "random+full":
            continue
        point = at_95(record)
        cost, between, tokens = fractions(record, random)
        last = record["curve"][-1]
        matched = f"{last.get('string_matched', 0):,} ({last.get('string_matched_right', 0):,})"
        lines.append(
            f"| {unit['corpus']} | {unit['seed']} | {100 * unit['full_data_f1']:.2f} | "
            f"{number(r95, 'cost')} | {name} | {number(point, 'cost')} | {number(point, 'tokens_labeled')} | "
            f"{cell(cost)} | {cell(between)} | {cell(tokens)} | "
            f"{last['accepted']:,} | {matched} | {record['wall_seconds']:.0f} |"
        )
    return lines


def summary_rows(units: list[dict]) -> list[str]:
    """Per corpus and setting: the median fractions over the seeds and the goal's verdict (NER)."""
    lines = []
    for corpus in dict.fromkeys(u["corpus"] for u in units):
        mine = [u for u in units if u["corpus"] == corpus]
        for name in [n for n in mine[0]["runs"] if n != "random+full"]:
            triples = [fractions(u["runs"][name], u["runs"]["random+full"]) for u in mine]
            cost, between, tokens = ([1.0 if v is None else v for v in column] for column in zip(*triples))
            mc, mb, mt = (float(np.median(column)) for column in (cost, between, tokens))
            goal = "–"
            if CORPORA[corpus][0] == "NER":
                met = mc <= GOAL["review"] and mt <= GOAL["tokens"]
                goal = "yes" if met else "no"
            paired = [paired_ratio(u, name) for u in mine]
            lines.append(
                f"| {corpus} | {name} | {len(mine)} | "
                + " ".join(f"{c:.3f}" for c in cost)
                + f" | {mc:.3f} | "
                + " ".join(f"{b:.3f}" for b in between)
                + f" | {mb:.3f} | "
                + " ".join(f"{t:.3f}" for t in tokens)
                + f" | {mt:.3f} | "
                + (
                    " ".join("–" if r is None else f"{r:.2f}" for r in paired)
                    + (f" (median {np.median([r for r in paired if r is not None]):.2f})" if any(paired) else "")
                    if name.endswith(" on") or "+rank" in name
                    else ""
                )
                + f" | {goal} |"
            )
    return lines


def paired_ratio(unit: dict, name: str) -> float | None:
    """The interpolated cost to 95 % of ``name`` over that of the same strategy's ``off`` run, same seed."""
    off = name.rsplit(" ", 1)[0] + " off"
    mine, theirs = crossing(unit["runs"][name]), crossing(unit["runs"][off])
    return None if mine is None or theirs is None else mine / theirs


def report(units: list[dict], args, wall: float) -> list[str]:
    units = sorted(units, key=lambda u: (list(CORPORA).index(u["corpus"]), u["seed"]))
    params, features, views = LEARNERS[LEARNER]
    sizes = ", ".join(f"{c} {CORPORA[c][1]} → {CORPORA[c][2]}" for c in dict.fromkeys(u["corpus"] for u in units))
    return [
        "# String-match suggestions in review mode: cost to 95 % of full-data F1",
        "",
        f"Command: `nice -n 10 python benchmarks/string_match_review.py {' '.join(args.argv)}`",
        "",
        *machine_lines(", shared with other jobs: seconds are noisy"),
        f"- total wall time: {wall:.0f} s",
        "",
        f"Protocol: `tagtool.services.simulate` (the code of `tagtool simulate`). Learner `{LEARNER}` with the "
        f"settings of the efficiency benchmark: params {params} · features {features} · views {views}. Data: the "
        f"first {args.sentences:,} sentences of each training file ({sizes}). Costs: full label (a correction) 1, "
        "accepted suggestion 0.1. Steps start at "
        f"{args.step:g} and grow ×{args.growth:g}; at most {args.max_unlabeled} unlabeled sentences per step. "
        "Every run stops at 95 % of the full-data F1; the review runs get random+full's cost to 95 % as their "
        "budget ('> 1': not reached within it). `review off`: the model's suggestions only; `review on`: "
        "string-match suggestions from the labels given so far too (`--string-matches on`, the app's precedence "
        "rule, `tagtool.services.simulate.suggestions`); `on+rank`: also the queue's cost-aware score counting "
        "string-matched tokens as accepted, not corrected. Fractions are of random+full's cost to 95 % (review) and of "
        "the tokens random+full labeled by then (tokens: every token of the sentences shown). Goal on NER: review "
        f"≤ {GOAL['review']} and tokens ≤ {GOAL['tokens']}. Every run: [{Path(args.out).with_suffix('.json').name}]"
        f"({Path(args.out).with_suffix('.json').name}).",
        "",
        "## Summary (fractions of random+full; per seed, then the median)",
        "",
        "| corpus | setting | seeds | review cost per seed | median | interpolated, per seed | median | "
        "tokens per seed | median | interpolated cost over off's, per seed (paired) | NER goal met |",
        "|---|---|---:|---|---:|---|---:|---|---:|---|---|",
        *summary_rows(units),
        "",
        "## Every run",
        "",
        "| corpus | seed | full-data F1 | random+full cost to 95 % | setting | cost to 95 % | tokens by then | "
        "review fraction | interpolated | tokens fraction | accepted | string matches shown first (right) | "
        "wall s |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *[row for unit in units for row in unit_rows(unit)],
    ]


def main(argv=None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        args = parse_args(saved["args"])
        args.argv, args.out = saved["args"], str(out)
        write_keeping_analysis(out, report(saved["units"], args, saved.get("wall_seconds", 0.0)))
        return 0
    started = time.perf_counter()
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    units = [(c, s) for s in seeds for c in args.corpora.split(",") if c]  # every corpus of a seed first
    json_path = out.with_suffix(".json")
    done: list[dict] = []
    if args.resume and json_path.exists():
        done = json.loads(json_path.read_text(encoding="utf-8"))["units"]
        units = [u for u in units if not any((d["corpus"], d["seed"]) == u for d in done)]

    def save(unit: dict) -> None:
        done.append(unit)
        wall = time.perf_counter() - started
        json_path.write_text(json.dumps({"args": args.argv, "wall_seconds": wall, "units": done}, indent=1) + "\n")
        write_keeping_analysis(out, report(done, args, wall))

    if args.jobs <= 1:
        for c, s in units:
            save(run_unit(c, s, args))
    else:
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            for future in as_completed([pool.submit(run_unit, c, s, args) for c, s in units]):
                save(future.result())
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Annotation efficiency of the app's defaults on every corpus of the development suite.

Runs :func:`tagtool.services.simulate.loop.simulate` — the code behind ``tagtool simulate`` —
with the app's defaults (learner ``mv-perceptron`` and its default features, strategy ``gain``,
the simulator's default thresholds and queue rules) on five corpora:

* CoNLL-2002 Spanish NER (test ``esp.testb``), NCBI disease NER (test ``test.tsv``),
* CoNLL-2000 chunking (test ``test.txt``),
* UD English EWT part-of-speech (UPOS; FORM only, no other column), PTB sample part-of-speech
  (no test file: its sentences after the first 3,000).

Per corpus the pool is the first ``--sentences`` sentences of the training file, the test set the
first ``--test-sentences`` sentences of the test file.  Per (corpus, seed): the learner trained on the
whole pool, fully labeled (``full_data_f1``), then ``random+full`` until its curve reaches 95 % of that
F1 (budget: the whole pool), then ``gain+tokens`` and ``gain+review`` until 95 % with the cost
``random+full`` needed as their budget ("> 1": not reached within it).  Steps start at ``--step`` and
grow by ``--growth``; costs are the simulator's defaults (full label 1, candidate set 0.5, skipped or
accepted token 0.1).  ``--set KEY=VALUE`` (repeatable) changes a :class:`SimulationConfig` field of the
guided runs (JSON values), so variants are measured with the same script.

Writes the table (per corpus: full-data F1, random+full's cost, the ratio of each mode to it on every
seed, min / median / max, and the issue's targets) to ``--out`` (default
``benchmarks/results/annotation_efficiency.md``) and every curve beside it as ``tagtool simulate
--json`` records (same name, ``.json``).

Usage::

    nice -n 10 python benchmarks/annotation_efficiency.py [--corpora ...] [--seeds 0,1,2] [--jobs 2]
        [--sentences 2000] [--test-sentences 1000] [--set KEY=VALUE ...] [--out FILE.md]
    python benchmarks/annotation_efficiency.py --from-json FILE.json [--out FILE.md]   # the report only
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis

from tagtool.core import Corpus
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation, simulate
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parent / "results" / "annotation_efficiency.md"
#: key -> (name, training file, test file or None: the training file after PTB_TRAIN, read options, task)
CORPORA = {
    "conll2002-es": ("CoNLL-2002 Spanish NER", "conll2002-es/esp.train", "conll2002-es/esp.testb", {}, "ner"),
    "ncbi-disease": ("NCBI disease NER", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv", {}, "ner"),
    "conll2000": ("CoNLL-2000 chunking", "conll2000/train.txt", "conll2000/test.txt", {}, "chunk"),
    "ud-ewt-upos": (
        "UD English EWT UPOS",
        "ud-en-ewt/en_ewt-ud-train.conllu",
        "ud-en-ewt/en_ewt-ud-test.conllu",
        {"label_field": "upos"},
        "pos",
    ),
    "ptb-pos": ("PTB sample POS", "ptb-sample/wsj_sample.word_pos.txt", None, {}, "pos"),
}
PTB_TRAIN = 3000
LEARNER = "mv-perceptron"
STRATEGY = "gain"
MODES = ("tokens", "review")
#: The issue's targets: tokens at most this ratio by task; review at most 0.10 on NER; tokens not above
#: review by more than one step (the step growth).
TOKEN_TARGET = {"ner": 0.15, "chunk": 0.30, "pos": 0.30}
REVIEW_TARGET = {"ner": 0.10}


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default=",".join(CORPORA))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--test-sentences", type=int, default=1000)
    p.add_argument("--step", type=float, default=100.0)
    p.add_argument("--growth", type=float, default=1.25)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config field of guided runs")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--from-json", metavar="FILE")
    p.add_argument(
        "--random-from",
        metavar="FILE",
        help="take full-data F1 and random+full of each (corpus, seed) from an earlier run's .json (same pools, "
        "steps and learner: the guided settings do not change them)",
    )
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.overrides = dict(_setting(item) for item in args.set)
    return args


def _setting(item: str) -> tuple[str, object]:
    key, _, value = item.partition("=")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def load(key: str, n_sentences: int, n_test: int) -> tuple[Corpus, Corpus]:
    """The pool (first ``n_sentences`` training sentences) and the test corpus of ``key``."""
    _, train_name, test_name, options, task = CORPORA[key]
    train = read_corpus(DATA / train_name, **options)
    sentences = list(train.sentences)
    test = list(read_corpus(DATA / test_name, **options).sentences) if test_name else sentences[PTB_TRAIN:]
    if key == "ud-ewt-upos":  # FORM only: the XPOS column would give the answer away
        sentences, test = ([replace(s, columns={}) for s in part] for part in (sentences, test))
    pool = Corpus.from_sentences(sentences[:n_sentences], labels=train.labels)
    return pool, Corpus.from_sentences(test[:n_test], labels=train.labels)


def run_unit(key: str, seed: int, args, earlier: dict | None = None) -> dict:
    """random+full (or ``earlier``'s), then each mode of :data:`MODES` with ``gain``, on one corpus and seed."""
    data, test = load(key, args.sentences, args.test_sentences)
    base = dict(learner=LEARNER, step=args.step, growth=args.growth, seed=seed, until_95=True)
    if earlier is not None:
        records = {name: earlier[name] for name in ("corpus", "seed", "full_f1", "full_seconds", "random+full")}
        full_f1, random = records["full_f1"], records["random+full"]
    else:
        started = time.perf_counter()
        full_f1 = Simulation(SimulationConfig(**base, strategy="random"), data, test).full_data_f1()
        records = {"corpus": key, "seed": seed, "full_f1": full_f1, "full_seconds": time.perf_counter() - started}
        random = _timed(SimulationConfig(**base, strategy="random", mode="full", full_data_f1=full_f1), data, test)
        records["random+full"] = random
    budget = random["cost_to_95"] or random["curve"][-1]["cost"]
    for mode in MODES:
        config = SimulationConfig(
            **base, strategy=STRATEGY, mode=mode, full_data_f1=full_f1, budget=budget, **args.overrides
        )
        records[f"{STRATEGY}+{mode}"] = _timed(config, data, test)
    c = {name: records[name]["cost_to_95"] for name in ("random+full", *(f"{STRATEGY}+{m}" for m in MODES))}
    print(f"{key} seed {seed}: full F1 {full_f1:.4f}, cost_to_95 {c}", file=sys.stderr, flush=True)
    return records


def _timed(config: SimulationConfig, data: Corpus, test: Corpus) -> dict:
    started = time.perf_counter()
    record = simulate(config, data, test).to_dict()
    record["wall_seconds"] = time.perf_counter() - started
    return record


# -- report ------------------------------------------------------------------------------------------------


def ratio(record: dict, random: dict) -> float | None:
    """cost_to_95 over random+full's; None where the mode did not reach 95 % within random's cost."""
    if record["cost_to_95"] is None or random["cost_to_95"] is None:
        return None
    return record["cost_to_95"] / random["cost_to_95"]


def spread(values: list[float | None]) -> str:
    """``min / median / max``; a run that never reached 95 % counts as above every ratio ("> 1")."""
    ranked = sorted(values, key=lambda v: float("inf") if v is None else v)
    cell = lambda v: "> 1" if v is None else f"{v:.3f}"  # noqa: E731
    return " / ".join(cell(v) for v in (ranked[0], ranked[len(ranked) // 2], ranked[-1]))


def median(values: list[float | None]) -> float | None:
    ranked = sorted(values, key=lambda v: float("inf") if v is None else v)
    return ranked[len(ranked) // 2]


def verdicts(task: str, tokens: float | None, review: float | None, growth: float) -> str:
    """The issue's targets on the medians: tokens ≤ review × growth, tokens ≤ its task's target, review on NER."""
    out = []
    inf = float("inf")
    t, r = (inf if tokens is None else tokens), (inf if review is None else review)
    out.append(f"tokens ≤ review×{growth:g}: {'yes' if t <= r * growth else 'no'}")
    out.append(f"tokens ≤ {TOKEN_TARGET[task]:.2f}: {'yes' if t <= TOKEN_TARGET[task] else 'no'}")
    if task in REVIEW_TARGET:
        out.append(f"review ≤ {REVIEW_TARGET[task]:.2f}: {'yes' if r <= REVIEW_TARGET[task] else 'no'}")
    return "; ".join(out)


def report(units: list[dict], args, wall: float) -> list[str]:
    seeds = sorted({u["seed"] for u in units})
    cols = " | ".join(f"{m} seed {s}" for m in MODES for s in seeds)
    lines = [
        "# Annotation efficiency of the app's defaults on the development suite",
        "",
        f"Command: `python benchmarks/annotation_efficiency.py {' '.join(args.argv)}`  ",
        f"Total wall time: {wall:.0f} s ({args.jobs} at a time on shared cores: seconds are noisy)",
        "",
        *machine_lines(),
        "",
        f"Protocol: the module doc of `benchmarks/annotation_efficiency.py`. Learner `{LEARNER}` at its defaults, "
        f"strategy `{STRATEGY}`, pools of the first {args.sentences:,} training sentences, test: the first "
        f"{args.test_sentences:,} test sentences; steps {args.step:g} × {args.growth:g}; ratio = cost to 95 % "
        "of the full-pool F1 over `random+full`'s (same seed). Guided settings: "
        f"{args.overrides or 'the simulator defaults'}.",
        "",
        f"| corpus | full-pool F1 (min–max) | random+full cost_to_95 (median) | {cols} | "
        "tokens min / median / max | review min / median / max | targets (medians) |",
        "|---|---|---|" + "---|" * (len(MODES) * len(seeds)) + "---|---|---|",
    ]
    for key in CORPORA:
        mine = sorted((u for u in units if u["corpus"] == key), key=lambda u: u["seed"])
        if mine:
            lines.append(_row(key, mine, args.growth))
    return lines


def _row(key: str, units: list[dict], growth: float) -> str:
    name, *_, task = CORPORA[key]
    f1s = [u["full_f1"] for u in units]
    randoms = [u["random+full"]["cost_to_95"] or u["random+full"]["curve"][-1]["cost"] for u in units]
    ratios = {m: [ratio(u[f"{STRATEGY}+{m}"], u["random+full"]) for u in units] for m in MODES}
    cells = [("> 1" if v is None else f"{v:.3f}") for m in MODES for v in ratios[m]]
    medians = {m: median(ratios[m]) for m in MODES}
    return (
        f"| {name} | {100 * min(f1s):.1f}–{100 * max(f1s):.1f} | {statistics.median(randoms):,.0f} | "
        f"{' | '.join(cells)} | {spread(ratios['tokens'])} | {spread(ratios['review'])} | "
        f"{verdicts(task, medians['tokens'], medians['review'], growth)} |"
    )


def main(argv=None) -> None:
    args = parse_args(argv)
    out = Path(args.out)
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        args = parse_args(saved["command_args"])
        args.out = str(out)
        write_keeping_analysis(out, report(saved["units"], args, saved["wall_seconds"]))
        return
    started = time.perf_counter()
    keys = [k for k in args.corpora.split(",") if k]
    seeds = [int(s) for s in args.seeds.split(",") if s]
    earlier = {}
    if args.random_from:
        saved = json.loads(Path(args.random_from).read_text(encoding="utf-8"))
        earlier = {(u["corpus"], u["seed"]): u for u in saved["units"]}
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_unit, key, seed, args, earlier.get((key, seed))) for key in keys for seed in seeds]
        units = [f.result() for f in futures]
    wall = time.perf_counter() - started
    saved = {"command_args": args.argv, "wall_seconds": wall, "units": units}
    out.with_suffix(".json").write_text(json.dumps(saved, indent=1), encoding="utf-8")
    lines = report(units, args, wall)
    print("\n".join(lines))
    write_keeping_analysis(out, lines)


if __name__ == "__main__":
    main()

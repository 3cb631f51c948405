"""What a dictionary saves a person annotating NER in the app: simulated annotation with and without one.

The protocol of ``benchmarks/annotation_efficiency.py`` (the app's defaults: ``mv-perceptron``,
strategy ``gain``; pools of the first ``--sentences`` training sentences, the first
``--test-sentences`` test sentences, steps 100 × 1.25, seeds 0 / 1 / 2), run on the two NER corpora
with one dictionary per entity type — the spans labeled in the training file *after* the pool
(``benchmarks/dictionaries.py``'s ``dictionaries``: never the pool's own labels, never the test file)
— given to :func:`tagtool.services.simulate.loop.simulate` as ``tagtool simulate --gazetteer`` gives
it (the ``gaz`` sets added by :func:`tagtool.services.training_setup.with_gazetteers`).

The runs without a dictionary are read from ``benchmarks/results/annotation_efficiency.json`` (the
same protocol and seeds), so only the runs with one are trained here: the whole pool fully labeled
(its F1), ``random+full`` until 95 % of that, ``gain+review`` and ``gain+tokens`` until 95 % within
random's cost.  Reported per corpus and seed:

* full-pool F1 without and with the dictionary;
* each mode's cost to 95 % of its *own* full-pool F1 over its own ``random+full`` (the efficiency
  ratio of annotation_efficiency.md);
* the **saving at equal quality**: the cost with the dictionary to reach 95 % of the full-pool F1
  *without* one (the first curve point at or above it), over what ``gain+review`` without the
  dictionary paid for it — what the same person, in review mode, pays for the model they would have
  had without the dictionary.

Usage::

    nice -n 10 python benchmarks/dictionary_efficiency.py [--seeds 0,1,2] [--jobs 1]
    python benchmarks/dictionary_efficiency.py --from-json   # the report only
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis
from annotation_efficiency import CORPORA, DATA, LEARNER, MODES, STRATEGY, load, ratio
from dictionaries import dictionaries

from tagtool.learn import get_learner
from tagtool.services.dictionaries import gazetteers_of
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation, simulate
from tagtool.services.training_setup import with_gazetteers
from tagtool.store.formats import read_corpus

RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "dictionary_efficiency.md"
WITHOUT = RESULTS / "annotation_efficiency.json"
NER = ("conll2002-es", "ncbi-disease")


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", type=lambda s: [int(x) for x in s.split(",")])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--test-sentences", type=int, default=1000)
    parser.add_argument("--from-json", action="store_true", help="rewrite the report from the .json only")
    return parser.parse_args(argv)


def knowledge_of(key: str, pool_size: int) -> dict:
    """``{"gazetteers": ...}`` from the training file's spans after the pool (leak-free)."""
    train = list(read_corpus(DATA / CORPORA[key][1]).sentences)
    return {"gazetteers": gazetteers_of(dictionaries(train, set(range(pool_size))))}


def run_unit(key: str, seed: int, args) -> dict:
    """The runs with the dictionary on one corpus and seed (module doc)."""
    data, test = load(key, args.sentences, args.test_sentences)
    knowledge = knowledge_of(key, args.sentences)
    features = with_gazetteers(get_learner(LEARNER))
    base = dict(learner=LEARNER, step=100, growth=1.25, seed=seed, until_95=True, features=features)
    started = time.perf_counter()
    full_f1 = Simulation(SimulationConfig(**base, strategy="random"), data, test, knowledge=knowledge).full_data_f1()
    records: dict = {"corpus": key, "seed": seed, "full_f1": full_f1, "full_seconds": time.perf_counter() - started}
    random_config = SimulationConfig(**base, strategy="random", mode="full", full_data_f1=full_f1)
    records["random+full"] = simulate(random_config, data, test, knowledge=knowledge).to_dict()
    budget = records["random+full"]["cost_to_95"] or records["random+full"]["curve"][-1]["cost"]
    for mode in MODES:
        config = SimulationConfig(**base, strategy=STRATEGY, mode=mode, full_data_f1=full_f1, budget=budget)
        records[f"{STRATEGY}+{mode}"] = simulate(config, data, test, knowledge=knowledge).to_dict()
    print(f"{key} seed {seed}: full F1 {full_f1:.4f} with the dictionary", file=sys.stderr, flush=True)
    return records


# -- report ------------------------------------------------------------------------------------------------


def equal_quality_cost(record: dict, target: float) -> float | None:
    """The cost of the first curve point of ``record`` at or above F1 ``target`` (None: never)."""
    return next((p["cost"] for p in record["curve"] if p["f1"] >= target), None)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _median(values: list[float | None]) -> str:
    known = [v for v in values if v is not None]
    return _fmt(statistics.median(known)) if len(known) == len(values) and known else "–"


def unit_row(unit: dict, without: dict) -> tuple[str, dict]:
    """One table row (corpus, seed) and its numbers for the medians."""
    ratios = {m: ratio(unit[f"{STRATEGY}+{m}"], unit["random+full"]) for m in MODES}
    old = {m: ratio(without[f"{STRATEGY}+{m}"], without["random+full"]) for m in MODES}
    target = 95.0 * without["full_f1"]  # full_f1 is a fraction, the curve's F1 a percentage
    paid = without[f"{STRATEGY}+review"]["cost_to_95"]
    same = {m: equal_quality_cost(unit[f"{STRATEGY}+{m}"], target) for m in MODES}
    saving = {m: None if same[m] is None or not paid else same[m] / paid for m in MODES}
    cells = [
        unit["corpus"],
        str(unit["seed"]),
        f"{100 * without['full_f1']:.1f} → {100 * unit['full_f1']:.1f}",
        f"{_fmt(old['review'])} → {_fmt(ratios['review'])}",
        f"{_fmt(old['tokens'])} → {_fmt(ratios['tokens'])}",
        f"{_fmt(paid, 0)}",
        f"{_fmt(same['review'], 0)} ({_fmt(saving['review'], 2)})",
        f"{_fmt(same['tokens'], 0)} ({_fmt(saving['tokens'], 2)})",
    ]
    return "| " + " | ".join(cells) + " |", {"review": ratios["review"], "saving": saving["review"]}


def report(units: list[dict], without: dict, wall: float) -> list[str]:
    lines = ["# A dictionary in simulated NER annotation: what it saves at equal quality", ""]
    lines += ["Generated by `benchmarks/dictionary_efficiency.py` (its docstring gives the protocol).", ""]
    lines += machine_lines() + [f"- wall time of the runs with the dictionary: {wall:.0f} s", ""]
    lines += [
        "| corpus | seed | full-pool F1 without → with | gain+review / random+full, without → with "
        "| gain+tokens / random+full, without → with | gain+review without: cost to 95 % "
        "| with: review's cost to the same F1 (ratio) | with: tokens' cost to the same F1 (ratio) |",
        "|---|---:|---|---|---|---:|---|---|",
    ]
    medians: dict[str, dict[str, list]] = {}
    for unit in sorted(units, key=lambda u: (u["corpus"], u["seed"])):
        row, numbers = unit_row(unit, without[(unit["corpus"], unit["seed"])])
        lines.append(row)
        for name, value in numbers.items():
            medians.setdefault(unit["corpus"], {}).setdefault(name, []).append(value)
    lines += ["", "| corpus | median gain+review / random+full with the dictionary | median equal-quality ratio |"]
    lines += ["|---|---:|---:|"]
    for corpus, numbers in sorted(medians.items()):
        lines.append(f"| {corpus} | {_median(numbers['review'])} | {_median(numbers['saving'])} |")
    return lines


def read_without(seeds: list[int]) -> dict:
    """The runs without a dictionary, by (corpus, seed), from annotation_efficiency.json."""
    units = json.loads(WITHOUT.read_text())["units"]
    found = {(u["corpus"], u["seed"]): u for u in units if u["corpus"] in NER and u["seed"] in seeds}
    missing = [(c, s) for c in NER for s in seeds if (c, s) not in found]
    if missing:
        raise SystemExit(f"{WITHOUT}: no run without a dictionary for {missing}; run annotation_efficiency.py first")
    return found


def main(argv=None) -> None:
    args = parse_args(argv)
    without = read_without(args.seeds)
    store = OUT.with_suffix(".json")
    started = time.perf_counter()
    if args.from_json:
        saved = json.loads(store.read_text())
        units, wall = saved["units"], saved["wall_seconds"]
    else:
        jobs = [(key, seed) for key in NER for seed in args.seeds]
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            units = list(pool.map(run_unit, *zip(*jobs), [args] * len(jobs)))
        wall = time.perf_counter() - started
        store.write_text(json.dumps({"wall_seconds": wall, "units": units}))
    lines = report(units, without, wall)
    write_keeping_analysis(OUT, lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

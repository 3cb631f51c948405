"""Annotation efficiency: what guidance and partial labels save.

Runs :func:`tagtool.services.simulate.loop.simulate` — the code behind ``tagtool simulate`` —
for ``cosvm``, ``mv-perceptron``, ``entropy-crf`` and ``wdpsl`` on two tasks:

* **CoNLL-2002 Spanish NER**: data = the first ``--ner-sentences`` sentences
  of ``esp.train`` (0: all), test = ``esp.testb`` (the thresholds of
  ``tagtool simulate`` were chosen in runs scored on ``esp.testa``);
* **CoNLL-2000 chunking**: data = the first ``--chunk-sentences`` sentences of
  ``train.txt`` (0: all), test = ``test.txt``.

Features and views per learner: :data:`LEARNERS` (the sklearn-crfsuite
template, POS column included; the two-view learners stack it with the
default set, one view per set).

Per (task, learner), on the first of ``--seeds``: ``full_data_f1`` (the
learner trained on all of the data, fully labeled; computed once and passed
to every run), then ``random+full`` until its curve reaches 95 % of that F1
(``until_95``; budget: the whole data), then each guided setting of
:data:`GUIDED`, also until 95 %, with the cost ``random+full`` needed as its
budget: a guided setting that does not reach 95 % within it needs more than
random selection (ratio "> 1") and shows its F1 at that cost.  On every
other seed: ``full_data_f1``, ``random+full`` and the first seed's best
guided setting again — the setting is chosen on one seed and judged on the
others, and the verdict on the issue's goal is the median ratio.  Steps
start at ``--step`` cost units and grow by ``--growth``; costs are the
issue's (full label 1, candidate set 0.5, skipped token 0.1).  The
(task, learner) units run ``--jobs`` at a time in separate processes.

Writes the tables, with the command, date and machine, to ``--out``
(default ``benchmarks/results/annotation_efficiency_learners.md``), every curve as
``tagtool simulate --json`` records beside it (same name, ``.json``) and one
PNG of the first seed's curves per task (``<out name>_<task>.png``, a panel
per learner).

Usage::

    python benchmarks/annotation_efficiency_learners.py [--tasks ner,chunk] [--learners cosvm,...]
        [--ner-sentences 2000] [--chunk-sentences 2000] [--step 100] [--growth 1.25]
        [--seeds 0,1,2] [--jobs 2] [--max-unlabeled 100] [--out FILE.md]
    python benchmarks/annotation_efficiency_learners.py --from-json FILE.json [--out FILE.md]   # the report only
"""

from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _results import write_keeping_analysis

from tagtool.core import Corpus
from tagtool.services.simulate.config import Costs, SimulationConfig
from tagtool.services.simulate.loop import Simulation, simulate
from tagtool.services.simulate.plot import draw_curves
from tagtool.services.simulate.results import SimulationResult
from tagtool.store.formats import read_corpus

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).parent / "results"
OUT = RESULTS / "annotation_efficiency_learners.md"
GOAL = 0.20

TASKS = {
    "ner": ("CoNLL-2002 Spanish NER", "conll2002-es/esp.train", "conll2002-es/esp.testb"),
    "chunk": ("CoNLL-2000 chunking", "conll2000/train.txt", "conll2000/test.txt"),
}
CRFSUITE = {"feature_set": "crfsuite"}
STACKED = {"feature_set": "crfsuite+default"}
FEATURE_SETS = {"kind": "feature-sets"}
#: learner -> (params, features, views): the two-view learners as tuned in
#: benchmarks/paper_conll2002.py (the crfsuite template and the default set stacked, one view per
#: set; exact numba SMO for cosvm's sub-QPs, fewer epochs to keep ~20 retrainings affordable)
#: and, for wdpsl, C1 = 1000 (at the default 100 it underfits the ~20 template features a token has).
LEARNERS = {
    "cosvm": ({"qp_solver": "smo", "cu_max": 0.001, "max_iter": 5}, STACKED, FEATURE_SETS),
    "mv-perceptron": ({"c_u": 1.0}, STACKED, FEATURE_SETS),
    "entropy-crf": ({"max_iter": 50}, CRFSUITE, {}),
    "wdpsl": ({"c1": 1000.0}, CRFSUITE, {}),
}
#: Settings run after random+full, per learner: (strategy, mode).  ``combined`` is the app's question per
#: unit of cost; ``random+tokens`` (fast learners only) separates what the tokens mode saves from what
#: the order saves.
GUIDED = {
    "cosvm": [
        ("disagreement", "full"),
        ("combined", "full"),
        ("combined", "tokens"),
        ("combined", "partial"),
        ("combined", "review"),
    ],
    "mv-perceptron": [
        ("uncertainty", "full"),
        ("disagreement", "full"),
        ("combined", "full"),
        ("random", "tokens"),
        ("combined", "tokens"),
        ("combined", "partial"),
        ("random", "review"),
        ("combined", "review"),
    ],
    "entropy-crf": [
        ("uncertainty", "full"),
        ("random", "tokens"),
        ("combined", "tokens"),
        ("combined", "partial"),
        ("random", "review"),
        ("combined", "review"),
    ],
    "wdpsl": [
        ("uncertainty", "full"),
        ("confidence", "full"),
        ("combined", "tokens"),
        ("combined", "partial"),
        ("combined", "review"),
    ],
}
#: The issue's modes: its goal is judged on the best setting among these.  ``review`` (the app's
#: correct-the-suggestions workflow) is reported beside it.
ISSUE_MODES = ("full", "tokens", "partial")
REVIEW = ("combined", "review")


@dataclass
class Run:
    result: SimulationResult
    wall: float


@dataclass
class SeedCheck:
    """random+full and the first seed's best guided setting and combined+review, rerun with another seed."""

    seed: int
    full_f1: float
    random: Run
    runs: dict[str, Run]  # "strategy+mode" -> run


@dataclass
class LearnerRuns:
    """Everything one learner ran on one task: seed 0's settings, then the other seeds' checks."""

    full_f1: float
    full_seconds: float
    runs: list[Run]
    checks: list[SeedCheck]

    def best(self) -> SimulationResult | None:
        """The first seed's guided setting in an issue mode with the lowest cost_to_95 (None: none reached 95 %)."""
        reached = [r.result for r in self.runs[1:] if r.result.cost_to_95 is not None and r.result.mode in ISSUE_MODES]
        return min(reached, key=lambda r: r.cost_to_95) if reached else None

    def setting(self, name: str) -> SimulationResult | None:
        """The first seed's run of ``name`` ("strategy+mode")."""
        return next((r.result for r in self.runs if setting_name(r.result) == name), None)

    def reported(self) -> list[str]:
        """The settings the summary reports and the other seeds rerun: the best one, then combined+review."""
        best = self.best()
        names = [] if best is None else [setting_name(best)]
        review = "+".join(REVIEW)
        return names + ([review] if self.setting(review) is not None else [])


def setting_name(result: SimulationResult) -> str:
    return f"{result.strategy}+{result.mode}"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default="ner,chunk")
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--ner-sentences", type=int, default=2000, help="the first N sentences of esp.train (0: all)")
    p.add_argument("--chunk-sentences", type=int, default=2000, help="the first N sentences of train.txt (0: all)")
    p.add_argument(
        "--max-unlabeled", type=int, default=100, help="unlabeled sentences per step for the semi-supervised learners"
    )
    p.add_argument("--step", type=float, default=100.0)
    p.add_argument("--growth", type=float, default=1.25)
    p.add_argument(
        "--seeds",
        default="0,1,2",
        help="the first runs every setting; the others rerun random+full, its best guided setting and combined+review",
    )
    p.add_argument("--jobs", type=int, default=2, help="(task, learner) units run in parallel processes")
    p.add_argument("--out", default=str(OUT))
    p.add_argument(
        "--representations",
        action="store_true",
        help="add the dist feature set (word representations learned from the data's text)",
    )
    p.add_argument(
        "--representation-text",
        choices=("data", "train-file"),
        default="data",
        help="the text the representations are learned from: the simulated project's sentences, or "
        "the whole training file they are taken from (a user who adds the rest as raw text)",
    )
    p.add_argument(
        "--from-json",
        metavar="FILE",
        help="write the report again from a previous run's .json (its settings, no new runs)",
    )
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.date = datetime.datetime.now().isoformat(timespec="seconds")
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        out, source = args.out, args.from_json
        args = p.parse_args(saved["command_args"])
        args.argv, args.date, args.out, args.saved = saved["command_args"], saved["date"], out, saved
        args.from_json = source
    else:
        args.saved = None
    args.seed_list = [int(s) for s in args.seeds.split(",") if s.strip()]
    return args


def load(task: str, n_sentences: int) -> tuple[Corpus, Corpus]:
    _, data_path, test_path = TASKS[task]
    data = read_corpus(SHARED_DATA / data_path)
    test = read_corpus(SHARED_DATA / test_path)
    sentences = data.sentences[:n_sentences] if n_sentences > 0 else data.sentences
    pool = Corpus.from_sentences(sentences, labels=data.labels)
    _TRAIN_FILE_TEXT[id(pool)] = data.sentences
    return pool, test


#: The whole training file each simulated pool was cut from (``--representation-text train-file``).
_TRAIN_FILE_TEXT: dict[int, list] = {}

#: The text representations are learned from: ``"data"`` or ``"train-file"`` (set by :func:`main`).
_REPRESENTATION_TEXT = {"source": "data"}


#: Word representations per data corpus (``--representations``): learned once per process from the data's
#: text — the simulated project's — and shared by every run on it.
_REPRESENTATIONS: dict[int, object] = {}


def representations_for(data: Corpus, config: SimulationConfig):
    """The data's word representations when the features read them (learned on first use), else None."""
    if "dist" not in str(config.features.get("feature_set", "")).split("+"):
        return None
    if id(data) not in _REPRESENTATIONS:
        from tagtool.services.represent import learn_representations

        whole = _REPRESENTATION_TEXT["source"] == "train-file"
        _REPRESENTATIONS[id(data)] = learn_representations(_TRAIN_FILE_TEXT[id(data)] if whole else data.sentences)
    return _REPRESENTATIONS[id(data)]


def base_config(learner: str, seed: int, args) -> dict:
    params, features, views = LEARNERS[learner]
    if args.representations:
        features = {**features, "feature_set": features["feature_set"] + "+dist"}
    return dict(
        learner=learner,
        params=params,
        features=features,
        views=views,
        step=args.step,
        growth=args.growth,
        seed=seed,
        costs=Costs(),
        max_unlabeled=args.max_unlabeled,
        string_matches=False,  # review: the model's suggestions alone, as measured (string_match_review.py adds them)
    )


def full_data_f1(base: dict, data: Corpus, test: Corpus) -> tuple[float, float]:
    started = time.perf_counter()
    config = SimulationConfig(**base, strategy="random")
    f1 = Simulation(config, data, test, representations=representations_for(data, config)).full_data_f1()
    return f1, time.perf_counter() - started


def run_settings(base: dict, full_f1: float, settings, data: Corpus, test: Corpus, tag: str) -> list[Run]:
    """random+full until 95 %, then each (strategy, mode) of ``settings`` with its cost as the budget."""
    runs = [
        timed(
            SimulationConfig(**base, strategy="random", mode="full", full_data_f1=full_f1, until_95=True),
            data,
            test,
            tag,
        )
    ]
    budget = runs[0].result.cost_to_95 or runs[0].result.curve[-1].cost
    for strategy, mode in settings:
        runs.append(
            timed(
                SimulationConfig(
                    **base, strategy=strategy, mode=mode, full_data_f1=full_f1, budget=budget, until_95=True
                ),
                data,
                test,
                tag,
            )
        )
    return runs


def run_learner(task: str, learner: str, args) -> LearnerRuns:
    """One (task, learner) unit: seed 0's settings, then the checks on the other seeds."""
    sizes = {"ner": args.ner_sentences, "chunk": args.chunk_sentences}
    _REPRESENTATION_TEXT["source"] = args.representation_text  # this may be a worker process
    data, test = load(task, sizes[task])
    first, *others = args.seed_list
    base = base_config(learner, first, args)
    full_f1, full_seconds = full_data_f1(base, data, test)
    log(f"{task} {learner}: full-data F1 {full_f1:.4f} ({full_seconds:.0f} s)")
    out = LearnerRuns(
        full_f1,
        full_seconds,
        run_settings(base, full_f1, GUIDED[learner], data, test, f"{task} {learner} seed {first}"),
        [],
    )
    names = out.reported()
    for seed in others:
        base = base_config(learner, seed, args)
        f1, _ = full_data_f1(base, data, test)
        settings = [tuple(name.split("+")) for name in names]
        runs = run_settings(base, f1, settings, data, test, f"{task} {learner} seed {seed}")
        out.checks.append(SeedCheck(seed, f1, runs[0], dict(zip(names, runs[1:]))))
    return out


def timed(config: SimulationConfig, data: Corpus, test: Corpus, tag: str) -> Run:
    started = time.perf_counter()
    result = simulate(config, data, test, representations=representations_for(data, config))
    run = Run(result, time.perf_counter() - started)
    c95 = result.cost_to_95
    log(
        f"  {tag} {config.strategy}+{config.mode}: cost_to_95 {'-' if c95 is None else f'{c95:,.0f}'}, "
        f"F1 {result.final_f1:.4f} at {result.curve[-1].cost:,.0f} ({run.wall:.0f} s)"
    )
    return run


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# report


def ratio_cell(c95: float | None, random_c95: float | None, budget: float) -> tuple[str, float | None]:
    """The ratio's table cell and value (None: not a number)."""
    if random_c95 is None:
        # random+full never got there with the whole data: the ratio is below c95 / (whole data's cost)
        return ("–", None) if c95 is None else (f"< {c95 / budget:.2f}", None)
    if c95 is None:
        return "> 1", None
    ratio = c95 / random_c95
    return f"{ratio:.2f}", ratio


def table(rows: dict[str, LearnerRuns]) -> list[str]:
    lines = [
        "| learner | strategy + mode | cost_to_95 | ratio to random+full | F1 at the end (cost) | "
        "tokens labeled | candidate sets | suggestions accepted | steps | train s | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for learner, unit in rows.items():
        random_c95 = unit.runs[0].result.cost_to_95
        for run in unit.runs:
            r = run.result
            c95 = r.cost_to_95
            ratio, _ = ratio_cell(c95, random_c95, unit.runs[0].result.curve[-1].cost)
            last = r.curve[-1]
            lines.append(
                f"| {learner} | {r.strategy}+{r.mode} | {'never' if c95 is None else f'{c95:,.0f}'} | {ratio} | "
                f"{last.f1:.4f} ({last.cost:,.0f}) | {last.tokens_labeled:,} | "
                f"{last.candidate_sets:,} | {last.accepted:,} | "
                f"{len(r.curve)} | {sum(p.train_seconds for p in r.curve):.0f} | {run.wall:.0f} |"
            )
    return lines


def check_ratio(check: SeedCheck, name: str) -> tuple[str, float | None]:
    """The ratio cell of one seed check: setting ``name`` over random+full."""
    random = check.random.result
    run = check.runs.get(name)
    if run is None:
        return "–", None
    return ratio_cell(run.result.cost_to_95, random.cost_to_95, random.curve[-1].cost)


def summary(rows: dict[str, LearnerRuns], seeds: list[int]) -> list[str]:
    """Per learner: the first seed's best guided setting (issue modes) and combined+review, their ratio on
    every seed, the medians and the verdict.

    The best setting is chosen on the first seed and rerun on the others, so the other seeds' ratios are
    not flattered by the choice.
    """
    seed_cols = " | ".join(f"ratio seed {s}" for s in seeds)
    lines = [
        f"| learner | full-data F1 (train s) | random+full cost_to_95 | setting | its cost_to_95 | "
        f"{seed_cols} | median | median cost / median random+full cost | goal (≤ {GOAL:.2f}) |",
        "|---|---|---|---|---|" + "---|" * len(seeds) + "---|---|---|",
    ]
    for learner, unit in rows.items():
        random = unit.runs[0].result
        random_cell = "never" if random.cost_to_95 is None else f"{random.cost_to_95:,.0f}"
        head = f"| {learner} | {unit.full_f1:.4f} ({unit.full_seconds:.0f}) | {random_cell} |"
        if unit.best() is None:
            lines.append(
                f"{head} none in full/tokens/partial reached 95 % | – |" + " – |" * len(seeds) + " – | – | no |"
            )
        for name in unit.reported():
            result = unit.setting(name)
            cells = [ratio_cell(result.cost_to_95, random.cost_to_95, random.curve[-1].cost)]
            cells += [check_ratio(c, name) for c in unit.checks]
            values = [1.0 if v is None and cell.startswith(">") else v for cell, v in cells]
            known = [v for v in values if v is not None]
            median = float(np.median(known)) if len(known) == len(values) else None
            goal = "unknown" if median is None else ("yes" if median <= GOAL else "no")
            if result.mode not in ISSUE_MODES:
                goal += " (mode beyond the issue)"
            c95 = "never" if result.cost_to_95 is None else f"{result.cost_to_95:,.0f}"
            lines.append(
                f"{head} {name} | {c95} | "
                + " | ".join(cell for cell, _ in cells)
                + f" | {'–' if median is None else f'{median:.3f}'} | {median_cost_ratio(unit, name)} | {goal} |"
            )
    return lines


def median_cost_ratio(unit: LearnerRuns, name: str) -> str:
    """Median cost_to_95 of setting ``name`` over the median of random+full's, across seeds.

    Less at the mercy of one noisy random+full crossing than the per-seed ratios.
    """
    guided = [unit.setting(name).cost_to_95] + [
        c.runs[name].result.cost_to_95 if name in c.runs else None for c in unit.checks
    ]
    randoms = [unit.runs[0].result.cost_to_95] + [c.random.result.cost_to_95 for c in unit.checks]
    if None in guided or None in randoms:
        return "–"
    return f"{np.median(guided) / np.median(randoms):.3f}"


def seed_table(rows: dict[str, LearnerRuns]) -> list[str]:
    """The other seeds' runs (random+full and the first seed's reported settings)."""
    lines = [
        "| learner | seed | full-data F1 | random+full cost_to_95 | setting | its cost_to_95 | ratio |",
        "|---|---|---|---|---|---|---|",
    ]
    for learner, unit in rows.items():
        for check in unit.checks:
            random = check.random.result
            random_cell = "never" if random.cost_to_95 is None else f"{random.cost_to_95:,.0f}"
            for name, run in check.runs.items():
                c95 = run.result.cost_to_95
                lines.append(
                    f"| {learner} | {check.seed} | {check.full_f1:.4f} | {random_cell} | {name} | "
                    f"{'never' if c95 is None else f'{c95:,.0f}'} | {check_ratio(check, name)[0]} |"
                )
    return lines


def plot(task: str, rows: dict[str, LearnerRuns], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(rows)
    cols = 2 if n > 1 else 1
    fig = Figure(figsize=(6.2 * cols, 4.4 * ((n + cols - 1) // cols)), dpi=100)
    FigureCanvasAgg(fig)
    for k, (learner, unit) in enumerate(rows.items()):
        ax = fig.add_subplot((n + cols - 1) // cols, cols, k + 1)
        draw_curves(ax, [r.result for r in unit.runs], f"{TASKS[task][0]}: {learner} (full-data F1 {unit.full_f1:.3f})")
    fig.tight_layout()
    fig.savefig(path)
    log(f"written to {path}")


def run_record(run: Run, seed: int) -> dict:
    """A run as its ``tagtool simulate --json`` record, plus the seed and the wall seconds."""
    return dict(run.result.to_dict(), seed=seed, wall_seconds=run.wall)


def run_from_record(record: dict) -> Run:
    fields = {k: v for k, v in record.items() if k not in ("seed", "wall_seconds")}
    return Run(SimulationResult.from_dict(fields), record["wall_seconds"])


def results_json(results: dict[str, dict[str, LearnerRuns]], args, wall: float) -> dict:
    """Every run of the benchmark (``--from-json`` writes the report again from it)."""
    first = args.seed_list[0]
    out = {"command_args": args.argv, "wall_seconds": wall, "date": args.date, "jobs": args.jobs, "tasks": {}}
    for task, rows in results.items():
        out["tasks"][task] = {
            learner: {
                "full_data_f1": unit.full_f1,
                "full_seconds": unit.full_seconds,
                "runs": [run_record(r, first) for r in unit.runs],
                "checks": [
                    {
                        "seed": c.seed,
                        "full_data_f1": c.full_f1,
                        "random": run_record(c.random, c.seed),
                        "runs": {name: run_record(r, c.seed) for name, r in c.runs.items()},
                    }
                    for c in unit.checks
                ],
            }
            for learner, unit in rows.items()
        }
    return out


def results_from_json(data: dict) -> dict[str, dict[str, LearnerRuns]]:
    return {
        task: {
            learner: LearnerRuns(
                unit["full_data_f1"],
                unit["full_seconds"],
                [run_from_record(r) for r in unit["runs"]],
                [
                    SeedCheck(
                        c["seed"],
                        c["full_data_f1"],
                        run_from_record(c["random"]),
                        {name: run_from_record(r) for name, r in c["runs"].items()},
                    )
                    for c in unit["checks"]
                ],
            )
            for learner, unit in rows.items()
        }
        for task, rows in data["tasks"].items()
    }


def machine() -> str:
    return f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}"


def run_all(tasks: list[str], learners: list[str], args) -> dict[str, dict[str, LearnerRuns]]:
    """Every (task, learner) unit, ``args.jobs`` at a time in separate processes."""
    units = [(task, learner) for task in tasks for learner in learners]
    if args.jobs <= 1:
        done = {unit: run_learner(*unit, args) for unit in units}
    else:
        # forkserver: numba's threads and the parent's state stay out of the workers
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context) as pool:
            futures = {unit: pool.submit(run_learner, *unit, args) for unit in units}
            done = {unit: future.result() for unit, future in futures.items()}
    return {task: {learner: done[(task, learner)] for learner in learners} for task in tasks}


def task_section(task: str, rows: dict[str, LearnerRuns], args, png: Path) -> list[str]:
    sizes = {"ner": args.ner_sentences, "chunk": args.chunk_sentences}
    data, test = load(task, sizes[task])
    name, data_path, test_path = TASKS[task]
    first, *others = args.seed_list
    lines = [
        f"## {name}",
        "",
        f"Data: {'first' if sizes[task] > 0 else 'all'} {len(data):,} sentences of `{data_path}` "
        f"({data.n_tokens:,} tokens); test: `{test_path}` "
        f"({len(test):,} sentences). Plot (seed {first}): [{png.name}]({png.name}).",
        "",
        *summary(rows, args.seed_list),
        "",
        f"Seed {first}, every setting:",
        "",
        *table(rows),
        "",
    ]
    if others:
        plural = "s" if len(others) > 1 else ""
        lines += [
            f"Seed{plural} {', '.join(map(str, others))}: random+full, "
            f"seed {first}'s best guided setting and combined+review:",
            "",
            *seed_table(rows),
            "",
        ]
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    _REPRESENTATION_TEXT["source"] = args.representation_text
    started = time.perf_counter()
    tasks = [t for t in args.tasks.split(",") if t]
    learners = [name for name in args.learners.split(",") if name]
    if args.saved is None:
        results = run_all(tasks, learners, args)
        wall = time.perf_counter() - started
    else:
        results, wall = results_from_json(args.saved), args.saved["wall_seconds"]
    sections = []
    out = Path(args.out)
    for task, rows in results.items():
        png = out.parent / f"{out.stem}_{task}.png"
        plot(task, rows, png)
        sections += task_section(task, rows, args, png)
    json_path = out.with_suffix(".json")
    if args.saved is None or Path(args.from_json).resolve() != json_path.resolve():
        json_path.write_text(json.dumps(results_json(results, args, wall), indent=1) + "\n", encoding="utf-8")
        log(f"written to {json_path}")
    command = "python benchmarks/annotation_efficiency_learners.py " + " ".join(args.argv)
    text = (
        "the whole training file's text (the data + the rest of the file as raw text)"
        if args.representation_text == "train-file"
        else "the data's text"
    )
    dist = f" + the `dist` set (word representations learned from {text})" if args.representations else ""
    settings = [
        f"- `{name}`: params {p} · features {f}{dist} · views {v or 'none (one view)'}"
        for name, (p, f, v) in LEARNERS.items()
        if name in learners
    ]
    first, *others = args.seed_list
    lines = [
        "# Annotation efficiency: simulated annotator, guidance and partial labels",
        "",
        f"Command: `{command.strip()}`  ",
        f"Date: {args.date}  ",
        f"Machine: {machine()}, {args.jobs} units at a time (shared with other jobs: seconds are noisy)  ",
        f"Total wall time: {wall:.0f} s",
        "",
        f"Protocol: `tagtool.services.simulate` (the code of `tagtool simulate`). Costs: full label 1, "
        "candidate set 0.5, skipped (read, left unlabeled) token 0.1. Steps start at "
        f"{args.step:g} and grow ×{args.growth:g}; the first step labels whole random sentences. "
        "`cost_to_95` = cost of the first curve point with F1 ≥ 0.95 × full-data F1 (the learner trained on all "
        "of the data, fully labeled). Every run stops there; the guided settings get random+full's cost_to_95 as "
        'their budget ("> 1": not reached within it; "F1 at the end" is then the F1 at that cost). '
        f"Seed {first} runs every setting; "
        + (
            f"seed{'s' if len(others) > 1 else ''} {', '.join(map(str, others))} "
            f"rerun{'' if len(others) > 1 else 's'} random+full, "
            f"seed {first}'s best guided setting and combined+review (the seed "
            "moves the random order, the first step, the unlabeled sample and the learner's own seed). "
            if others
            else ""
        )
        + "Goal of the issue: "
        f"the best guided setting in the issue's modes (full, tokens, partial) at ≤ {GOAL:.2f} × random+full's "
        "cost_to_95 (judged on the median over seeds); `review` (the app's workflow: correct the wrong "
        "suggestions at `full`, accept the rest with Enter at `skip` each) is a mode beyond the issue, "
        "shown beside it. "
        "Thresholds: the defaults of "
        "`tagtool simulate` (ask a token at uncertainty ≥ 0.7 for margin-based learners, ≥ 0.3 for CRFs; "
        "candidate set where the gold/strongest-wrong pair uncertainty ≥ 0.9); at most "
        f"{args.max_unlabeled} unlabeled sentences per step for the semi-supervised learners. "
        f"Every run: [{json_path.name}]({json_path.name}) (`tagtool simulate --json` records with the seed and "
        "wall seconds; `--from-json` writes this report again from it).",
        "",
        "Learner settings:",
        "",
        *settings,
        "",
        *sections,
    ]
    write_keeping_analysis(out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

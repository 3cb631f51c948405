"""WD-PSL protocol of Lu & Chow (§V, Table II): learning from candidate label sets.

Runs ``wdpsl`` and, for comparison, ``crf`` (partial-label marginal
likelihood) and ``perceptron`` (latent targets: the best path inside the
allowed sets) through :func:`tagtool.services.experiment.runner.run_experiment` — the code
behind ``tagtool experiment`` — on the paper's partial-label protocol:
a share P = 0.5 of the training tokens keeps its gold label, every other
token gets K = 3 candidates (gold plus two others drawn uniformly).

Tasks (one repeat each, seed 0, every learner with its class defaults):

``conll2000``
    Chunking.  Training = the first 1,500 sentences of CoNLL-2000
    ``train.txt`` (no length filter: ``--pool 1500 --min-length 1``),
    scored on ``test.txt``; F1 = chunk F1 (conlleval rules).  Paper 75.26.
``ptb``
    POS tagging on the NLTK Penn Treebank sample (3,914 sentences):
    800 training sentences drawn at random, the other 3,114 held out;
    "F1" = token accuracy (POS tags are not spans).  Paper 72.05.

The equivalent command lines are printed into the result file.  Writes
``benchmarks/results/wdpsl.md`` (command, date, machine, table with the
paper's numbers beside ours, training seconds).

Usage::

    python benchmarks/paper_wdpsl.py [--tasks conll2000,ptb] [--learners wdpsl,crf,perceptron]
        [--seed 0] [--set KEY=VALUE ...] [--out benchmarks/results/wdpsl.md]

``--set`` passes parameters to ``wdpsl`` only (e.g. ``--set qp_solver=cvxopt``).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from pathlib import Path

from _results import write_keeping_analysis

from tagtool.learn import available_learners
from tagtool.services.experiment.config import ExperimentConfig
from tagtool.services.experiment.runner import run_experiment
from tagtool.store.formats import read_corpus

OUT = Path(__file__).parent / "results" / "wdpsl.md"
SHARE, CANDIDATES = 0.5, 3

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

#: task -> (data, test or None, labeled, pool, holdout, metric name)
TASKS = {
    "conll2000": (
        str(SHARED_DATA / "conll2000/train.txt"),
        str(SHARED_DATA / "conll2000/test.txt"),
        1500,
        1500,
        0,
        "chunk F1 on test.txt",
    ),
    "ptb": (
        str(SHARED_DATA / "ptb-sample/wsj_sample.word_pos.txt"),
        None,
        800,
        3914,
        3114,
        "token accuracy on the 3,114 held-out sentences",
    ),
}
#: Lu & Chow, Table II (mean ± std over 3 × 5-fold CV; P = 0.5, K = 3): task -> method -> F1 %.
PAPER = {
    "conll2000": {"WD-PSL": 75.26, "CLPL": 72.55, "PL-SVM": 72.21},
    "ptb": {"WD-PSL": 72.05, "CLPL": 67.68, "PL-SVM": 65.25},
}
LEARNERS = ("wdpsl", "crf", "perceptron")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", default=",".join(TASKS))
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="wdpsl parameter (repeatable); values are Python literals or strings",
    )
    p.add_argument("--out", default=str(OUT))
    return p.parse_args(argv)


def parse_sets(items: list[str]) -> dict:
    import ast

    out = {}
    for item in items:
        key, _, value = item.partition("=")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


def config_for(task: str, learner: str, params: dict, seed: int) -> ExperimentConfig:
    _, _, labeled, pool, holdout, _ = TASKS[task]
    return ExperimentConfig(
        learner=learner,
        params=dict(params),
        labeled=(labeled,),
        unlabeled=(0,),
        holdout=holdout,
        repeats=1,
        min_length=1,
        max_length=10**6,
        pool=pool,
        partial_share=SHARE,
        candidates=CANDIDATES,
        seed=seed,
    )


def cli_command(task: str, learner: str, params: dict, seed: int) -> str:
    data, test, labeled, pool, holdout, _ = TASKS[task]
    parts = [f"tagtool experiment --learner {learner} --data {data}"]
    parts.append(f"--test {test}" if test else f"--holdout {holdout}")
    parts.append(
        f"--labeled {labeled} --unlabeled 0 --repeats 1 --pool {pool} --min-length 1 "
        f"--max-length 1000000 --partial-share {SHARE} --candidates {CANDIDATES} --seed {seed}"
    )
    parts += [f"--set {k}={v}" for k, v in params.items()]
    return " ".join(parts)


def run_one(task: str, learner: str, params: dict, seed: int, corpora: dict) -> dict:
    data, test = corpora[task]
    started = time.perf_counter()
    result = run_experiment(config_for(task, learner, params, seed), data, test)
    setting = result.settings[0].to_dict()
    return {
        "f1": setting["f1_mean"],
        "error": setting["token_error_mean"],
        "train_s": setting["train_seconds_mean"],
        "wall_s": time.perf_counter() - started,
    }


def machine() -> str:
    return f"{platform.node()} · {platform.machine()} · {os.cpu_count()} cores · Python {platform.python_version()}"


def table(rows: dict, tasks: list[str]) -> str:
    head = "| method | " + " | ".join(f"{t}: F1 % | error % | train s" for t in tasks) + " |"
    lines = [head, "|---|" + "---|---|---|" * len(tasks)]
    for learner, per_task in rows.items():
        cells = []
        for t in tasks:
            r = per_task.get(t)
            cells.append(f"{r['f1']:.2f} | {r['error']:.2f} | {r['train_s']:.1f}" if r else "– | – | –")
        lines.append(f"| {learner} (ours) | " + " | ".join(cells) + " |")
    for method in PAPER["conll2000"]:
        lines.append(f"| paper {method} | " + " | ".join(f"{PAPER[t][method]:.2f} | – | –" for t in tasks) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    args = parse_args(argv)
    tasks = [t for t in args.tasks.split(",") if t]
    learners = [n for n in args.learners.split(",") if n in available_learners()]
    wdpsl_params = parse_sets(args.set)
    corpora = {}
    for t in tasks:
        data, test = TASKS[t][0], TASKS[t][1]
        corpora[t] = (read_corpus(data), read_corpus(test) if test else None)
    rows: dict[str, dict] = {n: {} for n in learners}
    commands = []
    for t in tasks:
        for name in learners:
            params = wdpsl_params if name == "wdpsl" else {}
            print(f"running {name} on {t} ...", file=sys.stderr, flush=True)
            rows[name][t] = run_one(t, name, params, args.seed, corpora)
            commands.append(cli_command(t, name, params, args.seed))
            print(f"  {name} {t}: {rows[name][t]}", file=sys.stderr, flush=True)
    text = table(rows, tasks)
    print(text)
    command = "python benchmarks/paper_wdpsl.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = [
        "# WD-PSL protocol (Lu & Chow, Table II): learning from candidate label sets",
        "",
        f"Command: `{command.strip()}`  ",
        f"Date: {datetime.datetime.now().isoformat(timespec='seconds')}  ",
        f"Machine: {machine()} (shared with other jobs: seconds are noisy)  ",
        f"Protocol: P = {SHARE} of the training tokens keep gold, the others get K = {CANDIDATES} candidates "
        f"(gold + 2 random), one repeat, seed {args.seed}, every learner with its class defaults"
        + (f" (wdpsl with {wdpsl_params})" if wdpsl_params else "")
        + ". "
        + "; ".join(f"{t}: {TASKS[t][2]} training sentences, {TASKS[t][5]}" for t in tasks)
        + ". "
        "train s = learner training seconds (features and scoring excluded). The paper's figures are "
        "means of 3 × 5-fold cross-validation on its own splits, ours one run on the split above.",
        "",
        text,
        "",
        "Equivalent command lines (the same code path, `tagtool.services.experiment`):",
        "",
    ]
    lines += [f"- `{c}`" for c in commands]
    write_keeping_analysis(Path(args.out), lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

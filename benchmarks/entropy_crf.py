"""Entropy-regularised CRF (Jiao et al. 2006) against the supervised CRF.

100 labeled sentences and 1×, 2×, 5× as many unlabeled ones (Jiao et al. 2006's ratios), and
5 labeled with 100 unlabeled (the start of an annotation project), on
CoNLL-2000 chunking (pool: the first 3,000 sentences of train.txt, scored on
test.txt) and CoNLL-2002 Spanish NER (pool: the first 3,100 sentences of
10–40 tokens of esp.train, scored on esp.testa), through
:func:`tagtool.services.experiment.runner.run_experiment` — the code behind
``tagtool experiment``.  Both learners see the same draws (they depend on
the seed, L and the repeat only); ``crf`` cannot use unlabeled sentences, so
its row is the supervised baseline.  Features: the sklearn-crfsuite
template; c2 = 0.1 for both (better than 1 at 100 labeled sentences).
``entropy-crf`` runs twice: with its default ``balance`` (at most as many
unlabeled tokens count as there are labeled ones) and with ``balance=None``
(the paper's fixed γ).

Usage: python benchmarks/entropy_crf.py [--repeats 3] [--gamma 0.1] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from pathlib import Path

from _results import write_keeping_analysis

from tagtool.services.experiment.config import ExperimentConfig
from tagtool.services.experiment.runner import run_experiment
from tagtool.store.formats import read_corpus

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).parent / "results" / "entropy_crf.md"
#: (labeled, unlabeled) sentence pairs.
SIZES = ((100, 100), (100, 200), (100, 500), (5, 100))
TASKS = {
    "conll2000": ("conll2000/train.txt", "conll2000/test.txt", 3000, 1, 1_000_000),
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testa", 3100, 10, 40),
}


def summary_row(task: str, row: str, s: dict) -> str:
    """One Markdown row of a setting's summary: sizes, token error, span F1, training seconds."""
    return (
        f"| {task} | {row} | {s['labeled']} | {s['unlabeled']} | "
        f"{s['token_error_mean']:.2f} ± {s['token_error_se']:.2f} "
        f"| {s['f1_mean']:.2f} ± {s['f1_se']:.2f} | {s['train_seconds_mean']:.1f} |"
    )


def run_task(task: str, learner: str, params: dict, repeats: int, seed: int) -> list[dict]:
    data_name, test_name, pool, min_length, max_length = TASKS[task]
    data, test = read_corpus(SHARED_DATA / data_name), read_corpus(SHARED_DATA / test_name)
    config = ExperimentConfig(
        learner=learner,
        params=params,
        features={"feature_set": "crfsuite"},
        labeled=tuple(n for n, _ in SIZES),
        unlabeled=tuple(u for _, u in SIZES),
        holdout=0,
        repeats=repeats,
        min_length=min_length,
        max_length=max_length,
        pool=pool,
        seed=seed,
    )
    return [s.to_dict() for s in run_experiment(config, data, test).settings]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--gamma", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    rows = ["| task | learner | L | U | token error % | F1 % | train s |", "|---|---|---|---|---|---|---|"]
    runs = (
        ("crf", "crf", {"c2": 0.1}),
        ("entropy-crf", "entropy-crf", {"c2": 0.1, "gamma": args.gamma}),
        ("entropy-crf, balance=None", "entropy-crf", {"c2": 0.1, "gamma": args.gamma, "balance": None}),
    )
    for task in TASKS:
        for row, learner, params in runs:
            for s in run_task(task, learner, params, args.repeats, args.seed):
                rows.append(summary_row(task, row, s))
                print(rows[-1], flush=True)
    header = (
        "# entropy-crf vs crf: 100 labeled sentences with 1×/2×/5× unlabeled, and 5 with 100\n\n"
        f"Command: `python benchmarks/entropy_crf.py --repeats {args.repeats} --gamma {args.gamma}`\n\n"
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
        f"{platform.platform()}, {os.cpu_count()} cores (shared: seconds are noisy)\n"
        f"- {args.repeats} repeats, seed {args.seed}; mean ± standard error; F1 = span F1 (conlleval rules); "
        "crf ignores the unlabeled sentences (its rows are the supervised baseline on the same draws).\n\n"
    )
    write_keeping_analysis(args.out, [header + "\n".join(rows)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Expectation regularisation of label proportions on the entropy-regularised CRF.

``crf`` against ``entropy-crf`` without (``er_weight=0``) and with the
expectation regularisation of Mann & McCallum (2007, ICML; ``er_weight``,
:mod:`tagtool.learn.crf_expreg`; by default 10 per labeled sentence), on the
corpora of the development suite (``--tasks``; each pool: the first 3,100
sentences of 10–40 tokens of the training file, scored on its test file; the
PTB sample, which has none, is split as the robustness benchmark splits it),
with L labeled sentences (``--labeled``) and U unlabeled ones, through
:func:`tagtool.services.experiment.runner.run_experiment` (the code of
``tagtool experiment``).  All three see the same draws (they depend on the
seed, L and the repeat only: paired).  Every learner has its default
settings and features, except ``c2`` when ``--c2`` is positive; ``--scale``
sets ``er_weight = scale × L`` (the labeled likelihood grows with L, the KL
does not); the target is the default (the smoothed proportions of the
labeled tokens).

Usage: python benchmarks/entropy_er.py [--repeats 3] [--unlabeled 200] [--scale 10] [--tasks ...] [--labeled 20,100]
    [--c2 0.1] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import functools
import os
import platform
import sys
from pathlib import Path

from _results import write_keeping_analysis
from entropy_crf import summary_row

from tagtool.core.corpus import Corpus
from tagtool.services.experiment.config import ExperimentConfig
from tagtool.services.experiment.runner import run_experiment
from tagtool.store.formats import read_corpus

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).parent / "results" / "entropy_er.md"
#: task -> (training file, test file or None: the PTB sample has none, its sentences after the first PTB_TRAIN are)
TASKS = {
    "ncbi-disease": ("ncbi-disease/train.tsv", "ncbi-disease/devel.tsv"),
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testa"),
    "conll2000": ("conll2000/train.txt", "conll2000/test.txt"),
    "ptb-pos": ("ptb-sample/wsj_sample.word_pos.txt", None),
    "ud-ewt-upos": ("ud-en-ewt/en_ewt-ud-train.conllu", "ud-en-ewt/en_ewt-ud-dev.conllu"),
}
PTB_TRAIN = 3000


@functools.cache
def corpora(task: str):
    """The task's training and test corpus, read once for all its runs."""
    data_name, test_name = TASKS[task]
    data = read_corpus(SHARED_DATA / data_name)
    if test_name is not None:
        return data, read_corpus(SHARED_DATA / test_name)
    sentences = data.sentences
    return (
        Corpus.from_sentences(sentences[:PTB_TRAIN], data.labels),
        Corpus.from_sentences(sentences[PTB_TRAIN:], data.labels),
    )


def run_task(task: str, learner: str, params: dict, labeled: int, args) -> dict:
    data, test = corpora(task)
    config = ExperimentConfig(
        learner=learner,
        params=params,
        labeled=(labeled,),
        unlabeled=(args.unlabeled,),
        holdout=0,
        repeats=args.repeats,
        min_length=10,
        max_length=40,
        pool=3100,
        seed=args.seed,
    )
    return run_experiment(config, data, test).settings[0].to_dict()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--unlabeled", type=int, default=200)
    parser.add_argument("--scale", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--tasks", default="ncbi-disease,conll2002-es", help=f"comma-separated, of {', '.join(TASKS)}")
    parser.add_argument("--labeled", default="20,100", help="comma-separated L")
    parser.add_argument("--c2", type=float, default=0.1, help="c2 of every run; 0 or less: each learner's default")
    args = parser.parse_args(argv)
    rows = ["| task | learner | L | U | token error % | F1 % | train s |", "|---|---|---|---|---|---|---|"]
    base = {"c2": args.c2} if args.c2 > 0 else {}
    for task in args.tasks.split(","):
        for labeled in (int(n) for n in args.labeled.split(",")):
            scaled = {} if args.scale == 10.0 else {"er_weight": args.scale * labeled}
            runs = (
                ("crf", "crf", base),
                ("entropy-crf, er_weight=0", "entropy-crf", {**base, "er_weight": 0.0}),
                (f"entropy-crf, er_weight={args.scale * labeled:g}", "entropy-crf", {**base, **scaled}),
            )
            for row, learner, params in runs:
                s = run_task(task, learner, params, labeled, args)
                rows.append(summary_row(task, row, s))
                print(rows[-1], flush=True)
    header = (
        "# entropy-crf with expectation regularisation of label proportions\n\n"
        f"Command: `python benchmarks/entropy_er.py --repeats {args.repeats} --unlabeled {args.unlabeled} "
        f"--scale {args.scale:g} --tasks {args.tasks} --labeled {args.labeled} --c2 {args.c2:g}`\n\n"
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; "
        f"{platform.platform()}, {os.cpu_count()} cores (shared: seconds are noisy)\n"
        f"- {args.repeats} paired repeats, seed {args.seed}; mean ± standard error; F1 = span F1 (conlleval rules); "
        "crf ignores the unlabeled sentences; entropy-crf at its defaults (balance 0.1, guard on; "
        "er_weight = 10 × L, the default, unless --scale says otherwise), and with the term off (er_weight=0)"
        + (f"; c2 = {args.c2:g} for all" if base else "; every learner at its default c2")
        + ".\n\n"
    )
    write_keeping_analysis(args.out, [header + "\n".join(rows)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

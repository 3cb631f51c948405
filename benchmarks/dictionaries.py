"""Entity F1 with and without a dictionary's ``gaz`` features, at L labeled sentences.

For each NER corpus of the development suite (CoNLL-2002 Spanish, NCBI
disease) and L = 20 / 100 / 500, L training sentences are drawn at random
per seed (the same draw for every variant: paired differences), plus a pool
of ``--unlabeled`` other training sentences as unlabeled text (what a
project holds besides its labeled sentences).  The learner (the default
``mv-perceptron``, and ``crf`` with one thread) is trained at its defaults
three ways:

``none``
    its default features;
``dict-rest``
    plus ``gaz`` from a dictionary per entity type of every labeled span of
    the *training split* outside the L labeled sentences (a dictionary
    brought from elsewhere: leak-free, as the test file is never read, and
    not built from the sentences it is trained on);
``dict-all``
    plus ``gaz`` from every span of the training split, the L labeled
    sentences included (the dictionary covers every training entity, so the
    learner sees it be right more often than it is on new text).

Scored on the test file (entity F1, conlleval rules via
:func:`tagtool.core.metrics.evaluate`), mean ± standard error over the seeds
and the paired difference to ``none``.  Finished cells are kept in
``results/dictionaries.json``; a rerun skips them.  Writes
``benchmarks/results/dictionaries.md``.  Run (niced)::

    nice -n 10 python benchmarks/dictionaries.py [--seeds 0,1,2] [--learners mv-perceptron,crf]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
from _results import machine_lines, write_keeping_analysis

from tagtool.core.metrics import evaluate
from tagtool.learn import make_learner
from tagtool.services.dictionaries import Dictionary, gazetteers_of
from tagtool.services.pipeline import train_tagger
from tagtool.services.string_matches import labeled_spans
from tagtool.services.training_setup import with_gazetteers
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).resolve().parent / "results"
OUT = RESULTS / "dictionaries.md"
CELLS = RESULTS / "dictionaries.json"
CORPORA = {
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testb"),
    "ncbi-disease": ("ncbi-disease/train.tsv", "ncbi-disease/test.tsv"),
}
LABELED = (20, 100, 500)
VARIANTS = ("none", "dict-rest", "dict-all")


def dictionaries(train: list, exclude: set[int]) -> list[Dictionary]:
    """One dictionary per type of the spans labeled in the training sentences not in ``exclude``."""
    entries: dict[str, dict[tuple[str, ...], None]] = defaultdict(dict)
    for i, sentence in enumerate(train):
        if i not in exclude:
            for kind, start, end in labeled_spans(sentence):
                entries[kind].setdefault(tuple(sentence.tokens[start:end]), None)
    return [Dictionary(kind, tuple(found), f"train-{kind}") for kind, found in sorted(entries.items())]


def draw(n: int, seed: int, size: int, pool: int) -> tuple[list[int], list[int]]:
    """The labeled indices (a prefix of one permutation per seed: L = 20 ⊂ 100 ⊂ 500) and the unlabeled pool."""
    order = np.random.default_rng(seed).permutation(n).tolist()
    return order[:size], order[max(LABELED) : max(LABELED) + pool]


def cell(train, test, gold, learner: str, size: int, seed: int, variant: str, pool: int) -> dict:
    labeled_ids, pool_ids = draw(len(train), seed, size, pool)
    labeled = [train[i] for i in labeled_ids]
    unlabeled = [train[i] for i in pool_ids]
    model = make_learner(learner, **({"n_jobs": 1} if learner == "crf" else {}))
    gazetteers, features = None, None
    if variant != "none":
        gazetteers = gazetteers_of(dictionaries(train, set(labeled_ids) if variant == "dict-rest" else set()))
        features = with_gazetteers(model)
    tic = time.perf_counter()
    tagger = train_tagger(labeled, model, features=features, unlabeled=unlabeled, gazetteers=gazetteers, seed=seed)
    seconds = time.perf_counter() - tic
    pred = tagger.tag(test)
    f1 = 100 * evaluate(gold, pred, tagger.labels.union(read_labels(gold))).f1
    return {"f1": round(f1, 3), "train_s": round(seconds, 2), "n_features": int(tagger.model.n_features)}


def read_labels(gold):
    from tagtool.core.labels import LabelSet

    return LabelSet(sorted({y for s in gold for y in s}))


def mean_se(values: list[float]) -> str:
    a = np.asarray(values, dtype=float)
    se = a.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else float("nan")
    return f"{a.mean():.1f} ± {se:.1f}"


def table(cells: dict, corpora, learners, seeds) -> list[str]:
    lines = [
        "| corpus | learner | L | none | dict-rest | Δ rest | dict-all | Δ all | s/training (none, rest) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for corpus in corpora:
        for learner in learners:
            for size in LABELED:
                got = {v: [cells.get(f"{corpus}|{learner}|{size}|{s}|{v}") for s in seeds] for v in VARIANTS}
                if any(c is None for c in got["none"]):
                    continue
                row = [corpus, learner, str(size), mean_se([c["f1"] for c in got["none"]])]
                for v in VARIANTS[1:]:
                    if any(c is None for c in got[v]):
                        row += ["", ""]
                        continue
                    row.append(mean_se([c["f1"] for c in got[v]]))
                    row.append(mean_se([c["f1"] - n["f1"] for c, n in zip(got[v], got["none"])]))
                times = [np.mean([c["train_s"] for c in got[v] if c]) for v in VARIANTS[:2] if all(got[v])]
                row.append(", ".join(f"{t:.1f}" for t in times))
                lines.append("| " + " | ".join(row) + " |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--learners", default="mv-perceptron,crf")
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--sizes", default=",".join(map(str, LABELED)))
    parser.add_argument("--unlabeled", type=int, default=500, help="unlabeled training sentences in the project")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="run these (none first)")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    learners, corpora = args.learners.split(","), args.corpora.split(",")
    sizes = [int(s) for s in args.sizes.split(",")]
    cells = json.loads(CELLS.read_text()) if CELLS.exists() else {}
    for corpus in [] if args.report_only else corpora:
        train_path, test_path = CORPORA[corpus]
        train = list(read_corpus(SHARED / train_path).sentences)
        test = list(read_corpus(SHARED / test_path).sentences)
        gold = [[next(iter(a)) for a in s.annotations] for s in test]
        for size in sizes:
            for learner in learners:
                for seed in seeds:
                    for variant in args.variants.split(","):
                        key = f"{corpus}|{learner}|{size}|{seed}|{variant}"
                        if key in cells:
                            continue
                        cells[key] = cell(train, test, gold, learner, size, seed, variant, args.unlabeled)
                        print(key, cells[key], file=sys.stderr, flush=True)
                        tmp = CELLS.with_suffix(".tmp")
                        tmp.write_text(json.dumps(cells, indent=0, sort_keys=True))
                        os.replace(tmp, CELLS)
    lines = table(cells, corpora, learners, seeds)
    print("\n".join(lines))
    intro = [
        "# Dictionary features (`gaz`): entity F1 with and without",
        "",
        "Generated by `benchmarks/dictionaries.py` (its docstring says how the dictionaries are built: "
        "`dict-rest` from the spans of the training split outside the L labeled sentences, `dict-all` from "
        "every span of the training split). Learners at their defaults, trained on L labeled sentences plus "
        f"{args.unlabeled} unlabeled training sentences; entity F1 on the test file, mean ± standard error "
        f"over {len(seeds)} seeds; Δ: paired difference to `none`.",
        "",
        *machine_lines(),
        "",
    ]
    write_keeping_analysis(OUT, intro + lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

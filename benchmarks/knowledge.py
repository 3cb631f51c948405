"""Knowledge from outside the project, on every corpus of the suite: what each source buys each learner.

Per corpus, learner, L (labeled sentences; ``full``: the whole training
file) and seed, the learner trains at its defaults on the L sentences plus
``--unlabeled`` other training sentences as unlabeled text (one draw per
seed, the same for every condition: paired differences), under six
conditions:

``none``
    the learner's default features;
``project``
    plus the word representations (``dist`` sets, by the app's rule) learned
    from the text of the L + U sentences only — what a new project's own text
    gives;
``text``
    plus ``dist`` learned from the whole training file's text and, for the
    English corpora, the 4.1 M words of ``raw-en`` (``train --text``; never
    a test file's text); the Spanish corpus has no raw text of its language
    here, so its ``text`` is the training file's text alone;
``vectors``
    plus the default rule's ``vec`` sets — ``vec`` alone for span labels, for
    which the rule adds none — from a fastText ``.bin`` read as a
    user's file: trained on ``raw-en`` for the English corpora
    (benchmarks/_vector_files.py), on the Spanish training file's text for
    CoNLL-2002 (cached in benchmarks/.cache);
``dictionary``
    plus ``gaz`` from one dictionary per type of the spans labeled in the
    training file outside the L labeled sentences (benchmarks/dictionaries.py,
    ``dict-rest``: leak-free, the test file is never read); chunking and NER
    only — part-of-speech tags are not spans — and not on the full file,
    where no span is outside the labeled sentences (``all`` there is text and
    vectors);
``all``
    ``text`` + ``vectors`` + ``dictionary``.

One more condition is run only when named (``--conditions text-both``) and
reported in a table of its own: ``text-both``, ``text`` with a second copy
of the ``dist`` sets for a two-view learner on two template sets, so that
both views read them (as a dictionary's ``gaz`` is given to both) — a
candidate rule, measured against ``text``.

Scores: entity F1 (chunks, NER) or token accuracy (POS) on the first 1,000
sentences of the test file (the PTB sample has none: its sentences after
the first 3,000).  Cells are cached in benchmarks/.cache/knowledge_cells.json;
a rerun skips them (runs on other learners or corpora may share the file), ``--report-only``
rewrites benchmarks/results/knowledge.md.

    nice -n 10 python benchmarks/knowledge.py [--corpora ...] [--learners mv-perceptron,crf]
        [--sizes 20,100,500] [--seeds 0,1,2,3,4] [--conditions ...] [--report-only]
"""

from __future__ import annotations

import argparse
import fcntl
import functools
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis
from _vector_files import CACHE, DATA, raw_sentences, vector_files
from dictionaries import dictionaries

from tagtool.core.features.wordreps import WordRepresentations
from tagtool.core.metrics import evaluate
from tagtool.learn import make_learner
from tagtool.services.dictionaries import gazetteers_of
from tagtool.services.pipeline import train_tagger
from tagtool.services.represent import learn_representations
from tagtool.services.training_setup import (
    representation_sets,
    template_set_count,
    with_gazetteers,
    with_representations,
    with_vectors,
)
from tagtool.services.user_vectors import load_user_vectors, vector_sets
from tagtool.store.formats import read_corpus

OUT = Path(__file__).resolve().parent / "results" / "knowledge.md"
CELLS = CACHE / "knowledge_cells.json"
#: key -> (train file, test file or None: split the training file, read options, score, English, spans)
CORPORA = {
    "conll2000": ("conll2000/train.txt", "conll2000/test.txt", {}, "f1", True, True),
    "conll2002-es": ("conll2002-es/esp.train", "conll2002-es/esp.testa", {}, "f1", False, True),
    "ncbi-disease": ("ncbi-disease/train.tsv", "ncbi-disease/test.tsv", {}, "f1", True, True),
    "ud-ewt-upos": (
        "ud-en-ewt/en_ewt-ud-train.conllu",
        "ud-en-ewt/en_ewt-ud-test.conllu",
        {"label_field": "upos"},
        "token_accuracy",
        True,
        False,
    ),
    "ptb-pos": ("ptb-sample/wsj_sample.word_pos.txt", None, {}, "token_accuracy", True, False),
}
CONDITIONS = ("none", "project", "text", "vectors", "dictionary", "all")
#: Conditions run only when named, each reported against ``text`` and ``none``.
EXTRA_CONDITIONS = ("text-both",)
PTB_TRAIN = 3000
TEST_SENTENCES = 1000


@functools.cache
def corpus(key: str) -> tuple[list, list]:
    """Training and test sentences (UD: FORM only, no feature columns)."""
    train_name, test_name, options, *_ = CORPORA[key]
    train = list(read_corpus(DATA / train_name, **options).sentences)
    test = list(read_corpus(DATA / test_name, **options).sentences) if test_name else train[PTB_TRAIN:]
    train = train[:PTB_TRAIN] if test_name is None else train
    if key == "ud-ewt-upos":
        train, test = ([replace(s, columns={}) for s in part] for part in (train, test))
    return train, test[:TEST_SENTENCES]


@functools.cache
def text_representations(key: str):
    """``dist`` from the whole training file's text (and raw-en for the English corpora), cached as ``.npz``."""
    path = CACHE / f"knowledge_text_{key}.npz"
    if path.exists():
        return WordRepresentations.from_bytes(path.read_bytes())
    train, _ = corpus(key)
    text = [s.tokens for s in train] + (raw_sentences() if CORPORA[key][4] else [])
    reps = learn_representations(text)
    path.write_bytes(reps.to_bytes())
    return reps


@functools.cache
def user_vectors(key: str):
    """The vectors file of the corpus's language, read as a user's file, for the training file's words."""
    train, _ = corpus(key)
    path = vector_files()["bin"] if CORPORA[key][4] else spanish_vectors(train)
    return load_user_vectors(path, [t for s in train for t in s.tokens])


def spanish_vectors(train: list) -> Path:
    path = CACHE / "conll2002-es-train-ft100.bin"
    if not path.exists():
        from gensim.models import FastText
        from gensim.models.fasttext import save_facebook_model

        CACHE.mkdir(exist_ok=True)
        model = FastText([s.tokens for s in train], vector_size=100, min_count=2, epochs=10, workers=2, seed=1)
        save_facebook_model(model, str(path))
    return path


def draw(n: int, seed: int, size: int | None, pool: int) -> tuple[list[int], list[int]]:
    """Labeled indices (a prefix of one permutation per seed) and the unlabeled ones; ``None``: all labeled."""
    if size is None:
        return list(range(n)), []
    order = np.random.default_rng(seed).permutation(n).tolist()
    return order[:size], order[size : size + pool]


def cell(key: str, learner: str, size: int | None, seed: int, condition: str, pool: int) -> dict:
    train, test = corpus(key)
    labeled_ids, pool_ids = draw(len(train), seed, size, pool)
    labeled = [train[i] for i in labeled_ids]
    unlabeled = [train[i].unlabeled() for i in pool_ids]
    model = make_learner(learner, **({"n_jobs": 1} if learner == "crf" else {}))
    features, data = None, {}
    if condition == "project":
        features = with_representations(model, None, labeled)
        data["representations"] = learn_representations([s.tokens for s in labeled + unlabeled])
    if condition in ("text", "all", "text-both"):
        features = with_representations(model, features, labeled)
        data["representations"] = text_representations(key)
    if condition == "text-both" and model.two_view and template_set_count(features["feature_set"].split("+")) == 2:
        features = {**features, "feature_set": "+".join([features["feature_set"], *representation_sets(labeled)])}
    if condition in ("vectors", "all"):
        features = with_vectors(model, features, labeled)
        if not vector_sets(labeled):  # span labels: the default rule adds none; measure the clusters anyway
            features = {**features, "feature_set": features["feature_set"] + "+vec"}
        data["vectors"] = user_vectors(key)
    if condition in ("dictionary", "all") and CORPORA[key][5] and size is not None:
        features = with_gazetteers(model, features)
        data["gazetteers"] = gazetteers_of(dictionaries(train, set(labeled_ids)))
    tic = time.perf_counter()
    tagger = train_tagger(labeled, model, features=features, unlabeled=unlabeled, seed=seed, **data)
    seconds = time.perf_counter() - tic
    gold = [[next(iter(a)) for a in s.annotations] for s in test]
    scores = evaluate(gold, tagger.tag(test), tagger.labels)
    return {"score": round(100 * float(getattr(scores, CORPORA[key][3])), 3), "seconds": round(seconds, 2)}


def _mean_se(values: list[float], signed: bool = False) -> str:
    if not values:
        return "–"
    sign = "+" if signed else ""
    if len(values) == 1:
        return f"{values[0]:{sign}.1f}"
    return f"{np.mean(values):{sign}.1f} ± {np.std(values, ddof=1) / np.sqrt(len(values)):.1f}"


def report(cells: dict, corpora: list[str], learners: list[str], sizes: list[str], seeds: list[int]) -> list[str]:
    """Mean ± SE of ``none`` and the paired difference of every other condition to it."""
    head = "| corpus | learner | L | none | " + " | ".join(f"{c} − none" for c in CONDITIONS[1:]) + " | n |"
    rows = [head, "|---|---|---|" + "---:|" * len(CONDITIONS) + "---:|"]
    for key in corpora:
        for learner in learners:
            for size in sizes:
                got = {c: [cells.get(f"{key}|{learner}|{size}|{s}|{c}") for s in seeds] for c in CONDITIONS}
                base = {s: c for s, c in zip(seeds, got["none"]) if c is not None}
                if not base:
                    continue
                row = [key, learner, size, _mean_se([c["score"] for c in base.values()])]
                for condition in CONDITIONS[1:]:
                    pairs = [c["score"] - base[s]["score"] for s, c in zip(seeds, got[condition]) if c and s in base]
                    row.append(_mean_se(pairs, signed=True))
                rows.append("| " + " | ".join(row) + f" | {len(base)} |")
    return rows


def extra_report(cells: dict, corpora: list[str], learners: list[str], sizes: list[str], seeds: list[int]) -> list[str]:
    """Each extra condition's paired difference to ``none`` and to ``text``, where it was run."""
    head = "| corpus | learner | L | condition | text − none | condition − none | condition − text | n |"
    rows = []
    for condition in EXTRA_CONDITIONS:
        for key in corpora:
            for learner in learners:
                for size in sizes:
                    got = {
                        c: [cells.get(f"{key}|{learner}|{size}|{s}|{c}") for s in seeds]
                        for c in ("none", "text", condition)
                    }
                    triples = [(n, t, x) for n, t, x in zip(*got.values()) if n and t and x]
                    if not triples:
                        continue
                    diffs = [
                        [t["score"] - n["score"] for n, t, _ in triples],
                        [x["score"] - n["score"] for n, _, x in triples],
                        [x["score"] - t["score"] for _, t, x in triples],
                    ]
                    cells_ = [_mean_se(d, signed=True) for d in diffs]
                    rows.append(
                        f"| {key} | {learner} | {size} | {condition} | " + " | ".join(cells_) + f" | {len(triples)} |"
                    )
    if not rows:
        return []
    return [
        "",
        "Conditions run only when named (module doc), paired with `none` and `text`:",
        "",
        head,
        "|---|---|---|---|---:|---:|---:|---:|",
        *rows,
    ]


def run(args, cells: dict) -> None:
    for key in args.corpora:
        for size in args.sizes:
            for learner in args.learners:
                for seed in args.seeds if size != "full" else args.seeds[:1]:
                    for condition in args.conditions:
                        name = f"{key}|{learner}|{size}|{seed}|{condition}"
                        no_spans = not CORPORA[key][5] or size == "full"  # a dictionary of the rest: none
                        if name in cells or (condition == "dictionary" and no_spans):
                            continue
                        n = None if size == "full" else int(size)
                        cells[name] = cell(key, learner, n, seed, condition, args.unlabeled)
                        print(name, cells[name], file=sys.stderr, flush=True)
                        cells.update(save_cell(name, cells[name]))


def save_cell(name: str, value: dict) -> dict:
    """Add one cell to the cache file under a lock (several runs may share it); returns every cell on disk."""
    with open(CELLS.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        cells = json.loads(CELLS.read_text()) if CELLS.exists() else {}
        cells[name] = value
        tmp = CELLS.with_suffix(".tmp")
        tmp.write_text(json.dumps(cells, indent=0, sort_keys=True))
        os.replace(tmp, CELLS)
    return cells


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default=",".join(CORPORA))
    parser.add_argument("--learners", default="mv-perceptron,crf")
    parser.add_argument("--sizes", default="20,100,500")
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--conditions", default=",".join(CONDITIONS))
    parser.add_argument("--unlabeled", type=int, default=500)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    args.corpora, args.learners = args.corpora.split(","), args.learners.split(",")
    args.sizes, args.conditions = args.sizes.split(","), args.conditions.split(",")
    args.seeds = [int(s) for s in args.seeds.split(",")]
    CACHE.mkdir(exist_ok=True)
    cells = json.loads(CELLS.read_text()) if CELLS.exists() else {}
    if not args.report_only:
        run(args, cells)
    sizes = ["20", "100", "500", "full"]
    rows = report(cells, list(CORPORA), args.learners, sizes, args.seeds)
    rows += extra_report(cells, list(CORPORA), args.learners, sizes, args.seeds)
    print("\n".join(rows))
    intro = [
        "# Knowledge from outside the project: what each source buys",
        "",
        "Generated by `benchmarks/knowledge.py` (its docstring defines the conditions: `project` = `dist` from "
        "the L + U sentences' text, `text` = `dist` from the training file's text plus raw-en for English, "
        "`vectors` = `vec` from a fastText file, `dictionary` = `gaz` from the training split's spans outside "
        "the L sentences, `all` = text + vectors + dictionary). Learners at their defaults, L labeled plus "
        f"{args.unlabeled} unlabeled training sentences; entity F1 (chunks, NER) or token accuracy (POS) on the "
        "first 1,000 test sentences; `none`: mean ± standard error over the seeds, the rest: paired differences. "
        "L = `full`: the whole training file labeled, one run (seed 0), no dictionary (no span lies outside it).",
        "",
        *machine_lines(),
        "",
    ]
    write_keeping_analysis(OUT, [*intro, *rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())

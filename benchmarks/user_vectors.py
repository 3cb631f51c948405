"""Word vectors a user brings: do the ``vec`` sets pay, which of them, and what unseen words get.

The vectors are fastText (Bojanowski et al. 2017) trained with gensim on the
raw English text only (benchmarks/_vector_files.py: ../shared/data/raw-en,
never a test file's text), saved as ``.bin`` and ``.vec`` and read as a
user's files are (:func:`tagtool.services.user_vectors.load_user_vectors`),
keeping the words of the whole training file (the project's text).

Per corpus, learner and L (labeled sentences drawn per seed, the same draw
for every variant: paired differences, standard errors over the seeds), the
learner trains on the L sentences plus the next 200 of the draw as unlabeled
text, with its default features (``none``) and with ``+vec`` and
``+vec+vec-dims`` from the ``.bin`` (unseen words composed from n-grams)
and, at L = 100, ``+vec+vec-dims`` from the ``.vec`` (no subwords: unseen
words get no feature).  Scores: entity F1 (chunks, NER) or token accuracy
(POS) on the first 1,000 sentences of the test file.  The coverage table counts the test tokens each file gives a
vector (own / composed from n-grams / none).  Cells are cached in
``benchmarks/.cache`` (JSON); a rerun skips them.

    python benchmarks/user_vectors.py [--learners mv-perceptron,crf] [--corpora chunk,ncbi,ud]
        [--seeds 0,1,2] [--report-only]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis
from _vector_files import CACHE, DATA, vector_files

from tagtool.core.metrics import evaluate
from tagtool.learn import get_learner
from tagtool.services.pipeline import train_tagger
from tagtool.services.training_setup import feature_settings
from tagtool.services.user_vectors import load_user_vectors
from tagtool.store.formats import read_corpus

OUT = Path(__file__).resolve().parent / "results" / "user_vectors.md"
#: key -> (name, train file, test file, read options, score)
CORPORA = {
    "chunk": ("CoNLL-2000 chunking (with its POS column)", "conll2000/train.txt", "conll2000/test.txt", {}, "f1"),
    "ncbi": ("NCBI disease NER", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv", {}, "f1"),
    "ud": (
        "UD EWT upos (FORM only)",
        "ud-en-ewt/en_ewt-ud-train.conllu",
        "ud-en-ewt/en_ewt-ud-test.conllu",
        {"label_field": "upos"},
        "token_accuracy",
    ),
}
LABELED = (20, 100, 500)
UNLABELED = 200
#: Test sentences scored (the first of the test file).
TEST_SENTENCES = 1000
#: variant -> (vectors file kind or None, sets added)
VARIANTS = {
    "none": (None, ()),
    "vec": ("bin", ("vec",)),
    "vec+dims": ("bin", ("vec", "vec-dims")),
    "vec+dims (.vec)": ("vec", ("vec", "vec-dims")),
}


def load(key: str) -> tuple[list, list]:
    _, train, test, options, _ = CORPORA[key]
    form_only = key == "ud"
    read = [list(read_corpus(DATA / p, **options).sentences) for p in (train, test)]
    if form_only:
        read = [[replace(s, columns={}) for s in part] for part in read]
    return read[0], read[1][:TEST_SENTENCES]


def cells_path(learner: str) -> Path:
    return CACHE / f"user_vectors_cells_{learner}.json"


def read_cells(learner: str) -> dict:
    path = cells_path(learner)
    return json.loads(path.read_text()) if path.exists() else {}


def write_cells(learner: str, cells: dict) -> None:
    tmp = cells_path(learner).with_suffix(".tmp")
    tmp.write_text(json.dumps(cells, indent=0, sort_keys=True))
    os.replace(tmp, cells_path(learner))


def coverage(vectors, test: list) -> dict:
    """Test tokens with the file's own vector, one composed from n-grams, or none."""
    own = composed = none = 0
    for sentence in test:
        for token in sentence.tokens:
            if vectors.word_index(token) is not None:
                own += 1
            elif vectors.subword_vector(token) is not None:
                composed += 1
            else:
                none += 1
    return {"own": own, "composed": composed, "none": none}


def run_corpus(key: str, learners: list[str], seeds: list[int], files: dict) -> None:
    train, test = load(key)
    gold = [[next(iter(a)) for a in s.annotations] for s in test]
    vocabulary = [t for s in train for t in s.tokens]
    vectors = {}
    for kind, path in files.items():
        tic = time.perf_counter()
        vectors[kind] = load_user_vectors(path, vocabulary)
        print(f"{key}: {vectors[kind]!r} in {time.perf_counter() - tic:.0f} s", file=sys.stderr)
    for learner in learners:
        cells = read_cells(learner)
        cells.setdefault(f"coverage/{key}", {kind: coverage(v, test) for kind, v in vectors.items()})
        for seed in seeds:
            for size in LABELED:
                order = np.random.default_rng(seed).permutation(len(train))
                labeled = [train[i] for i in order[:size]]
                unlabeled = [train[i].unlabeled() for i in order[size : size + UNLABELED]]
                for variant, (kind, sets) in VARIANTS.items():
                    cell = f"{key}/{size}/{seed}/{variant}"
                    if cell in cells or (kind == "vec" and size != 100):  # the .vec: at L = 100 only
                        continue
                    features = feature_settings(get_learner(learner))
                    base = features.get("feature_set", "default")
                    features["feature_set"] = "+".join([base, *sets])
                    tic = time.perf_counter()
                    tagger = train_tagger(
                        labeled, learner, features=features, unlabeled=unlabeled, seed=seed,
                        vectors=vectors[kind] if kind else None,
                    )  # fmt: skip
                    scores = evaluate(gold, tagger.tag(test), tagger.labels)
                    score = getattr(scores, CORPORA[key][4])
                    cells[cell] = {"score": 100 * float(score), "seconds": time.perf_counter() - tic}
                    write_cells(learner, cells)
                    print(f"{learner} {cell}: {100 * score:.2f} ({time.perf_counter() - tic:.0f} s)", file=sys.stderr)


def _mean_se(values: list[float]) -> str:
    if not values:
        return "–"
    if len(values) == 1:
        return f"{values[0]:+.2f}"
    return f"{np.mean(values):+.2f} ± {np.std(values, ddof=1) / np.sqrt(len(values)):.2f}"


def report(learners: list[str], corpora: list[str], seeds: list[int]) -> list[str]:
    rows = [
        "| corpus | learner | L | none | vec − none | vec+dims − none | vec+dims (.vec) − none | n |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    coverage_rows = ["| corpus | file | own vector | composed from n-grams | none |", "|---|---|---:|---:|---:|"]
    for learner in learners:
        cells = read_cells(learner)
        for key in corpora:
            for size in LABELED:
                base = {s: cells.get(f"{key}/{size}/{s}/none", {}).get("score") for s in seeds}
                diffs, n = [], 0
                for variant in list(VARIANTS)[1:]:
                    got = [
                        cells[f"{key}/{size}/{s}/{variant}"]["score"] - base[s]
                        for s in seeds
                        if base[s] is not None and f"{key}/{size}/{s}/{variant}" in cells
                    ]
                    n = max(n, len(got))
                    diffs.append(_mean_se(got))
                known = [v for v in base.values() if v is not None]
                mean = f"{np.mean(known):.2f}" if known else "–"
                rows.append(f"| {key} | {learner} | {size} | {mean} | {' | '.join(diffs)} | {n} |")
    seen = read_cells(learners[0]) if learners else {}
    for key in corpora:
        for kind, c in seen.get(f"coverage/{key}", {}).items():
            total = sum(c.values()) or 1
            coverage_rows.append(
                f"| {key} | .{kind} | {100 * c['own'] / total:.1f} % | {100 * c['composed'] / total:.1f} % | "
                f"{100 * c['none'] / total:.1f} % |"
            )
    return rows + ["", "Test tokens with a vector:", "", *coverage_rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--learners", default="mv-perceptron,crf")
    parser.add_argument("--corpora", default="chunk,ncbi,ud")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args()
    learners, corpora = args.learners.split(","), args.corpora.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    files = vector_files()
    if not args.report_only:
        for key in corpora:
            run_corpus(key, learners, seeds, files)
    rows = report(learners, corpora, seeds)
    lines = [
        "# Word vectors a user brings",
        "",
        "`python benchmarks/user_vectors.py` (tagtool.services.user_vectors). fastText vectors (dim 100, "
        "3 epochs, min_count 3, n-grams 3–6) trained with gensim on raw-en only (benchmarks/_vector_files.py), "
        "read as a user's .bin and .vec, keeping the training file's words. Each learner at its default "
        f"features, trained on L labeled sentences plus {UNLABELED} unlabeled ones of the training file "
        "(the same draw per seed for every variant); differences to `none` paired by seed, mean ± standard "
        f"error. Scores on the first {TEST_SENTENCES:,} test sentences: entity F1 (chunk, ncbi), token "
        "accuracy (ud).",
        "",
        *machine_lines(),
        "",
        *rows,
    ]
    print("\n".join(rows))
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    main()

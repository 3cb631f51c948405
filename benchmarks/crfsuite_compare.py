"""tagtool against CRFsuite on CoNLL-2000 chunking, same feature template, one run.

Trains on ../shared/data/conll2000/train.txt and scores test.txt with the
sklearn-crfsuite tutorial template (``FeatureExtractor("crfsuite",
min_count=1)`` on our side, the tutorial's ``word2features`` dicts on
CRFsuite's side):

* CRFsuite L-BFGS (100 iterations, c1 = c2 = 0.1 as in the tutorial) vs our ``crf``;
* CRFsuite averaged perceptron (10 epochs) vs our averaged ``perceptron``;
* tagging file to file (read, featurise, decode, write CoNLL) in tokens/s.

Needs python-crfsuite (``pip install -e ".[bench]"``).  Prints a table and
writes it to benchmarks/results/crfsuite.md.  Timings on a shared machine are
noisy: compare the ratios, which come from one run.

``--tagging-only`` trains just the two CRFs and reruns the tagging row
(median of ``--tag-runs`` runs, the two taggers alternating), replacing that
row of the existing result file and keeping the rest.

Usage: python benchmarks/crfsuite_compare.py [--data DIR] [--out FILE] [--tagging-only] [--tag-runs N]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pycrfsuite

from tagtool.cli.main import main as tagtool_main
from tagtool.core.features import FeatureExtractor
from tagtool.core.metrics import evaluate
from tagtool.learn import make_learner
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus

ROOT = Path(__file__).resolve().parent.parent
#: The POS column as a column file names it unnamed (taggers refuse input lacking a column they read,
#: and ``tagtool tag`` reads the file with these names).
POS = "col1"
TAGGING_ROW = "tagging test.txt file to file (CRF model)"


def word2features(sent, i):
    """The sklearn-crfsuite tutorial template, verbatim apart from names."""
    word, postag = sent[i]
    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
        "postag": postag,
        "postag[:2]": postag[:2],
    }
    if i > 0:
        word1, postag1 = sent[i - 1]
        features.update(
            {
                "-1:word.lower()": word1.lower(),
                "-1:word.istitle()": word1.istitle(),
                "-1:word.isupper()": word1.isupper(),
                "-1:postag": postag1,
                "-1:postag[:2]": postag1[:2],
            }
        )
    else:
        features["BOS"] = True
    if i < len(sent) - 1:
        word1, postag1 = sent[i + 1]
        features.update(
            {
                "+1:word.lower()": word1.lower(),
                "+1:word.istitle()": word1.istitle(),
                "+1:word.isupper()": word1.isupper(),
                "+1:postag": postag1,
                "+1:postag[:2]": postag1[:2],
            }
        )
    else:
        features["EOS"] = True
    return features


def read_conll_pairs(path: Path):
    """(word, pos) lists and gold chunk lists, read the way the tutorial does."""
    sents, labels, words, tags = [], [], [], []
    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            if words:
                sents.append(words)
                labels.append(tags)
                words, tags = [], []
            continue
        w, p, c = line.split()
        words.append((w, p))
        tags.append(c)
    return sents, labels


def crfsuite_train(sents, labels, algorithm: str, params: dict, model_path: str) -> float:
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    for s, y in zip(sents, labels):
        trainer.append([word2features(s, i) for i in range(len(s))], y)
    trainer.set_params(params)
    started = time.perf_counter()
    trainer.train(model_path)
    return time.perf_counter() - started


def crfsuite_tag_file(model_path: str, source: Path, target: Path) -> float:
    started = time.perf_counter()
    tagger = pycrfsuite.Tagger()
    tagger.open(model_path)
    sents, _ = read_conll_pairs(source)
    with open(target, "w", encoding="utf-8") as out:
        for s in sents:
            pred = tagger.tag([word2features(s, i) for i in range(len(s))])
            out.write("".join(f"{w} {p} {y}\n" for (w, p), y in zip(s, pred)) + "\n")
    return time.perf_counter() - started


def ours_train(train_corpus, learner: str, params: dict):
    fx = FeatureExtractor("crfsuite", min_count=1, pos_column=POS)
    started = time.perf_counter()
    tagger = train_tagger(train_corpus, make_learner(learner, **params), features=fx)
    return tagger, time.perf_counter() - started


def ours_tag_file(model_path: Path, source: Path, target: Path) -> float:
    started = time.perf_counter()
    code = tagtool_main(["tag", str(model_path), str(source), "-o", str(target), "--format", "conll"])
    assert code == 0
    return time.perf_counter() - started


def f1_of(gold, pred, labels) -> float:
    return 100 * evaluate(gold, pred, labels).f1


def tagging_row(tmp: Path, test_path: Path, n_tokens: int, runs: int) -> tuple:
    """Tokens/s of the two taggers, file to file: medians of ``runs`` runs, alternating."""
    ours_tag_file(tmp / "crf.tagger", test_path, tmp / "warmup.txt")  # loads numba's cache once
    theirs, ours = [], []
    for _ in range(runs):
        theirs.append(crfsuite_tag_file(str(tmp / "crf.crfsuite"), test_path, tmp / "crfsuite_out.txt"))
        ours.append(ours_tag_file(tmp / "crf.tagger", test_path, tmp / "ours_out.txt"))
    return (TAGGING_ROW, "tokens/s", n_tokens / statistics.median(theirs), n_tokens / statistics.median(ours))


def train_crfs(train_path: Path, tmp: Path) -> None:
    """The two CRFs of :func:`run`, saved in ``tmp``; the training data are freed on return."""
    sents, ys = read_conll_pairs(train_path)
    crfsuite_train(sents, ys, "lbfgs", {"c1": 0.1, "c2": 0.1, "max_iterations": 100}, str(tmp / "crf.crfsuite"))
    ours, _ = ours_train(read_corpus(train_path), "crf", {"c2": 1.0, "max_iter": 100})
    ours.save(tmp / "crf.tagger")


def run_tagging(data: Path, runs: int) -> tuple:
    """Train only the two CRFs and measure tagging, in a heap without the training data (as a tag run)."""
    tmp = Path(tempfile.mkdtemp())
    train_crfs(data / "train.txt", tmp)
    gc.collect()
    return tagging_row(tmp, data / "test.txt", read_corpus(data / "test.txt").n_tokens, runs)


def run(data: Path, runs: int) -> list[tuple]:
    train_path, test_path = data / "train.txt", data / "test.txt"
    train_corpus = read_corpus(train_path)
    test_corpus = read_corpus(test_path)
    gold = [[next(iter(a)) for a in s.annotations] for s in test_corpus]
    n_test_tokens = test_corpus.n_tokens
    labels = train_corpus.labels.union(test_corpus.labels)
    sents, ys = read_conll_pairs(train_path)
    test_sents, _ = read_conll_pairs(test_path)
    rows = []
    tmp = Path(tempfile.mkdtemp())
    for title, learner, params, algorithm, crf_params in (
        (
            "L-BFGS CRF, 100 iterations",
            "crf",
            {"c2": 1.0, "max_iter": 100},
            "lbfgs",
            {"c1": 0.1, "c2": 0.1, "max_iterations": 100},
        ),
        (
            "averaged perceptron, 10 epochs",
            "perceptron",
            {"max_iter": 10, "averaged": True},
            "ap",
            {"max_iterations": 10},
        ),
    ):
        model_path = str(tmp / f"{learner}.crfsuite")
        crf_seconds = crfsuite_train(sents, ys, algorithm, crf_params, model_path)
        tagger_crf = pycrfsuite.Tagger()
        tagger_crf.open(model_path)
        crf_pred = [tagger_crf.tag([word2features(s, i) for i in range(len(s))]) for s in test_sents]
        ours, our_seconds = ours_train(train_corpus, learner, params)
        our_pred = ours.tag(test_corpus)
        ours.save(tmp / f"{learner}.tagger")
        rows.append((title, "F1", f1_of(gold, crf_pred, labels), f1_of(gold, our_pred, labels)))
        rows.append((title, "train s", crf_seconds, our_seconds))
    rows.append(tagging_row(tmp, test_path, n_test_tokens, runs))
    return rows


def format_table(rows) -> str:
    lines = ["| comparison | measure | CRFsuite | tagtool | tagtool / CRFsuite |", "|---|---|---|---|---|"]
    for title, measure, theirs, ours in rows:
        fmt = "{:,.0f}" if measure == "tokens/s" else "{:.2f}"
        ratio = f"{ours / theirs:.2f}" if measure != "F1" else f"{ours - theirs:+.2f} F1"
        lines.append(f"| {title} | {measure} | {fmt.format(theirs)} | {fmt.format(ours)} | {ratio} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "conll2000")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "crfsuite.md")
    parser.add_argument(
        "--tagging-only",
        action="store_true",
        help="rerun only the tagging row (trains the two CRFs), keep the rest of --out",
    )
    parser.add_argument("--tag-runs", type=int, default=5, help="tagging runs per tagger (median; default 5)")
    args = parser.parse_args(argv)
    if args.tagging_only:
        return rerun_tagging_row(args)
    table = format_table(run(args.data, args.tag_runs))
    header = (
        "# tagtool vs CRFsuite: CoNLL-2000 chunking, sklearn-crfsuite tutorial template\n\n"
        f"Command: `python benchmarks/crfsuite_compare.py`\n\n"
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC\n"
        f"- platform: {platform.platform()}, {os.cpu_count()} logical cores, Python {platform.python_version()}\n"
        f"- python-crfsuite {getattr(pycrfsuite, '__version__', '?')}; load average at start "
        f"{os.getloadavg()[0]:.1f} (timings on a shared machine; ratios are from one run)\n\n"
        "Train on train.txt (8,936 sentences, 211,727 tokens), score test.txt (2,012 sentences, "
        "47,377 tokens). tagtool: `FeatureExtractor('crfsuite', min_count=1)`, `crf` with c2 = 1 "
        "(L2 only), `perceptron` averaged; CRFsuite: the tutorial's feature dicts, L-BFGS with "
        "c1 = c2 = 0.1, and `ap`. Tagging: CRFsuite in Python (read, feature dicts, `Tagger.tag`, "
        f"write) vs `tagtool tag` called in-process after one warm-up call; median of {args.tag_runs} "
        "runs each, alternating.\n\n"
    )
    text = header + table + "\n"
    print(text)
    args.out.write_text(text, encoding="utf-8")
    return 0


def rerun_tagging_row(args) -> int:
    """Replace the tagging row of ``args.out`` with a new measurement and say when and how it was made."""
    started, load = time.perf_counter(), os.getloadavg()[0]
    row = format_table([run_tagging(args.data, args.tag_runs)]).splitlines()[-1]
    lines = args.out.read_text(encoding="utf-8").splitlines()
    lines = [row if line.startswith(f"| {TAGGING_ROW} |") else line for line in lines]
    lines = [line for line in lines if not line.startswith("Tagging row rerun")]
    lines += [
        "",
        f"Tagging row rerun {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC with "
        f"`python benchmarks/crfsuite_compare.py --tagging-only --tag-runs {args.tag_runs}` (median of "
        f"{args.tag_runs} runs each, alternating; load average at start {load:.1f}; "
        f"{time.perf_counter() - started:.0f} s with training); the other rows are from the date above.",
    ]
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())

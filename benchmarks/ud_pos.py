"""Honest POS tagging on UD English EWT, against CRFsuite on the same features; and what a missing column costs.

Part 1, UD EWT UPOS (train on en_ewt-ud-train.conllu, score en_ewt-ud-test.conllu):

* our averaged ``perceptron`` (10 epochs) with the default feature set as
  ``tagtool train`` now uses it (FORM only: no CoNLL-U field is a feature
  unless named), and with every gold field named as a feature (what main
  did before: LEMMA, XPOS, FEATS, HEAD, DEPREL, DEPS, MISC — the leak);
* the sklearn-crfsuite tutorial template on FORM only (no POS column:
  ``FeatureExtractor("crfsuite", min_count=1)`` on a CoNLL-U corpus, the
  tutorial's ``word2features`` without its ``postag`` keys on CRFsuite's
  side): our ``perceptron`` vs CRFsuite's averaged perceptron (``ap``,
  10 epochs) and L-BFGS CRF (100 iterations, c1 = c2 = 0.1).

Part 2, CoNLL-2000 chunking with the POS column (col1): token accuracy on
test.txt with it and with it removed (``evaluate --allow-missing-columns``
does the same), beside the expected loss the tagger recorded at training
(:mod:`tagtool.tagger.inputs`).

Needs python-crfsuite (``pip install -e ".[bench]"``).  Writes
benchmarks/results/ud_pos.md (analysis below its marker is kept).

Usage: python benchmarks/ud_pos.py [--data DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
from dataclasses import replace
from importlib import metadata
from pathlib import Path

import pycrfsuite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_keeping_analysis

from tagtool.core.corpus import Corpus, Document
from tagtool.core.features import FeatureExtractor
from tagtool.core.metrics import evaluate
from tagtool.learn import make_learner
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus

ROOT = Path(__file__).resolve().parent.parent
GOLD_FIELDS = ["lemma", "xpos", "feats", "head", "deprel", "deps", "misc"]


def word2features(words: list[str], i: int) -> dict:
    """The sklearn-crfsuite tutorial template without its POS keys (FORM is all a raw text has)."""
    word = words[i]
    features = {
        "bias": 1.0,
        "word.lower()": word.lower(),
        "word[-3:]": word[-3:],
        "word[-2:]": word[-2:],
        "word.isupper()": word.isupper(),
        "word.istitle()": word.istitle(),
        "word.isdigit()": word.isdigit(),
    }
    for offset, edge in ((-1, "BOS"), (1, "EOS")):
        j = i + offset
        if 0 <= j < len(words):
            other = words[j]
            features.update(
                {
                    f"{offset:+d}:word.lower()": other.lower(),
                    f"{offset:+d}:word.istitle()": other.istitle(),
                    f"{offset:+d}:word.isupper()": other.isupper(),
                }
            )
        else:
            features[edge] = True
    return features


def gold_of(corpus) -> list[list[str]]:
    return [[next(iter(a)) for a in s.annotations] for s in corpus]


def accuracy(gold, predicted, labels) -> float:
    return 100 * evaluate(gold, predicted, labels).token_accuracy


def ours(train, test, features) -> tuple[float, float]:
    started = time.perf_counter()
    tagger = train_tagger(train, make_learner("perceptron", max_iter=10, averaged=True), features=features)
    seconds = time.perf_counter() - started
    return accuracy(gold_of(test), tagger.tag(test), tagger.labels.union(test.labels)), seconds


def crfsuite(train, test, algorithm: str, params: dict, model_path: Path) -> tuple[float, float]:
    trainer = pycrfsuite.Trainer(algorithm=algorithm, verbose=False)
    for sentence, labels in zip(train, gold_of(train)):
        words = list(sentence.tokens)
        trainer.append([word2features(words, i) for i in range(len(words))], labels)
    trainer.set_params(params)
    started = time.perf_counter()
    trainer.train(str(model_path))
    seconds = time.perf_counter() - started
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    predicted = [tagger.tag([word2features(list(s.tokens), i) for i in range(len(s))]) for s in test]
    return accuracy(gold_of(test), predicted, train.labels.union(test.labels)), seconds


def ud_rows(data: Path, tmp: Path) -> list[tuple[str, str, float, float]]:
    train = read_corpus(data / "en_ewt-ud-train.conllu")
    test = read_corpus(data / "en_ewt-ud-test.conllu")
    crf_template = FeatureExtractor("crfsuite", min_count=1)
    return [
        ("tagtool perceptron", "default set, FORM only (the new default)", *ours(train, test, None)),
        (
            "tagtool perceptron",
            "default set + every gold field (the leak)",
            *ours(train, test, {"columns": GOLD_FIELDS}),
        ),
        ("tagtool perceptron", "crfsuite template, FORM only", *ours(train, test, crf_template)),
        (
            "CRFsuite ap, 10 epochs",
            "crfsuite template, FORM only",
            *crfsuite(train, test, "ap", {"max_iterations": 10}, tmp / "ap.crfsuite"),
        ),
        (
            "CRFsuite L-BFGS, 100 iterations",
            "crfsuite template, FORM only",
            *crfsuite(train, test, "lbfgs", {"c1": 0.1, "c2": 0.1, "max_iterations": 100}, tmp / "lbfgs.crfsuite"),
        ),
    ]


def without_column(corpus: Corpus, column: str) -> Corpus:
    docs = tuple(
        Document(
            d.name, tuple(replace(s, columns={k: v for k, v in s.columns.items() if k != column}) for s in d.sentences)
        )
        for d in corpus.documents
    )
    return Corpus(corpus.labels, docs)


def chunk_rows(data: Path) -> list[tuple[str, float, float, float, float]]:
    train, test = read_corpus(data / "train.txt"), read_corpus(data / "test.txt")
    plain = without_column(test, "col1")
    rows = []
    for name, features in (("default set", None), ("crfsuite template", {"feature_set": "crfsuite"})):
        tagger = train_tagger(train, make_learner("perceptron", max_iter=10), features=features)
        labels = tagger.labels.union(test.labels)
        check = tagger.input_columns["check"]
        rows.append(
            (
                name,
                accuracy(gold_of(test), tagger.tag(test), labels),
                accuracy(gold_of(test), tagger.tag(plain, allow_missing_columns=True), labels),
                100 * check["accuracy"],
                100 * check["accuracy_without"]["col1"],
            )
        )
    return rows


def report(ud, chunks) -> list[str]:
    lines = [
        "# Honest UD EWT POS tagging, CRFsuite on the same features, and the cost of a missing column",
        "",
        "Command: `python benchmarks/ud_pos.py`",
        "",
        f"- date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        f"- platform: {platform.platform()}, {os.cpu_count()} logical cores, Python {platform.python_version()}; "
        f"python-crfsuite {metadata.version('python-crfsuite')}; load average at start {os.getloadavg()[0]:.1f} "
        "(train seconds on a shared machine: rough)",
        "",
        "## UD English EWT, UPOS: train en_ewt-ud-train.conllu (12,544 sentences), test en_ewt-ud-test.conllu "
        "(2,077 sentences, 25,094 tokens)",
        "",
        "| learner | features | token accuracy % | train s |",
        "|---|---|---|---|",
        *(f"| {who} | {what} | {acc:.2f} | {sec:.1f} |" for who, what, acc, sec in ud),
        "",
        "## CoNLL-2000 chunking with the POS column (col1), averaged perceptron, 10 epochs",
        "",
        "Test: test.txt (2,012 sentences, 47,377 tokens) as it is, and with col1 removed. Recorded: the",
        "expected loss the tagger stores at training (meta `input_columns.check`: 300 of its training",
        "sentences, with and without col1) and shows when a file to tag lacks the column.",
        "",
        "| features | test, with POS % | test, without POS % | drop | recorded, with % | recorded, without % | "
        "recorded drop |",
        "|---|---|---|---|---|---|---|",
        *(
            f"| {name} | {w:.2f} | {wo:.2f} | {w - wo:.1f} | {rw:.1f} | {rwo:.1f} | {rw - rwo:.1f} |"
            for name, w, wo, rw, rwo in chunks
        ),
    ]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = ROOT.parent / "shared" / "data"
    parser.add_argument("--data", type=Path, default=shared / "ud-en-ewt")
    parser.add_argument("--chunk-data", type=Path, default=shared / "conll2000")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ud_pos.md")
    args = parser.parse_args(argv)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ud = ud_rows(args.data, Path(tmp))
    lines = report(ud, chunk_rows(args.chunk_data))
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

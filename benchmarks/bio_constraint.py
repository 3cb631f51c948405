"""BIO-constrained decoding on CoNLL-2000 chunking: invalid I- tags and chunk F1, with and without.

Every learner is trained once at its defaults on the first ``L`` sentences of
``conll2000/train.txt`` (learners that use unlabeled text also get the next
``U`` sentences without labels, as the app gives them a project's
unlabeled sentences), exported to tagger bytes and loaded back (the
exported tagger is what is measured), then tags all of ``test.txt`` twice:
with the default ``decode.bio_constraint=true`` and with it off.  The
weights are the same in both columns: only the decoding differs.

Columns: ``invalid I-`` counts tags ``I-X`` that do not follow ``B-X`` or
``I-X`` (:func:`tagtool.core.labels.invalid_inside`); F1 is seqeval's chunk
F1 in its default mode (conlleval's reading: an invalid ``I-X`` opens a
chunk) and in strict IOB2 mode (an invalid ``I-X`` is no chunk); ``tag s``
is the wall time of :meth:`Tagger.tag` on the 2,012 test sentences.

Prints the table and writes benchmarks/results/bio_constraint.md (the
analysis section below the marker is kept).

Usage: python benchmarks/bio_constraint.py [--data DIR] [--labeled 100,400,1000] [--unlabeled 1000]
       [--learners a,b,...] [--smallest-only cosvm] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from seqeval.metrics import f1_score
from seqeval.scheme import IOB2

from tagtool.core import Corpus
from tagtool.core.labels import invalid_inside
from tagtool.learn import available_learners, make_learner
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tagtool.tagger.model import Tagger

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis

ROOT = Path(__file__).resolve().parent.parent
ORDER = ("wdpsl", "mv-perceptron", "perceptron", "crf", "entropy-crf", "svm", "hmm", "cosvm")


def gold_labels(sentences) -> list[list[str]]:
    return [[next(iter(a)) for a in s.annotations] for s in sentences]


def scores(gold, predicted, seconds: float) -> dict:
    return {
        "invalid": sum(len(invalid_inside(tags)) for tags in predicted),
        "f1": 100 * f1_score(gold, predicted),
        "strict": 100 * f1_score(gold, predicted, mode="strict", scheme=IOB2),
        "seconds": seconds,
    }


def tag_both_ways(tagger: Tagger, test, gold) -> dict[bool, dict]:
    out = {}
    for constrained in (False, True):
        tagger.model.set_decode({"bio_constraint": constrained})
        started = time.perf_counter()
        predicted = tagger.tag(test)
        out[constrained] = scores(gold, predicted, time.perf_counter() - started)
    return out


def run_one(name: str, train, unlabeled, test, gold) -> dict:
    learner = make_learner(name)
    extra = unlabeled if "none" in learner.uses else None
    started = time.perf_counter()
    tagger = train_tagger(train, learner, unlabeled=extra)
    train_seconds = time.perf_counter() - started
    exported = Tagger.from_bytes(tagger.to_bytes())
    assert exported.model.bio_constraint, "the default is on for BIO data"
    return {"train_s": train_seconds, "unlabeled": len(extra or ()), **tag_both_ways(exported, test, gold)}


def row(n_labeled: int, name: str, r: dict) -> str:
    off, on = r[False], r[True]
    return (
        f"| {n_labeled} | {name} | {r['unlabeled']} | {r['train_s']:.1f} | {off['invalid']} | {on['invalid']} | "
        f"{off['f1']:.2f} | {on['f1']:.2f} | {on['f1'] - off['f1']:+.2f} | {off['strict']:.2f} | "
        f"{on['strict']:.2f} | {off['seconds']:.2f} / {on['seconds']:.2f} |"
    )


HEADER = [
    "| L | learner | U | train s | invalid I- off | invalid I- on | F1 off | F1 on | Δ F1 | strict F1 off "
    "| strict F1 on | tag s off / on |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "conll2000")
    parser.add_argument("--labeled", default="100,400,1000", help="training sizes (first L sentences)")
    parser.add_argument("--unlabeled", type=int, default=1000, help="unlabeled sentences for learners that use them")
    parser.add_argument("--learners", default=",".join(ORDER))
    parser.add_argument(
        "--smallest-only", default="cosvm", help="learners run at the smallest L only (cosvm: 196 s at L = 100 here)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "bio_constraint.md")
    args = parser.parse_args(argv)
    data = read_corpus(args.data / "train.txt")
    test = list(read_corpus(args.data / "test.txt").sentences)
    gold = gold_labels(test)
    names = [n for n in args.learners.split(",") if n in available_learners()]
    sizes = sorted(int(x) for x in args.labeled.split(","))
    lines, started = [], time.perf_counter()
    for n_labeled in sizes:
        train = Corpus.from_sentences(data.sentences[:n_labeled], labels=data.labels)
        unlabeled = [s.unlabeled() for s in data.sentences[n_labeled : n_labeled + args.unlabeled]]
        for name in names:
            if n_labeled > sizes[0] and name in args.smallest_only.split(","):
                continue
            lines.append(row(n_labeled, name, run_one(name, train, unlabeled, test, gold)))
            print(lines[-1], flush=True)
    total = time.perf_counter() - started
    head = [
        "# BIO-constrained decoding: CoNLL-2000 chunking",
        "",
        f"Command: `python benchmarks/bio_constraint.py --labeled {args.labeled} --unlabeled {args.unlabeled} "
        f"--learners {','.join(names)} --smallest-only {args.smallest_only}` (whole run {total / 60:.1f} min)",
        "",
        *machine_lines(", shared with other jobs: seconds are noisy"),
        "",
        f"Protocol: every learner at its defaults, trained on the first L sentences of `train.txt` (U = the next "
        f"{args.unlabeled} sentences, unlabeled, for learners that use them), exported and loaded back, then tagging "
        f"all {len(test):,} sentences ({sum(map(len, gold)):,} tokens) of `test.txt` with the BIO constraint off and "
        "on (same weights). `invalid I-`: tags I-X not after B-X/I-X. F1: seqeval chunk F1 in %, default mode "
        "(conlleval) and strict IOB2.",
        "",
        *HEADER,
        *lines,
    ]
    print("\n".join(HEADER + lines))
    write_keeping_analysis(args.out, head)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Precision and recall of string-match suggestions from the first labeled sentences.

For each NER or chunking corpus of the development suite, the first L = 20 /
100 / 500 sentences of the training file are labeled and the rest of the
file is left unlabeled; :func:`tagtool.services.string_matches.string_matches`
then suggests every labeled span's string where it recurs there.  Scored
against the gold labels of those remaining sentences:

* token level, suggestions with one label ("same string, same label"):
  precision over the tokens suggested, recall over the gold tokens inside
  spans (labels other than ``O``);
* candidate sets (conflicting evidence): how many tokens get one, and how
  often it holds the gold label;
* span level (seqeval, strict): each unlabeled token takes its suggestion's
  label, or ``O``; "majority" also fills a candidate set with the label of
  the most frequent evidence.

Writes ``benchmarks/results/string_matches.md``.  Run:
``python benchmarks/string_matches.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _results import machine_lines, write_keeping_analysis
from seqeval.metrics import f1_score, precision_score, recall_score

from tagtool.services.string_matches import span_labels, string_matches
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CORPORA = {
    "conll2002-es": "conll2002-es/esp.train",
    "ncbi-disease": "ncbi-disease/train.tsv",
    "conll2000": "conll2000/train.txt",
}
SIZES = (20, 100, 500)
OUT = Path(__file__).resolve().parent / "results" / "string_matches.md"


def score(sentences, names, labeled: int) -> dict:
    """Suggest from the first ``labeled`` sentences; score on the rest."""
    project = list(sentences[:labeled]) + [s.unlabeled() for s in sentences[labeled:]]
    t0 = time.perf_counter()
    matches = string_matches(project, names)
    seconds = time.perf_counter() - t0
    gold = [[next(iter(a)) for a in s.annotations] for s in sentences[labeled:]]
    unanimous = [["O"] * len(g) for g in gold]
    majority = [["O"] * len(g) for g in gold]
    tp = suggested = sets = sets_right = 0
    for m in matches:
        g = gold[m.sentence - labeled]
        top = span_labels(m.evidence[0][0], m.end - m.start, names)
        for t in range(m.start, m.end):
            allowed = m.allowed[t - m.start]
            majority[m.sentence - labeled][t] = top[t - m.start]
            if len(allowed) == 1:
                (label,) = allowed
                unanimous[m.sentence - labeled][t] = label
                if label != "O":
                    suggested += 1
                    tp += label == g[t]
            else:
                sets += 1
                sets_right += g[t] in allowed
    inside = sum(label != "O" for g in gold for label in g)
    row = {
        "seconds": seconds,
        "tokens": sum(map(len, gold)),
        "suggested": suggested,
        "precision": tp / suggested if suggested else 0.0,
        "recall": tp / inside if inside else 0.0,
        "sets": sets,
        "sets_right": sets_right / sets if sets else 0.0,
    }
    for mode, predicted in (("unanimous", unanimous), ("majority", majority)):
        row[f"{mode}_p"] = precision_score(gold, predicted, zero_division=0)
        row[f"{mode}_r"] = recall_score(gold, predicted, zero_division=0)
        row[f"{mode}_f1"] = f1_score(gold, predicted, zero_division=0)
    return row


def scale_line(sentences, names, labeled: int = 500, target: int = 100_000) -> str:
    """Seconds to index and scan a project of ``target`` sentences (the file repeated, unlabeled past ``labeled``)."""
    rest = [s.unlabeled() for s in sentences[labeled:]]
    project = list(sentences[:labeled]) + rest * (-(-(target - labeled) // len(rest)))
    t0 = time.perf_counter()
    matches = string_matches(project, names)
    seconds = time.perf_counter() - t0
    return (
        f"- {len(project):,} sentences (L = {labeled}, the rest of the file repeated): "
        f"{len(matches):,} matches in {seconds:.1f} s"
    )


def table(rows: list[tuple[str, int, dict]]) -> list[str]:
    lines = [
        "| corpus | L | tokens scored | one-label suggestions (tokens) | token P | token R "
        "| candidate-set tokens | set holds gold | span P / R / F1 (unanimous) | span P / R / F1 (majority) | s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for name, size, r in rows:
        lines.append(
            f"| {name} | {size} | {r['tokens']} | {r['suggested']} | {100 * r['precision']:.1f} "
            f"| {100 * r['recall']:.1f} | {r['sets']} | {100 * r['sets_right']:.1f} "
            f"| {100 * r['unanimous_p']:.1f} / {100 * r['unanimous_r']:.1f} / {100 * r['unanimous_f1']:.1f} "
            f"| {100 * r['majority_p']:.1f} / {100 * r['majority_r']:.1f} / {100 * r['majority_f1']:.1f} "
            f"| {r['seconds']:.2f} |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="*", default=list(CORPORA))
    parser.add_argument("--sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--scale", action=argparse.BooleanOptionalAction, default=True, help="time 100k sentences")
    parser.add_argument("--no-write", action="store_true", help="print the table only")
    args = parser.parse_args(argv)
    rows = []
    corpus = None
    for name in args.corpora:
        corpus = read_corpus(SHARED / CORPORA[name])
        sentences = [s for s in corpus.sentences if s.status == "full"]
        names = list(corpus.labels.names)
        for size in args.sizes:
            rows.append((name, size, score(sentences, names, size)))
            print(name, size, f"{rows[-1][2]['seconds']:.2f}s", file=sys.stderr)
    lines = table(rows)
    if args.scale and corpus is not None:
        lines += ["", "Scale (the last corpus):", "", scale_line(sentences, names)]
    print("\n".join(lines))
    if not args.no_write:
        intro = [
            "# String-match suggestions from the first labeled sentences",
            "",
            "`python benchmarks/string_matches.py`: the first L sentences of each training file labeled, "
            "the rest unlabeled; every labeled span's string suggested where it recurs "
            "(`tagtool.services.string_matches`), scored against the gold labels of the unlabeled rest. "
            "Token P/R: one-label suggestions other than `O`, recall over gold tokens inside spans. "
            "Candidate-set tokens: conflicting evidence; 'set holds gold' is how often the set holds the gold label. "
            "Span P/R/F1: seqeval's default (conlleval) mode, unsuggested tokens `O`; 'majority' also fills "
            "candidate sets with the most frequent evidence. s: seconds to index and scan.",
            "",
            *machine_lines(),
            "",
        ]
        write_keeping_analysis(OUT, intro + lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Which view split serves the two-view learners once word representations are in.

``views.kind=lexical-distributional`` gives one view the template features
(word, affixes, shape, context, POS) and the other the cluster ids of the
word representations (``dist``); the splits before it were
``feature-sets`` (one template set per view, the default of a stack of two
sets, ``dist`` joining the first) and ``random``.  Per corpus, L labeled and
U = 500 unlabeled sentences (the draws of benchmarks/robustness.py, the same
for every split), ``mv-perceptron`` and ``cosvm`` at their defaults with:

* ``crfsuite+default+dist`` split ``feature-sets`` (the app's default for
  these learners with representations),
* the same features split ``lexical-distributional``,
* ``crfsuite+dist`` split ``lexical-distributional`` (one template set),
* ``crfsuite+default+dist`` split ``random``,

and entity F1 (token accuracy for POS) on the corpus's test file, paired
differences against the default split.  Cells are cached in
``benchmarks/results/view_splits.json``.

Usage::

    python benchmarks/view_splits.py [--corpora conll2000,...] [--labeled 20,100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis
from _robustness_cells import Corpus, code_hash, scores
from _robustness_report import _paired

from tagtool.core.snapshot import build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.learn import get_learner
from tagtool.services.training_setup import feature_views

ROOT = Path(__file__).resolve().parent
CACHE = ROOT / "results" / "view_splits.json"
OUT = ROOT / "results" / "view_splits.md"
#: (label, feature set, view kind); the first is the default the others are compared with.
VARIANTS = (
    ("feature-sets [crfsuite+default+dist] (default)", "crfsuite+default+dist", "feature-sets"),
    ("lexical-distributional [crfsuite+default+dist]", "crfsuite+default+dist", "lexical-distributional"),
    ("lexical-distributional [crfsuite+dist]", "crfsuite+dist", "lexical-distributional"),
    ("random [crfsuite+default+dist]", "crfsuite+default+dist", "random"),
)
LEARNERS = ("mv-perceptron", "cosvm")


def run_cell(corpus: Corpus, learner: str, feature_set: str, kind: str, labeled: int, repeat: int) -> dict:
    extractor, lab, unl, seed, labels = corpus.extractor(labeled, 500, repeat, feature_set)
    cls = get_learner(learner)
    model_learner = cls()
    model_learner.set_params(**{p: seed for p in ("random_state",) if p in model_learner.param_names()})
    views = feature_views(extractor, ViewSplit(kind, seed))
    train = build_snapshot(lab + unl, labels, extractor, views)
    test = build_snapshot(corpus.test, labels, extractor, views)
    started = time.perf_counter()
    model = model_learner.fit(train)
    record = {
        "train_seconds": time.perf_counter() - started,
        "guard_fired": bool((model.info.get("unlabeled") or {}).get("guard_fired")),
    }
    record.update(scores(corpus, model.predict_labels(test), labels))
    return record


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default="conll2000,conll2002-es,ncbi-disease,ud-ewt-upos")
    p.add_argument("--labeled", default="20,100")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)
    cells = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    corpora = [c for c in args.corpora.split(",") if c]
    sizes = [int(n) for n in args.labeled.split(",") if n]
    if not args.report_only:
        for corpus_name in corpora:
            corpus = Corpus(corpus_name, pool=3000, seed=0)
            for labeled in sizes:
                for repeat in range(args.repeats):
                    for learner in LEARNERS:
                        for _, feature_set, kind in VARIANTS:
                            key = (
                                f"{corpus_name}|{learner}|{feature_set}|{kind}|L={labeled}|r={repeat}"
                                f"|code={code_hash(learner)}"
                            )
                            if key in cells:
                                continue
                            cells[key] = run_cell(corpus, learner, feature_set, kind, labeled, repeat)
                            CACHE.write_text(json.dumps(cells, indent=0, sort_keys=True))
                            print(f"{key}: F1 {cells[key]['f1']:.1f}", file=sys.stderr, flush=True)
    write_report(cells, corpora, sizes)
    return 0


def write_report(cells: dict, corpora: list[str], sizes: list[int]) -> None:
    lines = [
        "# View splits with word representations",
        "",
        "Command: `python benchmarks/view_splits.py`",
        "",
        *machine_lines(),
        "",
        __doc__.split("\n\n")[1].replace("\n", " "),
        "",
        "Entity F1 (accuracy for POS), mean over repeats; in brackets the paired difference against the "
        "default split (± SE).",
        "",
    ]
    for learner in LEARNERS:
        lines += [
            f"## {learner}",
            "",
            "| corpus | L | " + " | ".join(v[0] for v in VARIANTS) + " |",
            "|---" * (len(VARIANTS) + 2) + "|",
        ]
        for corpus in corpora:
            for labeled in sizes:
                found = []
                for _, feature_set, kind in VARIANTS:
                    prefix = f"{corpus}|{learner}|{feature_set}|{kind}|L={labeled}|"
                    found.append(
                        {
                            int(k.split("|r=")[1].split("|")[0]): v
                            for k, v in cells.items()
                            if k.startswith(prefix) and k.endswith(f"code={code_hash(learner)}")
                        }
                    )
                if not found[0]:
                    continue
                row = []
                for i, recs in enumerate(found):
                    if not recs:
                        row.append("")
                        continue
                    mean = np.mean([r["f1"] for r in recs.values()])
                    if i == 0:
                        row.append(f"{mean:.1f} (n={len(recs)})")
                    else:
                        d, e, n = _paired(recs, found[0], "f1")
                        row.append(f"{mean:.1f} ({d:+.1f} ± {e:.1f})")
                lines.append(f"| {corpus} | {labeled} | " + " | ".join(row) + " |")
        lines.append("")
    write_keeping_analysis(OUT, lines)


if __name__ == "__main__":
    sys.exit(main())

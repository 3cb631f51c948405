"""Does the F1 the app shows predict the exported tagger's F1 on new text?

The project is the app's built-in sample (400 CoNLL-2000 chunking
sentences, the first 50 labeled, the rest unlabeled), built as a first
start builds it; the new text is the CoNLL-2000 test file
(``../shared/data/conll2000/test.txt``), scored on its first 500 sentences
and on all 2,012.  Per learner, at its defaults:

**Before** (the app until the cross-validation was made honest): the sample named its POS column
``pos``; the 3-fold CV kept each held-out fold in the training data
unlabeled, reused the extractor fitted on all text and dealt the folds at
random.  The
exported tagger (Train now, full settings) is scored as ``tagtool evaluate
--allow-missing-columns`` scores it: a CoNLL file's POS column is ``col1``,
so it is tagged without POS.

**After**: the sample keeps ``col1``; the CV (the app's
:data:`~tagtool.gui.model_loop.CV_FOLDS` = 5 folds) holds out contiguous
blocks, trains each fold on the other sentences only with features
refitted (:mod:`tagtool.services.crossval`), and gives a bootstrap SE.

**Causes** (each measured alone, on the same sample):

* *POS column*: the before tagger on test[:500] with its POS column given
  under the name it expects, minus without it.
* *held-out text*, *features*, *blocks*: the 3-fold CV changed one step
  at a time — transductive/random/shared extractor → held-out text removed
  → features refitted per fold → contiguous blocks; then *k*: 3 → 5 is the
  rest of the way to the after CV.
* *k = 10*: random folds and blocks at k = 10, against test[:500] (random
  folds overstate more as k grows: more neighbours of each held-out
  sentence in its training data).
* The step-by-step and k = 10 comparisons run for learners whose one
  training takes at most ``--fast-max-seconds``.
* *quick retrain*: label sentence 51 (its gold labels), then the app's
  retrain after an edit (warm start, 3 passes) against a full fit, on test[:500].
* *sample vs test*: the after tagger on train.txt sentences 401–900 (new
  text from the sample's own file) minus test[:500].

Usage::

    python benchmarks/cv_honesty.py [--learners crf,wdpsl,...] [--fast-max-seconds 20]
        [--out benchmarks/results/cv_honesty.md]

Writes ``benchmarks/results/cv_honesty.md`` (kept analysis below the marker).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from _results import machine_lines, write_keeping_analysis

from tagtool.core import Corpus
from tagtool.core.metrics import evaluate
from tagtool.core.params import MAX_ITER
from tagtool.gui.model_loop import CV_FOLDS, RETRAIN_EPOCHS
from tagtool.gui.training import TrainingInputs, run_training
from tagtool.gui.warm_start import retrain_overrides
from tagtool.learn import available_learners, get_learner
from tagtool.services.crossval import cross_validate, fold_trainer
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tagtool.store.sample import SAMPLE_LABELED, sample_corpus
from tagtool.tagger.model import Tagger

OUT = Path(__file__).parent / "results" / "cv_honesty.md"
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
#: The app's folds before (the after runs use the app's :data:`CV_FOLDS`).
FOLDS_BEFORE = 3


class Quiet:
    """A run state that reports nothing and never stops."""

    def progress(self, fraction, message):
        pass

    def should_stop(self):
        return False

    def model_ready(self, result):
        pass


def project_inputs(folder: Path, corpus: Corpus, name: str) -> TrainingInputs:
    """The sample as a project file holds it, read back as the app reads it."""
    path = folder / f"{name}.tagproj"
    Project.create(path, corpus, name=name).close()
    with Project.open(path) as project:
        return TrainingInputs.from_project(project, cv_folds=CV_FOLDS)


def old_sample() -> Corpus:
    """The sample as the app built it before: the POS column named ``pos``."""
    corpus = sample_corpus()
    return Corpus.from_sentences(
        [replace(s, columns={"pos": s.columns["col1"]}) for s in corpus],
        labels=corpus.labels,
        name="conll2000-train-400",
    )


def f1(tagger, sentences) -> float:
    """Span F1 in percent, as ``tagtool evaluate --allow-missing-columns`` scores it."""
    gold = [[next(iter(a)) for a in s.annotations] for s in sentences]
    return (
        100
        * evaluate(
            gold,
            tagger.tag(sentences, allow_missing_columns=True),
            tagger.labels.union(Corpus.from_sentences(sentences).labels),
        ).f1
    )


def exported(result) -> Tagger:
    """The tagger file the app writes, read back."""
    return Tagger.from_bytes(result.data or result.tagger.to_bytes(), "exported")


def cv(inputs, name, tagger, protocol, folds, k=FOLDS_BEFORE) -> dict:
    train = fold_trainer(name, get_learner(name).param_defaults(), tagger, protocol=protocol, seed=inputs.seed)
    return cross_validate(inputs.sentences, inputs.labels, train, k, protocol=protocol, folds=folds, seed=inputs.seed)


def pct(m: dict) -> str:
    return f"{100 * m['f1']:.1f} ± {100 * m['f1_se']:.1f}" if "f1" in m else str(m.get("cv"))


def quick_retrain(inputs, name, tagger, extra) -> tuple[float, float]:
    """test[:500] F1 of the app's retrain after labeling one more sentence, and of a full fit."""
    sentences = list(inputs.sentences)
    sentences[SAMPLE_LABELED] = extra
    edited = replace(inputs, sentences=tuple(sentences), cv_folds=0)
    cls = get_learner(name)
    overrides = retrain_overrides(MAX_ITER if MAX_ITER in cls.params else None, cls.param_defaults(), RETRAIN_EPOCHS)
    quick = run_training(edited, name, {}, tagger, Quiet(), overrides=overrides)
    full = run_training(edited, name, {}, None, Quiet())
    return quick.tagger, full.tagger


def measure(name: str, before_inputs, after_inputs, data, fast_max: float) -> dict:
    test, extra, new_train = data
    row = {"learner": name}
    started = time.perf_counter()
    before = run_training(replace(before_inputs, cv_folds=0), name, {}, None, Quiet())
    row["train_s"] = time.perf_counter() - started
    fast = row["train_s"] <= fast_max
    old = cv(before_inputs, name, before.tagger, "transductive", "random")
    tagger = exported(before)
    renamed = [replace(s, columns={"pos": s.columns["col1"]}) for s in test[:500]]
    row |= {
        "before_cv": pct(old),
        "before_500": f1(tagger, test[:500]),
        "before_all": f1(tagger, test),
        "before_500_pos": f1(tagger, renamed),
    }
    after = run_training(after_inputs, name, {}, None, Quiet())
    m, tagger = after.metrics, exported(after)
    row |= {
        "after_cv": pct(m),
        "after_f1": 100 * m["f1"],
        "after_se": 100 * m["f1_se"],
        "after_500": f1(tagger, test[:500]),
        "after_all": f1(tagger, test),
        "after_new_train": f1(tagger, new_train),
        "after_without": 100 * m.get("cv_without", {}).get("col1", {}).get("f1", float("nan")),
    }
    if fast:
        # One step at a time at the old k; the after sample (col1) trains the same models as the before one.
        row["steps"] = [
            pct(old),
            pct(cv(before_inputs, name, before.tagger, "new-text", "random")),
            pct(cv(after_inputs, name, after.tagger, "new-text", "random")),
            pct(cv(after_inputs, name, after.tagger, "new-text", "blocks")),
        ]
        row["k10"] = (
            pct(cv(after_inputs, name, after.tagger, "new-text", "random", k=10)),
            pct(cv(after_inputs, name, after.tagger, "new-text", "blocks", k=10)),
        )
    quick, full = quick_retrain(after_inputs, name, after.tagger, extra)
    row["quick"], row["full51"] = f1(quick, test[:500]), f1(full, test[:500])
    row["seconds"] = time.perf_counter() - started
    return row


def tables(rows: list[dict]) -> list[str]:
    lines = [
        "## Before and after: the CV F1 the app shows against the exported tagger's F1 on CoNLL-2000 test",
        "",
        f"F1 in percent (conlleval spans).  Before: {FOLDS_BEFORE}-fold CV as the app ran it; after: the app's "
        f"{CV_FOLDS}-fold CV.  ± is the bootstrap SE over the held-out sentences (the same bootstrap applied "
        "to the old protocol's predictions).",
        "",
        "| learner | before: app CV | before: test[:500] | before: test | after: app CV | after: test[:500] | "
        "after: test | after: (CV − test[:500]) / SE | after: (CV − test) / SE |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        z500, z = (
            (r["after_f1"] - r[key]) / r["after_se"] if r["after_se"] else float("nan")
            for key in ("after_500", "after_all")
        )
        lines.append(
            f"| {r['learner']} | {r['before_cv']} | {r['before_500']:.1f} | {r['before_all']:.1f} | "
            f"{r['after_cv']} | {r['after_500']:.1f} | {r['after_all']:.1f} | {z500:+.1f} | {z:+.1f} |"
        )
    lines += [
        "",
        "## Causes, each alone (F1 points)",
        "",
        f"CV steps at k = {FOLDS_BEFORE} (learners whose one training takes at most the fast limit): (a) before: "
        "held-out text unlabeled in each fold, one extractor, random folds; (b) held-out text removed; "
        "(c) features refitted per fold; (d) contiguous blocks.",
        "",
        "| learner | POS column unreadable: test[:500] without − with | CV (a) | (b) | (c) | (d) | "
        "k = 10 random / blocks | quick retrain − full fit (test[:500]) | train.txt 401–900 − test[:500] | "
        "app CV F1 without col1 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        steps = " | ".join(r["steps"]) if "steps" in r else f"{r['before_cv']} | not run (slow) | | "
        k10 = " / ".join(r["k10"]) if "k10" in r else "not run (slow)"
        lines.append(
            f"| {r['learner']} | {r['before_500'] - r['before_500_pos']:+.1f} | {steps} | {k10} | "
            f"{r['quick'] - r['full51']:+.1f} ({r['quick']:.1f} vs {r['full51']:.1f}) | "
            f"{r['after_new_train'] - r['after_500']:+.1f} | {r['after_without']:.1f} |"
        )
    lines += ["", "| learner | one full training (s) | everything for this learner (s) |", "| --- | --- | --- |"]
    lines += [f"| {r['learner']} | {r['train_s']:.1f} | {r['seconds']:.0f} |" for r in rows]
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", default=",".join(available_learners()))
    parser.add_argument(
        "--fast-max-seconds",
        type=float,
        default=20.0,
        help="run the step-by-step and k=10 comparisons for learners whose one training takes at most this",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    test_corpus = read_corpus(SHARED_DATA / "conll2000" / "test.txt")
    train_file = read_corpus(SHARED_DATA / "conll2000" / "train.txt")
    test = [s for s in test_corpus if s.status == "full"]
    data = (test, train_file.sentences[SAMPLE_LABELED], train_file.sentences[400:900])
    rows, started = [], time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        before_inputs = project_inputs(Path(tmp), old_sample(), "before")
        after_inputs = project_inputs(Path(tmp), sample_corpus(), "after")
        for name in args.learners.split(","):
            row = measure(name, before_inputs, after_inputs, data, args.fast_max_seconds)
            print(
                f"{name}: before CV {row['before_cv']} / test[:500] {row['before_500']:.1f}; after CV "
                f"{row['after_cv']} / test[:500] {row['after_500']:.1f} / test {row['after_all']:.1f} "
                f"({row['seconds']:.0f} s)",
                flush=True,
            )
            rows.append(row)
    lines = [
        "# CV honesty: the app's cross-validated F1 against the exported tagger on new text",
        "",
        f"Command: `python benchmarks/cv_honesty.py --learners {args.learners}` "
        f"({time.perf_counter() - started:.0f} s)",
        "",
        *machine_lines(),
        "",
        *tables(rows),
    ]
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

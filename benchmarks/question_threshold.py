"""The self-set question threshold and the cold-start rule: before and after, on three corpora.

Runs :class:`tagtool.services.simulate.loop.Simulation` (``tagtool simulate``)
with ``mv-perceptron`` (the app's default learner, its default settings)
and strategy ``gain`` in the ``tokens`` and ``review`` modes, on pools of
the first ``--sentences`` sentences of NCBI disease (``train.tsv``, test
``test.tsv``), CoNLL-2002 Spanish (``esp.train`` / ``esp.testb``) and
CoNLL-2000 chunking (``train.txt`` / ``test.txt``), steps of ``--step``
growing ×``--growth``, until 95 % of the full-data F1, seeds ``--seeds``.

Variants (``--variants``):

* ``before`` — ``--cv-folds 0``: the model kind's constant threshold, no cold start
  (what ``tagtool simulate`` did before);
* ``after`` — the defaults: 5-fold cross-validation after each step, the
  project's threshold (:data:`~tagtool.services.question_threshold.MISS_RATE`)
  and the cold start (:data:`~tagtool.services.question_threshold.COLD_F1`);
* ``r=R:cold=C:tok=T`` — ``after`` with other constants (the measurement that chose them;
  ``cold=0`` is no cold start, ``r=-`` the kind's constant threshold, ``tok=full`` / ``tok=review``
  what the token modes show in the cold start, ``order=random`` the random order in it, ``own=1`` the
  project's threshold in the ``review`` ranking, ``min=N`` the held-out tokens a threshold needs).

The ratio is the cost to 95 % over that of ``random`` + ``full`` (no
cross-validation) on the same pool and seed.  Every run is kept in
``--cache`` (JSON, one record per run) so that a rerun only adds what is
missing; ``--jobs`` runs at a time, niced.

Usage::

    python benchmarks/question_threshold.py [--corpora ncbi,es,chunk] [--seeds 0,1,2] [--modes tokens,review]
        [--variants before,after] [--sentences 2000] [--jobs 2] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _results import machine_lines, write_keeping_analysis

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
RESULTS = Path(__file__).parent / "results"
CORPORA = {
    "ncbi": ("NCBI disease", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv"),
    "es": ("CoNLL-2002 Spanish", "conll2002-es/esp.train", "conll2002-es/esp.testb"),
    "chunk": ("CoNLL-2000 chunking", "conll2000/train.txt", "conll2000/test.txt"),
}


def _corpora(corpus: str, sentences: int):
    from tagtool.core import Corpus
    from tagtool.store.formats import read_corpus

    _, train, test = CORPORA[corpus]
    data = read_corpus(SHARED / train)
    return Corpus.from_sentences(data.sentences[:sentences], labels=data.labels), read_corpus(SHARED / test)


def _variant(name: str) -> dict:
    """``before``, ``after`` or ``r=R:cold=C``: the config's folds and the constants to set."""
    if name == "before":
        return {"cv_folds": 0}
    if name == "after":
        return {}
    parts = dict(p.split("=") for p in name.split(":"))
    out: dict = {}
    if "r" in parts:
        out["miss_rate"] = None if parts["r"] == "-" else float(parts["r"])
    if "cold" in parts:
        out["cold_f1"] = float(parts["cold"])
    if "tok" in parts:
        out["cold_tokens"] = parts["tok"]
    if "order" in parts:
        out["cold_order"] = parts["order"]
    if "own" in parts:
        out["own_in_review"] = parts["own"] == "1"
    if "min" in parts:
        out["min_held_out"] = int(parts["min"])
    return out


def run_one(job: tuple) -> dict:
    """One simulation: ``(corpus, sentences, seed, strategy, mode, variant, step, growth, full_f1)``."""
    corpus, sentences, seed, strategy, mode, variant, step, growth, full_f1 = job
    os.nice(10)
    from tagtool.services import question_threshold as qt
    from tagtool.services.simulate.config import SimulationConfig
    from tagtool.services.simulate.loop import Simulation

    settings = _variant(variant)
    if "cold_f1" in settings:
        qt.COLD_F1 = settings["cold_f1"]
    if "cold_tokens" in settings:
        qt.COLD_TOKENS = settings["cold_tokens"]
    if "cold_order" in settings:
        qt.COLD_ORDER = settings["cold_order"]
    if "own_in_review" in settings:
        qt.OWN_IN_REVIEW = settings["own_in_review"]
    if "min_held_out" in settings:
        qt.MIN_HELD_OUT = settings["min_held_out"]
    if "miss_rate" in settings:
        if settings["miss_rate"] is None:
            qt.MIN_HELD_OUT = 10**12  # never enough: the kind's constant
        else:
            qt.MISS_RATE = settings["miss_rate"]
    data, test = _corpora(corpus, sentences)
    config = SimulationConfig(
        learner="mv-perceptron",
        strategy=strategy,
        mode=mode,
        step=step,
        growth=growth,
        seed=seed,
        max_unlabeled=100,
        until_95=True,
        full_data_f1=full_f1,
        cv_folds=settings.get("cv_folds", 5),
    )
    started = time.perf_counter()
    sim = Simulation(config, data, test)
    result = sim.run()
    return {
        "key": _key(corpus, seed, strategy, mode, variant),
        "full_data_f1": result.full_data_f1,
        "cost_to_95": result.cost_to_95,
        "seconds": time.perf_counter() - started,
        "cv_seconds": sum(p.cv_seconds for p in result.curve),
        "curve": [[p.cost, p.f1, p.threshold, p.cold] for p in result.curve],
    }


def _key(corpus, seed, strategy, mode, variant) -> str:
    return f"{corpus}|{seed}|{strategy}|{mode}|{variant}"


def _full_f1(corpus: str, sentences: int, seed: int) -> float:
    os.nice(10)
    from tagtool.services.simulate.config import SimulationConfig
    from tagtool.services.simulate.loop import Simulation

    data, test = _corpora(corpus, sentences)
    return Simulation(SimulationConfig(learner="mv-perceptron", seed=seed, cv_folds=0), data, test).full_data_f1()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpora", default="ncbi,es,chunk")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--modes", default="tokens,review")
    parser.add_argument("--variants", default="before,after")
    parser.add_argument("--sentences", type=int, default=2000)
    parser.add_argument("--step", type=float, default=100.0)
    parser.add_argument("--growth", type=float, default=1.25)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cache", type=Path, default=RESULTS / "question_threshold.json")
    parser.add_argument("--out", type=Path, default=RESULTS / "question_threshold.md")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    corpora, seeds = args.corpora.split(","), [int(s) for s in args.seeds.split(",")]
    modes, variants = args.modes.split(","), args.variants.split(",")
    cache = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    full = cache.setdefault("full_data_f1", {})
    runs = cache.setdefault("runs", {})
    if not args.report_only:
        missing = [(c, args.sentences, s) for c in corpora for s in seeds if f"{c}|{s}" not in full]
        with ProcessPoolExecutor(args.jobs) as pool:
            for (c, _, s), f1 in zip(missing, pool.map(_full_f1, *zip(*missing)) if missing else ()):
                full[f"{c}|{s}"] = f1
        args.cache.write_text(json.dumps(cache, indent=1))
        jobs = [(c, s, "random", "full", "before") for c in corpora for s in seeds]
        jobs += [(c, s, "gain", m, v) for c in corpora for s in seeds for m in modes for v in variants]
        todo = [
            (c, args.sentences, s, st, m, v, args.step, args.growth, full[f"{c}|{s}"])
            for c, s, st, m, v in jobs
            if _key(c, s, st, m, v) not in runs
        ]
        with ProcessPoolExecutor(args.jobs) as pool:
            for record in pool.map(run_one, todo):
                runs[record["key"]] = record
                print(f"{record['key']}: {record['cost_to_95']} ({record['seconds']:.0f} s)", file=sys.stderr)
                args.cache.write_text(json.dumps(cache, indent=1))
    write_keeping_analysis(args.out, report(cache, corpora, seeds, modes, variants, argv))
    return 0


def _ratio(runs: dict, corpus: str, seed: int, mode: str, variant: str) -> float | None:
    base = runs.get(_key(corpus, seed, "random", "full", "before"), {}).get("cost_to_95")
    cost = runs.get(_key(corpus, seed, "gain", mode, variant), {}).get("cost_to_95")
    return None if not base or cost is None else cost / base


def report(cache: dict, corpora, seeds, modes, variants, argv) -> list[str]:
    """The table: per corpus, mode and variant the ratio per seed, and min / median / max."""
    runs = cache["runs"]
    lines = [
        "# Self-set question threshold and cold-start rule (mv-perceptron, gain)",
        "",
        "`python benchmarks/question_threshold.py " + " ".join(argv or sys.argv[1:]) + "`",
        "",
        *machine_lines(),
        "",
        "Cost to 95 % of the full-data F1 over random + full sentences' (same pool and seed); "
        "`before` = `--cv-folds 0` (the kind's constant threshold, no cold start), `after` = the defaults; "
        "`r=…:cold=…` = other constants (the variant names of `--variants`). "
        "CV s = seconds of cross-validation per run (median).",
        "",
        "| corpus | mode | variant | " + " | ".join(f"seed {s}" for s in seeds) + " | min / median / max | CV s |",
        "| --- | --- | --- | " + " | ".join("---" for _ in seeds) + " | --- | --- |",
    ]
    for corpus in corpora:
        for mode in modes:
            for variant in variants:
                ratios = [_ratio(runs, corpus, s, mode, variant) for s in seeds]
                known = [r for r in ratios if r is not None]
                if not known:
                    continue
                spread = f"{min(known):.3f} / {statistics.median(known):.3f} / {max(known):.3f}" if known else "–"
                cv = [runs[k]["cv_seconds"] for s in seeds if (k := _key(corpus, s, "gain", mode, variant)) in runs]
                cells = " | ".join("–" if r is None else f"{r:.3f}" for r in ratios)
                cv_text = f"{statistics.median(cv):.0f}" if cv else "–"
                lines.append(f"| {CORPORA[corpus][0]} | {mode} | {variant} | {cells} | {spread} | {cv_text} |")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())

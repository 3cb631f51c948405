"""Span questions against token questions: the cost to 95 % of full-data F1 in the token-question mode.

Runs :class:`tagtool.services.simulate.loop.Simulation` — the code behind ``tagtool simulate`` —
for ``mv-perceptron`` at its defaults (as ``tagtool simulate --learner mv-perceptron``) on NCBI
disease, CoNLL-2002 Spanish and CoNLL-2000 chunking (the first ``--sentences`` sentences of the
training file, scored on the test file), step 100 growing by 1.25, ``--max-unlabeled 100``,
``--until-95``.  Per (corpus, seed): ``random+full``; ``gain+tokens`` with token questions
(``--questions tokens``), with span questions at the shipped rule (``--questions spans``:
each asked token grown to the model's predicted mentions it touches,
:mod:`tagtool.services.span_questions`), and with the wider rules the defaults were chosen
against (``spans+runs``: runs of tokens with ``q ≥ 0.5 ×`` threshold join; ``spans+edges``:
one token on each side with ``q ≥ 0.5 ×`` threshold joins); and ``gain+review`` for
reference.  Reported: each run's cost to 95 % as a fraction of random+full's, the seeds'
min / median / max.

Usage::

    nice -n 10 python benchmarks/span_questions.py [--corpora ncbi,es,chunk] [--seeds 0,1,2] [--jobs 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from _results import machine_lines, write_keeping_analysis

from tagtool.core import Corpus
from tagtool.services import span_questions
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
CORPORA = {
    "ncbi": ("NCBI disease", "ncbi-disease/train.tsv", "ncbi-disease/test.tsv"),
    "es": ("CoNLL-2002 Spanish", "conll2002-es/esp.train", "conll2002-es/esp.testb"),
    "chunk": ("CoNLL-2000 chunking", "conll2000/train.txt", "conll2000/test.txt"),
}
#: name → (strategy, mode, questions, RUN_SHARE, BOUNDARY_SHARE)
RUNS = {
    "random+full": ("random", "full", "tokens", 1.0, None),
    "gain+tokens, token questions": ("gain", "tokens", "tokens", 1.0, None),
    "gain+tokens, span questions": ("gain", "tokens", "spans", 1.0, None),
    "gain+tokens, spans+runs": ("gain", "tokens", "spans", 0.5, None),
    "gain+tokens, spans+edges": ("gain", "tokens", "spans", 1.0, 0.5),
    "gain+review": ("gain", "review", "tokens", 1.0, None),
}
OUT = Path(__file__).parent / "results" / "span_questions.md"


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--corpora", default=",".join(CORPORA))
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--data", type=Path, default=SHARED, help="folder of the corpora")
    p.add_argument("--out", type=Path, default=OUT)
    return p.parse_args(argv)


def load(corpus: str, n: int, folder: Path) -> tuple[Corpus, Corpus]:
    _, train, test = CORPORA[corpus]
    data = read_corpus(folder / train)
    return Corpus.from_sentences(data.sentences[:n], labels=data.labels), read_corpus(folder / test)


def run_one(corpus: str, seed: int, name: str, full_f1: float, args) -> tuple[str, int, str, float | None]:
    """One run (in a worker process: the span rule's shares are module settings)."""
    strategy, mode, questions, run_share, boundary = RUNS[name]
    span_questions.RUN_SHARE, span_questions.BOUNDARY_SHARE = run_share, boundary
    data, test = load(corpus, args.sentences, args.data)
    config = SimulationConfig(
        learner="mv-perceptron",
        strategy=strategy,
        mode=mode,
        questions=questions,
        step=100,
        growth=1.25,
        seed=seed,
        max_unlabeled=100,
        until_95=True,
        full_data_f1=full_f1,
    )
    started = time.perf_counter()
    result = Simulation(config, data, test).run()
    print(f"{corpus} seed {seed} {name}: {result.cost_to_95} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return corpus, seed, name, result.cost_to_95


def full_f1(corpus: str, seed: int, args) -> tuple[str, int, float]:
    data, test = load(corpus, args.sentences, args.data)
    config = SimulationConfig(learner="mv-perceptron", strategy="random", seed=seed, max_unlabeled=100)
    return corpus, seed, Simulation(config, data, test).full_data_f1()


def report(costs: dict, corpora: list[str], seeds: list[int], args) -> list[str]:
    lines = [
        "# Span questions against token questions (token-question mode)",
        "",
        f"`python benchmarks/span_questions.py --corpora {args.corpora} --seeds {args.seeds}`: mv-perceptron",
        f"(defaults), pools of the first {args.sentences:,} training sentences, step 100 × 1.25,",
        "`--max-unlabeled 100`, `--until-95`.  Cost to 95 % of full-data F1 as a fraction of random+full's",
        "(one step is ×1.25); per cell the seeds' min / **median** / max, then each seed's.",
        "",
        *machine_lines(),
        "",
        "| corpus | " + " | ".join(n for n in RUNS if n != "random+full") + " |",
        "| --- |" + " --- |" * (len(RUNS) - 1),
    ]
    for corpus in corpora:
        cells = []
        for name in RUNS:
            if name == "random+full":
                continue
            ratios = [
                costs[corpus, s, name] / costs[corpus, s, "random+full"]
                if costs.get((corpus, s, name)) and costs.get((corpus, s, "random+full"))
                else float("nan")
                for s in seeds
            ]
            mid = statistics.median(ratios)
            each = ", ".join(f"{r:.2f}" for r in ratios)
            cells.append(f"{min(ratios):.2f} / **{mid:.2f}** / {max(ratios):.2f} ({each})")
        lines.append(f"| {CORPORA[corpus][0]} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "random+full's cost to 95 %: "
        + "; ".join(
            f"{CORPORA[c][0]} " + ", ".join(f"{costs.get((c, s, 'random+full')) or 0:,.0f}" for s in seeds)
            for c in corpora
        ),
    ]
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    corpora, seeds = args.corpora.split(","), [int(s) for s in args.seeds.split(",")]
    with ProcessPoolExecutor(args.jobs) as pool:
        f1 = {(c, s): f for c, s, f in pool.map(full_f1, *zip(*[(c, s, args) for c in corpora for s in seeds]))}
        jobs = [(c, s, n, f1[c, s], args) for c in corpora for s in seeds for n in RUNS]
        costs = {(c, s, n): cost for c, s, n, cost in pool.map(run_one, *zip(*jobs))}
    write_keeping_analysis(args.out, report(costs, corpora, seeds, args))
    records = [{"corpus": c, "seed": s, "run": n, "cost_to_95": v} for (c, s, n), v in costs.items()]
    args.out.with_suffix(".json").write_text(json.dumps(records, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

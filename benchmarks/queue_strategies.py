"""Queue strategies: what J shows first, and what each order costs in ``tagtool simulate``.

On a 2,000-sentence project J went to sentences of 1-4 tokens first
("Energy", "Commodities :"), because the app's score was a mean over tokens.
This benchmark measures, on the issue's data (the first ``--sentences``
sentences of CoNLL-2002 ``esp.train``, test ``esp.testb``):

1. **The head of the queue.**  After a first step of whole random sentences
   (cost ``--first``), the learner is trained once; each guided strategy of
   :data:`tagtool.services.strategies.REGISTRY` then orders the sentences in the
   ``review`` mode (the app without token questions) and the ``tokens``
   mode (with them).  Reported: the mean length of the first 5 and 20
   sentences of each queue, the questions they hold (unlabeled tokens with
   ``q ≥`` the default threshold) and the first 5 sentences' text.
2. **The cost to 95 %.**  ``tagtool simulate`` (:func:`tagtool.services.simulate.loop.simulate`)
   with ``--strategies`` in ``--modes`` until 95 % of the full-data F1, per
   seed, with the settings of ``benchmarks/annotation_efficiency_learners.py`` (its
   learner settings, steps from 100 growing ×1.25, at most 100 unlabeled
   sentences per step).  The simulated annotator is not charged the cost of
   opening a sentence that ``gain`` ranks with, so this measures what the
   order itself costs in the simulator's cost model; ``sentences`` and
   ``tokens / sentence`` say how many sentences were opened for it.

Usage::

    python benchmarks/queue_strategies.py [--learners mv-perceptron,entropy-crf] [--seeds 0,1,2]
        [--strategies combined,gain] [--modes tokens,review] [--sentences 2000] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _results import machine_lines, write_keeping_analysis
from annotation_efficiency_learners import base_config, load

from tagtool.services import guidance, strategies
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.services.simulate.questions import ask_questions
from tagtool.services.strategies import Showing

RESULTS = Path(__file__).parent / "results"
OUT = RESULTS / "queue_strategies.md"
HEAD = (5, 20)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--learners", default="mv-perceptron,entropy-crf")
    p.add_argument("--seeds", default="0,1,2", help="seeds of the simulate runs (the queue head uses the first)")
    p.add_argument("--crf-seeds", default="0", help="seeds for the CRF learners (slower per step)")
    p.add_argument("--strategies", default="combined,gain")
    p.add_argument("--modes", default="tokens,review")
    p.add_argument("--sentences", type=int, default=2000)
    p.add_argument("--first", type=float, default=500.0, help="cost of the first step before the queue head")
    p.add_argument("--step", type=float, default=100.0)
    p.add_argument("--growth", type=float, default=1.25)
    p.add_argument("--max-unlabeled", type=int, default=100)
    p.add_argument("--budget", type=float, default=20000.0)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    args.representations = False  # annotation_efficiency_learners.base_config reads it
    return args


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# 1. the head of the queue


def queue_heads(learner: str, data, test, args) -> list[str]:
    base = base_config(learner, 0, args)
    sim = Simulation(SimulationConfig(**base, strategy="random", full_data_f1=0.5), data, test)
    status = sim.oracle.sentence_status()
    sim.annotate_step(None, status, args.first)  # whole random sentences, as simulate's first step
    model, _ = sim.train(None, None)
    status = sim.oracle.sentence_status()
    open_ids = np.flatnonzero(status < 2)
    lengths = np.diff(sim.pool.data.offsets)
    threshold = strategies.default_threshold(model.probabilistic)
    texts = [" ".join(s.tokens) for s in data.sentences]
    lines = [
        f"### {learner}: the queue after a first step of {int((status > 0).sum())} random sentences "
        f"(cost {sim.oracle.spent:,.0f})",
        "",
        "| strategy | mode | mean length, first 5 | first 20 | questions in the first 5 | first 20 | "
        "the first 5 sentences |",
        "|---|---|---|---|---|---|---|",
    ]
    names = ("none", "partial", "full")
    for entry in strategies.REGISTRY.values():
        if not entry.guided or strategies.unavailable(entry, learner, sim.learner_cls.two_view):
            continue
        for mode in ("review", "tokens"):
            showing = Showing(mode, threshold)
            questions = ask_questions(model, sim.pool, sim.oracle.allowed, open_ids, entry.name, False, showing=showing)
            order = guidance.queue(questions.sentence_scores, {int(i): names[status[i]] for i in sim.order})
            asked = np.add.reduceat(
                (questions.q >= threshold) & sim.oracle.allowed.all(axis=1), sim.pool.data.offsets[:-1]
            )
            cells = [f"{lengths[order[:k]].mean():.1f}" for k in HEAD] + [
                f"{asked[order[:k]].mean():.1f}" for k in HEAD
            ]
            first = " · ".join(f"“{_short(texts[i])}”" for i in order[:5])
            lines.append(f"| {entry.name} | {mode} | " + " | ".join(cells) + f" | {first} |")
    lines += [
        "",
        f"Whole pool: mean length {lengths.mean():.1f} tokens; "
        f"{int((lengths <= 4).sum())} of {len(lengths)} sentences have at most 4 tokens.",
        "",
    ]
    return lines


def _short(text: str, n: int = 40) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------
# 2. cost to 95 %


def simulate_costs(learner: str, seeds, data, test, args) -> list[str]:
    rows = []
    for seed in seeds:
        base = base_config(learner, seed, args)
        started = time.perf_counter()
        full_f1 = Simulation(SimulationConfig(**base, strategy="random"), data, test).full_data_f1()
        log(f"{learner} seed {seed}: full-data F1 {full_f1:.4f} ({time.perf_counter() - started:.0f} s)")
        for mode in args.modes.split(","):
            for name in args.strategies.split(","):
                config = SimulationConfig(
                    **base, strategy=name, mode=mode, full_data_f1=full_f1, budget=args.budget, until_95=True
                )
                started = time.perf_counter()
                sim = Simulation(config, data, test)
                result = sim.run()
                wall = time.perf_counter() - started
                shown = np.flatnonzero(sim.oracle.sentence_status() > 0)
                mean_len = float(np.diff(sim.pool.data.offsets)[shown].mean()) if len(shown) else 0.0
                c95 = result.cost_to_95
                log(f"  {name}+{mode}: cost_to_95 {c95}, {len(shown)} sentences ({wall:.0f} s)")
                rows.append(
                    (
                        learner,
                        seed,
                        mode,
                        name,
                        full_f1,
                        c95,
                        result.final_f1,
                        result.curve[-1].cost,
                        len(shown),
                        mean_len,
                        wall,
                    )
                )
    return rows


def with_sentences(cost: float | None, sentences: int) -> float | None:
    """The cost with :data:`tagtool.services.strategies.SENTENCE_COST` charged per sentence opened."""
    return None if cost is None else cost + strategies.SENTENCE_COST * sentences


def cost_table(rows) -> list[str]:
    lines = [
        "| learner | seed | mode | strategy | full-data F1 | cost_to_95 | ratio to combined | sentences | "
        f"tokens / sentence | cost_to_95 + {strategies.SENTENCE_COST:g} per sentence | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    reference = {(r[0], r[1], r[2]): r[5] for r in rows if r[3] == "combined"}
    for learner, seed, mode, name, full_f1, c95, f1, cost, n, mean_len, wall in rows:
        ref = reference.get((learner, seed, mode))
        ratio = f"{c95 / ref:.2f}" if c95 and ref else "–"
        cell = f"{c95:,.0f}" if c95 else f"never (F1 {f1:.4f} at {cost:,.0f})"
        charged = with_sentences(c95, n)
        lines.append(
            f"| {learner} | {seed} | {mode} | {name} | {full_f1:.4f} | {cell} | {ratio} | {n:,} | "
            f"{mean_len:.1f} | {'–' if charged is None else f'{charged:,.0f}'} | {wall:.0f} |"
        )
    return lines


def medians(rows) -> list[str]:
    lines = [
        "| learner | mode | strategy | median cost_to_95 | median sentences opened | "
        f"median cost_to_95 + {strategies.SENTENCE_COST:g} per sentence | seeds reaching 95 % |",
        "|---|---|---|---|---|---|---|",
    ]
    keys = sorted({(r[0], r[2], r[3]) for r in rows})
    for learner, mode, name in keys:
        runs = [r for r in rows if (r[0], r[2], r[3]) == (learner, mode, name)]
        reached = [r for r in runs if r[5]]
        if len(reached) == len(runs):
            cells = (
                f"{np.median([r[5] for r in runs]):,.0f} | {np.median([r[8] for r in runs]):,.0f} | "
                f"{np.median([with_sentences(r[5], r[8]) for r in runs]):,.0f}"
            )
        else:
            cells = "– | – | –"
        lines.append(f"| {learner} | {mode} | {name} | {cells} | {len(reached)} of {len(runs)} |")
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    data, test = load("ner", args.sentences)
    learners = args.learners.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    crf_seeds = [int(s) for s in args.crf_seeds.split(",")]
    lines = [
        "# Queue strategies: what J shows first, and what each order costs",
        "",
        f"Command: `python benchmarks/queue_strategies.py {' '.join(args.argv)}`".rstrip() + "  ",
        *machine_lines(),
        "",
        f"Data: the first {args.sentences:,} sentences of CoNLL-2002 `esp.train`; test `esp.testb`. "
        "Learner settings: `benchmarks/annotation_efficiency_learners.py`. Costs: full label 1, skipped or accepted "
        f"token 0.1; `gain` ranks with a cost of {strategies.SENTENCE_COST:g} per sentence opened, which "
        "the simulated annotator is not charged.",
        "",
        "## 1. The head of the queue",
        "",
    ]
    for learner in learners:
        lines += queue_heads(learner, data, test, args)
    lines += ["## 2. Cost to 95 % of the full-data F1 (`tagtool simulate`)", ""]
    rows = []
    for learner in learners:
        rows += simulate_costs(learner, crf_seeds if "crf" in learner else seeds, data, test, args)
    lines += cost_table(rows) + ["", "Medians over the seeds:", ""] + medians(rows)
    lines += ["", f"Total wall time: {time.perf_counter() - started:.0f} s on the shared 2-core machine."]
    write_keeping_analysis(Path(args.out), lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The app delivers the simulated savings: a scripted session in the real window against ``tagtool simulate``.

An oracle annotator who knows the gold labels drives the real
:class:`~tagtool.gui.main_window.MainWindow` (offscreen) by key presses
alone (:class:`tools.scripted_annotator.ScriptedAnnotator`: J, Tab, the label
keys, the arrow keys, Enter, Ctrl+T) on a project made of the first
``--sentences`` sentences of CoNLL-2002 Spanish ``esp.train``, retraining
(Train now, the app's training path, warm-started) at the cost boundaries of
the simulator's steps (``--step`` growing ×``--growth``) and scoring each
model on the first ``--test-sentences`` sentences of ``esp.testb`` (0: all).
The same learner, strategy, mode and seed then run in
:func:`tagtool.services.simulate.loop.simulate`.  The app's cost is read from the
project's action log and priced with the simulator's costs
(:func:`tagtool.services.annotation_costs.logged_cost`).

Both run until 95 % of the full-data F1 (the learner trained on the whole
slice, fully labeled: the simulator's ``full_data_f1``) or ``--budget``.
The simulation gets every unlabeled sentence of the slice
(``max_unlabeled`` = the slice), as the app trains on all of its project's
sentences.

Writes the table, the command and the machine to ``--out`` (default
``benchmarks/results/app_vs_simulate.md``) and every curve beside it as
JSON (same name, ``.json``).

Usage::

    python benchmarks/app_vs_simulate.py [--strategies random,uncertainty,gain] [--modes tokens,review]
        [--sentences 1000] [--test-sentences 0] [--learner mv-perceptron] [--seed 0]
        [--step 100] [--growth 1.25] [--budget 20000] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tools/ (the app's drivers)

import numpy as np
from _results import load_average, machine_lines, write_keeping_analysis
from PySide6.QtCore import QSettings

from tagtool.core import Corpus
from tagtool.core.chunks import F1Scorer
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.services.simulate.config import TARGET_SHARE, Costs, SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tools.scripted_annotator import ScriptedAnnotator, StepPoint

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "conll2002-es"
RESULTS = Path(__file__).parent / "results"
OUT = RESULTS / "app_vs_simulate.md"
#: Costs at which the table compares the F1 of the two curves.
AT_COSTS = (500, 1000, 2000)


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=str(SHARED / "esp.train"))
    p.add_argument("--test", default=str(SHARED / "esp.testb"))
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--test-sentences", type=int, default=0, help="first N sentences of the test file (0: all)")
    p.add_argument("--learner", default="mv-perceptron")
    p.add_argument("--strategies", default="random,uncertainty,gain")
    p.add_argument("--modes", default="tokens,review")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--questions", choices=("tokens", "spans"), default="tokens", help="tokens mode: what is asked")
    p.add_argument("--step", type=float, default=100.0)
    p.add_argument("--growth", type=float, default=1.25)
    p.add_argument("--budget", type=float, default=20000.0)
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    return args


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load(args) -> tuple[Corpus, Corpus]:
    data, test = read_corpus(args.data), read_corpus(args.test)
    pool = Corpus.from_sentences(data.sentences[: args.sentences], labels=data.labels)
    if args.test_sentences > 0:
        test = Corpus.from_sentences(test.sentences[: args.test_sentences], labels=test.labels)
    return pool, test


class TestScorer:
    """Span F1 of an app tagger on the test sentences, as the simulator scores its models (:class:`F1Scorer`)."""

    def __init__(self, test: Corpus):
        self.sentences = [s.unlabeled() for s in test]
        self.gold = [next(iter(a)) for s in test for a in s.annotations]
        self._scorer = None

    def __call__(self, tagger) -> float:
        snapshot, predicted = tagger.predict(self.sentences)
        if self._scorer is None or self._scorer[0] != tuple(tagger.labels):
            gold = np.array([tagger.labels.index(name) for name in self.gold], dtype=np.int64)
            self._scorer = (tuple(tagger.labels), F1Scorer(tagger.labels, gold, snapshot.offsets))
        return self._scorer[1].f1(predicted)


def base_config(args) -> dict:
    return dict(
        learner=args.learner,
        step=args.step,
        growth=args.growth,
        seed=args.seed,
        costs=Costs(),
        max_unlabeled=args.sentences,
        budget=args.budget,
        until_95=True,
        questions=args.questions,
    )


def app_session(
    pool: Corpus, test_scorer: TestScorer, strategy: str, mode: str, full_f1: float, args, folder: Path
) -> tuple[list[StepPoint], float]:
    """One scripted session on a new project of ``pool``'s sentences (unlabeled); its points and seconds."""
    path = folder / f"{strategy}-{mode}.tagproj"
    Project.create(
        path, Corpus.from_sentences([s.unlabeled() for s in pool], labels=pool.labels), name=f"{strategy}-{mode}"
    ).close()
    settings = QSettings(str(folder / f"{strategy}-{mode}.ini"), QSettings.IniFormat)
    settings.setValue("queue_seed", args.seed)
    application()
    window = MainWindow(settings)
    if not window.open_project(path):
        raise RuntimeError(f"could not open {path}")
    window.show()
    ids = window.session.sentence_ids
    gold = {sid: [next(iter(a)) for a in s.annotations] for sid, s in zip(ids, pool)}
    annotator = ScriptedAnnotator(window, gold, Costs(), mode, strategy, spans=args.questions == "spans")
    annotator.prepare(args.learner)
    started = time.perf_counter()
    target = TARGET_SHARE * full_f1
    try:
        points = annotator.run(
            args.step,
            args.growth,
            args.budget,
            score=test_scorer,
            stop=lambda p: p.f1 >= target,
            report=lambda p: log(
                f"    app cost {p.cost:,.1f} F1 {p.f1:.4f} ({p.train_seconds:.1f} s training, {p.keys} keys)"
            ),
        )
    finally:
        window.close()
        window.deleteLater()
    return points, time.perf_counter() - started


def simulate_run(pool: Corpus, test: Corpus, strategy: str, mode: str, full_f1: float, args):
    started = time.perf_counter()
    sim = Simulation(
        SimulationConfig(**base_config(args), strategy=strategy, mode=mode, full_data_f1=full_f1), pool, test
    )
    result = sim.run()
    return result, time.perf_counter() - started


# ---------------------------------------------------------------------------
# the table


def cost_to(points, target: float) -> float | None:
    return next((p.cost for p in points if p.f1 >= target), None)


def f1_at(points, cost: float) -> float | None:
    """F1 of the last point whose cost is at most ``cost`` (the model in use at that cost)."""
    before = [p for p in points if p.cost <= cost]
    return before[-1].f1 if before else None


def step_index(points, cost: float | None) -> int | None:
    return None if cost is None else next(i for i, p in enumerate(points) if p.cost == cost)


def _num(x, fmt="{:,.0f}") -> str:
    return "–" if x is None else fmt.format(x)


def table(rows, full_f1: float, baseline: float | None) -> list[str]:
    target = TARGET_SHARE * full_f1
    head = ["strategy", "mode", "simulate cost_to_95", "app cost_to_95", "steps apart", "app / random+full"]
    head += [f"F1 at {c:,} sim / app" for c in AT_COSTS]
    head += [
        "labeled sim / app",
        "accepted sim / app",
        "skipped sim / app",
        "sentences sim / app",
        "steps at the same cost",
        "largest F1 difference",
        "keys",
        "app s (training)",
        "sim s",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        sim_curve, app = r["simulate"].curve, r["app"]
        c_sim, c_app = cost_to(sim_curve, target), cost_to(app, target)
        i_sim, i_app = step_index(sim_curve, c_sim), step_index(app, c_app)
        apart = "–" if i_sim is None or i_app is None else f"{i_app - i_sim:+d}"
        ratio = None if c_app is None or not baseline else c_app / baseline
        cells = [r["strategy"], r["mode"], _num(c_sim, "{:,.1f}"), _num(c_app, "{:,.1f}"), apart, _num(ratio, "{:.2f}")]
        cells += [f"{_num(f1_at(sim_curve, c), '{:.4f}')} / {_num(f1_at(app, c), '{:.4f}')}" for c in AT_COSTS]
        s_last, a_last = sim_curve[-1], app[-1]
        cells += [
            f"{s_last.tokens_labeled:,} / {a_last.logged['full'] + a_last.logged['accept']:,}",
            f"{s_last.accepted:,} / {a_last.logged['accept']:,}",
            f"{_skipped(r['simulate']):,} / {a_last.logged['skip']:,}",
            f"{s_last.sentences:,} / {a_last.sentences:,}",
            _same_costs(sim_curve, app),
            _largest_f1_difference(sim_curve, app),
            f"{a_last.keys:,}",
            f"{r['app_seconds']:.0f} ({sum(p.train_seconds for p in app):.0f})",
            f"{r['sim_seconds']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _skipped(result) -> int:
    """Tokens the simulated annotator read and left unlabeled: its cost minus the rest, over the skip cost."""
    last, c = result.curve[-1], result.costs
    rest = (
        c.full * (last.tokens_labeled - last.accepted - last.candidate_sets)
        + c.accepted * last.accepted
        + c.partial * last.candidate_sets
    )
    return round((last.cost - rest) / c.skip)


def _same_costs(sim_curve, app) -> str:
    n = min(len(sim_curve), len(app))
    same = sum(abs(s.cost - a.cost) < 1e-6 for s, a in zip(sim_curve[:n], app[:n]))
    return f"{same} of {max(len(sim_curve), len(app))}"


def _largest_f1_difference(sim_curve, app) -> str:
    """Largest |F1 difference| between the two curves' models at the same step."""
    n = min(len(sim_curve), len(app))
    return f"{max((abs(s.f1 - a.f1) for s, a in zip(sim_curve[:n], app[:n])), default=0.0):.4f}"


def curves_table(rows) -> list[str]:
    lines = []
    for r in rows:
        lines += [
            f"#### {r['strategy']} + {r['mode']}",
            "",
            "| step | sim cost | sim F1 | app cost | app F1 |",
            "|---|---|---|---|---|",
        ]
        sim_curve, app = r["simulate"].curve, r["app"]
        for i in range(max(len(sim_curve), len(app))):
            s = sim_curve[i] if i < len(sim_curve) else None
            a = app[i] if i < len(app) else None
            lines.append(
                f"| {i + 1} | {_num(s and s.cost, '{:,.1f}')} | {_num(s and s.f1, '{:.4f}')} | "
                f"{_num(a and a.cost, '{:,.1f}')} | {_num(a and a.f1, '{:.4f}')} |"
            )
        lines.append("")
    return lines


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    pool, test = load(args)
    log(
        f"{len(pool)} sentences, {sum(len(s.tokens) for s in pool):,} tokens; test {len(test)} sentences; "
        f"load {load_average()}"
    )
    full_f1 = Simulation(SimulationConfig(**base_config(args), strategy="random"), pool, test).full_data_f1()
    log(f"full-data F1 {full_f1:.4f} ({time.perf_counter() - started:.0f} s)")
    baseline, seconds = simulate_run(pool, test, "random", "full", full_f1, args)
    log(f"random + full (simulate): cost_to_95 {baseline.cost_to_95} ({seconds:.0f} s)")
    test_scorer = TestScorer(test)
    rows = []
    with tempfile.TemporaryDirectory(prefix="app_vs_simulate_", dir=_fast_folder()) as tmp:
        for strategy in args.strategies.split(","):
            for mode in args.modes.split(","):
                log(f"{strategy} + {mode}")
                result, sim_seconds = simulate_run(pool, test, strategy, mode, full_f1, args)
                log(f"  simulate: cost_to_95 {result.cost_to_95} ({sim_seconds:.0f} s)")
                app, app_seconds = app_session(pool, test_scorer, strategy, mode, full_f1, args, Path(tmp))
                log(f"  app: cost_to_95 {cost_to(app, TARGET_SHARE * full_f1)} ({app_seconds:.0f} s)")
                rows.append(
                    dict(
                        strategy=strategy,
                        mode=mode,
                        simulate=result,
                        app=app,
                        sim_seconds=sim_seconds,
                        app_seconds=app_seconds,
                    )
                )
    total = time.perf_counter() - started
    write(args, pool, test, full_f1, rows, total, baseline.cost_to_95)
    return 0


def _fast_folder() -> str | None:
    """/dev/shm when there is one: the project's synchronous writes then cost no disk flush (not what is measured)."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else None


def write(args, pool, test, full_f1, rows, total, baseline: float | None) -> None:
    out = Path(args.out)
    lines = [
        "# The app delivers the simulated savings: a scripted session against `tagtool simulate`",
        "",
        f"Command: `python benchmarks/app_vs_simulate.py {' '.join(args.argv)}`  ",
        *machine_lines(),
        f"- load average at the end: {load_average()}",
        "",
        f"Data: the first {len(pool):,} sentences of CoNLL-2002 `esp.train` "
        f"({sum(len(s.tokens) for s in pool):,} tokens) "
        f"as a project; test: {'all' if args.test_sentences <= 0 else 'the first'} {len(test):,} sentences of "
        f"`esp.testb`. Learner {args.learner} (the app's default settings), seed {args.seed}; steps from "
        f"{args.step:g} growing ×{args.growth:g}, until 95 % of the full-data F1 ({100 * full_f1:.2f} %, target "
        f"{100 * TARGET_SHARE * full_f1:.2f} %) or a cost of {args.budget:,.0f}. Costs: full label 1, skipped or "
        "accepted token 0.1. The app's cost is its action log priced with these costs.",
        "",
        "Columns: `cost_to_95` of each; `steps apart`: the app's step that reached it minus the simulator's "
        "(the goal: within one); F1 of the model in use at a few costs; at the end, tokens labeled (the "
        "simulator's tokens with an annotation / the log's full labels and accepted suggestions), accepted "
        "suggestions, tokens read and left unlabeled (skipped), sentences with an annotation; how many steps "
        "ended at the same cost in both, and the largest difference between the F1 of the two models of a step; "
        "key presses of the session; wall seconds (of the app's, its trainings). `app / random+full`: the app's "
        f"cost_to_95 over the simulated cost_to_95 of labeling whole sentences in random order "
        f"(`random` + `full`, {_num(baseline, '{:,.1f}')}): what the app saves.",
        "",
        *table(rows, full_f1, baseline),
        "",
        f"Total wall time: {total:.0f} s.",
        "",
        "### The curves, step by step",
        "",
        *curves_table(rows),
    ]
    write_keeping_analysis(out, lines)
    record = {
        "full_data_f1": full_f1,
        "random_full_cost_to_95": baseline,
        "runs": [
            {
                "strategy": r["strategy"],
                "mode": r["mode"],
                "simulate": r["simulate"].to_dict(),
                "app": [dict(p.__dict__, logged=dict(p.logged)) for p in r["app"]],
                "app_seconds": r["app_seconds"],
                "sim_seconds": r["sim_seconds"],
            }
            for r in rows
        ],
    }
    out.with_suffix(".json").write_text(json.dumps(record, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

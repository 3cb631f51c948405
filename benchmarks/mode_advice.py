"""Does the mode a project's own labels propose match the mode that is cheaper on the whole corpus?

:func:`tagtool.services.mode_advice.advise` — what the app's status bar and
``tagtool mode`` propose — run on the first ``N`` sentences (``--sizes``) of
each corpus's 2,000-sentence pool, as a project that has labeled that many,
at the default costs, for seeds 0 / 1 / 2 (the sample, split and simulated
order).  The reference is ``benchmarks/results/annotation_efficiency.json``
(``--reference``): per corpus, the mode whose median cost to 95 % of the
full-pool F1 is lower beyond one step, else the suite's mode for the kind of
labels (the proposal's own rule, :func:`tagtool.services.mode_advice.cheaper_mode`).
Prints and writes the table to ``benchmarks/results/mode_advice.md``: the
proposals, their agreement with the reference, how many proposals would cost
more than one step over the whole pool's cheaper mode, and the seconds each
took (two simulations).

Usage::

    nice -n 10 python benchmarks/mode_advice.py [--corpora ...] [--sizes 100,300] [--seeds 0,1,2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import machine_lines, write_keeping_analysis
from annotation_efficiency import CORPORA, load, median, ratio

from tagtool.services import mode_advice

OUT = Path(__file__).resolve().parent / "results" / "mode_advice.md"
REFERENCE = Path(__file__).resolve().parent / "results" / "annotation_efficiency.json"


def reference_modes(path: Path) -> dict[str, tuple[str, float | None, float | None]]:
    """Per corpus: the cheaper mode on the whole pool by the proposal's rule, and the two median ratios."""
    saved = json.loads(path.read_text(encoding="utf-8"))
    out = {}
    for key in CORPORA:
        units = [u for u in saved["units"] if u["corpus"] == key]
        if not units:
            continue
        tokens = median([ratio(u["gain+tokens"], u["random+full"]) for u in units])
        review = median([ratio(u["gain+review"], u["random+full"]) for u in units])
        out[key] = (mode_advice.cheaper_mode(review, tokens, CORPORA[key][4] != "pos"), review, tokens)
    return out


def costs_a_step_more(mode: str, review: float | None, tokens: float | None) -> bool:
    """Whether working in ``mode`` cost the whole pool more than one step over the other mode."""
    inf = float("inf")
    mine, other = (review, tokens) if mode == "review" else (tokens, review)
    return (inf if mine is None else mine) > mode_advice.STEP_GROWTH * (inf if other is None else other)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--corpora", default=",".join(CORPORA))
    p.add_argument("--sizes", default="100,300")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--reference", default=str(REFERENCE))
    p.add_argument("--out", default=str(OUT))
    args = p.parse_args(argv)
    reference = reference_modes(Path(args.reference))
    rows, agree, total, dear = [], 0, 0, 0
    for key in [k for k in args.corpora.split(",") if k in reference]:
        pool, _ = load(key, 2000, 1)
        want, review, tokens = reference[key]
        for size in [int(n) for n in args.sizes.split(",")]:
            picks, seconds, shares = [], [], []
            for seed in [int(s) for s in args.seeds.split(",")]:
                started = time.perf_counter()
                advice = mode_advice.advise(list(pool.sentences)[:size], seed=seed)
                seconds.append(time.perf_counter() - started)
                picks.append(advice.mode)
                shares.append(advice.cost_share)
                agree += advice.mode == want
                dear += costs_a_step_more(advice.mode, review, tokens)
                total += 1
                print(f"{key} N={size} seed {seed}: {advice.mode} {advice.cost_share}", file=sys.stderr, flush=True)
            rows.append(_row(CORPORA[key][0], size, want, review, tokens, picks, shares, seconds))
    lines = [
        "# The mode a project's own labels propose, against the whole corpus",
        "",
        f"Command: `python benchmarks/mode_advice.py {' '.join(argv if argv is not None else sys.argv[1:])}`",
        "",
        *machine_lines(),
        "",
        "Protocol: the module doc of `benchmarks/mode_advice.py` (the app's learner and default costs; "
        f"the proposal's rule: the mode cheaper by more than ×{mode_advice.STEP_GROWTH:g}, else token questions "
        "for spans and whole sentences for word classes).",
        "",
        "| corpus | labeled sentences | whole pool: review / tokens (median ratio) → cheaper | proposals (seeds) | "
        "simulated review / tokens share (per seed) | seconds (median) |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Agreement with the whole pool's cheaper mode: {agree} of {total}. Proposals whose mode cost the whole "
        f"pool more than one step (×{mode_advice.STEP_GROWTH:g}) over the other: {dear} of {total}.",
    ]
    print("\n".join(lines))
    write_keeping_analysis(Path(args.out), lines)


def _row(name, size, want, review, tokens, picks, shares, seconds) -> str:
    cell = lambda v: "never" if v is None else f"{v:.2f}"  # noqa: E731
    simulated = "; ".join(f"{cell(s['review'])} / {cell(s['tokens'])}" for s in shares)
    return (
        f"| {name} | {size} | {cell(review)} / {cell(tokens)} → {want} | {', '.join(picks)} | {simulated} | "
        f"{statistics.median(seconds):.0f} |"
    )


if __name__ == "__main__":
    main()

"""The result file of benchmarks/team_noise.py: noise model, measured agreement, F1 tables, paired comparisons."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from _results import machine_lines, write_keeping_analysis
from _team_noise_sim import BASE_RATES, CONLL_CONFUSION, CONLL_TYPE_FACTOR, PROFILES

ORDER = ("one", "majority", "drop", "candidates", "majority+candidates", "candidates-no-O", "gold")
TITLES = {
    "one": "(a) one annotator, k·N",
    "majority": "(b) majority / first",
    "drop": "(c) drop disagreements",
    "candidates": "(d) candidate sets",
    "majority+candidates": "(e) majority, else set",
    "candidates-no-O": "(f) sets without O",
    "gold": "gold, N (reference)",
}
SHORT = {
    "one": "(a)",
    "majority": "(b)",
    "drop": "(c)",
    "candidates": "(d)",
    "majority+candidates": "(e)",
    "candidates-no-O": "(f)",
    "gold": "gold",
}
#: Paired differences shown: (d) against (b) and (c) (the issue's goal), then the other questions.
PAIRS = (
    ("candidates", "majority"),
    ("candidates", "drop"),
    ("majority+candidates", "majority"),
    ("candidates-no-O", "majority"),
    ("one", "majority"),
    ("gold", "majority"),
)


def mean_se(values) -> tuple[float, float, int]:
    values = np.asarray(list(values), dtype=float)
    if len(values) == 0:
        return float("nan"), float("nan"), 0
    se = float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")
    return float(values.mean()), se, len(values)


def fmt(values, digits: int = 1) -> str:
    mean, se, n = mean_se(values)
    if n == 0:
        return ""
    return f"{mean:.{digits}f} ± {se:.{digits}f}" if n > 1 else f"{mean:.{digits}f}"


def pr(records) -> str:
    """Mean precision / recall of some cells, or nothing without any."""
    records = list(records)
    if not records:
        return ""
    return f"{np.mean([r['precision'] for r in records]):.1f} / {np.mean([r['recall'] for r in records]):.1f}"


def parse(cells: dict) -> tuple[dict, dict, dict, list]:
    """``(results, diagnoses, draws, runs)`` from the cache: ``results[setting][learner][condition][seed]``
    (``diagnoses`` alike), ``draws[setting][seed]``.

    A setting is ``(corpus, k, N, U, scale, pool)``; cells of other noise
    code, learner defaults or learner code than the present ones are left
    out (the keys carry their hashes).
    """
    from _robustness_cells import code_hash, defaults_hash
    from team_noise import SIM_HASH

    results: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    diagnoses: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    draws: dict = defaultdict(dict)
    runs = []
    for key, record in cells.items():
        parts = key.split("|")
        target = results
        if parts[0] == "diag":
            parts, target = parts[1:], diagnoses
        if parts[0] == "run":
            runs.append(record)
            continue
        if parts[0] == "draw":
            _, corpus, k, n, u, seed, scale, pool, sim = parts
            if sim == f"sim={SIM_HASH}":
                draws[(corpus, k, n, u, scale, pool)][seed] = record
            continue
        corpus, k, n, u, seed, scale, pool, learner, condition, sim, params, code = parts
        if (sim, params, code) != (f"sim={SIM_HASH}", f"params={defaults_hash(learner)}", f"code={code_hash(learner)}"):
            continue
        target[(corpus, k, n, u, scale, pool)][learner][condition][seed] = record
    return results, diagnoses, draws, runs


def noise_model_lines() -> list[str]:
    lines = [
        "## Noise model (stated rates)",
        "",
        "Per gold entity and annotator: P(missed), P(wrong type) (× the type's factor; the same wrong "
        "type for every occurrence of a surface string), P(one boundary moved by one token), and the "
        "share of boundary moves that widen the span (the rest shrink it).",
        "",
        "| corpus | annotator | missed | wrong type | boundary | widen share | bias |",
        "|---|---|---|---|---|---|---|",
    ]
    for corpus, (miss, type_error, boundary) in BASE_RATES.items():
        for name, (m_miss, m_type, m_bound), widen, org_to_loc in PROFILES:
            bias = f"ORG→LOC weight +{org_to_loc}" if org_to_loc and type_error else ""
            lines.append(
                f"| {corpus} | {name} | {100 * m_miss * miss:.1f} % | {100 * m_type * type_error:.1f} % "
                f"| {100 * m_bound * boundary:.1f} % | {widen:.2f} | {bias} |"
            )
    types = list(CONLL_CONFUSION)
    lines += [
        "",
        "CoNLL-2002 type confusions given a type error (row: true type, column: the type given; "
        f"type factors {', '.join(f'{t} ×{f}' for t, f in CONLL_TYPE_FACTOR.items())}):",
        "",
        "| true \\ given | " + " | ".join(types) + " |",
        "|---" * (len(types) + 1) + "|",
    ]
    for gold in types:
        row = CONLL_CONFUSION[gold]
        lines.append(f"| {gold} | " + " | ".join(f"{row[t]:.2f}" if t in row else "–" for t in types) + " |")
    return lines


def measured_lines(draws: dict) -> list[str]:
    lines = [
        "## Measured noise on the team's N sentences (mean ± SE over seeds)",
        "",
        "Entity F1 of each annotator against gold and between annotators (seqeval), the share of "
        "gold entities each annotator got exactly / with a wrong type / wrong boundary / missed, and per "
        "rule the share of tokens with a wrong full label, a candidate set (and one holding the truth) "
        "or no label.",
        "",
    ]
    for setting, by_seed in sorted(draws.items()):
        corpus, k = setting[0], setting[1]
        records = list(by_seed.values())
        lines += [
            f"**{corpus}, {k}, {setting[2]}, {setting[4]}** ({len(records)} seeds)",
            "",
            "| annotator | F1 vs gold | exact | wrong type | boundary | type+boundary | missed |",
            "|---|---|---|---|---|---|---|",
        ]
        for i, name in enumerate(records[0]["annotators"]):
            shares = defaultdict(list)
            for r in records:
                errors = r["errors"][i]
                total = sum(errors[c] for c in ("exact", "type", "boundary", "both", "missed"))
                for c in ("exact", "type", "boundary", "both", "missed"):
                    shares[c].append(100.0 * errors[c] / total)
            lines.append(
                f"| {name} | {fmt(r['vs_gold'][i] for r in records)} | "
                + " | ".join(fmt(shares[c], 2) + " %" for c in ("exact", "type", "boundary", "both", "missed"))
                + " |"
            )
        pairs = ", ".join(f"{p}: {fmt(r['pairs'][p] for r in records)}" for p in records[0]["pairs"])
        lines += [
            "",
            f"Inter-annotator entity F1: {pairs}.",
            "",
            "| rule | wrong full label | candidate set | set holds truth | no label |",
            "|---|---|---|---|---|",
        ]
        for rule in [c for c in ORDER if c in records[0]["labels"]]:
            stats = [r["labels"][rule] for r in records]
            lines.append(
                f"| {TITLES[rule]} | "
                + " | ".join(
                    fmt((s[c] for s in stats), 2) + " %" for c in ("wrong_full", "sets", "sets_with_truth", "no_label")
                )
                + " |"
            )
        tokens = fmt((r["tokens_team"] for r in records), 0), fmt((r["tokens_one"] for r in records), 0)
        lines += ["", f"Tokens: the team's N sentences {tokens[0]}; (a)'s k·N sentences {tokens[1]}.", ""]
    return lines


def f1_lines(results: dict) -> list[str]:
    lines = ["## Entity F1 (%), mean ± SE over seeds", ""]
    for setting in sorted(results):
        corpus, k, n, u, scale, _ = setting
        by_learner = results[setting]
        present = [c for c in ORDER if any(c in by_learner[lr] for lr in by_learner)]
        lines += [
            f"**{corpus}, {k}, {n}, {u}, noise {scale}**",
            "",
            "| learner | " + " | ".join(TITLES[c] for c in present) + " | seeds |",
            "|---" * (len(present) + 2) + "|",
        ]
        for learner, by_condition in sorted(by_learner.items()):
            seeds = max(len(v) for v in by_condition.values())
            lines.append(
                f"| {learner} | "
                + " | ".join(fmt(r["f1"] for r in by_condition.get(c, {}).values()) for c in present)
                + f" | {seeds} |"
            )
        lines += [
            "",
            "Entity precision / recall (%, means):",
            "",
            "| learner | " + " | ".join(SHORT[c] for c in present) + " |",
            "|---" * (len(present) + 1) + "|",
        ]
        for learner, by_condition in sorted(by_learner.items()):
            lines.append(f"| {learner} | " + " | ".join(pr(by_condition.get(c, {}).values()) for c in present) + " |")
        lines += [
            "",
            "Paired differences in entity F1 (points, same seeds; mean ± SE, wins of the first / n):",
            "",
            "| learner | " + " | ".join(f"{SHORT[a]} − {SHORT[b]}" for a, b in PAIRS) + " |",
            "|---" * (len(PAIRS) + 1) + "|",
        ]
        for learner, by_condition in sorted(by_learner.items()):
            cells = []
            for a, b in PAIRS:
                common = sorted(set(by_condition.get(a, {})) & set(by_condition.get(b, {})))
                diffs = [by_condition[a][s]["f1"] - by_condition[b][s]["f1"] for s in common]
                cells.append(f"{fmt(diffs)} ({sum(d > 0 for d in diffs)}/{len(diffs)})" if diffs else "")
            lines.append(f"| {learner} | " + " | ".join(cells) + " |")
        seconds = [r["train_seconds"] for by_c in by_learner.values() for c in by_c.values() for r in c.values()]
        lines += ["", f"Training time per cell: median {np.median(seconds):.0f} s, max {max(seconds):.0f} s.", ""]
    return lines


def diagnosis_lines(diagnoses: dict) -> list[str]:
    if not diagnoses:
        return []
    lines = [
        "## How the learners resolve the candidate sets (`--diagnose`)",
        "",
        "Trained on a condition's labels, the model's constrained Viterbi path on its own training "
        "sentences (inside every allowed set), at the tokens with a candidate set: the share resolved to the "
        "true label, and of the sets whose true label is an entity label, the share resolved to `O`; "
        "*free*: the unconstrained prediction there.  Mean ± SE over seeds.",
        "",
        "| corpus, k, noise | learner | rule | sets per draw | resolved to truth | entity → O | free: truth |",
        "|---|---|---|---|---|---|---|",
    ]
    for setting in sorted(diagnoses):
        corpus, k, _, _, scale, _ = setting
        for learner, by_condition in sorted(diagnoses[setting].items()):
            for condition in [c for c in ORDER if c in by_condition]:
                records = list(by_condition[condition].values())
                lines.append(
                    f"| {corpus}, {k}, {scale} | {learner} | {SHORT[condition]} | "
                    f"{fmt((r['sets'] for r in records), 0)} | "
                    f"{fmt(r['resolved_right'] for r in records)} % "
                    f"| {fmt(r['entity_to_o'] for r in records)} % | {fmt(r['free_right'] for r in records)} % |"
                )
    return lines + [""]


def write_report(cache, out: Path) -> None:
    """Write the result file from the cached cells (the analysis below the marker is kept)."""
    results, diagnoses, draws, runs = parse(cache.cells)
    commands = sorted({"python benchmarks/team_noise.py " + " ".join(r["argv"]) for r in runs})
    minutes = sum(r.get("minutes", 0.0) for r in runs)
    lines = [
        "# Teams of simulated annotators: candidate sets from disagreement",
        "",
        "Commands (cells cached in `benchmarks/results/team_noise_cells.json`; `--report-only` rewrites this file):",
        "",
        *[f"    {c}" for c in commands],
        "",
        f"Wall time of the runs: {minutes:.0f} min in all (runs side by side counted separately).",
        "",
        *machine_lines(" shared with other jobs: seconds are noisy"),
        "",
        "Protocol: `benchmarks/team_noise.py` docstring.  Conditions: (a) the first annotator alone labels "
        "k·N sentences; (b)–(f) k annotators label the same N sentences (the first N of (a)'s), so all cost "
        "k·N annotator-sentences; the gold row (the true labels of the N sentences) is a reference, "
        "not a team's output.  Test: esp.testa / NCBI devel, all sentences.",
        "",
        *noise_model_lines(),
        "",
        *measured_lines(draws),
        *f1_lines(results),
        *diagnosis_lines(diagnoses),
    ]
    write_keeping_analysis(out, lines)

"""benchmarks/results/robustness.md from the cached cells of benchmarks/robustness.py."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from _results import machine_lines, write_keeping_analysis
from _robustness_cells import ALSO, CORPORA, TWINS, CellKey

from tagtool.learn import get_learner
from tagtool.learn.unlabeled import FIT_TOLERANCE, guard_reasons

#: A repeat collapsed when one label takes this share of the predicted test tokens, or a span task's
#: entity F1 (%) is below COLLAPSE_F1: the majority label for (practically) everything.
COLLAPSE_SHARE = 0.99
COLLAPSE_F1 = 1.0
#: Near-collapse: one label takes this share of the predicted tokens and this much more than its gold share.
NEAR_SHARE = 0.95
NEAR_EXCESS = 0.02


def collapsed(record: dict) -> bool:
    """One label (practically) everywhere, or no entity found."""
    if record["top_share_pred"] >= COLLAPSE_SHARE and record["top_share_pred"] > record["top_share_gold"]:
        return True
    return bool(record["span"]) and record["f1"] < COLLAPSE_F1


def near_collapse(record: dict) -> bool:
    return record["top_share_pred"] >= NEAR_SHARE and record["top_share_pred"] - record["top_share_gold"] >= NEAR_EXCESS


def se(values) -> float:
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0


def _setting(labeled: int) -> str:
    return "all" if labeled == 0 else str(labeled)


def group(cells: dict) -> dict:
    """``{(corpus, learner, features, L, U): {repeat: record}}``, guarded learners as :func:`effective`."""
    out: dict = defaultdict(dict)
    for key, record in cells.items():
        k = CellKey.parse(key)
        if k.current:  # cells of former defaults are kept in the cache but not shown
            out[(k.corpus, k.learner, k.features, k.labeled, k.unlabeled)][k.repeat] = effective(record, k.learner)
    return out


def effective(record: dict, learner: str) -> dict:
    """A guarded learner's cell as the guard of this checkout decides it.

    A cell holds the scores of the returned model and of the one the guard
    compared it with, and the guard's numbers; the decision is recomputed
    with :func:`tagtool.learn.unlabeled.guard_reasons` (its current
    tolerances), so the table is what the learner at its defaults returns
    now — the same fits, whatever tolerances the cell was run with.
    """
    guard = record.get("guard") or {}
    check = guard.get("check")
    if check is None or "other" not in record:
        return record
    semi = record["other"] if guard["guard_fired"] else record
    sup = record if guard["guard_fired"] else record["other"]
    cls = get_learner(learner)
    fired = bool(
        guard_reasons(
            check["fit_supervised"],
            check["fit_semi"],
            check["other_supervised"],
            check["other_semi"],
            check["favoured"],
            fit_tolerance=getattr(cls, "guard_fit_tolerance", FIT_TOLERANCE),
            drift_tolerance=cls.guard_drift_tolerance,
        )
    )
    strip = lambda r: {k: v for k, v in r.items() if k not in ("guard", "other")}  # noqa: E731
    out = strip(sup if fired else semi)
    out.update(train_seconds=record["train_seconds"], guard_fired=fired, semi=strip(semi), sup=strip(sup), check=check)
    return out


def _cell(records: dict) -> str:
    rows = list(records.values())
    err = [r["token_error"] for r in rows]
    f1 = [r["f1"] for r in rows]
    n_collapsed = sum(collapsed(r) for r in rows)
    n_near = sum(near_collapse(r) and not collapsed(r) for r in rows)
    mark = (f" **{n_collapsed}✗**" if n_collapsed else "") + (f" {n_near}◌" if n_near else "")
    return f"{np.mean(err):.2f} ± {se(err):.2f} / {np.mean(f1):.1f} ± {se(f1):.1f}{mark}"


def _paired(a: dict, b: dict, field: str) -> tuple[float, float, int]:
    common = sorted(set(a) & set(b))
    diff = [a[r][field] - b[r][field] for r in common]
    return (float(np.mean(diff)), se(diff), len(common)) if common else (float("nan"), 0.0, 0)


def _semi_records(records: dict) -> dict:
    """What the unlabeled sentences alone gave (before the guard)."""
    return {repeat: r.get("semi", r) for repeat, r in records.items()}


def corpus_tables(grouped: dict, corpus: str) -> list[str]:
    keys = [k for k in grouped if k[0] == corpus]
    if not keys:
        return []
    settings = sorted({(k[3], k[4]) for k in keys}, key=lambda s: (s[0] == 0, s[0]))
    specs = sorted({(k[1], k[2]) for k in keys}, key=lambda s: (_order(s[0]), s[1]))
    head = (
        "| learner [features] | "
        + " | ".join(f"L={_setting(n)}" + (f", U={u}" if u else "") for n, u in settings)
        + " |"
    )
    lines = [
        f"### {corpus}",
        "",
        "Token error % / entity F1 % (token accuracy for POS), mean ± SE over repeats; "
        "**k✗** = repeats that collapsed, k◌ = near-collapse.",
        "",
        head,
        "|---" * (len(settings) + 1) + "|",
    ]
    for learner, features in specs:
        cells = [
            _cell(grouped[(corpus, learner, features, n, u)]) if (corpus, learner, features, n, u) in grouped else ""
            for n, u in settings
        ]
        lines.append(f"| {learner} [{features}] | " + " | ".join(cells) + " |")
    lines += ["", *twin_table(grouped, corpus, settings, specs)]
    return lines


def _order(learner: str) -> int:
    order = ["cosvm", "mv-perceptron", "entropy-crf", "wdpsl", "svm", "perceptron", "crf", "hmm", "crfsuite"]
    return order.index(learner) if learner in order else len(order)


def twin_table(grouped: dict, corpus: str, settings, specs) -> list[str]:
    """Semi-supervised learner minus its twin, paired by repeat; ▼ = worse by more than one SE."""
    lines = [
        "Against the supervised twin on the same draws and features: Δ token error / Δ F1 (points, paired "
        "mean ± SE; ▼ worse than the twin by more than one SE); guard = repeats where the collapse guard "
        "returned the supervised model; *unlabeled alone* = the model the unlabeled sentences gave, before "
        "the guard.",
        "",
        "| learner − twin | " + " | ".join(f"L={_setting(n)}" for n, _ in settings) + " |",
        "|---" * (len(settings) + 1) + "|",
    ]
    for learner, features in specs:
        for other in ALSO.get(learner, ()):
            cells = []
            for labeled, unlabeled in settings:
                a = grouped.get((corpus, learner, features, labeled, unlabeled))
                b = grouped.get((corpus, other, features, labeled, unlabeled))
                cells.append(_delta(a, b) if a and b else "")
            lines.append(f"| *{learner} − {other} [{features}]* | " + " | ".join(cells) + " |")
        twin = TWINS.get(learner)
        if twin is None:
            continue
        rows = {"returned": [], "alone": []}
        for labeled, unlabeled in settings:
            a = grouped.get((corpus, learner, features, labeled, unlabeled))
            b = grouped.get((corpus, twin, features, labeled, unlabeled))
            if not a or not b:
                rows["returned"].append("")
                rows["alone"].append("")
                continue
            rows["returned"].append(_delta(a, b) + _guard_note(a))
            rows["alone"].append(_delta(_semi_records(a), b))
        lines.append(f"| {learner} − {twin} [{features}] | " + " | ".join(rows["returned"]) + " |")
        if any(
            "semi" in r
            for recs in (grouped.get((corpus, learner, features, n, u), {}) for n, u in settings)
            for r in recs.values()
        ):
            lines.append("| *unlabeled alone* | " + " | ".join(rows["alone"]) + " |")
    return lines + [""]


def _delta(a: dict, b: dict) -> str:
    d_err, s_err, n = _paired(a, b, "token_error")
    d_f1, s_f1, _ = _paired(a, b, "f1")
    worse = d_err > s_err or d_f1 < -s_f1
    return f"{d_err:+.2f} ± {s_err:.2f} / {d_f1:+.1f} ± {s_f1:.1f}{' ▼' if worse else ''} (n={n})"


def _guard_note(records: dict) -> str:
    fired = sum(bool(r.get("guard_fired")) for r in records.values())
    return f", guard {fired}/{len(records)}" if any("semi" in r for r in records.values()) else ""


def summary(grouped: dict) -> list[str]:
    """Collapses and below-twin cells of the learners as returned (defaults)."""
    below, compared, collapses = [], [], []
    for (corpus, learner, features, labeled, unlabeled), records in sorted(grouped.items()):
        n = sum(collapsed(r) for r in records.values())
        if n:
            collapses.append(f"{corpus} {learner} [{features}] L={_setting(labeled)}: {n} of {len(records)}")
        twin = TWINS.get(learner)
        other = grouped.get((corpus, twin, features, labeled, unlabeled)) if twin else None
        if other:
            d_err, s_err, n_paired = _paired(records, other, "token_error")
            d_f1, s_f1, _ = _paired(records, other, "f1")
            if n_paired < 2:  # one repeat (the full file): no standard error to judge by; the tables show it
                continue
            if d_err > s_err or d_f1 < -s_f1:
                line = (
                    f"{corpus} {learner} [{features}] L={_setting(labeled)}: Δerror {d_err:+.2f} ± "
                    f"{s_err:.2f}, ΔF1 {d_f1:+.1f} ± {s_f1:.1f} (n={len(records)})"
                )
                (below if semi_supervised(learner) else compared).append(line)
    return (
        [
            "## Summary",
            "",
            "Semi-supervised learners (they read unlabeled sentences) below their supervised "
            f"twin by more than one SE in token error or F1 ({len(below)} cells; cells of one repeat, the full "
            "training file without unlabeled sentences, have no SE and are only in the tables):",
            "",
        ]
        + [f"- {b}" for b in below]
        + [
            "",
            "Learners that read no unlabeled sentence (`wdpsl`: full and partial labels only) below the "
            f"learner they are compared with (`crf`) by more than one SE ({len(compared)} cells):",
            "",
        ]
        + [f"- {b}" for b in compared]
        + ["", f"Cells with collapsed repeats ({len(collapses)}; near-collapses are counted in the tables):", ""]
        + [f"- {c}" for c in collapses]
        + [""]
    )


def semi_supervised(learner: str) -> bool:
    return learner != "crfsuite" and "none" in get_learner(learner).uses


def unlabeled_collapses(grouped: dict) -> list[str]:
    """Repeats where a semi-supervised learner collapsed and its twin, on the same draw, did not.

    At L = 5-10 on NCBI disease the labeled draw often holds one or two
    mentions or none, and every learner, CRFsuite included, tags nothing;
    such a repeat says nothing about the unlabeled sentences.
    """
    lines = []
    for (corpus, learner, features, labeled, unlabeled), records in sorted(grouped.items()):
        twin = grouped.get((corpus, TWINS.get(learner), features, labeled, unlabeled))
        if not twin:
            continue
        own = [r for r, rec in records.items() if collapsed(rec) and r in twin and not collapsed(twin[r])]
        if own:
            lines.append(f"- {corpus} {learner} [{features}] L={_setting(labeled)}: repeats {own}")
    return [
        "Collapses the unlabeled sentences caused (the learner collapsed, its twin on the same draw did not): "
        f"{len(lines)} cells.",
        "",
        *lines,
        "",
    ]


#: The representation sets a run may add to every learner's own set (``--features defaults+...``).
REPRESENTATION_SUFFIXES = ("+dist", "+dist+dist-dims")


def representation_gains(grouped: dict) -> list[str]:
    """``[X+dist] − [X]`` and ``[X+dist+dist-dims] − [X]`` per corpus, learner and L, paired by repeat."""
    rows = []
    for suffix in REPRESENTATION_SUFFIXES:
        rows += sorted(
            {
                (k[0], k[1], k[2][: -len(suffix)], suffix)
                for k in grouped
                if k[2].endswith(suffix) and (k[0], k[1], k[2][: -len(suffix)], k[3], k[4]) in grouped
            }
        )
    if not rows:
        return []
    settings = sorted(
        {(k[3], k[4]) for k in grouped if k[2].endswith(REPRESENTATION_SUFFIXES)}, key=lambda s: (s[0] == 0, s[0])
    )
    lines = [
        "## What the word representations add",
        "",
        "Entity F1 (accuracy for POS) with the representation sets minus without, same learner, draws and "
        "base features: paired mean ± SE in points (n repeats). `+dist`: the cluster ids; `+dist+dist-dims`: "
        "the clusters and the binarised vector dimensions.",
        "",
        "| corpus | learner [base features] | added | " + " | ".join(f"L={_setting(n)}" for n, _ in settings) + " |",
        "|---" * (len(settings) + 3) + "|",
    ]
    order = lambda r: (list(CORPORA).index(r[0]), _order(r[1]), r[2], r[3])  # noqa: E731
    for corpus, learner, base, suffix in sorted(rows, key=order):
        cells = []
        for labeled, unlabeled in settings:
            a = grouped.get((corpus, learner, base + suffix, labeled, unlabeled))
            b = grouped.get((corpus, learner, base, labeled, unlabeled))
            if a and b:
                d, e, n = _paired(a, b, "f1")
                cells.append(f"{d:+.1f} ± {e:.1f} (n={n})")
            else:
                cells.append("")
        lines.append(f"| {corpus} | {learner} [{base}] | `{suffix}` | " + " | ".join(cells) + " |")
    return lines + [""]


def default_ranking(grouped: dict) -> list[str]:
    """Each learner at its own default features (and with ``+dist``): mean F1 / accuracy and rank per L."""
    own = {}
    for name in ("cosvm", "mv-perceptron", "entropy-crf", "wdpsl", "svm", "perceptron", "crf", "hmm"):
        default = get_learner(name).default_features.get("feature_set", "default")
        own[name] = default
    settings = sorted({(k[3], k[4]) for k in grouped}, key=lambda s: (s[0] == 0, s[0]))
    lines = [
        "## Which learner is best across the suite",
        "",
        "Each learner at its own default feature set (`+dist`: with the word-representation clusters), "
        "entity F1 / token accuracy averaged over the corpora that have all of that L's cells, and the mean "
        "rank over those corpora (1 = best; CRFsuite ranked with them).",
        "",
        "| learner [features] | " + " | ".join(f"L={_setting(n)}" for n, _ in settings) + " |",
        "|---" * (len(settings) + 1) + "|",
    ]
    variants = (
        [(n, f) for n, f in own.items()] + [(n, f + "+dist") for n, f in own.items()] + [("crfsuite", "crfsuite")]
    )
    table = {}
    for labeled, unlabeled in settings:
        for suffix in ("", "+dist"):
            chosen = [(n, f) for n, f in variants if f.endswith("+dist") == bool(suffix) or n == "crfsuite"]
            corpora = [c for c in CORPORA if all((c, n, f, labeled, unlabeled) in grouped for n, f in chosen)]
            for corpus in corpora:
                means = {
                    (n, f): np.mean([r["f1"] for r in grouped[(corpus, n, f, labeled, unlabeled)].values()])
                    for n, f in chosen
                }
                order = sorted(means, key=means.get, reverse=True)
                for rank, spec in enumerate(order, 1):
                    table.setdefault((spec, labeled, suffix), []).append((means[spec], rank))
    for spec in variants:
        cells = []
        for labeled, _ in settings:
            suffix = "+dist" if spec[1].endswith("+dist") else ""
            got = table.get((spec, labeled, suffix), [])
            cells.append(
                f"{np.mean([m for m, _ in got]):.1f} (rank {np.mean([r for _, r in got]):.1f}, {len(got)} corpora)"
                if got
                else ""
            )
        if any(cells):
            lines.append(f"| {spec[0]} [{spec[1]}] | " + " | ".join(cells) + " |")
    return lines + [""]


def write_report(cache, out: Path) -> None:
    grouped = group(cache.cells)
    lines = [
        "# Robustness: every learner on the development suite, 5 labeled sentences to the full file",
        "",
        "Commands: `python benchmarks/robustness.py` (each learner's own features), `--features defaults+dist`, "
        "`--features defaults+dist+dist-dims --labeled 20,100` (some learners and corpora), `--full` (resumable; "
        "cells cached in `benchmarks/results/robustness_cells.json`; `--report-only` rewrites this file)",
        "",
        *machine_lines(", shared with other jobs: seconds are noisy"),
        "",
        "Protocol: per corpus the pool is the first 3,000 sentences of the training file, L labeled and U "
        "unlabeled sentences drawn as by `tagtool experiment` (same draws for every learner), scored on the test "
        "file (CoNLL-2000 test.txt, CoNLL-2002 esp.testa, PTB sample sentences 3,001-3,914, UD EWT dev, NCBI "
        "devel). The extractor of a repeat is fitted on the text of its L + U sentences. `L=all`: the whole "
        "training file, no unlabeled sentences. CRFsuite: L-BFGS, c1 = c2 = 0.1, 100 iterations, the "
        "sklearn-crfsuite template (POS keys only where the corpus has a POS column). A repeat *collapsed* (✗) "
        f"when one label takes ≥ {COLLAPSE_SHARE:.0%} of the predicted test tokens (more than its gold share) or "
        f"a span task's F1 is below {COLLAPSE_F1} %; *near-collapse* (◌): ≥ {NEAR_SHARE:.0%} and "
        f"{NEAR_EXCESS:.0%} more than its gold share.",
        "",
        *summary(grouped),
        *unlabeled_collapses(grouped),
        *representation_gains(grouped),
        *default_ranking(grouped),
    ]
    for corpus in CORPORA:
        lines += corpus_tables(grouped, corpus)
    write_keeping_analysis(out, lines)

"""Markdown tables of benchmarks/representations.py from its cached cells (paired gains ± SE over seeds)."""

from __future__ import annotations

import numpy as np
from _results import machine_lines

GROUPS = (  # unseen-word table: name, (class, in labeled sentences) pairs pooled
    ("in the text", ((0, 0), (0, 1))),
    ("in the text, not in labeled", ((0, 0),)),
    ("not in the text", ((1, 0), (1, 1), (2, 0), (2, 1))),
    ("subword vector only", ((1, 0), (1, 1))),
    ("no feature", ((2, 0), (2, 1))),
)
EXTENSIONS = ("+dist", "+dist-dims", "+dist+dist-dims")
VARIANTS = [(f"{ext}", m) for ext in ("+dist", "+dist-dims", "+dist+dist-dims") for m in ("ft", "w2v")]


def _cells(data: dict) -> dict:
    out = {}
    for key, value in data["cells"].items():
        corpus, learner, size, seed, feature_set, repkey, textkey = key.split("|")
        out[(corpus, learner, int(size[1:]), int(seed[1:]), feature_set, repkey, textkey)] = value
    return out


def _seeds(cells: dict) -> list[int]:
    return sorted({k[3] for k in cells})


def paired(cells, a: tuple, b: tuple, seeds, field=lambda c: c["score"]) -> tuple[float, float, int, float] | None:
    """Mean and SE over seeds of cell ``b`` − cell ``a`` (keys without the seed), the count and the minimum."""
    diffs = [
        field(cells[b[:3] + (s,) + b[3:]]) - field(cells[a[:3] + (s,) + a[3:]])
        for s in seeds
        if b[:3] + (s,) + b[3:] in cells and a[:3] + (s,) + a[3:] in cells
    ]
    if not diffs:
        return None
    se = float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else float("nan")
    return float(np.mean(diffs)), se, len(diffs), float(min(diffs))


def mean_se(cells, key: tuple, seeds) -> str:
    values = [cells[key[:3] + (s,) + key[3:]]["score"] for s in seeds if key[:3] + (s,) + key[3:] in cells]
    if not values:
        return "–"
    se = np.std(values, ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
    return f"{np.mean(values):.1f} ± {se:.1f}"


def fmt(gain) -> str:
    return "–" if gain is None else f"{gain[0]:+.1f} ± {gain[1]:.1f}"


def rep_table(data: dict, corpora: dict) -> list[str]:
    lines = [
        "| corpus | representations | text tokens | words | n-grams | clusters | seconds |",
        "|---|---|---:|---:|---:|---|---:|",
    ]
    for key, r in sorted(data["reps"].items()):
        corpus, repkey = key.split("|")
        if "@" in repkey:
            continue
        lines.append(
            f"| {corpus} | {repkey} | {r['n_tokens']:,} | {r['n_words']:,} | {r['n_ngrams']:,} | "
            f"{'/'.join(map(str, r['granularities']))} | {r['seconds']} |"
        )
    return lines


def coverage_table(data: dict, corpora: dict) -> list[str]:
    lines = [
        "| corpus | ft: own vector | ft: subword vector | ft: no feature | w2v: own vector | w2v: no feature |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for corpus, cov in data.get("coverage", {}).items():
        ft, w2v = cov["ft"], cov["w2v"]
        lines.append(
            f"| {corpora[corpus][0]} | {100 * ft[0]:.1f} % | {100 * ft[1]:.1f} % | {100 * ft[2]:.1f} % | "
            f"{100 * w2v[0]:.1f} % | {100 * w2v[2]:.1f} % |"
        )
    return lines


def features_tables(cells, corpora, seeds) -> list[str]:
    out = []
    for learner in ("crf", "perceptron"):
        for base in ("crfsuite", "default"):
            head = "| corpus | L | " + base + " | " + " | ".join(f"{e} {m}" for e, m in VARIANTS) + " |"
            rows = [
                f"#### {learner}, base `{base}`: score, and gain of each addition (paired, ± SE)",
                "",
                head,
                "|---|---:|" + "---:|" * (1 + len(VARIANTS)),
            ]
            for corpus in corpora:
                for size in (20, 100, 500):
                    ref = (corpus, learner, size, base, "none", "all")
                    if ref[:3] + (seeds[0],) + ref[3:] not in cells:
                        continue
                    gains = [
                        fmt(paired(cells, ref, (corpus, learner, size, base + e, m, "all"), seeds)) for e, m in VARIANTS
                    ]
                    rows.append(f"| {corpus} | {size} | {mean_se(cells, ref, seeds)} | " + " | ".join(gains) + " |")
            if len(rows) > 4:
                out += rows + [""]
    return out


def features_summary(cells, corpora, seeds) -> list[str]:
    """Per learner/base/variant: mean gain over corpora × L, the worst (corpus, L) and how many are below 0."""
    lines = [
        "| learner | base | addition | mean gain | NER @100 (es / es-form / ncbi) | worst (corpus, L) | cells < 0 |",
        "|---|---|---|---:|---|---|---:|",
    ]
    for learner in ("crf", "perceptron"):
        for base in ("crfsuite", "default"):
            for ext, m in VARIANTS:
                gains = {}
                for corpus in corpora:
                    for size in (20, 100, 500):
                        g = paired(
                            cells,
                            (corpus, learner, size, base, "none", "all"),
                            (corpus, learner, size, base + ext, m, "all"),
                            seeds,
                        )
                        if g is not None:
                            gains[(corpus, size)] = g
                if not gains:
                    continue
                worst = min(gains, key=lambda k: gains[k][0])
                ner = " / ".join(fmt(gains.get((c, 100))) for c in ("es", "es-form", "ncbi"))
                lines.append(
                    f"| {learner} | {base} | {ext} {m} | {np.mean([g[0] for g in gains.values()]):+.2f} | {ner} | "
                    f"{worst[0]} L={worst[1]}: {gains[worst][0]:+.1f} | {sum(g[0] < 0 for g in gains.values())}"
                    f"/{len(gains)} |"
                )
    return lines


def absolute_table(cells, corpora, seeds, method="ft", size=100) -> list[str]:
    """Mean score of every feature set at one L, to compare the bases (the gains tables compare within one)."""
    sets = [(b + e, "none" if not e else method) for b in ("crfsuite", "default") for e in ("", *EXTENSIONS)]
    lines = [
        "| learner | corpus | " + " | ".join(f"`{fs}`" for fs, _ in sets) + " |",
        "|---|---|" + "---:|" * len(sets),
    ]
    for learner in ("crf", "perceptron"):
        for corpus in corpora:
            scores = [mean_se(cells, (corpus, learner, size, fs, rep, "all"), seeds).split(" ±")[0] for fs, rep in sets]
            if any(x != "–" for x in scores):
                best = max((float(x) for x in scores if x != "–"), default=None)
                scores = [f"**{x}**" if x != "–" and float(x) == best else x for x in scores]
                lines.append(f"| {learner} | {corpus} | " + " | ".join(scores) + " |")
    return lines


def tuning_tables(cells, corpora, seeds, variants) -> list[str]:
    out = []
    variants = [v for v in variants if v == variants[0] or any(k[5] == v for k in cells)]
    for learner in ("crf", "perceptron"):
        for feature_set in ("crfsuite+dist", "crfsuite+dist-dims"):
            rows = [
                f"#### {learner}, `{feature_set}` at L = 100: gain over `crfsuite` (paired, ± SE)",
                "",
                "| corpus | " + " | ".join(variants) + " |",
                "|---|" + "---:|" * len(variants),
            ]
            for corpus in corpora:
                ref = (corpus, learner, 100, "crfsuite", "none", "all")
                gains = [paired(cells, ref, (corpus, learner, 100, feature_set, v, "all"), seeds) for v in variants]
                if any(gains[1:]):
                    rows.append(f"| {corpus} | " + " | ".join(fmt(g) for g in gains) + " |")
            if len(rows) > 4:
                out += rows + [""]
    return out


def text_tables(cells, corpora, seeds, sizes, method, feature_sets) -> list[str]:
    out = []
    for learner in ("crf", "perceptron"):
        for feature_set in feature_sets:
            rows = [
                f"#### {learner}, `{feature_set}` over `{feature_set.split('+')[0]}` at L = 100 by tokens of text "
                "(paired gain ± SE, worst seed in brackets)",
                "",
                "| corpus | " + " | ".join(map(str, sizes)) + " |",
                "|---|" + "---:|" * len(sizes),
            ]
            for corpus in corpora:
                gains = [_text_gain(cells, corpus, learner, feature_set, method, size, seeds) for size in sizes]
                if any(gains):
                    rows.append(
                        f"| {corpus} | "
                        + " | ".join("–" if g is None else f"{g[0]:+.1f} ± {g[1]:.1f} ({g[3]:+.1f})" for g in gains)
                        + " |"
                    )
            if len(rows) > 4:
                out += rows + [""]
    return out


def _text_gain(cells, corpus, learner, feature_set, method, size, seeds):
    """Paired gain where the representations of a text size differ per seed (its labeled sentences are in it)."""
    textkey = "all" if size == "all" else f"N{size}"
    diffs = []
    for s in seeds:
        repkey = method if size == "all" else f"{method}@{size}:{s}"
        base = cells.get((corpus, learner, 100, s, feature_set.split("+")[0], "none", textkey))
        with_reps = cells.get((corpus, learner, 100, s, feature_set, repkey, textkey))
        if base and with_reps:
            diffs.append(with_reps["score"] - base["score"])
    if not diffs:
        return None
    se = float(np.std(diffs, ddof=1) / np.sqrt(len(diffs))) if len(diffs) > 1 else float("nan")
    return float(np.mean(diffs)), se, len(diffs), float(min(diffs))


def _group_score(cell: dict, repkey: str, members, span: bool) -> float | None:
    n = correct = tp = n_pred = n_gold = 0
    for c, seen in members:
        a, b, t, p, g = cell["groups"][f"{repkey}:{c}:{seen}"]
        n, correct, tp, n_pred, n_gold = n + a, correct + b, tp + t, n_pred + p, n_gold + g
    if span:
        return 200.0 * tp / (n_pred + n_gold) if n_pred + n_gold else None
    return 100.0 * correct / n if n else None


def unseen_tables(cells, corpora, seeds, size=100) -> list[str]:
    out = []
    for learner, base in [(lr, b) for b in ("crfsuite", "default") for lr in ("crf", "perceptron")]:
        rows = [
            f"#### {learner}, L = {size}, base `{base}`: token score of each group without → with the addition",
            "",
            "| corpus | addition | share of test tokens | " + " | ".join(g for g, _ in GROUPS) + " |",
            "|---|---|---|" + "---|" * len(GROUPS),
        ]
        for corpus in corpora:
            for ext, m in (("+dist", "ft"), ("+dist", "w2v"), ("+dist+dist-dims", "ft"), ("+dist+dist-dims", "w2v")):
                ref = (corpus, learner, size, base, "none", "all")
                pairs = [
                    (cells.get(ref[:3] + (s,) + ref[3:]), cells.get((corpus, learner, size, s, base + ext, m, "all")))
                    for s in seeds
                ]
                pairs = [(a, b) for a, b in pairs if a and b and "groups" in a and "groups" in b]
                if not pairs:
                    continue
                span = not corpus.startswith(("ptb", "ud"))
                share = _shares(pairs[0][0], m)
                cols = []
                for _, members in GROUPS:
                    before = [_group_score(a, m, members, span) for a, _ in pairs]
                    after = [_group_score(b, m, members, span) for _, b in pairs]
                    if any(x is None for x in before + after):
                        cols.append("–")
                        continue
                    d = np.subtract(after, before)
                    se = np.std(d, ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
                    cols.append(f"{np.mean(before):.1f} → {np.mean(after):.1f} ({np.mean(d):+.1f} ± {se:.1f})")
                rows.append(f"| {corpus} | {ext} {m} | {share} | " + " | ".join(cols) + " |")
        if len(rows) > 4:
            out += rows + [""]
    return out


def _shares(cell: dict, repkey: str) -> str:
    total = sum(v[0] for k, v in cell["groups"].items() if k.startswith(repkey + ":"))
    parts = []
    for _kind, members in (("text", GROUPS[0][1]), ("not", GROUPS[2][1])):
        n = sum(cell["groups"][f"{repkey}:{c}:{s}"][0] for c, s in members)
        parts.append(f"{100 * n / total:.1f} %")
    return " / ".join(parts)


def report(
    data: dict, corpora: dict, command: str, tuning=None, sizes=None, text_method="ft", text_sets=("crfsuite+dist",)
) -> list[str]:
    cells = _cells(data)
    seeds = _seeds(cells) if cells else []
    runs = data.get("runs", [])
    lines = [
        "# Word representations: which features, from how much text, and unseen words",
        "",
        f"Last command: `{command}` (every run below)",
        "",
        *machine_lines(),
        f"- runs: {len(runs)}, {sum(r['minutes'] for r in runs):.0f} minutes of compute in all:",
        "",
        *[f"  - `{' '.join(r['argv']) or '(defaults)'}`: {r['minutes']} min" for r in runs],
        "",
        "Scores: entity F1 (conlleval rules) for NER and chunking, token accuracy for POS, on the test files "
        "(PTB: sentences 3001–3914). Gains are paired differences over the seeds "
        f"({', '.join(map(str, seeds))}): the same labeled sentences for every variant; ± is one standard error.",
        "",
        "## Representations learned (whole training file, library defaults unless named)",
        "",
        *rep_table(data, corpora),
        "",
        "## 1. Which features",
        "",
        "### Summary",
        "",
        *features_summary(cells, corpora, seeds),
        "",
        "### Scores at L = 100 of every feature set (FastText representations; best of a row in bold)",
        "",
        *absolute_table(cells, corpora, seeds),
        "",
        *features_tables(cells, corpora, seeds),
    ]
    if tuning:
        lines += ["## 1b. Settings of the representations", "", *tuning_tables(cells, corpora, seeds, tuning)]
    if sizes:
        lines += ["## 2. Amount of text", "", *text_tables(cells, corpora, seeds, sizes, text_method, text_sets)]
    lines += [
        "## 3. Unseen words",
        "",
        "### Test tokens by what the representations give them",
        "",
        *coverage_table(data, corpora),
        "",
        "### Score by group",
        "",
        "Entity-token F1 (span corpora: a token counts as correct when its non-O gold label is predicted) "
        "or accuracy (POS) within each group of test tokens; 'in the text': the word has its own vector; "
        "'share': of test tokens in the text / not in it.",
        "",
        *unseen_tables(cells, corpora, seeds),
    ]
    return lines

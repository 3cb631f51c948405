"""``tagtool agreement``'s output: a JSON document and rich tables.

Shares (observed agreement, span precision, recall, F1) are in percent, as
every tagtool command prints and writes them (``"scale": "percent"``);
kappa and alpha are coefficients in [-1, 1].  Undefined values are
``null`` in JSON and ``–`` in the tables.
"""

from __future__ import annotations

from tagtool.core.metrics import SCALE, percent
from tagtool.services.agreement import Agreement, PairAgreement
from tagtool.services.agreement.measures import SpanCounts
from tagtool.services.agreement.progress import AnnotatorProgress, ProjectAgreement

#: Label pairs the table lists as the most frequent disagreements.
TOP_CONFUSIONS = 10
#: What the span columns say for label sets that are not span schemes.
NOT_SPANS = "labels are not a span scheme (O, B-X, I-X): no span scores; read the token agreement"


def _pct(value: float | None) -> float | None:
    return None if value is None else percent(value)


def _spans_json(spans: SpanCounts | None) -> dict | None:
    if spans is None:
        return None
    return {
        "precision": _pct(spans.precision),
        "recall": _pct(spans.recall),
        "f1": _pct(spans.f1),
        "spans_a": spans.spans_a,
        "spans_b": spans.spans_b,
        "matched": spans.matched,
        "by_type": {
            kind: {"spans_a": a, "spans_b": b, "matched": m, "f1": _pct(2 * m / (a + b) if a + b else None)}
            for kind, (a, b, m) in sorted(spans.by_type.items())
        },
    }


def _confusion_json(confusion: dict[tuple[str, str], int]) -> list[dict]:
    return [{"a": x, "b": y, "tokens": n} for (x, y), n in sorted(confusion.items(), key=lambda kv: (-kv[1], kv[0]))]


def _pair_json(pair: PairAgreement) -> dict:
    return {
        "a": pair.a,
        "b": pair.b,
        "tokens": pair.tokens,
        "compared": pair.compared,
        "set_tokens": pair.set_tokens,
        "sets_compatible": pair.sets_compatible,
        "observed_agreement": _pct(pair.observed),
        "cohen_kappa": pair.kappa,
        "krippendorff_alpha": pair.alpha,
        "spans": _spans_json(pair.spans),
        "confusion": _confusion_json(pair.confusion),
    }


def _progress_json(row: AnnotatorProgress) -> dict:
    return {
        "annotator": row.name,
        "sentences": row.sentences,
        "tokens": row.tokens,
        "logged_tokens": row.logged_tokens,
        "active_minutes": row.minutes,
        "tokens_per_minute": row.tokens_per_minute,
    }


def to_json(result: ProjectAgreement, project: str) -> dict:
    """The ``--json`` document (module doc)."""
    agreement = result.agreement
    overall = None
    if agreement is not None:
        overall = {
            "cohen_kappa": agreement.kappa,
            "kappa_kind": "mean of the pairs' Cohen's kappa (Light's kappa)",
            "krippendorff_alpha": agreement.alpha,
            "alpha_level": "nominal",
            "observed_agreement": _pct(agreement.observed),
            "compared_tokens": agreement.compared,
            "spans": _spans_json(agreement.spans),
            "confusion": _confusion_json(agreement.confusion),
            "pairs_computed": agreement.pairs_computed,
            "pairs_up_to_annotators": agreement.pair_limit,
        }
    return {
        "project": project,
        "scale": SCALE,
        "annotators": list(result.answering),
        "span_scheme": None if agreement is None else agreement.span_scheme,
        "overall": overall,
        "pairs": [] if agreement is None else [_pair_json(p) for p in agreement.pairs],
        "progress": [_progress_json(p) for p in result.progress],
    }


def fmt_coefficient(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def fmt_percent(value: float | None) -> str:
    return "–" if value is None else f"{percent(value):.1f}"


def pair_rows(agreement: Agreement) -> list[list[str]]:
    """One row per pair, then "all": a, b, tokens, compared, agree %, kappa, alpha, P, R, F1, sets."""
    rows = []
    for p in agreement.pairs:
        spans = p.spans or SpanCounts()
        rows.append(
            [
                p.a,
                p.b,
                f"{p.tokens}",
                f"{p.compared}",
                fmt_percent(p.observed),
                fmt_coefficient(p.kappa),
                fmt_coefficient(p.alpha),
                fmt_percent(spans.precision),
                fmt_percent(spans.recall),
                fmt_percent(spans.f1),
                f"{p.sets_compatible}/{p.set_tokens}",
            ]
        )
    if len(agreement.pairs) > 1 or not agreement.pairs:
        sets = sum(p.set_tokens for p in agreement.pairs)
        compatible = sum(p.sets_compatible for p in agreement.pairs)
        rows.append(
            [
                "all",
                "",
                "",
                f"{agreement.compared}",
                fmt_percent(agreement.observed),
                fmt_coefficient(agreement.kappa),
                fmt_coefficient(agreement.alpha),
                "",
                "",
                fmt_percent(agreement.f1),
                f"{compatible}/{sets}" if agreement.pairs_computed else "–",
            ]
        )
    return rows


def pairs_note(agreement: Agreement) -> str | None:
    """What is missing when the per-pair measures were not computed (None when they were)."""
    if agreement.pairs_computed:
        return None
    return (
        f"{len(agreement.annotators):,} annotators: more than {agreement.pair_limit:,}, so no per-pair "
        "measures (κ, span scores, candidate sets); α, agree % (all pairs pooled) and the disagreements "
        "count every annotator"
    )


PAIR_COLUMNS = ("a", "b", "tokens", "compared", "agree %", "κ", "α", "P", "R", "F1", "sets")
#: Line width of the tables written to a file or a pipe.
PIPE_WIDTH = 120
#: Characters of a name column kept on one line before the others shrink.
NAME_WIDTH = 16
#: Columns printed right-aligned and never wrapped.
NUMBER_COLUMNS = ("tokens", "compared", "agree %", "κ", "α", "P", "R", "F1", "sets", "sentences", "tokens/min")
#: What the columns of :data:`PAIR_COLUMNS` mean.
LEGEND = (
    "tokens: both answered; compared: both gave a full label (what agree %, κ and α count; all: "
    "agree % over every pair's compared tokens pooled); "
    "κ: Cohen's kappa (all: the mean over pairs); α: Krippendorff's alpha, nominal (all: every "
    "annotator at once); P/R/F1: spans of b against a as reference, in percent; sets: tokens where "
    "one gave a candidate set, as compatible/all (compatible: the answers share a label)"
)


def progress_rows(progress: list[AnnotatorProgress]) -> list[list[str]]:
    """annotator, sentences, tokens, tokens per minute (– without a logged minute)."""
    return [
        [p.name, f"{p.sentences}", f"{p.tokens}", "–" if p.tokens_per_minute is None else f"{p.tokens_per_minute:.0f}"]
        for p in progress
    ]


PROGRESS_COLUMNS = ("annotator", "sentences", "tokens", "tokens/min")


def disagreements(agreement: Agreement, limit: int = TOP_CONFUSIONS) -> list[tuple[str, str, int]]:
    """The most frequent label pairs the annotators disagree on (unordered), most first."""
    off = [(x, y, n) for (x, y), n in agreement.confusion.items() if x != y]
    return sorted(off, key=lambda r: (-r[2], r[0], r[1]))[:limit]


def print_tables(result: ProjectAgreement, project: str, console=None) -> None:
    """The human-readable report on stdout (rich tables)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    if console is None:
        console = Console(highlight=False)
        if not console.is_terminal:  # a file or a pipe: no 80-column squeeze
            console = Console(highlight=False, width=PIPE_WIDTH)

    def table(title, columns, rows):
        console.print()
        t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False)
        for i, name in enumerate(columns):
            text = name not in NUMBER_COLUMNS
            widest = max((len(row[i]) for row in rows), default=0)  # names keep up to NAME_WIDTH characters
            t.add_column(
                name,
                justify="left" if text else "right",
                no_wrap=not text,
                min_width=min(widest, NAME_WIDTH) if text else None,
            )
        for row in rows:
            t.add_row(*row)
        console.print(t)

    agreement = result.agreement
    console.print(f"{project}: {len(result.answering)} annotators with answers: {', '.join(result.answering)}")
    table("Agreement per pair of annotators", PAIR_COLUMNS, pair_rows(agreement))
    console.print(LEGEND)
    if pairs_note(agreement):
        console.print(f"note: {pairs_note(agreement)} (tagtool agreement --pairs-up-to N)")
    if not agreement.span_scheme:
        console.print(f"note: {NOT_SPANS}")
    off = disagreements(agreement)
    if off:
        table("Disagreements", ("labels", "tokens"), [[f"{x} · {y}", f"{n}"] for x, y, n in off])
    table("Per-annotator progress", PROGRESS_COLUMNS, progress_rows(result.progress))

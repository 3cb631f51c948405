"""Evaluation of predicted label sequences against gold ones.

Token accuracy/error over every token, span precision/recall/F1 through
seqeval in its default mode, which follows conlleval: a chunk starts at a
``B-`` tag or at an ``I-`` tag whose type differs from the previous token's,
so IOB1 and IOB2 data are both scored as conlleval scores them.  For label
sets that are not span schemes (part-of-speech tags) the "span" scores are the
micro-averaged token scores, i.e. precision = recall = F1 = accuracy.

References
----------
Tjong Kim Sang & Buchholz (2000), Introduction to the CoNLL-2000 shared task
(the conlleval script).  Nakayama (2018), seqeval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from seqeval.metrics import classification_report as _span_report

from tagtool.core.labels import LabelSet

#: The scale of every score that a command prints or writes in ``--json``:
#: accuracy, error, precision, recall and F1 are all in percent.
SCALE = "percent"
#: The score fields of :class:`Evaluation`.
SCORE_KEYS = ("token_accuracy", "token_error", "precision", "recall", "f1")


def percent(fraction: float) -> float:
    """A score in [0, 1] on the scale commands print and write (percent)."""
    return 100.0 * fraction


@dataclass(frozen=True)
class LabelScores:
    """Precision, recall, F1 and support of one label or span type."""

    precision: float
    recall: float
    f1: float
    support: int


@dataclass(frozen=True)
class Evaluation:
    """Scores of one prediction run; ``to_dict`` gives the CLI's JSON keys."""

    sentences: int
    tokens: int
    token_accuracy: float
    token_error: float
    precision: float
    recall: float
    f1: float
    span_scheme: bool
    per_label: dict[str, LabelScores] = field(default_factory=dict)
    per_type: dict[str, LabelScores] = field(default_factory=dict)

    def to_dict(self) -> dict:
        """Every field, scores as fractions in [0, 1] (for code)."""
        return asdict(self)

    def to_json(self) -> dict:
        """The ``--json`` output: every score in percent, as every command prints it."""
        data = asdict(self)
        for key in SCORE_KEYS:
            data[key] = percent(data[key])
        for table in ("per_label", "per_type"):
            for row in data[table].values():
                for key in ("precision", "recall", "f1"):
                    row[key] = percent(row[key])
        return {**data, "scale": SCALE}


def _check_lengths(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]) -> None:
    if len(gold) != len(pred):
        raise ValueError(f"{len(gold)} gold sentences but {len(pred)} predicted")
    for i, (g, p) in enumerate(zip(gold, pred)):
        if len(g) != len(p):
            raise ValueError(f"sentence {i}: {len(g)} gold tokens but {len(p)} predicted")


def _prf(tp: int, n_pred: int, n_gold: int) -> tuple[float, float, float]:
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def token_label_scores(gold_flat: np.ndarray, pred_flat: np.ndarray) -> dict[str, LabelScores]:
    """Per-label token precision/recall/F1 (every label seen in gold or prediction)."""
    scores = {}
    for label in sorted(set(gold_flat.tolist()) | set(pred_flat.tolist())):
        is_gold, is_pred = gold_flat == label, pred_flat == label
        tp = int(np.sum(is_gold & is_pred))
        p, r, f = _prf(tp, int(is_pred.sum()), int(is_gold.sum()))
        scores[label] = LabelScores(p, r, f, int(is_gold.sum()))
    return scores


def span_type_scores(
    gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]]
) -> tuple[dict[str, LabelScores], LabelScores]:
    """Per-type and micro-averaged span scores (conlleval rules, via seqeval)."""
    report = _span_report([list(g) for g in gold], [list(p) for p in pred], output_dict=True, zero_division=0)

    def to_scores(row: dict) -> LabelScores:
        return LabelScores(float(row["precision"]), float(row["recall"]), float(row["f1-score"]), int(row["support"]))

    per_type = {k: to_scores(v) for k, v in report.items() if not k.endswith(" avg")}
    micro = to_scores(report["micro avg"]) if "micro avg" in report else LabelScores(0.0, 0.0, 0.0, 0)
    return per_type, micro


def evaluate(
    gold: Sequence[Sequence[str]],
    pred: Sequence[Sequence[str]],
    labels: LabelSet | None = None,
) -> Evaluation:
    """Score predicted label sequences against gold ones.

    Parameters
    ----------
    gold, pred : sequence of sequence of str
        One label sequence per sentence, equal lengths.
    labels : LabelSet, optional
        Decides whether span scores apply (:attr:`LabelSet.is_span_scheme`);
        by default inferred from the gold and predicted labels.

    Returns
    -------
    Evaluation
    """
    _check_lengths(gold, pred)
    gold_flat = np.array([y for s in gold for y in s], dtype=object)
    pred_flat = np.array([y for s in pred for y in s], dtype=object)
    n_tokens = len(gold_flat)
    accuracy = float(np.mean(gold_flat == pred_flat)) if n_tokens else 0.0
    if labels is None:
        labels = LabelSet.from_observed(set(gold_flat.tolist()) | set(pred_flat.tolist()) or {"O"})
    per_label = token_label_scores(gold_flat, pred_flat)
    if labels.is_span_scheme:
        per_type, micro = span_type_scores(gold, pred)
        precision, recall, f1 = micro.precision, micro.recall, micro.f1
    else:
        per_type = {}
        precision = recall = f1 = accuracy
    return Evaluation(
        sentences=len(gold),
        tokens=n_tokens,
        token_accuracy=accuracy,
        token_error=1.0 - accuracy if n_tokens else 0.0,
        precision=precision,
        recall=recall,
        f1=f1,
        span_scheme=labels.is_span_scheme,
        per_label=per_label,
        per_type=per_type,
    )


def format_report(evaluation: Evaluation) -> str:
    """A plain-text table in the spirit of conlleval's output."""
    lines = [
        f"sentences {evaluation.sentences}  tokens {evaluation.tokens}",
        f"token accuracy {100 * evaluation.token_accuracy:6.2f}%  error {100 * evaluation.token_error:6.2f}%",
        f"precision {100 * evaluation.precision:6.2f}%  recall {100 * evaluation.recall:6.2f}%  "
        f"F1 {100 * evaluation.f1:6.2f}",
        "",
    ]
    rows = evaluation.per_type if evaluation.span_scheme else evaluation.per_label
    kind = "type" if evaluation.span_scheme else "label"
    lines.append(f"{kind:>12} {'precision':>9} {'recall':>9} {'F1':>9} {'support':>8}")
    for name, s in rows.items():
        lines.append(f"{name:>12} {100 * s.precision:9.2f} {100 * s.recall:9.2f} {100 * s.f1:9.2f} {s.support:8d}")
    return "\n".join(lines)

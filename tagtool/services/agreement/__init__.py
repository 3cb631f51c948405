"""Inter-annotator agreement from each annotator's own answers (issue 14).

Where a project holds several annotators' answers for the same tokens
(``annotator_labels``: a Label Studio import with several annotators, or a
merge of their projects), :func:`compute` gives, per pair of annotators and
overall:

* **Cohen's kappa** on tokens (:func:`~tagtool.services.agreement.measures.cohen_kappa`).
  Overall: the mean of the pairs' kappas (Light's kappa, 1971), not
  Fleiss' kappa: Fleiss assumes every token rated by the same number of
  annotators, which split-and-merged work (each sentence to one annotator,
  a share to two or more) is not.
* **Krippendorff's alpha**, nominal level (the ``krippendorff`` package).
  Per pair on the pair's tokens; overall on every annotator at once, with
  missing answers as missing data (what alpha is made for).
* **Span precision/recall/F1** (seqeval's chunk rules) of the second
  annotator of the pair (by name) against the first as reference; F1 is
  symmetric.  Overall: the pooled F1 ``2 Σ matched / Σ (spans a + spans b)``
  over the pairs.  Only for span label sets (``O``, ``B-X``, ``I-X``, …:
  :attr:`LabelSet.is_span_scheme`); for other label sets (part of speech)
  a token is the unit, span scores are None and the observed token
  agreement is what to read.
* **Per-label confusion**: counts of (a's label, b's label) per pair;
  overall the unordered label pairs summed over the pairs.

Which tokens count
------------------
Only tokens both annotators of a pair answered count for the pair.  A token
where either gave a **candidate set** is left out of kappa, alpha, the
confusion and the spans (a set is not a nominal value), and counted apart:
``set_tokens``, of which ``sets_compatible`` where the two answers share a
label (the full label lies in the other's set, or the sets meet).  Spans are
compared over the stretches of consecutive tokens both gave a full label
(:func:`~tagtool.services.agreement.measures.segments`), so a left-out token splits
a stretch for both alike.

Numbers are fractions in [0, 1] here; the CLI's JSON and table print
percent for agreement and span scores, as every tagtool command does, and
kappa and alpha as coefficients in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from tagtool.services.agreement import measures
from tagtool.services.agreement.answers import Answers, collect, from_table
from tagtool.services.agreement.measures import SpanCounts
from tagtool.errors import Cancelled

__all__ = ["Agreement", "Answers", "PairAgreement", "collect", "compute", "from_table"]


@dataclass(frozen=True)
class PairAgreement:
    """Agreement of two annotators (``a`` before ``b`` by name) on the tokens both answered.

    Attributes
    ----------
    tokens : int
        Tokens both answered (a label or a set).
    compared : int
        Of those, tokens both gave a full label: what kappa, alpha, the
        observed agreement and the confusion count.
    set_tokens, sets_compatible : int
        Tokens where one or both gave a candidate set; of those, the ones
        whose answers share a label.
    observed : float or None
        Share of ``compared`` tokens labeled alike.
    kappa, alpha : float or None
    spans : SpanCounts or None
        None for label sets that are not span schemes.
    confusion : dict
        ``(a's label, b's label) -> tokens``.
    """

    a: str
    b: str
    tokens: int
    compared: int
    set_tokens: int
    sets_compatible: int
    observed: float | None
    kappa: float | None
    alpha: float | None
    spans: SpanCounts | None
    confusion: dict[tuple[str, str], int]


@dataclass(frozen=True)
class Agreement:
    """Every pair's agreement and the overall figures (module doc)."""

    annotators: tuple[str, ...]
    span_scheme: bool
    pairs: list[PairAgreement]
    kappa: float | None
    alpha: float | None
    spans: SpanCounts | None
    compared: int
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)

    @property
    def f1(self) -> float | None:
        return None if self.spans is None else self.spans.f1


def _confusion_dict(matrix: np.ndarray, labels: tuple[str, ...]) -> dict[tuple[str, str], int]:
    rows, cols = np.nonzero(matrix)
    return {(labels[i], labels[j]): int(matrix[i, j]) for i, j in zip(rows.tolist(), cols.tolist())}


def _pair(answers: Answers, a: int, b: int, span_scheme: bool, checkpoint) -> PairAgreement:
    codes = answers.codes
    matrix = measures.confusion_matrix(codes[:, a], codes[:, b], len(answers.labels))
    compared = int(matrix.sum())
    set_tokens, compatible = measures.set_answers(answers, a, b)
    return PairAgreement(
        a=answers.annotators[a], b=answers.annotators[b],
        tokens=measures.pair_tokens(answers, a, b), compared=compared,
        set_tokens=set_tokens, sets_compatible=compatible,
        observed=float(np.trace(matrix) / compared) if compared else None,
        kappa=measures.cohen_kappa(matrix),
        alpha=measures.nominal_alpha(codes[:, [a, b]]),
        spans=measures.span_counts(answers, a, b, checkpoint) if span_scheme else None,
        confusion=_confusion_dict(matrix, answers.labels),
    )


def _overall_confusion(pairs: list[PairAgreement]) -> dict[tuple[str, str], int]:
    """Unordered label pairs (sorted) summed over the pairs."""
    total: dict[tuple[str, str], int] = {}
    for pair in pairs:
        for (x, y), n in pair.confusion.items():
            key = (x, y) if x <= y else (y, x)
            total[key] = total.get(key, 0) + n
    return total


def compute(answers: Answers, span_scheme: bool, checkpoint: Callable[[], bool] | None = None) -> Agreement:
    """Agreement of every pair of annotators and overall (module doc).

    Parameters
    ----------
    answers : Answers
    span_scheme : bool
        Whether the project's labels are a span scheme (spans scored).
    checkpoint : callable, optional
        Called between steps; returning True stops with
        :class:`Cancelled` (a worker thread asked to stop, or
        giving the GUI thread its turn).
    """
    pairs = []
    for a, b in combinations(range(len(answers.annotators)), 2):
        if checkpoint is not None and checkpoint():
            raise Cancelled
        if measures.pair_tokens(answers, a, b):
            pairs.append(_pair(answers, a, b, span_scheme, checkpoint))
    spans = None
    if span_scheme:
        spans = SpanCounts()
        for pair in pairs:
            spans.add(pair.spans)
    pairable = (answers.codes >= 0).sum(axis=1) >= 2
    return Agreement(
        annotators=answers.annotators, span_scheme=span_scheme, pairs=pairs,
        kappa=measures.mean_defined([p.kappa for p in pairs]),
        alpha=measures.nominal_alpha(answers.codes),
        spans=spans, compared=int(pairable.sum()), confusion=_overall_confusion(pairs),
    )

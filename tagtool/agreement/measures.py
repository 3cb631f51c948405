"""The agreement measures on :class:`~tagtool.agreement.answers.Answers`.

Cohen's kappa [1]_ of two annotators on the tokens both gave a full label:
``(p_o - p_e) / (1 - p_e)``, ``p_o`` the share of tokens they label alike,
``p_e = sum_k p_a(k) p_b(k)`` from each annotator's own label
distribution.  Krippendorff's alpha [2]_ at the nominal level through the
``krippendorff`` package, from the tokens' value counts (a token with a
single full answer is not pairable and drops out, as in [2]_).  Span
precision, recall and F1 with seqeval's chunk rules (``get_entities``: the
conlleval rules every tagtool score follows).  Undefined values (kappa when
both annotators use one same label only, alpha without two distinct values)
are None.

References
----------
.. [1] J. Cohen. A coefficient of agreement for nominal scales. Educational
   and Psychological Measurement 20(1), 1960, eq. (1).
.. [2] K. Krippendorff. Computing Krippendorff's alpha-reliability. 2011,
   section C (nominal data, any number of observers, missing data).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import krippendorff
import numpy as np
from seqeval.metrics.sequence_labeling import get_entities

from tagtool.agreement.answers import MISSING, SET, Answers

#: Stretches of tokens between two looks at ``checkpoint`` in the span count.
SEGMENTS_PER_CHECK = 50


class AgreementCancelled(Exception):
    """``checkpoint`` asked the computation to stop."""


def confusion_matrix(codes_a: np.ndarray, codes_b: np.ndarray, n_labels: int) -> np.ndarray:
    """``(labels, labels)`` counts of (a's label, b's label) over tokens both gave a full label."""
    both = (codes_a >= 0) & (codes_b >= 0)
    flat = codes_a[both].astype(np.int64) * n_labels + codes_b[both]
    return np.bincount(flat, minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def cohen_kappa(confusion: np.ndarray) -> float | None:
    """Cohen's kappa of a two-annotator confusion matrix ([1]_ eq. 1); None where undefined."""
    n = confusion.sum()
    if n == 0:
        return None
    p_o = np.trace(confusion) / n
    p_e = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / (n * n)
    if p_e >= 1.0:
        return None  # both used one same label only: 0/0
    return float((p_o - p_e) / (1.0 - p_e))


def nominal_alpha(codes: np.ndarray) -> float | None:
    """Krippendorff's nominal alpha of ``(tokens, annotators)`` codes; set answers count as missing.

    Built as value counts (tokens by used labels) for the ``krippendorff``
    package; None without a pairable token or with one value only ([2]_:
    alpha is then 0/0).
    """
    full = codes >= 0
    pairable = full.sum(axis=1) >= 2
    if not pairable.any():
        return None
    sub, used = codes[pairable], full[pairable]
    values = np.unique(sub[used])
    if len(values) < 2:
        return None
    column = np.searchsorted(values, sub[used])
    rows = np.nonzero(used)[0]
    counts = np.zeros((len(sub), len(values)), dtype=np.int64)
    np.add.at(counts, (rows, column), 1)
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


@dataclass
class SpanCounts:
    """Spans of two annotators over the same stretches of tokens; b scored against a as reference."""

    spans_a: int = 0
    spans_b: int = 0
    matched: int = 0
    by_type: dict[str, list[int]] = field(default_factory=dict)  # type -> [spans a, spans b, matched]

    @property
    def precision(self) -> float | None:
        return self.matched / self.spans_b if self.spans_b else None

    @property
    def recall(self) -> float | None:
        return self.matched / self.spans_a if self.spans_a else None

    @property
    def f1(self) -> float | None:
        """``2 matched / (spans a + spans b)``: the same with either annotator as reference."""
        total = self.spans_a + self.spans_b
        return 2 * self.matched / total if total else None

    def add(self, other: SpanCounts) -> None:
        self.spans_a += other.spans_a
        self.spans_b += other.spans_b
        self.matched += other.matched
        for kind, (a, b, m) in other.by_type.items():
            row = self.by_type.setdefault(kind, [0, 0, 0])
            row[0] += a
            row[1] += b
            row[2] += m


def segments(answers: Answers, a: int, b: int) -> list[tuple[int, int]]:
    """``[(first row, stop row), ...]``: maximal stretches of consecutive tokens of one sentence
    that both annotators gave a full label (a set or a missing answer ends a stretch)."""
    codes = answers.codes
    both = (codes[:, a] >= 0) & (codes[:, b] >= 0)
    if not both.any():
        return []
    idx = np.nonzero(both)[0]
    sid, tok = answers.sentence[idx], answers.token[idx]
    breaks = np.nonzero((np.diff(idx) != 1) | (np.diff(sid) != 0) | (np.diff(tok) != 1))[0] + 1
    starts = np.concatenate([[0], breaks])
    stops = np.concatenate([breaks, [len(idx)]])
    return [(int(idx[s]), int(idx[e - 1]) + 1) for s, e in zip(starts, stops)]


def span_counts(answers: Answers, a: int, b: int, checkpoint: Callable[[], bool] | None = None) -> SpanCounts:
    """Spans of annotators ``a`` and ``b`` (columns) over :func:`segments`, seqeval's chunk rules.

    Each stretch is a sequence of its own for ``get_entities``, so a span
    never runs across a token one of them left out; both read the same
    stretches.
    """
    names = np.array(answers.labels, dtype=object)
    out = SpanCounts()
    for i, (start, stop) in enumerate(segments(answers, a, b)):
        if checkpoint is not None and i % SEGMENTS_PER_CHECK == 0 and checkpoint():
            raise AgreementCancelled
        spans_a = set(get_entities(names[answers.codes[start:stop, a]].tolist()))
        spans_b = set(get_entities(names[answers.codes[start:stop, b]].tolist()))
        out.spans_a += len(spans_a)
        out.spans_b += len(spans_b)
        out.matched += len(spans_a & spans_b)
        for kind, *_ in spans_a | spans_b:
            out.by_type.setdefault(kind, [0, 0, 0])
        for index, group in ((0, spans_a), (1, spans_b), (2, spans_a & spans_b)):
            for kind, *_ in group:
                out.by_type[kind][index] += 1
    return out


def set_answers(answers: Answers, a: int, b: int) -> tuple[int, int]:
    """Tokens both answered where one gave a candidate set or both did, and how many of those
    are compatible (the two answers share a label: the full label lies in the set, or two sets meet)."""
    codes = answers.codes
    rows = np.nonzero(((codes[:, a] == SET) | (codes[:, b] == SET))
                      & (codes[:, a] != MISSING) & (codes[:, b] != MISSING))[0]
    compatible = 0
    for row in rows.tolist():
        sets = [answers.sets.get((row, j)) or frozenset([answers.labels[codes[row, j]]]) for j in (a, b)]
        compatible += bool(sets[0] & sets[1])
    return len(rows), compatible


def pair_tokens(answers: Answers, a: int, b: int) -> int:
    """Tokens both annotators answered (label or set)."""
    codes = answers.codes
    return int(np.sum((codes[:, a] != MISSING) & (codes[:, b] != MISSING)))


def mean_defined(values: Sequence[float | None]) -> float | None:
    """Mean of the values that are not None (None if there is none)."""
    defined = [v for v in values if v is not None]
    return float(np.mean(defined)) if defined else None

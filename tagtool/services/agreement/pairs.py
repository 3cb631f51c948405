"""The measures of each pair of annotators: Cohen's kappa, alpha, spans, candidate sets, confusion.

These are pairwise by nature: each pair has its own tokens (those both
answered), its own label distributions (kappa's chance agreement) and its
own stretches of tokens (spans).  The pairs looked at are only those that
share an answered token (found at once from the token × annotator table),
and each pair reads only the tokens its first annotator answered, so the
cost is the answers times the annotators at most, and the pairs that share
no token cost nothing but their entry in a small co-occurrence matrix.

Even so a team of ``n`` annotators who all answered the same tokens has
``n (n - 1) / 2`` pairs, each a row of the report: :func:`sharing_pair_agreements` is meant
for up to :data:`PAIR_ANNOTATORS` annotators (the caller decides); the
overall figures that need no pair come from
:mod:`tagtool.services.agreement.tallies` for any number.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tagtool.errors import Cancelled
from tagtool.services.agreement import measures
from tagtool.services.agreement.answers import MISSING, SET, Answers, from_codes
from tagtool.services.agreement.measures import SpanCounts

#: Tokens per slice of the co-occurrence count (:func:`sharing_pairs`).
CO_OCCURRENCE_ROWS = 1 << 16


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


def _confusion_dict(matrix: np.ndarray, labels: tuple[str, ...]) -> dict[tuple[str, str], int]:
    rows, cols = np.nonzero(matrix)
    return {(labels[i], labels[j]): int(matrix[i, j]) for i, j in zip(rows.tolist(), cols.tolist())}


def pair_agreement(answers: Answers, a: int, b: int, span_scheme: bool, checkpoint=None) -> PairAgreement:
    """The measures of columns ``a`` and ``b`` of ``answers`` over all its tokens."""
    codes = answers.codes
    matrix = measures.confusion_matrix(codes[:, a], codes[:, b], len(answers.labels))
    compared = int(matrix.sum())
    set_tokens, compatible = measures.set_answers(answers, a, b)
    return PairAgreement(
        a=answers.annotators[a],
        b=answers.annotators[b],
        tokens=measures.pair_tokens(answers, a, b),
        compared=compared,
        set_tokens=set_tokens,
        sets_compatible=compatible,
        observed=float(np.trace(matrix) / compared) if compared else None,
        kappa=measures.cohen_kappa(matrix),
        alpha=measures.nominal_alpha(codes[:, [a, b]]),
        spans=measures.span_counts(answers, a, b, checkpoint) if span_scheme else None,
        confusion=_confusion_dict(matrix, answers.labels),
    )


def sharing_pairs(answers: Answers) -> list[tuple[int, int]]:
    """The pairs of columns ``(a, b)``, ``a < b``, that answered a token in common, in order."""
    codes, n = answers.codes, len(answers.annotators)
    common = np.zeros((n, n))
    for start in range(0, len(codes), CO_OCCURRENCE_ROWS):  # a float copy of a slice at a time
        answered = (codes[start : start + CO_OCCURRENCE_ROWS] != MISSING).astype(np.float32)
        common += answered.T @ answered  # exact: a slice's counts stay below 2**24
    a, b = np.nonzero(np.triu(common, 1))
    return list(zip(a.tolist(), b.tolist()))


def _view(answers: Answers, a: int, b: int, rows: np.ndarray) -> Answers:
    """Columns ``a`` and ``b`` on ``rows``, as an :class:`Answers` of two annotators."""
    codes = answers.codes[np.ix_(rows, [a, b])]
    set_rows, set_cols = np.nonzero(codes == SET)
    sets = {(i, k): answers.sets[(int(rows[i]), (a, b)[k])] for i, k in zip(set_rows.tolist(), set_cols.tolist())}
    return from_codes(
        (answers.annotators[a], answers.annotators[b]),
        answers.labels,
        answers.sentence[rows],
        answers.token[rows],
        codes,
        sets,
    )


def sharing_pair_agreements(
    answers: Answers,
    span_scheme: bool,
    checkpoint: Callable[[], bool] | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> list[PairAgreement]:
    """:class:`PairAgreement` of every pair that answered a token in common (module doc).

    ``checkpoint`` is called before each pair (True stops with
    :class:`~tagtool.errors.Cancelled`); ``progress(fraction, message)``
    after each pair's first annotator.
    """
    codes = answers.codes
    todo = sharing_pairs(answers)
    out, rows_of = [], {}
    for done, (a, b) in enumerate(todo):
        if checkpoint is not None and checkpoint():
            raise Cancelled
        if a not in rows_of:
            rows_of = {a: np.flatnonzero(codes[:, a] != MISSING)}  # one first annotator at a time
            if progress is not None:
                progress(done / len(todo), f"pair {done + 1:,} of {len(todo):,}")
        rows = rows_of[a][codes[rows_of[a], b] != MISSING]
        out.append(pair_agreement(_view(answers, a, b, rows), 0, 1, span_scheme, checkpoint))
    return out

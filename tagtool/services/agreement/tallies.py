"""The overall measures of any number of annotators, from how many gave each label to each token.

Krippendorff's alpha, the label pairs the annotators disagree on, the
tokens compared and the observed agreement of all pairs pooled need, per
token, only the count ``n_uc`` of annotators who gave it label ``c``
(full labels only: a candidate set is no nominal value).  Counting them is
one pass over the answers, so these cost time and memory in proportion to
the answers (plus tokens × labels²), whatever the number of annotators;
no pair of annotators is looked at.

Over every pair of annotators who both gave a token a full label:

* pairs labeling token ``u`` ``c`` and ``k`` (``c ≠ k``): ``n_uc n_uk``;
  alike ``c``: ``n_uc (n_uc - 1) / 2``; summed over tokens, the overall
  confusion (what summing each pair's confusion gives);
* pairs comparing token ``u``: ``m_u (m_u - 1) / 2`` with
  ``m_u = Σ_c n_uc``; the pooled observed agreement is the pairs alike over
  the pairs compared (the share of all pairwise comparisons that agree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.services.agreement.answers import Answers
from tagtool.services.agreement.measures import alpha_of_counts


@dataclass(frozen=True)
class Tallies:
    """The overall figures (module doc).

    Attributes
    ----------
    compared : int
        Tokens two or more annotators gave a full label.
    comparisons, alike : int
        Pairs of full answers to one token, over all tokens; of those, the ones alike.
    alpha : float or None
        Krippendorff's nominal alpha of every annotator at once.
    confusion : dict
        Unordered label pair (sorted) -> pairs of answers giving them to one token.
    """

    compared: int
    comparisons: int
    alike: int
    alpha: float | None
    confusion: dict[tuple[str, str], int]

    @property
    def observed(self) -> float | None:
        return self.alike / self.comparisons if self.comparisons else None


def value_counts(answers: Answers) -> tuple[np.ndarray, np.ndarray]:
    """``(pairable tokens, labels used)`` counts of each full label per token, and the labels used.

    A token is pairable when two annotators or more gave it a full label;
    the columns are the label indexes used on those tokens, ascending (the
    form the ``krippendorff`` package reads).
    """
    full = answers.code >= 0
    unit, code = answers.unit[full], answers.code[full].astype(np.int64)
    per_unit = np.bincount(unit, minlength=answers.n_units)
    keep = per_unit[unit] >= 2
    unit, code = unit[keep], code[keep]
    rows = np.cumsum(per_unit >= 2) - 1  # unit -> row among the pairable ones
    values, column = np.unique(code, return_inverse=True)
    n_rows = int((per_unit >= 2).sum())
    flat = rows[unit] * len(values) + column.reshape(-1)
    counts = np.bincount(flat, minlength=n_rows * len(values)).reshape(n_rows, len(values))
    return counts, values


def tally(answers: Answers) -> Tallies:
    """:class:`Tallies` of ``answers`` (module doc), in one pass over the answers."""
    counts, values = value_counts(answers)
    m = counts.sum(axis=1)
    # float products go through BLAS; exact while every sum stays below 2**53
    pairs = counts.T.astype(float) @ counts.astype(float)
    same = np.rint((np.diag(pairs) - counts.sum(axis=0)) / 2).astype(np.int64)
    confusion: dict[tuple[str, str], int] = {}
    for i, x in enumerate(values.tolist()):
        for j, y in enumerate(values.tolist()):
            n = int(same[i]) if i == j else int(round(pairs[i, j]))
            a, b = answers.labels[x], answers.labels[y]
            if n and (i == j or a < b):
                confusion[(a, b)] = n
    return Tallies(
        compared=len(counts),
        comparisons=int((m * (m - 1) // 2).sum()),
        alike=int(same.sum()),
        alpha=alpha_of_counts(counts),
        confusion=confusion,
    )

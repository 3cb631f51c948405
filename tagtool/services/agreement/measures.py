"""The agreement measures on :class:`~tagtool.services.agreement.answers.Answers`.

Cohen's kappa [1]_ of two annotators on the tokens both gave a full label:
``(p_o - p_e) / (1 - p_e)``, ``p_o`` the share of tokens they label alike,
``p_e = sum_k p_a(k) p_b(k)`` from each annotator's own label
distribution.  Krippendorff's alpha [2]_ at the nominal level through the
``krippendorff`` package, from the tokens' value counts (a token with a
single full answer is not pairable and drops out, as in [2]_); for inputs
where that package's intermediate array would be large, the same
coincidence-matrix formula in O(V²) memory.  Span precision, recall and F1
with seqeval's chunk rules (the conlleval rules every tagtool score
follows), tabulated as :class:`tagtool.core.chunks.F1Scorer` does.  Undefined values (kappa when
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

from tagtool.errors import Cancelled
from tagtool.services.agreement.answers import MISSING, SET, Answers

#: Largest ``tokens × labels²`` handed to the ``krippendorff`` package (its version 0.9 allocates
#: that many floats, several times over): 2 million, about 16 MB each.
PACKAGE_CELLS = 2_000_000


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


def value_counts(codes: np.ndarray) -> np.ndarray:
    """``(pairable tokens, labels used)`` counts of each full label per token (sets count as missing)."""
    full = codes >= 0
    pairable = full.sum(axis=1) >= 2
    sub, used = codes[pairable], full[pairable]
    values, column = np.unique(sub[used], return_inverse=True)
    counts = np.zeros((len(sub), len(values)), dtype=np.int64)
    np.add.at(counts, (np.nonzero(used)[0], column.reshape(-1)), 1)
    return counts


def coincidence_alpha(counts: np.ndarray) -> float:
    """Nominal alpha from value counts through the coincidence matrix ([2]_, C), in O(V²) memory.

    ``o = Σ_u (n_u n_uᵀ - diag n_u) / (m_u - 1)`` as one matrix product;
    ``alpha = 1 - (n - 1) Σ_{c≠k} o_ck / Σ_{c≠k} n_c n_k``.  The same value
    as the ``krippendorff`` package, whose version 0.9 builds an
    ``(N, V, V)`` float array on the way (235,000 tokens, 22 labels: 0.9 GB).
    """
    m = counts.sum(axis=1).astype(float)
    weighted = counts / (m - 1.0)[:, None]
    o = weighted.T @ counts - np.diag(weighted.sum(axis=0))
    n_v = o.sum(axis=0)
    n = n_v.sum()
    disagree = o.sum() - np.trace(o)
    expected = n * n - (n_v * n_v).sum()
    return float(1.0 - (n - 1.0) * disagree / expected)


def alpha_of_counts(counts: np.ndarray) -> float | None:
    """Krippendorff's nominal alpha of ``(pairable tokens, values)`` counts; None without two values.

    The ``krippendorff`` package, or, where its ``(N, V, V)`` intermediate
    would exceed :data:`PACKAGE_CELLS`, :func:`coincidence_alpha` (the same
    value).  None without a pairable token or with one value only ([2]_:
    alpha is then 0/0).
    """
    if len(counts) == 0 or counts.shape[1] < 2:
        return None
    if counts.shape[0] * counts.shape[1] ** 2 > PACKAGE_CELLS:
        return coincidence_alpha(counts)
    return float(krippendorff.alpha(value_counts=counts, level_of_measurement="nominal"))


def nominal_alpha(codes: np.ndarray) -> float | None:
    """Krippendorff's nominal alpha of ``(tokens, annotators)`` codes; set answers count as missing
    (:func:`alpha_of_counts` of :func:`value_counts`)."""
    return alpha_of_counts(value_counts(codes))


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


def stretches(answers: Answers, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows both annotators gave a full label, and the offsets of their maximal stretches of
    consecutive tokens of one sentence (a set or a missing answer ends a stretch)."""
    codes = answers.codes
    idx = np.nonzero((codes[:, a] >= 0) & (codes[:, b] >= 0))[0]
    if not len(idx):
        return idx, np.zeros(1, dtype=np.int64)
    sid, tok = answers.sentence[idx], answers.token[idx]
    breaks = np.nonzero((np.diff(idx) != 1) | (np.diff(sid) != 0) | (np.diff(tok) != 1))[0] + 1
    return idx, np.concatenate([[0], breaks, [len(idx)]]).astype(np.int64)


def segments(answers: Answers, a: int, b: int) -> list[tuple[int, int]]:
    """:func:`stretches` as ``[(first row, stop row), ...]``."""
    idx, offsets = stretches(answers, a, b)
    return [(int(idx[s]), int(idx[e - 1]) + 1) for s, e in zip(offsets[:-1], offsets[1:])]


def _chunks(scorer, codes: np.ndarray, keys: np.ndarray, types: np.ndarray) -> np.ndarray:
    """The type (index into ``types``) of each chunk key of ``scorer``: the type of its last token's label."""
    seq = np.zeros(scorer.length + 1, dtype=np.int64)
    seq[scorer.positions] = codes
    return types[seq[keys % (scorer.length + 2)]]


def span_counts(answers: Answers, a: int, b: int, checkpoint: Callable[[], bool] | None = None) -> SpanCounts:
    """Spans of annotators ``a`` and ``b`` (columns) over their :func:`stretches`, seqeval's chunk rules.

    Each stretch is a sequence of its own, so a span never runs across a
    token one of them left out; both read the same stretches.  The chunks
    come from :class:`tagtool.core.chunks.F1Scorer`: seqeval's
    ``start_of_chunk``/``end_of_chunk`` tabulated over label pairs and
    applied with numpy (seqeval's ``get_entities`` walks Python lists token
    by token; the tests check the two agree).
    """
    from tagtool.core.chunks import F1Scorer
    from tagtool.core.labels import LabelSet

    idx, offsets = stretches(answers, a, b)
    out = SpanCounts()
    if not len(idx):
        return out
    code_a, code_b = answers.codes[idx, a], answers.codes[idx, b]
    scorer = F1Scorer(LabelSet(answers.labels), code_a, offsets)
    if checkpoint is not None and checkpoint():
        raise Cancelled
    keys_a, keys_b = scorer.entities(code_a), scorer.entities(code_b)
    matched = np.intersect1d(keys_a, keys_b, assume_unique=True)
    kinds = np.array([n.split("-", 1)[-1] for n in answers.labels], dtype=object)
    out.spans_a, out.spans_b, out.matched = len(keys_a), len(keys_b), len(matched)
    for column, (codes, keys) in enumerate(((code_a, keys_a), (code_b, keys_b), (code_a, matched))):
        for kind, n in zip(*np.unique(_chunks(scorer, codes, keys, kinds), return_counts=True)):
            out.by_type.setdefault(str(kind), [0, 0, 0])[column] = int(n)
    return out


def set_answers(answers: Answers, a: int, b: int) -> tuple[int, int]:
    """Tokens both answered where one gave a candidate set or both did, and how many of those
    are compatible (the two answers share a label: the full label lies in the set, or two sets meet)."""
    codes = answers.codes
    rows = np.nonzero(
        ((codes[:, a] == SET) | (codes[:, b] == SET)) & (codes[:, a] != MISSING) & (codes[:, b] != MISSING)
    )[0]
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

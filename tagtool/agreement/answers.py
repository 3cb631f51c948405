"""Every annotator's answers as one table: a row per token, a column per annotator.

:func:`collect` turns the rows of ``annotator_labels``
(:meth:`tagtool.store.project.Project.annotator_answers`) into
:class:`Answers`: a code per (token, annotator), the label's index for a
full label, :data:`MISSING` where the annotator gave no answer and
:data:`SET` where they gave a candidate set (kept aside in
:attr:`Answers.sets`).  The measures (:mod:`tagtool.agreement.measures`)
then work on integer arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

#: Code of a token the annotator did not answer.
MISSING = -1
#: Code of a token the annotator answered with a candidate set (two labels or more).
SET = -2
#: Answers read between two calls of ``collect``'s checkpoint.
ROWS_PER_CHECK = 20_000


@dataclass(frozen=True)
class Answers:
    """Answers of several annotators, token by token.

    Attributes
    ----------
    annotators : tuple of str
        Column order of :attr:`codes`, sorted by name.
    labels : tuple of str
        What a code ``>= 0`` stands for.
    sentence, token : numpy.ndarray
        Sentence id and token index of each row, in sentence and token order.
    codes : numpy.ndarray
        ``(rows, annotators)`` int32: label index, :data:`MISSING` or :data:`SET`.
    sets : dict
        ``(row, annotator column) -> frozenset``: the candidate sets.
    """

    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    sentence: np.ndarray
    token: np.ndarray
    codes: np.ndarray
    sets: dict = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return len(self.sentence)

    def column(self, name: str) -> int:
        return self.annotators.index(name)


def _check(checkpoint: Callable[[], bool] | None) -> None:
    from tagtool.agreement.measures import AgreementCancelled

    if checkpoint is not None and checkpoint():
        raise AgreementCancelled


def _label_order(seen: set[str], labels: Sequence[str]) -> tuple[str, ...]:
    """The project's labels in their order, then any other label answered (sorted)."""
    known = [n for n in labels]
    return tuple(known + sorted(seen.difference(known)))


def collect(
    rows: Iterable[tuple[int, int, str, frozenset[str]]],
    labels: Sequence[str] = (),
    checkpoint: Callable[[], bool] | None = None,
) -> Answers:
    """The :class:`Answers` of ``(sentence id, token, annotator, labels)`` rows.

    Parameters
    ----------
    rows : iterable
        One row per answer; a token's rows may come in any order.
    labels : sequence of str
        The project's label order (codes follow it); labels answered but
        missing from it come after, sorted.
    checkpoint : callable, optional
        Called every :data:`ROWS_PER_CHECK` rows; True stops with
        :class:`~tagtool.agreement.measures.AgreementCancelled`.
    """
    rows = [r for r in rows if r[3]]  # an empty answer is no answer
    _check(checkpoint)
    keys = sorted({(sid, tok) for sid, tok, _, _ in rows})
    unit_of = {key: i for i, key in enumerate(keys)}
    annotators = tuple(sorted({name for _, _, name, _ in rows}))
    column = {name: j for j, name in enumerate(annotators)}
    order = _label_order({n for *_, ann in rows if len(ann) == 1 for n in ann}, labels)
    index = {n: i for i, n in enumerate(order)}
    codes = np.full((len(keys), len(annotators)), MISSING, dtype=np.int32)
    sets = {}
    for i, (sid, tok, name, ann) in enumerate(rows):
        if i % ROWS_PER_CHECK == 0:
            _check(checkpoint)
        unit, j = unit_of[(sid, tok)], column[name]
        if len(ann) == 1:
            codes[unit, j] = index[next(iter(ann))]
        else:
            codes[unit, j] = SET
            sets[(unit, j)] = frozenset(ann)
    sentence = np.array([k[0] for k in keys], dtype=np.int64)
    token = np.array([k[1] for k in keys], dtype=np.int64)
    return Answers(annotators, order, sentence, token, codes, sets)


def from_table(table: Sequence[Sequence], annotators: Sequence[str] | None = None) -> Answers:
    """:class:`Answers` from a reliability table: a row per annotator, a column per token of one sentence.

    A cell is a label (any value, compared as text), None or NaN for no
    answer, or a set of labels for a candidate set.  The form of
    Krippendorff's reliability data, for tests and examples.
    """
    names = list(annotators) if annotators is not None else [f"annotator {i + 1}" for i in range(len(table))]
    rows = []
    for name, row in zip(names, table):
        for t, cell in enumerate(row):
            if cell is None or (isinstance(cell, float) and np.isnan(cell)):
                continue
            ann = frozenset(map(str, cell)) if isinstance(cell, (set, frozenset)) else frozenset([str(cell)])
            rows.append((0, t, name, ann))
    return collect(rows)

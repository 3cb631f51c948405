"""Every annotator's answers as integer arrays: one entry per answer, and a token × annotator table on demand.

:func:`collect` turns the rows of ``annotator_labels``
(:meth:`tagtool.store.project_team.TeamPart.annotator_answers`) into
:class:`Answers`: a code per answer (token, annotator), the label's index
for a full label and :data:`SET` where they gave a candidate set (kept
aside in :attr:`Answers.sets`); :attr:`Answers.codes` lays them out as a
table with :data:`MISSING` where an annotator gave no answer.  The
measures (:mod:`tagtool.services.agreement.measures`,
:mod:`tagtool.services.agreement.tallies`) then work on integer arrays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

#: Code of a token the annotator did not answer.
MISSING = -1
#: Code of a token the annotator answered with a candidate set (two labels or more).
SET = -2
#: Answers read between two calls of ``collect``'s checkpoint.
ROWS_PER_CHECK = 2_000


@dataclass(frozen=True)
class Answers:
    """Answers of several annotators, token by token, one entry per answer.

    Kept as one entry per answer (``unit``, ``who``, ``code``) rather
    than a token × annotator table: a project of thousands of annotators,
    each answering a few sentences, would make that table mostly
    :data:`MISSING` and far larger than its answers.  :attr:`codes` builds
    the table on demand, for the per-pair measures of a few annotators.

    Attributes
    ----------
    annotators : tuple of str
        The annotators by name; an annotator's column is their position here.
    labels : tuple of str
        What a code ``>= 0`` stands for.
    sentence, token : numpy.ndarray
        Sentence id and token index of each unit (a token someone answered), in sentence and token order.
    unit, who, code : numpy.ndarray
        One entry per answer, sorted by unit then annotator: the unit (index into :attr:`sentence`),
        the annotator's column and the label index or :data:`SET`.
    sets : dict
        ``(unit, annotator column) -> frozenset``: the candidate sets.
    """

    annotators: tuple[str, ...]
    labels: tuple[str, ...]
    sentence: np.ndarray
    token: np.ndarray
    unit: np.ndarray
    who: np.ndarray
    code: np.ndarray
    sets: dict = field(default_factory=dict)

    @property
    def n_units(self) -> int:
        return len(self.sentence)

    def column(self, name: str) -> int:
        return self.annotators.index(name)

    @cached_property
    def codes(self) -> np.ndarray:
        """``(units, annotators)`` int32: label index, :data:`MISSING` or :data:`SET` (built on first use)."""
        codes = np.full((self.n_units, len(self.annotators)), MISSING, dtype=np.int32)
        codes[self.unit, self.who] = self.code
        return codes


def from_codes(
    annotators: Sequence[str],
    labels: Sequence[str],
    sentence: np.ndarray,
    token: np.ndarray,
    codes: np.ndarray,
    sets: dict,
) -> Answers:
    """:class:`Answers` of a token × annotator table (the per-pair measures' view of two annotators)."""
    unit, column = np.nonzero(codes != MISSING)
    answers = Answers(tuple(annotators), tuple(labels), sentence, token, unit, column, codes[unit, column], sets)
    answers.__dict__["codes"] = codes  # the table is at hand: not built again
    return answers


def _check(checkpoint: Callable[[], bool] | None) -> None:
    from tagtool.errors import Cancelled

    if checkpoint is not None and checkpoint():
        raise Cancelled


def _remap(first_seen: dict[str, int], order: Sequence[str]) -> np.ndarray:
    """Lookup from an index in order of first appearance to the index in ``order``."""
    lookup = np.empty(max(len(first_seen), 1), dtype=np.int32)
    position = {n: i for i, n in enumerate(order)}
    for name, i in first_seen.items():
        lookup[i] = position[name]
    return lookup


def _read_rows(rows, labels, checkpoint):
    """One pass over the rows: sentence, token, annotator and label codes in order of first appearance."""
    annotators: dict[str, int] = {}
    index = {n: i for i, n in enumerate(labels)}
    extra: dict[str, int] = {}
    sid: list[int] = []
    tok: list[int] = []
    col: list[int] = []
    code: list[int] = []
    sets: list = []
    for i, (s, t, name, ann) in enumerate(rows):
        if i % ROWS_PER_CHECK == 0:
            _check(checkpoint)
        if not ann:  # an empty answer is no answer
            continue
        j = annotators.setdefault(name, len(annotators))
        if len(ann) == 1:
            (label,) = ann
            c = index.get(label)
            if c is None:
                c = index[label] = len(index)
                extra[label] = c
        else:
            c = SET
            sets.append((len(code), frozenset(ann)))
        sid.append(s)
        tok.append(t)
        col.append(j)
        code.append(c)
    return annotators, index, extra, (sid, tok, col, code), sets


def collect(
    rows: Iterable[tuple[int, int, str, frozenset[str]]],
    labels: Sequence[str] = (),
    checkpoint: Callable[[], bool] | None = None,
) -> Answers:
    """The :class:`Answers` of ``(sentence id, token, annotator, labels)`` rows.

    One Python pass over the rows, then numpy: the rows of a big project
    are many (every annotator's every token), and a worker thread running
    Python makes the GUI thread wait.

    Parameters
    ----------
    rows : iterable
        One row per answer; a token's rows may come in any order.
    labels : sequence of str
        The project's label order (codes follow it); labels answered but
        missing from it come after, sorted.
    checkpoint : callable, optional
        Called every :data:`ROWS_PER_CHECK` rows; True stops with
        :class:`~tagtool.errors.Cancelled`.
    """
    seen, index, extra, columns, set_rows = _read_rows(rows, labels, checkpoint)
    sid, tok, col, code = (np.asarray(c, dtype=np.int64) for c in columns)
    annotators = tuple(sorted(seen))
    order = tuple(labels) + tuple(sorted(extra))
    col = _remap(seen, annotators)[col] if len(col) else col
    full = code >= 0  # index: the project's labels, then the others as first met
    code[full] = _remap(index, order)[code[full]]
    # One integer key per token, in sentence and token order (np.unique on pairs sorts a
    # structured array, several times slower, holding the GIL).
    width = int(tok.max()) + 1 if len(tok) else 1
    keys, unit = np.unique(sid * width + tok, return_inverse=True)
    sets = {(int(unit[r]), int(col[r])): ann for r, ann in set_rows}
    entries = np.lexsort((col, unit))  # by token, then by annotator
    return Answers(
        annotators,
        order,
        keys // width,
        keys % width,
        unit[entries],
        col[entries],
        code[entries].astype(np.int32),
        sets,
    )


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

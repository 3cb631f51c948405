"""Span F1 of label-index sequences with seqeval's chunk rules, in numpy.

:class:`F1Scorer` (from :mod:`tagtool.services.simulate`, where it scores every
step of a simulation) tabulates seqeval's ``start_of_chunk`` and
``end_of_chunk`` over pairs of labels and applies them to index arrays;
:mod:`tagtool.services.agreement` compares annotators' spans with it.  Here so that
neither has to import the other's dependencies (the learners, numba).
"""

from __future__ import annotations

import numpy as np

from tagtool.core.labels import LabelSet


class F1Scorer:
    """Span F1 of label-index predictions on fixed gold, as :func:`tagtool.core.metrics.evaluate`.

    ``evaluate`` (seqeval) walks Python lists and takes a third of a second
    per thousand sentences: too slow to score every step of a simulation.
    This scorer applies seqeval's own chunk rules (``start_of_chunk`` and
    ``end_of_chunk``, tabulated over pairs of labels) to index arrays; the
    tests check it against ``evaluate``.  Label sets without a span scheme
    score token accuracy, as ``evaluate`` does.
    """

    def __init__(self, labels: LabelSet, gold: np.ndarray, offsets: np.ndarray):
        from seqeval.metrics.sequence_labeling import end_of_chunk, start_of_chunk

        self.span = labels.is_span_scheme
        self.gold = np.asarray(gold, dtype=np.int64)
        offsets = np.asarray(offsets, dtype=np.int64)
        # seqeval joins the sentences with an "O" after each; position of every token there
        self.positions = np.arange(len(self.gold)) + np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        self.length = len(self.gold) + len(offsets) - 1
        names = list(labels.names)
        # two extra states: the "O" between sentences, and seqeval's initial state (tag O, type "")
        tags = [n[0] for n in names] + ["O", "O"]
        types = [n[1:].split("-", maxsplit=1)[-1] or "_" for n in names] + ["_", ""]
        self.outside, self.initial = len(names), len(names) + 1
        n = len(tags)
        self.ends = np.array([[end_of_chunk(tags[a], tags[b], types[a], types[b]) for b in range(n)] for a in range(n)])
        self.starts = np.array(
            [[start_of_chunk(tags[a], tags[b], types[a], types[b]) for b in range(n)] for a in range(n)]
        )
        self.type_id = np.unique(types, return_inverse=True)[1]
        self.gold_keys = self.entities(self.gold) if self.span else None

    def entities(self, labels: np.ndarray) -> np.ndarray:
        """Sorted unique keys of the (type, begin, end) chunks of a label-index sequence."""
        seq = np.full(self.length + 1, self.outside, dtype=np.int64)
        seq[self.positions] = labels
        prev = np.concatenate(([self.initial], seq[:-1]))
        is_end = self.ends[prev, seq]
        is_start = self.starts[prev, seq]
        idx = np.arange(len(seq))
        last_start = np.maximum.accumulate(np.where(is_start, idx, 0))
        at = np.flatnonzero(is_end)
        begin = np.concatenate(([0], last_start))[at]  # the last start before position ``at``
        width = len(seq) + 1
        return np.unique((self.type_id[prev[at]] * width + begin) * width + (at - 1))

    def f1(self, predicted: np.ndarray) -> float:
        predicted = np.asarray(predicted, dtype=np.int64)
        if not self.span:
            return float(np.mean(predicted == self.gold)) if len(self.gold) else 0.0
        keys = self.entities(predicted)
        tp = len(np.intersect1d(keys, self.gold_keys, assume_unique=True))
        return 2.0 * tp / (len(keys) + len(self.gold_keys)) if tp else 0.0

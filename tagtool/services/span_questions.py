"""Span questions: each asked token grown to the uncertain mention around it, asked as one question.

In the token-question mode (``tagtool simulate --mode tokens``/``partial``,
the app's Ctrl+Shift+Q) a token is asked when its question ``q_t`` reaches
the threshold; the rest of its sentence stays unlabeled and the learner fills
it.  Where the model is unsure of a multi-token mention, a token asked alone
leaves its neighbours — the boundaries span F1 is judged on — unlabeled.
With ``questions = spans`` each asked token is grown to the *question's
span*, following subsequence querying for named entity recognition
(Radmard et al. 2021), which asks for subsequences rather than whole
sentences:

1. the whole of every mention the model predicts (its labels read with
   seqeval's chunk rules, as :class:`tagtool.core.chunks.F1Scorer` reads them) that holds a
   question token;
2. every run of contiguous uncertain tokens (``q_t ≥`` :data:`RUN_SHARE` ×
   threshold) that touches one; steps 1 and 2 repeat until nothing is added;
3. one token on each side of the span where the model is unsure of it too
   (``q_t ≥`` :data:`BOUNDARY_SHARE` × threshold): where the mention may end
   (off by default: :data:`BOUNDARY_SHARE`).

Only unlabeled tokens join (a labeled token ends a span).  The spans are the
maximal runs of the grown tokens within a sentence (:func:`spans`); each is
one question, answered in one action in the app (a label key on the selected
span: ``B-`` on the first token, ``I-`` on the rest, by the project's scheme)
and priced by its tokens in the simulator (each at ``full``, the sentence's
other unlabeled tokens at ``skip``, as token questions).  Label sets that are
not span schemes (part-of-speech tags) have no mentions: their questions stay
tokens.

References
----------
.. [1] P. Radmard, Y. Fathullah, A. Lipani. Subsequence based deep active
   learning for named entity recognition. ACL-IJCNLP 2021.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from tagtool.core.labels import LabelSet

#: What the token-question mode asks: single tokens, or the uncertain spans around them (module doc).
QUESTIONS = ("tokens", "spans")
#: The default: span questions did not cost less than token questions at the same price per token
#: (benchmarks/results/span_questions.md).
DEFAULT_QUESTIONS = "tokens"
#: A token next to a question joins it (step 2) when its question reaches this share of the threshold
#: (1: only tokens asked themselves; lower shares asked more tokens than they saved,
#: benchmarks/results/span_questions.md).
RUN_SHARE = 1.0
#: A token on a span's edge joins it (step 3) when its question reaches this share of the threshold;
#: None: no edge token (edge tokens cost more than they saved, benchmarks/results/span_questions.md).
BOUNDARY_SHARE: float | None = None


def _ends(prev: str, tag: str, prev_type: str, type_: str) -> bool:
    """seqeval's ``end_of_chunk``: a mention ended between a token tagged ``prev`` and one tagged ``tag``."""
    return prev in "ES" or (prev in "BI" and tag in "BSO") or (prev not in ("O", ".") and prev_type != type_)


def _starts(prev: str, tag: str, prev_type: str, type_: str) -> bool:
    """seqeval's ``start_of_chunk``: a mention starts at a token tagged ``tag`` after one tagged ``prev``."""
    return tag in "BS" or (prev in "ESO" and tag in "EI") or (tag not in ("O", ".") and prev_type != type_)


class MentionReader:
    """The mentions of label-index sequences, by seqeval's chunk rules (as :class:`tagtool.core.chunks.F1Scorer`).

    The rules are tabulated here without importing seqeval (a second's import, too long for the app's
    first plan); the tests compare the tables with seqeval's functions.
    """

    def __init__(self, names: Sequence[str]):
        self.span = LabelSet(names).is_span_scheme
        # two extra states, as F1Scorer's: the "O" between sentences, and the initial state (tag O, type "")
        tags = [n[0] for n in names] + ["O", "O"]
        types = [n[1:].split("-", maxsplit=1)[-1] or "_" for n in names] + ["_", ""]
        self.outside, self.initial = len(names), len(names) + 1
        pairs = [(a, b) for a in range(len(tags)) for b in range(len(tags))]
        shape = (len(tags), len(tags))
        self.ends = np.array([_ends(tags[a], tags[b], types[a], types[b]) for a, b in pairs]).reshape(shape)
        self.starts = np.array([_starts(tags[a], tags[b], types[a], types[b]) for a, b in pairs]).reshape(shape)

    def mention_ids(self, labels: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Per token, an id of the mention it lies in (the mention's first position), −1 outside any.

        The sentences are joined with an ``O`` after each, as seqeval joins
        them, so that no mention runs from one into the next.
        """
        labels = np.asarray(labels, dtype=np.int64)
        offsets = np.asarray(offsets, dtype=np.int64)
        if not self.span or len(labels) == 0:
            return np.full(len(labels), -1, dtype=np.int64)
        positions = np.arange(len(labels)) + np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        seq = np.full(len(labels) + len(offsets) - 1, self.outside, dtype=np.int64)
        seq[positions] = labels
        prev = np.concatenate(([self.initial], seq[:-1]))
        idx = np.arange(len(seq))
        last_start = np.maximum.accumulate(np.where(self.starts[prev, seq], idx, -1))
        last_end = np.maximum.accumulate(np.where(self.ends[prev, seq], idx, -1))
        inside = (last_start >= 0) & (last_start >= last_end)
        return np.where(inside, last_start, -1)[positions]


@lru_cache(maxsize=16)
def reader(names: tuple[str, ...]) -> MentionReader:
    """The :class:`MentionReader` of a label set (kept: the app and the simulator ask it again and again)."""
    return MentionReader(names)


def _runs(mask: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per token, an id of the run of contiguous ``mask`` tokens (within a sentence) it lies in; −1 off ``mask``."""
    first = np.zeros(len(mask), dtype=bool)
    first[np.asarray(offsets[:-1], dtype=np.int64)[np.diff(offsets) > 0]] = True
    begins = mask & (first | ~np.concatenate(([False], mask[:-1])))
    ids = np.cumsum(begins) - 1
    return np.where(mask, ids, -1)


def whole_runs(asked: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The ``asked`` tokens of one sentence whose run (a span question) is ``right`` throughout."""
    asked = np.asarray(asked, dtype=bool)
    ids = _runs(asked, np.array([0, len(asked)]))
    if not asked.any():
        return asked.copy()
    wrong = np.zeros(int(ids.max()) + 1, dtype=bool)
    wrong[ids[asked & ~right]] = True
    return asked & right & ~wrong[np.where(ids >= 0, ids, 0)]


def _touching(groups: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """Tokens whose group (``groups`` ≥ 0) holds a ``seeds`` token."""
    inside = groups >= 0
    if not inside.any():
        return inside
    hit = np.zeros(int(groups.max()) + 1, dtype=bool)
    hit[groups[seeds & inside]] = True
    return inside & hit[np.where(inside, groups, 0)]


def grow(
    asked: np.ndarray,
    q: np.ndarray,
    threshold: float,
    labels: np.ndarray,
    open_: np.ndarray,
    offsets: np.ndarray,
    names: Sequence[str],
) -> np.ndarray:
    """The tokens of the span questions grown from the token questions ``asked`` (module doc, steps 1–3).

    Parameters
    ----------
    asked : bool array [N]
        The token questions (unlabeled, ``q ≥ threshold``).
    q : float array [N]
        Every token's question.
    threshold : float
    labels : int array [N]
        The model's label of each token (its best-scoring one).
    open_ : bool array [N]
        The unlabeled tokens: only they join a span.
    offsets : int array [n_sentences + 1]
        Where each sentence's tokens begin in the flat arrays.
    names : sequence of str
        The label names, by index.

    Returns
    -------
    bool array [N]
        ``asked`` and the tokens that joined it; ``asked`` itself when the
        labels are not a span scheme.
    """
    asked = np.asarray(asked, dtype=bool) & open_
    found = reader(tuple(names))
    if not found.span or not asked.any():
        return asked
    q = np.asarray(q, dtype=np.float64)
    mentions = np.where(open_, found.mention_ids(labels, offsets), -1)
    runs = _runs(open_ & (q >= RUN_SHARE * threshold), offsets)
    grown = asked
    while True:
        wider = grown | _touching(mentions, grown)
        wider |= _touching(runs, wider)
        if (wider == grown).all():
            break
        grown = wider
    if BOUNDARY_SHARE is None:
        return grown
    return grown | _edges(grown, open_ & (q >= BOUNDARY_SHARE * threshold), offsets)


def _edges(grown: np.ndarray, unsure: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The ``unsure`` tokens just before or after a run of ``grown`` tokens, in the same sentence."""
    n = len(grown)
    sentence = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    edge = np.zeros(n, dtype=bool)
    if n > 1:
        same = sentence[1:] == sentence[:-1]
        edge[:-1] |= grown[1:] & ~grown[:-1] & same  # the token before a span
        edge[1:] |= grown[:-1] & ~grown[1:] & same  # the token after one
    return edge & unsure


def spans(mask: np.ndarray) -> list[tuple[int, int]]:
    """The ``(start, end)`` (end excluded) of each run of ``mask`` tokens of one sentence: its span questions."""
    mask = np.asarray(mask, dtype=bool)
    edges = np.diff(np.concatenate(([0], mask.astype(np.int8), [0])))
    return list(zip(np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()))


def span_at(mask: np.ndarray, token: int) -> tuple[int, int] | None:
    """The span question of one sentence's ``mask`` that holds ``token`` (None: it is not asked)."""
    return next(((s, e) for s, e in spans(mask) if s <= token < e), None)

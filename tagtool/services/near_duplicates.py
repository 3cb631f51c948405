"""Near-duplicate sentences, and the queue rule that does not ask about a sentence twice before the model learned.

Corpora repeat sentences: datelines (``Madrid , 23 may ( EFE ) .``),
boilerplate, signatures, table rows, a sentence quoted again with one word
changed.  A guided queue (``gain``) scores the copies of an uncertain
sentence alike and would ask about all of them in one step, before the
model has learned from the first answer.

**Near-duplicates.**  Two sentences are near-duplicates when

* their *normalised* tokens are equal: each token lower-cased, every
  ASCII digit mapped to ``0`` (:func:`normalise`); or
* the Jaccard similarity of their sets of normalised token 3-grams (the
  sentence padded with a start and an end mark, :func:`shingles`) is at
  least :data:`SIMILARITY`.

Groups are the connected components of that relation
(:func:`group_sentences`).  The pairs above the cut are found exactly, not
sampled as MinHash-LSH would: by *prefix filtering* (Chaudhuri, Ganti &
Kaushik 2006, "A primitive operator for similarity joins in data
cleaning", ICDE; the All-Pairs algorithm of Bayardo, Ma & Srikant 2007,
"Scaling up all pairs similarity search", WWW).  With every set ordered by
a global order (rarest 3-gram first), two sets with Jaccard ≥ t share one
of the first ``|x| − ⌈t·|x|⌉ + 1`` elements of each; only pairs that do are
compared, only sets of sizes within the ratio t of each other.  The groups
are therefore the same in every process (the simulator's and the app's).

**The queue rule** (:func:`pass_over`, :class:`StepShown`).  Between two
models, a sentence whose near-duplicate was already shown (labeled or
answered since the model the queue was planned with) is passed over; the
next model decides about it again.  ``tagtool simulate`` applies it within
each step (:class:`StepShown`), the app to the J queue and Tab between two
models (:mod:`tagtool.gui.near_duplicate_watch`).  Setting
``skip_near_duplicates`` (:data:`DEFAULT_SKIP`).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

#: The Jaccard similarity of normalised token 3-gram sets from which two sentences are near-duplicates: above it
#: the pairs of the development corpora are copies edited in a word or a punctuation mark; below it, template
#: sentences that name other entities (benchmarks/results/near_duplicates.md).
SIMILARITY = 0.7
#: Token n-grams compared.
NGRAM = 3
#: Whether the queue passes over near-duplicates of the sentences shown since the last model (both
#: ``tagtool simulate --skip-near-duplicates`` and the app's Go › Queue strategy switch): off, as on the
#: corpora that repeat most it raised the cost to 95 % of full-data F1 (benchmarks/results/near_duplicates.md).
DEFAULT_SKIP = False
_DIGITS = str.maketrans("123456789", "000000000")
_START, _END = "\x02", "\x03"  # marks no token holds


def normalise(tokens: Iterable[str]) -> tuple[str, ...]:
    """The tokens lower-cased, every ASCII digit ``0``."""
    return tuple(t.lower().translate(_DIGITS) for t in tokens)


def shingles(normalised: Sequence[str], n: int = NGRAM) -> set[tuple[str, ...]]:
    """The token ``n``-grams of a normalised sentence padded with a start and an end mark."""
    padded = (_START, *normalised, _END)
    return {padded[i : i + n] for i in range(max(1, len(padded) - n + 1))}


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """The Jaccard similarity of two sentences' normalised 3-gram sets (:func:`shingles`)."""
    x, y = shingles(normalise(a)), shingles(normalise(b))
    return len(x & y) / len(x | y)


@dataclass(frozen=True)
class Groups:
    """Near-duplicate groups of sentences (only the groups of two or more).

    Attributes
    ----------
    key : dict id → int
        The group of each sentence that has a near-duplicate (its first member's id).
    members : dict int → tuple of ids
        Each group's sentences, in the order given.
    """

    key: dict[int, int] = field(default_factory=dict)
    members: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def size(self, sid: int) -> int:
        """How many sentences the group of ``sid`` holds (1: it has no near-duplicate)."""
        key = self.key.get(sid)
        return 1 if key is None else len(self.members[key])

    @property
    def repeats(self) -> int:
        """Sentences beyond the first of each group."""
        return sum(len(m) - 1 for m in self.members.values())


#: No groups (the rule off).
NONE = Groups()


def group_sentences(
    tokens: Sequence[Sequence[str]], ids: Sequence[int] | None = None, similarity: float = SIMILARITY
) -> Groups:
    """The near-duplicate groups of sentences ``tokens`` (module doc); ``ids``: theirs (default 0, 1, …).

    Parameters
    ----------
    tokens : sequence of sequence of str
    ids : sequence of int, optional
    similarity : float
        The Jaccard cut of the 3-gram sets; above 1 only equal normalised sentences are grouped.

    Returns
    -------
    Groups
    """
    ids = range(len(tokens)) if ids is None else ids
    codes, lengths = _encode(tokens)
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    first: dict[bytes, int] = {}
    parent = [first.setdefault(codes[bounds[i] : bounds[i + 1]].tobytes(), i) for i in range(len(tokens))]
    if similarity <= 1.0 and first:
        distinct = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        for a, b in _similar_pairs(*_rarest_first(codes, lengths, distinct), similarity):
            _union(parent, int(distinct[a]), int(distinct[b]))
    grouped: dict[int, list[int]] = defaultdict(list)
    for i in range(len(tokens)):
        grouped[_find(parent, i)].append(ids[i])
    members = {m[0]: tuple(m) for m in grouped.values() if len(m) > 1}
    return Groups({sid: k for k, m in members.items() for sid in m}, members)


def _encode(tokens: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
    """Every token as the number of its normalised form (:func:`normalise`), and each sentence's length."""
    flat = list(chain.from_iterable(tokens))
    forms: dict[str, int] = {}
    number = {t: forms.setdefault(t.lower().translate(_DIGITS), len(forms)) for t in dict.fromkeys(flat)}
    codes = np.fromiter(map(number.__getitem__, flat), dtype=np.int64, count=len(flat))
    return codes, np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _union(parent: list[int], a: int, b: int) -> None:
    ra, rb = _find(parent, a), _find(parent, b)
    if ra != rb:
        parent[max(ra, rb)] = min(ra, rb)  # the earlier sentence leads


def _similar_pairs(ordered: list[list[int]], once: int, t: float):
    """Pairs ``(j, i)`` of 3-gram sets ``ordered`` (ranks, rarest first) with Jaccard ≥ ``t`` (prefix filtering).

    The ranks below ``once`` are of 3-grams of one sentence only: no pair shares them.
    """
    sets: dict[int, set[int]] = {}
    index: dict[int, list[int]] = {}
    sizes = [len(x) for x in ordered]
    for i in np.argsort(np.asarray(sizes, dtype=np.int64), kind="stable").tolist():  # smaller sets indexed first
        x, size = ordered[i], sizes[i]
        smallest = t * size - 1e-9
        seen: set[int] = set()
        shared = bisect_left(x, once)
        for g in x[shared : size - math.ceil(smallest) + 1]:  # probing prefix
            for j in index.get(g, ()):
                if j in seen or sizes[j] < smallest:
                    continue
                seen.add(j)
                common = len(_set(sets, ordered, i) & _set(sets, ordered, j))
                if common >= t * (size + sizes[j] - common) - 1e-9:
                    yield j, i
        for g in x[shared : size - math.ceil(2 * t / (1 + t) * size - 1e-9) + 1]:  # indexing prefix: larger probe it
            index.setdefault(g, []).append(i)


def _set(sets: dict[int, set[int]], ordered: list[list[int]], i: int) -> set[int]:
    found = sets.get(i)
    if found is None:
        found = sets[i] = set(ordered[i])
    return found


def _rarest_first(codes: np.ndarray, lengths: np.ndarray, rows: np.ndarray) -> tuple[list[list[int]], int]:
    """The 3-gram sets of sentences ``rows``, each as ranks of one global order: the rarest first; and how many
    3-grams only one sentence holds (the ranks below it).

    ``codes``: every token's number (:func:`_encode`), ``lengths``: each
    sentence's.  Each sentence is padded with a start and an end mark, so
    it has as many 3-grams as tokens.  A 3-gram is known by a 64-bit mix of
    its three numbers (equal mixes of unequal 3-grams are as unlikely as
    2^-64 per pair); ties in frequency go by the mix, so the order is the
    same in every process.
    """
    size = lengths[rows]
    start = np.repeat(
        np.concatenate([[0], np.cumsum(lengths)])[rows] - np.concatenate([[0], np.cumsum(size)])[:-1], size
    )
    at = np.arange(int(size.sum()), dtype=np.int64) + start  # each token of ``rows`` in ``codes``
    first = np.zeros(len(at), dtype=bool)
    first[np.concatenate([[0], np.cumsum(size)])[:-1][size > 0]] = True
    last = np.roll(first, -1)
    marks = int(codes.max()) + 1 if len(codes) else 0
    before = np.where(first, marks, codes[at - 1 + first])  # the token before (the start mark)
    after = np.where(last, marks + 1, codes[np.minimum(at + 1, len(codes) - 1)])  # the token after (the end mark)
    mixed = _mix(
        _mix(_mix(np.uint64(0x9E3779B97F4A7C15), before.astype(np.uint64)), codes[at].astype(np.uint64)),
        after.astype(np.uint64),
    )
    unique, grams = np.unique(mixed, return_inverse=True)
    grams = grams.reshape(-1).astype(np.int64)
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), size)
    width = max(len(unique), 1)
    keyed = np.sort(owner * width + grams)
    keep = np.ones(len(keyed), dtype=bool)
    keep[1:] = keyed[1:] != keyed[:-1]  # each 3-gram once per sentence
    owner, grams = np.divmod(keyed[keep], width)
    frequency = np.bincount(grams, minlength=len(unique))
    rank = np.empty(len(unique), dtype=np.int64)
    rank[np.argsort(frequency, kind="stable")] = np.arange(len(unique))
    ranks = (np.sort(owner * width + rank[grams]) % width).tolist()
    bounds = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=len(rows)))]).tolist()
    return [ranks[bounds[i] : bounds[i + 1]] for i in range(len(rows))], int((frequency == 1).sum())


def _mix(h: np.ndarray | np.uint64, x: np.ndarray) -> np.ndarray:
    """One round of a 64-bit multiply-xor hash of ``h`` with ``x``."""
    with np.errstate(over="ignore"):
        h = (h ^ x) * np.uint64(0xBF58476D1CE4E5B9)
        return h ^ (h >> np.uint64(31))


def pass_over(queue: Sequence[int], groups: Groups, shown: Iterable[int]) -> list[int]:
    """``queue`` without the near-duplicates of the sentences ``shown`` since the last model (they stay in it).

    Parameters
    ----------
    queue : sequence of int
        Sentence ids, best first.
    groups : Groups
    shown : iterable of int
        Sentences shown (labeled, answered) since the model the queue was planned with.

    Returns
    -------
    list of int
    """
    passed = passed_over(groups, shown)
    return [sid for sid in queue if sid not in passed] if passed else list(queue)


def passed_over(groups: Groups, shown: Iterable[int]) -> set[int]:
    """The sentences the queue passes over: near-duplicates of ``shown`` that are not shown themselves."""
    shown = set(shown)
    keys = {groups.key[s] for s in shown if s in groups.key}
    return {sid for k in keys for sid in groups.members[k] if sid not in shown}


class StepShown:
    """The sentences shown in one step, as :func:`pass_over` reads them one at a time (the simulator's step).

    A sentence is passed over when a near-duplicate of it was shown in the
    step; the shown sentence itself is not.
    """

    def __init__(self, groups: Groups):
        self.groups = groups
        self._keys: set[int] = set()
        self._shown: set[int] = set()

    def add(self, sid: int) -> None:
        """Sentence ``sid`` was shown."""
        key = self.groups.key.get(sid)
        if key is not None:
            self._keys.add(key)
            self._shown.add(sid)

    def passes(self, sid: int) -> bool:
        """Whether the queue passes over ``sid`` now."""
        return sid not in self._shown and self.groups.key.get(sid, -1) in self._keys

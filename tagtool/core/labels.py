"""The label set Σ of a task, and the tagging scheme its names follow.

BIO transition rules (:func:`bio_transitions`), used by constrained decoding
(:meth:`tagtool.learn.chain.ChainModel.decode_scores`): in a BIO (IOB2) label
set, ``I-X`` continues a chunk of type ``X``, so it may only follow ``B-X`` or
``I-X`` -- never start a sentence, follow ``O`` or follow a label of another
type.  ``O`` and ``B-X`` may go anywhere.  Only types with both a ``B-X``
and an ``I-X`` label are constrained: a type written with ``I-X`` alone
(IOB1, where ``I-X`` opens a chunk and ``B-X`` only separates two adjacent
chunks of one type) keeps its ``I-X`` free.  IOB1 data whose label set
happens to hold ``B-X`` too cannot be told from the labels; it shows in the
annotations, where most chunks then open with ``I-X``
(:func:`chunk_starts`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from tagtool.errors import LabelError

#: Characters a label name may not contain: ``|`` joins candidate sets in
#: column files, ``_`` alone means "no label", whitespace separates columns.
CANDIDATE_SEPARATOR = "|"
NO_LABEL = "_"

SPAN_PREFIXES = ("B-", "I-", "E-", "S-", "L-", "U-")


def check_label_name(name: str) -> str:
    """Return ``name`` if it can be a label, else raise :class:`LabelError`."""
    if not isinstance(name, str) or not name:
        raise LabelError(f"a label must be a non-empty string, got {name!r}")
    if name == NO_LABEL:
        raise LabelError(f"{NO_LABEL!r} means 'no label' and cannot be a label name")
    if CANDIDATE_SEPARATOR in name or any(ch.isspace() for ch in name):
        raise LabelError(
            f"label {name!r} contains {CANDIDATE_SEPARATOR!r} or whitespace, which the column formats use as separators"
        )
    return name


@dataclass(frozen=True)
class LabelSet:
    """An ordered, duplicate-free set of label names.

    The order fixes the column of each label in every score matrix and
    allowed mask, so it never changes once a project or model uses it.

    Parameters
    ----------
    names : iterable of str
        Label names in their fixed order.
    """

    names: tuple[str, ...]
    _index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __init__(self, names: Iterable[str], *, allow_empty: bool = False):
        names = tuple(check_label_name(n) for n in names)
        if not names and not allow_empty:
            raise LabelError("a label set needs at least one label")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise LabelError(f"duplicate labels: {', '.join(duplicates)}")
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "_index", {n: i for i, n in enumerate(names)})

    @classmethod
    def empty(cls) -> LabelSet:
        """The label set of a corpus read without any label.

        A placeholder until labels are added (e.g. with :meth:`union`);
        ``LabelSet([])`` stays an error, and a learner needs labels.
        """
        return cls((), allow_empty=True)

    @classmethod
    def from_observed(cls, observed: Iterable[str]) -> LabelSet:
        """Build a label set from the labels seen in a corpus, in a stable order.

        ``O`` comes first, then span labels grouped by type (``B-X`` before
        ``I-X``), then everything else alphabetically, so the same corpus
        always yields the same order.
        """
        unique = set(observed)
        return cls(sorted(unique, key=_label_sort_key))

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __getitem__(self, i: int) -> str:
        return self.names[i]

    def index(self, name: str) -> int:
        """Column of ``name``; :class:`LabelError` if it is not in the set."""
        try:
            return self._index[name]
        except KeyError:
            raise LabelError(f"label {name!r} is not in the label set ({', '.join(self.names)})") from None

    @property
    def is_span_scheme(self) -> bool:
        """True when every label is ``O`` or carries a B-/I-/E-/S- prefix."""
        return all(n == "O" or n.startswith(SPAN_PREFIXES) for n in self.names) and any(n != "O" for n in self.names)

    @property
    def span_types(self) -> tuple[str, ...]:
        """Entity or chunk types of a span scheme, in first-seen order."""
        if not self.is_span_scheme:
            return ()
        seen: dict[str, None] = {}
        for n in self.names:
            if n != "O":
                seen.setdefault(n[2:], None)
        return tuple(seen)

    def union(self, other: Iterable[str]) -> LabelSet:
        """This set followed by the labels of ``other`` it does not hold yet."""
        extra = [n for n in dict.fromkeys(other) if n not in self._index]
        if not extra:
            return self  # also keeps an empty set valid
        return LabelSet(self.names + tuple(extra))


def _label_sort_key(name: str) -> tuple:
    if name == "O":
        return (0, "", "")
    if name.startswith(SPAN_PREFIXES):
        return (1, name[2:], "BIESLU".index(name[0]))
    return (2, name, "")


#: The span schemes whose full label set can be inferred from part of it: the
#: prefixes that mark them, and every prefix each type of theirs takes.
_SCHEMES = (
    ("BILOU", ("L-", "U-"), ("B-", "I-", "L-", "U-")),
    ("BIOES", ("E-", "S-"), ("B-", "I-", "E-", "S-")),
    ("BIO", ("B-", "I-"), ("B-", "I-")),
)


def complete_scheme(labels: LabelSet) -> tuple[LabelSet, list[str]]:
    """The full label set of the span scheme ``labels`` is part of.

    A partly labeled file shows only some labels of its scheme: ``B-LOC``
    without ``I-LOC`` when no location happened to span two tokens. A
    project built from it would otherwise lack a label its annotators need.
    Every type gets every prefix of its scheme (BIO, BIOES or BILOU, told by
    the prefixes present) and ``O`` is added; label sets that are not a span
    scheme (part-of-speech tags) are returned as they are.

    Returns
    -------
    LabelSet
        In :meth:`LabelSet.from_observed` order.
    list of str
        The labels added, in that order.
    """
    if not labels.is_span_scheme:
        return labels, []
    # A typo such as B-NP,I-NP is kept as it is but completes nothing.
    typos = set(suspicious_labels(labels))
    sound = LabelSet([n for n in labels if n not in typos], allow_empty=True)
    present = {n[:2] for n in sound if n != "O"}
    # BIO is the fallback: it is what B-/I- alone mean
    prefixes = next(p for _, marks, p in _SCHEMES if present & set(marks) or marks == ("B-", "I-"))
    wanted = {"O"} | {p + t for t in sound.span_types for p in prefixes}
    completed = LabelSet.from_observed(wanted | set(labels))
    added = [n for n in completed if n not in labels]
    return completed, added


def suspicious_labels(labels: Iterable[str]) -> list[str]:
    """Labels that look like a candidate set written with the wrong separator.

    ``B-NP,I-NP`` or ``B-NP/I-NP`` is a valid label name, but far more often a
    typo for the candidate set ``B-NP|I-NP``.
    """
    names = list(labels)
    known = set(names)

    def label_like(part: str) -> bool:
        return part in known or part == "O" or (part[:2] in SPAN_PREFIXES and len(part) > 2)

    return [
        n
        for n in names
        if any(len(parts := n.split(sep)) > 1 and all(map(label_like, parts)) for sep in (",", ";", "/"))
    ]


def label_like_columns(sentences: Iterable) -> dict[str, list[str]]:
    """Input columns whose every value looks like a span label (``O``, ``B-X``, ``I-X`` …), with their values.

    A file read without its label column (``tagtool import --no-labels``)
    keeps every other column as an input column; one that holds labels would
    then be a feature carrying the answers.  A column needs one value other
    than ``O`` to count.
    """
    values: dict[str, set[str]] = {}
    for sentence in sentences:
        for name, column in (getattr(sentence, "columns", None) or {}).items():
            values.setdefault(name, set()).update(column)

    def label_like(value: str) -> bool:
        return value == "O" or (value[:2] in SPAN_PREFIXES and len(value) > 2)

    return {name: sorted(found) for name, found in values.items() if found - {"O"} and all(map(label_like, found))}


def label_column_warnings(source: object, sentences: Iterable) -> list[str]:
    """What to tell a person who read ``source`` without labels: one line per :func:`label_like_columns` column."""
    lines = []
    for name, values in label_like_columns(sentences).items():
        shown = ", ".join(values[:4]) + (", ..." if len(values) > 4 else "")
        lines.append(
            f"{source}: column {name} holds labels ({shown}); read without labels it is an input column, "
            "a feature the model learns from — remove the column to import the text unlabeled"
        )
    return lines


# ---------------------------------------------------------------------------
# BIO transition rules (see the module docstring)


def _bio_parts(names: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """``(prefix[L], type_id[L])`` of a BIO label set (prefix 0 = O, 1 = B-, 2 = I-), None if not BIO."""
    if not names or not all(n == "O" or n[:2] in ("B-", "I-") for n in names):
        return None
    types = {kind: i for i, kind in enumerate(sorted({n[2:] for n in names if n != "O"}))}
    prefix = np.array([0 if n == "O" else 1 if n[:2] == "B-" else 2 for n in names], dtype=np.int64)
    type_id = np.array([-1 if n == "O" else types[n[2:]] for n in names], dtype=np.int64)
    return prefix, type_id


def bio_transitions(names: Iterable[str]) -> tuple[np.ndarray, np.ndarray] | None:
    """Which labels of a BIO label set may start a sentence and follow each other.

    Parameters
    ----------
    names : iterable of str
        Label names in their column order.

    Returns
    -------
    (start_ok, trans_ok) or None
        ``start_ok[b]``: label ``b`` may open a sentence; ``trans_ok[a, b]``:
        ``b`` may follow ``a``.  False exactly for an ``I-X`` of a type that
        also has ``B-X``, at the start or after anything but ``B-X``/``I-X``.
        None when the set is not BIO (a label other than ``O``, ``B-X``,
        ``I-X``: part-of-speech tags, BIOES, BILOU) or nothing is constrained.
    """
    names = tuple(names)
    parts = _bio_parts(names)
    if parts is None:
        return None
    prefix, type_id = parts
    begun = {int(type_id[j]) for j in np.flatnonzero(prefix == 1)}
    constrained = (prefix == 2) & np.isin(type_id, list(begun))
    if not constrained.any():
        return None
    same_chunk = (prefix[:, None] > 0) & (type_id[:, None] == type_id[None, :])
    trans_ok = ~constrained[None, :] | same_chunk
    return ~constrained, trans_ok


def invalid_inside(tags: Sequence[str]) -> list[int]:
    """Positions of the ``I-X`` tags of one sentence that do not follow ``B-X`` or ``I-X``.

    The count that needs no label set (any ``I-X``, whatever the
    label set holds); conlleval reads such a tag as the start of a chunk.
    """
    bad = []
    for t, tag in enumerate(tags):
        if tag[:2] == "I-" and (t == 0 or tags[t - 1] not in ("B-" + tag[2:], tag)):
            bad.append(t)
    return bad


def chunk_starts(names: Sequence[str], gold: np.ndarray, offsets: np.ndarray) -> tuple[int, int]:
    """How many chunks of known annotations open with ``B-X`` and how many with ``I-X``.

    Parameters
    ----------
    names : sequence of str
        The label names (columns of ``gold``).
    gold : int array, shape (N,)
        Each token's label, ``-1`` where it is not known (partly or not
        annotated); such a token tells nothing about its successor.
    offsets : int array, shape (n_sentences + 1,)
        Sentence ``i`` spans ``gold[offsets[i]:offsets[i + 1]]``.

    Returns
    -------
    (opened_b, opened_i) : tuple of int
        ``B-X`` tokens, and ``I-X`` tokens opening a chunk (first of their
        sentence, or after a known label other than ``B-X``/``I-X``).  Both
        0 for a label set that is not BIO.  BIO data has ``opened_i`` near
        0; in IOB1 data nearly every chunk opens with ``I-X``.
    """
    parts = _bio_parts(tuple(names))
    gold = np.asarray(gold, dtype=np.int64)
    if parts is None or gold.size == 0:
        return 0, 0
    prefix, type_id = parts
    known = gold >= 0
    cur = np.where(known, gold, 0)
    first = np.zeros(gold.size, dtype=bool)
    first[np.asarray(offsets, dtype=np.int64)[:-1]] = True
    prev = np.roll(cur, 1)
    prev_known = np.roll(known, 1) & ~first
    continues = (prefix[prev] > 0) & (type_id[prev] == type_id[cur])
    inside = known & (prefix[cur] == 2)
    opened_i = inside & (first | (prev_known & ~continues))
    return int(np.sum(known & (prefix[cur] == 1))), int(opened_i.sum())

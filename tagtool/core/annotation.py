"""Per-token annotations as allowed sets (docs/design.md#allowed-sets).

An annotation is a ``frozenset`` of label names:

* one label -> a full label, allowed set ``{y}``;
* two or more (but fewer than all) -> a partial label (candidate set);
* the empty set -> no label, allowed set Σ.

A candidate set (two or more labels) that names every label says nothing
and is normalised to the empty set, so "no label" has exactly one
representation. In a one-label schema the single label stays a full label:
it is what the annotator gave, and the corpus's labels must survive import.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from tagtool.core.labels import CANDIDATE_SEPARATOR, NO_LABEL, LabelSet
from tagtool.errors import LabelError

Annotation = frozenset
EMPTY: frozenset[str] = frozenset()


def make_annotation(labels: Iterable[str], label_set: LabelSet | None = None) -> frozenset[str]:
    """Normalise an iterable of label names into an annotation.

    Raises :class:`LabelError` when ``label_set`` is given and a name is not
    in it.  A set of two or more labels naming every label of ``label_set``
    becomes :data:`EMPTY`; a one-label schema's label stays a full label.
    """
    ann = frozenset(labels)
    if label_set is not None:
        for name in ann:
            label_set.index(name)
        if len(ann) > 1 and len(ann) == len(label_set):
            return EMPTY
    return ann


def parse_annotation(text: str, label_set: LabelSet | None = None) -> frozenset[str]:
    """Parse the column-file spelling: ``_`` none, ``A|B`` candidates, ``A`` full."""
    text = text.strip()
    if text in ("", NO_LABEL):
        return EMPTY
    parts = text.split(CANDIDATE_SEPARATOR)
    if any(not p for p in parts):
        raise LabelError(f"empty label in candidate set {text!r}")
    return make_annotation(parts, label_set)


def format_annotation(ann: frozenset[str], label_set: LabelSet | None = None) -> str:
    """Inverse of :func:`parse_annotation`; candidates in label-set order."""
    if not ann:
        return NO_LABEL
    if label_set is not None:
        ordered = sorted(ann, key=label_set.index)
    else:
        ordered = sorted(ann)
    return CANDIDATE_SEPARATOR.join(ordered)


def annotation_kind(ann: frozenset[str]) -> str:
    """``"full"``, ``"partial"`` or ``"none"`` for one token."""
    if not ann:
        return "none"
    return "full" if len(ann) == 1 else "partial"


def annotation_status(annotations: Sequence[frozenset[str]]) -> str:
    """Status of a sentence: ``"full"`` when every token has one label,
    ``"none"`` when no token has any, ``"partial"`` otherwise."""
    kinds = {annotation_kind(a) for a in annotations}
    if kinds <= {"full"}:
        return "full" if kinds else "none"
    if kinds == {"none"}:
        return "none"
    return "partial"


def allowed_mask(annotations: Sequence[frozenset[str]], label_set: LabelSet) -> np.ndarray:
    """Boolean ``[T, L]`` mask of the decoding space ``A_1 × … × A_T``."""
    mask = np.ones((len(annotations), len(label_set)), dtype=bool)
    for t, ann in enumerate(annotations):
        if ann:
            mask[t] = False
            mask[t, [label_set.index(n) for n in ann]] = True
    return mask


def token_information(size: int, n_labels: int) -> float:
    """``info_t = 1 − log|A_t| / log L``: 1 for a full label, 0 for none.

    ``size`` is ``|A_t|`` (use ``n_labels`` for an unlabeled token).
    """
    if not 1 <= size <= n_labels:
        raise LabelError(f"allowed-set size {size} outside 1..{n_labels}")
    if n_labels == 1:
        return 1.0
    return 1.0 - math.log(size) / math.log(n_labels)


def information_from_mask(mask: np.ndarray) -> np.ndarray:
    """Vectorised :func:`token_information` over the rows of an allowed mask."""
    n_labels = mask.shape[1]
    sizes = mask.sum(axis=1)
    if n_labels == 1:
        return np.ones(len(sizes))
    return 1.0 - np.log(sizes) / np.log(n_labels)


def sentence_weight(mask: np.ndarray, c_u: float) -> float:
    """Co-training weight of a sentence: ``C_u + (1 − C_u) · mean_t info_t``.

    1 for a fully labeled sentence, ``C_u`` for an unlabeled one (docs/design.md#sentence-weight).
    """
    if not 0.0 <= c_u <= 1.0:
        raise ValueError(f"c_u must lie in [0, 1], got {c_u}")
    return c_u + (1.0 - c_u) * float(information_from_mask(mask).mean())

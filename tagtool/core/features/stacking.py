"""Stacked feature sets (``"crfsuite+default"``): the columns of several extractors side by side.

A stacked column is named ``<set>/<feature>``.  A set the stack names twice
(``crfsuite+default+gaz+gaz``: a copy of the dictionary features for each
view of a two-view learner, :mod:`tagtool.core.views`) names its second
copy's columns ``<set>#2/<feature>``, so every column keeps a distinct name.
"""

from __future__ import annotations

import numpy as np

#: Token rows stacked per call of scipy's ``hstack``: it holds the GIL throughout, and on a whole big
#: project one call would stall the app's window while a worker trains.
HSTACK_ROWS = 16384


#: What the prefix of a set's second copy adds to its name (``gaz#2/``).
COPY_MARK = "#2"


def part_prefixes(set_names: list[str]) -> list[str]:
    """The column-name prefix of every part of a stack: its set's name, ``COPY_MARK`` added to a second copy."""
    seen: set[str] = set()
    prefixes = []
    for name in set_names:
        prefixes.append(name + COPY_MARK if name in seen else name)
        seen.add(name)
    return prefixes


def stacked_names(parts: list[tuple[str, np.ndarray]]) -> np.ndarray:
    """The column names of a stack from its parts' ``(set name, column names)``: ``<prefix>/<name>``."""
    prefixes = part_prefixes([name for name, _ in parts])
    return np.array([f"{q}/{n}" for q, (_, names) in zip(prefixes, parts) for n in names], dtype=object)


def stack_text(feature_set: str) -> str:
    """``feature_set`` for people: each set once, a set named twice said to be in both views.

    ``crfsuite+default+gaz+gaz`` → ``crfsuite+default+gaz (gaz in both views)``.
    """
    names = feature_set.split("+")
    twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    text = "+".join(dict.fromkeys(names))
    return f"{text} ({', '.join(twice)} in both views)" if twice else text


def _hstack(arrays: list[tuple[np.ndarray, np.ndarray]], widths: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Token rows of several CSR-like arrays side by side: part ``i``'s columns shifted by the widths before it.

    Stacked :data:`HSTACK_ROWS` rows at a time, so that another thread gets the GIL in between.
    """
    import scipy.sparse  # here: see tagtool.core.features.hashing

    n_rows = len(arrays[0][0]) - 1
    counts, pieces = [np.zeros(1, dtype=np.int64)], []
    for start in range(0, n_rows, HSTACK_ROWS):
        stop = min(n_rows, start + HSTACK_ROWS)
        matrices = []
        for (indptr, indices), width in zip(arrays, widths):
            rows = indptr[start : stop + 1] - indptr[start]
            cols = indices[indptr[start] : indptr[stop]]
            matrices.append(
                scipy.sparse.csr_array((np.ones(len(cols), dtype=np.int8), cols, rows), shape=(stop - start, width))
            )
        stacked = scipy.sparse.hstack(matrices, format="csr")
        counts.append(np.diff(stacked.indptr).astype(np.int64))
        pieces.append(stacked.indices.astype(np.int32, copy=False))
    indptr = np.cumsum(np.concatenate(counts))
    return indptr, np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)

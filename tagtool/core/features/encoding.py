"""Vectorised encoding of sentences into windowed feature codes (CSR helpers).

Used by :class:`~tagtool.core.features.FeatureExtractor`: base-feature
tables, per-distinct-string encoding of a batch, the window expansion and
the dropping of features outside a frozen vocabulary.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain, repeat

import numpy as np

from tagtool import pacing
from tagtool.core.features.templates import BOS, EOS, WORD_COLUMNS, FeatureError, FeatureSet

# --------------------------------------------------------------------------
# Vectorised CSR helpers
# --------------------------------------------------------------------------


def _index_dtype(bound: int) -> type:
    # int32 where it fits: the arrays are large, and on some machines the
    # first touch of fresh memory costs more than the arithmetic.
    return np.int32 if bound < 2**31 else np.int64


#: Entries of :func:`concat_ranges`' output made per ``np.repeat`` call: ``repeat`` holds the GIL
#: throughout (unlike numpy's arithmetic), and over a big project one call would freeze the window
#: while a worker trains.
REPEAT_BLOCK = 1 << 20


def concat_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` without a loop.

    Made :data:`REPEAT_BLOCK` entries (whole ranges) at a time, so another
    thread gets the GIL in between.
    """
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    dtype = _index_dtype(max(total, int(starts.max()) + int(counts.max())))
    shift = (starts - (ends - counts)).astype(dtype)
    out = np.arange(total, dtype=dtype)
    if total <= REPEAT_BLOCK:
        return out + np.repeat(shift, counts)
    cuts = np.searchsorted(ends, np.arange(REPEAT_BLOCK, total, REPEAT_BLOCK), side="right")
    for a, b in zip(np.concatenate(([0], cuts)).tolist(), np.concatenate((cuts, [len(counts)])).tolist()):
        if b > a:
            lo = int(ends[a - 1]) if a else 0
            out[lo : int(ends[b - 1])] += np.repeat(shift[a:b], counts[a:b])
    return out


def _assemble(pieces: list[tuple[np.ndarray, np.ndarray]], n_rows: int, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Merge row-aligned CSR pieces: row ``t`` holds piece 0's entries of ``t``, then piece 1's …

    Each piece is ``(counts[n_rows], values)`` with the values in row order.
    """
    counts = np.stack([c for c, _ in pieces]) if pieces else np.zeros((0, n_rows), np.int64)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=indptr[1:])
    starts = indptr[:-1] + (np.cumsum(counts, axis=0) - counts)
    out = np.empty(int(indptr[-1]), dtype=dtype)
    for p, (piece_counts, values) in enumerate(pieces):
        out[concat_ranges(starts[p], piece_counts)] = values
    return indptr, out


@dataclass
class _Csr:
    indptr: np.ndarray
    ids: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def keep(self, mask: np.ndarray) -> _Csr:
        """Entries where ``mask[ids]``, rows kept."""
        keep = mask[self.ids]
        if keep.all():
            return self
        cs = np.concatenate(([0], np.cumsum(keep)))
        return _Csr(cs[self.indptr], self.ids[keep])


# --------------------------------------------------------------------------
# Base-feature table and encoding of a batch of sentences
# --------------------------------------------------------------------------


_CONTEXT, _GROUP = operator.attrgetter("context"), operator.attrgetter("group")


class _BaseTable:
    """Base-feature names → ids (padding first), with the template of each."""

    def __init__(self, feature_set: FeatureSet, names: Iterable[str] = ()):
        self.feature_set = feature_set
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.context: list[bool] = []
        self.group: list[int] = []
        self.extend((BOS, EOS, *names))

    def __len__(self) -> int:
        return len(self.names)

    def add(self, name: str) -> int:
        template = self.feature_set.template_of(name)
        self.index[name] = len(self.names)
        self.names.append(name)
        self.context.append(template.context)
        self.group.append(template.group)
        return self.index[name]

    def extend(self, names: Sequence[str]) -> None:
        """:meth:`add` every name of ``names``, looking up each template once (a vocabulary has few)."""
        names = list(names)
        tags = [p[0] for p in map(str.partition, names, repeat("="))]
        first = dict(zip(reversed(tags), reversed(names)))  # each tag's first name, for the error message
        templates = {tag: self.feature_set.template_of(first[tag]) for tag in dict.fromkeys(tags)}
        chosen = list(map(templates.__getitem__, tags))
        self.index.update(zip(names, range(len(self.names), len(self.names) + len(names))))
        self.names += names
        self.context += map(_CONTEXT, chosen)
        self.group += map(_GROUP, chosen)

    def subset(self, ids: np.ndarray) -> tuple[_BaseTable, np.ndarray]:
        """A table of the bases ``ids`` (padding always kept first), and the old → new id map."""
        ids = np.union1d(ids, [0, 1]).astype(np.int64)
        new = object.__new__(_BaseTable)
        new.feature_set = self.feature_set
        new.names = [self.names[i] for i in ids.tolist()]
        new.index = {name: i for i, name in enumerate(new.names)}
        new.context = [self.context[i] for i in ids.tolist()]
        new.group = [self.group[i] for i in ids.tolist()]
        mapping = np.full(len(self), -1, dtype=np.int64)
        mapping[ids] = np.arange(len(ids))
        return new, mapping

    def encode(self, units: Sequence, features: Callable, grow: bool) -> _Csr:
        """Base ids of every unit (a word or a column value); unknown names are added or skipped."""
        if not grow:
            return self._encode_frozen(units, features)
        return self._encode_each(units, features, grow)

    def _encode_each(self, units: Sequence, features: Callable, grow: bool) -> _Csr:
        """:meth:`encode` name by name (growing the table, and the tests' reference of the frozen path)."""
        index = self.index
        indptr = [0]
        ids: list[int] = []
        for k, unit in enumerate(units):
            if not k % pacing.EVERY:  # the longest Python loop of feature extraction: a turn for the window
                pacing.checkpoint()
            for name in features(unit):
                b = index.get(name)
                if b is None:
                    if not grow:
                        continue  # the vocabulary is frozen: unknown features are dropped
                    b = self.add(name)
                ids.append(b)
            indptr.append(len(ids))
        return _Csr(np.asarray(indptr, dtype=np.int64), np.asarray(ids, dtype=_index_dtype(len(self))))

    def _encode_frozen(self, units: Sequence, features: Callable) -> _Csr:
        """:meth:`encode` without growing: every unit's names at once, unknown ones (id -1) dropped.

        The ids of tagging: lists and numpy instead of a loop over names, the
        same ids in the same order; template by template where the feature
        set gives its word features that way (:data:`WORD_COLUMNS`).
        """
        by_columns = WORD_COLUMNS.get(features)
        if by_columns is not None:
            return self._encode_by_columns(units, by_columns)
        names: list = []
        for start in range(0, len(units), pacing.EVERY):
            pacing.checkpoint()  # as in _encode_each: a turn for a paced worker's window
            names += map(features, units[start : start + pacing.EVERY])
        counts = np.fromiter(map(len, names), dtype=np.int64, count=len(names))
        flat = list(chain.from_iterable(names))
        ids = np.fromiter(map(self.index.get, flat, repeat(-1, len(flat))), dtype=np.int64, count=len(flat))
        known = ids >= 0
        indptr = np.concatenate(([0], np.cumsum(known)))[np.concatenate(([0], np.cumsum(counts)))]
        return _Csr(indptr.astype(np.int64), ids[known].astype(_index_dtype(len(self))))

    def _encode_by_columns(self, units: Sequence, by_columns: Callable) -> _Csr:
        """:meth:`_encode_frozen` of word features given template by template (``by_columns(words)``).

        A unit × template matrix of ids (−1: absent or unknown), read row by
        row without the −1 entries: each unit's known names in the
        function's order, as the name-by-name path gives them.  Done
        :data:`COLUMN_SLICE` units at a time, a checkpoint between slices.
        """
        values, flags = self._template_indexes()
        pieces = []
        for start in range(0, len(units), COLUMN_SLICE):
            pacing.checkpoint()
            words = units[start : start + COLUMN_SLICE]
            columns = []
            for name, column in by_columns(words):
                if column is None or getattr(column, "dtype", None) == np.dtype(bool):
                    ids = np.full(len(words), flags.get(name, -1), dtype=np.int64)
                    columns.append(ids if column is None else np.where(column, ids, -1))
                else:
                    index = values.get(name, {})
                    columns.append(np.fromiter(map(index.get, column, repeat(-1)), dtype=np.int64, count=len(words)))
            pieces.append(np.stack(columns, axis=1) if columns else np.zeros((len(words), 0), dtype=np.int64))
        matrix = np.concatenate(pieces) if pieces else np.zeros((0, 0), dtype=np.int64)
        known = matrix >= 0
        indptr = np.zeros(len(matrix) + 1, dtype=np.int64)
        np.cumsum(known.sum(axis=1), out=indptr[1:])
        return _Csr(indptr, matrix[known].astype(_index_dtype(len(self))))

    def _template_indexes(self) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
        """The ids of this (frozen) table by template: ``{tag: {value: id}}`` for ``tag=value``, ``{name: id}`` else."""
        cached = getattr(self, "_by_template", None)
        if cached is not None and cached[0] == len(self.names):
            return cached[1]
        values: dict[str, dict[str, int]] = {}
        flags: dict[str, int] = {}
        for i, name in enumerate(self.names):
            tag, eq, value = name.partition("=")
            if eq:
                values.setdefault(tag, {})[value] = i
            else:
                flags[name] = i
        self._by_template = (len(self.names), (values, flags))
        return values, flags


#: Units per slice of :meth:`_BaseTable._encode_by_columns`: a slice holds the GIL about as long as
#: ``pacing.EVERY`` units of the name-by-name path.
COLUMN_SLICE = 16 * pacing.EVERY


@dataclass
class _Source:
    """One per-token input (the word, or an extra column) as units and their base ids."""

    units: np.ndarray  # unit id of every token
    full: _Csr  # base ids of every unit
    context: _Csr  # those allowed at the neighbours


def _unit_ids(values: Sequence) -> tuple[np.ndarray, list]:
    """Id of every value's distinct string (first-seen order), and those strings."""
    index = {v: i for i, v in enumerate(dict.fromkeys(values))}
    return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values)), list(index)


def _as_tokens_and_columns(sentence) -> tuple[Sequence[str], Mapping[str, Sequence[str]]]:
    tokens = getattr(sentence, "tokens", None)
    if tokens is not None:
        return tokens, sentence.columns
    if isinstance(sentence, str) or not all(isinstance(t, str) for t in sentence):
        raise TypeError(f"expected a Sentence or a sequence of token strings, got {sentence!r:.80}")
    return tuple(sentence), {}


def _flatten(sentences: Iterable, columns: Sequence[str]) -> tuple[np.ndarray, list[str], dict[str, list]]:
    lengths: list[int] = []
    words: list[str] = []
    values: dict[str, list] = {c: [] for c in columns}
    for sentence in sentences:
        tokens, cols = _as_tokens_and_columns(sentence)
        if not tokens:
            raise FeatureError("a sentence needs at least one token")
        lengths.append(len(tokens))
        words.extend(tokens)
        for c in columns:
            column = cols.get(c)
            values[c].extend(column if column is not None else (None,) * len(tokens))
    return np.asarray(lengths, dtype=np.int64), words, values


def _sentence_units(words: list[str], lengths: np.ndarray, features: Callable) -> list:
    """``features`` of each sentence of the flat ``words`` (cut by ``lengths``), concatenated: one tuple a token."""
    units: list = []
    start = 0
    for length in lengths.tolist():
        units += features(words[start : start + length])
        start += length
    return units


def _encode_batch(
    sentences: Iterable, feature_set: FeatureSet, columns: Sequence[str], table: _BaseTable, grow: bool
) -> tuple[np.ndarray, list[_Source]]:
    """Sentence lengths and the per-token base ids of every source.

    The base features of a token depend only on its word (or column value),
    so they are computed once per distinct string.
    """
    lengths, words, values = _flatten(sentences, columns)
    encoded = [(words, feature_set.word_features)]
    for c in columns:
        encoded.append((values[c], lambda v, c=c: feature_set.column_features(c, v)))
    if feature_set.sentence_features is not None:  # a unit: the tuple of a token's sentence-level names
        encoded.append((_sentence_units(words, lengths, feature_set.sentence_features), list))
    units_and_csr = []
    for tokens, features in encoded:
        units, uniques = _unit_ids(tokens)
        units_and_csr.append((units, table.encode(uniques, features, grow)))
    context = np.asarray(table.context, dtype=bool)
    sources = [_Source(units, csr, csr.keep(context)) for units, csr in units_and_csr]
    return lengths, sources


def _window_codes(
    lengths: np.ndarray, sources: list[_Source], window: int, n_bases: int, pad_ids: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Per token, the codes ``slot * n_bases + base`` of its windowed features (CSR).

    ``slot = offset + window``; slot-major codes make the columns of a fitted
    vocabulary run offset by offset.
    """
    dtype = _index_dtype((2 * window + 1) * n_bases)
    n = int(lengths.sum())
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(n, dtype=np.int64) - starts
    length_of = np.repeat(lengths, lengths)
    pieces = []
    for slot, offset in enumerate(range(-window, window + 1)):
        inside = (position + offset >= 0) & (position + offset < length_of)
        tokens = np.flatnonzero(inside)
        for source in sources:
            csr = source.full if offset == 0 else source.context
            units = source.units[tokens + offset]
            sub_counts = csr.lengths[units]
            counts = np.zeros(n, dtype=np.int64)
            counts[tokens] = sub_counts
            values = csr.ids[concat_ranges(csr.indptr[units], sub_counts)].astype(dtype) + dtype(slot * n_bases)
            pieces.append((counts, values))
        if offset != 0:
            pad = pad_ids[0] if offset < 0 else pad_ids[1]
            outside = (~inside).astype(np.int64)
            pieces.append((outside, np.full(int(outside.sum()), slot * n_bases + pad, dtype=dtype)))
    return _assemble(pieces, n, dtype)


def _drop_unknown(indptr: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Remove the entries with column −1 and shrink the rows accordingly."""
    dropped = np.flatnonzero(columns < 0)
    if len(dropped) == 0:
        return indptr, columns.astype(np.int32, copy=False)
    # Dropped entries are few: shift the row pointers by their per-row
    # counts instead of a cumulative sum over every entry.
    rows = np.searchsorted(indptr, dropped, side="right") - 1
    new_indptr = indptr.copy()
    new_indptr[1:] -= np.cumsum(np.bincount(rows, minlength=len(indptr) - 1))
    return new_indptr, columns[columns >= 0].astype(np.int32, copy=False)

"""Numba kernel of a frozen vocabulary's window: every token's feature columns in one pass.

The result of :func:`tagtool.core.features.encoding._window_codes`, then the
vocabulary lookup and :func:`~tagtool.core.features.encoding._drop_unknown`,
entry for entry (the tests compare them): per token, for each offset
``-window … +window``, the base features of each source at that neighbour
(all of them at offset 0, the context ones elsewhere) or the padding
feature where the neighbour lies outside the sentence, each mapped to its
column by ``lookup[slot * n_bases + base]`` and dropped if −1.  The numpy
path builds a code array per offset and source and merges them; here there
is no intermediate array.  The kernel calls nothing outside this module
(numba's cache notices edits to a kernel's own file only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tagtool._runtime import jit_cache_enabled


@njit(cache=jit_cache_enabled(), nogil=True, error_model="numpy")
def window_columns(lengths, units, full_indptr, full_ids, context_indptr, context_ids, window, n_bases, lookup, pads):
    """``(indptr, columns)`` of every token (see the module docstring).

    Parameters
    ----------
    lengths : int64 array, shape (n_sentences,)
    units : int64 array, shape (n_sources, n_tokens)
        Each source's unit of every token, numbered across sources.
    full_indptr, full_ids, context_indptr, context_ids : arrays
        Base ids of every unit (CSR), all of them and those allowed at the neighbours.
    window : int
    n_bases : int
    lookup : int32 array, shape ((2 * window + 1) * n_bases,)
        Code → column, −1 outside the vocabulary.
    pads : int64 array, shape (2,)
        Base ids of the padding before and after a sentence.
    """
    n_tokens = units.shape[1]
    indptr = np.zeros(n_tokens + 1, dtype=np.int64)
    for fill in range(2):  # first count, then write
        columns = np.empty(indptr[n_tokens] if fill else 0, dtype=np.int32)
        token, at = 0, 0
        for length in lengths:
            first = token
            for position in range(length):
                for slot in range(2 * window + 1):
                    offset = slot - window
                    base_code = slot * n_bases
                    if 0 <= position + offset < length:
                        neighbour = first + position + offset
                        for source in range(units.shape[0]):
                            unit = units[source, neighbour]
                            if offset == 0:
                                lo, hi, ids = full_indptr[unit], full_indptr[unit + 1], full_ids
                            else:
                                lo, hi, ids = context_indptr[unit], context_indptr[unit + 1], context_ids
                            for k in range(lo, hi):
                                column = lookup[base_code + ids[k]]
                                if column >= 0:
                                    if fill:
                                        columns[at] = column
                                    at += 1
                    elif offset != 0:
                        column = lookup[base_code + pads[0 if offset < 0 else 1]]
                        if column >= 0:
                            if fill:
                                columns[at] = column
                            at += 1
                token += 1
                if not fill:
                    indptr[token] = at
    return indptr, columns

"""Hashed feature columns (``hashing=True``): a column by a stable hash of the feature's name.

Token-group features go to the columns ``[0, n_hash/2)``, surface-group
features to ``[n_hash/2, n_hash)``, so that the token/surface view split
stays available (see :class:`~tagtool.core.features.FeatureExtractor`).
"""

from __future__ import annotations

import numpy as np

from tagtool.core.features.encoding import _BaseTable
from tagtool.core.features.templates import feature_name, stable_hash


def hashed_columns(indptr: np.ndarray, codes: np.ndarray, table: _BaseTable, window: int, n_hash: int) -> np.ndarray:
    """Hash every distinct code's name once; rows keep distinct, sorted columns.

    ``codes`` are the window codes ``slot * len(table) + base`` of every
    token (rows ``indptr``, updated in place).  Two features of a token may
    hash to the same column; they are merged so that every learner can rely
    on distinct indices within a token.
    """
    n_bases = len(table)
    n_codes = (2 * window + 1) * n_bases
    present = np.flatnonzero(np.bincount(codes, minlength=n_codes))
    half = n_hash // 2
    lookup = np.zeros(n_codes, dtype=np.int32)
    for code in present.tolist():
        slot, base = divmod(code, n_bases)
        name = feature_name(table.names[base], slot - window)
        lookup[code] = table.group[base] * half + stable_hash(name) % half
    # scipy sorts and merges within each row in C, without a global sort.  Imported here: a
    # frozen vocabulary (the usual tagger) never needs scipy, whose import is slow.
    import scipy.sparse

    n_rows = len(indptr) - 1
    matrix = scipy.sparse.csr_array((np.ones(len(codes), dtype=np.int8), lookup[codes], indptr), shape=(n_rows, n_hash))
    matrix.sum_duplicates()
    indptr[:] = matrix.indptr
    return matrix.indices.astype(np.int32, copy=False)

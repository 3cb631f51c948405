"""The feature columns of a frozen vocabulary: a numba kernel for long inputs, numpy for short ones.

:meth:`FeatureExtractor.transform <tagtool.core.features.FeatureExtractor.transform>`
with a vocabulary (tagging) ends here.  Both paths give the same arrays
(the tests compare them): :func:`_window_kernel.window_columns
<tagtool.core.features._window_kernel.window_columns>` in one pass, or the
window codes of :mod:`tagtool.core.features.encoding`, looked up and
pruned.  The kernel needs numba, whose import costs a process about half a
second: a process that has not loaded it (``tagtool tag`` of a short file)
takes the numpy path up to :data:`NUMPY_TOKENS` tokens, the rule of
:mod:`tagtool.decode.vectorised` for decoding.
"""

from __future__ import annotations

import sys

import numpy as np

from tagtool.core.features.encoding import _drop_unknown, _Source, _window_codes

#: Tokens up to which a process without numba stays with numpy (as ``tagtool.decode.vectorised.NUMPY_TOKENS``).
NUMPY_TOKENS = 20_000


def frozen_columns(
    lengths: np.ndarray,
    sources: list[_Source],
    window: int,
    n_bases: int,
    lookup: np.ndarray,
    pads: tuple[int, int],
    kernel: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, columns)`` of every token: its windowed features in the vocabulary ``lookup``.

    ``kernel`` forces a path (tests); None chooses as the module docstring says.
    """
    n_tokens = int(lengths.sum())
    if kernel is None:
        kernel = "numba" in sys.modules or n_tokens > NUMPY_TOKENS
    if not kernel or n_tokens == 0:
        indptr, codes = _window_codes(lengths, sources, window, n_bases, pads)
        return _drop_unknown(indptr, lookup[codes])
    from tagtool.core.features._window_kernel import window_columns

    unit_base = np.cumsum([0] + [len(s.full.indptr) - 1 for s in sources])
    units = np.stack([s.units + base for s, base in zip(sources, unit_base.tolist())])
    full = _joined([s.full for s in sources])
    context = _joined([s.context for s in sources])
    return window_columns(
        np.asarray(lengths, dtype=np.int64),
        units,
        *full,
        *context,
        window,
        n_bases,
        lookup,
        np.asarray(pads, dtype=np.int64),
    )


def _joined(csrs: list) -> tuple[np.ndarray, np.ndarray]:
    """One CSR of the units of several (the rows of each in turn)."""
    starts = np.cumsum([0] + [len(c.ids) for c in csrs[:-1]])
    indptr = np.concatenate([csrs[0].indptr[:1]] + [c.indptr[1:] + s for c, s in zip(csrs, starts.tolist())])
    ids = np.concatenate([c.ids for c in csrs]).astype(np.int64)
    return indptr.astype(np.int64), ids

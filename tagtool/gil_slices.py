"""Big dicts and lists made in slices, so a worker thread lets the GUI thread run between them.

A single C call such as ``dict(zip(ids, range(n)))`` or ``array.tolist()``
holds the GIL from start to end, over a big project long enough to be
felt (benchmarks/results/design-measurements.md, "GUI thread: stalls"),
and meanwhile every Python call of the GUI thread (a paint, a slot)
waits.  The interpreter can hand the GIL over only between bytecodes,
so these helpers make the same objects :data:`SLICE` entries per call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: Entries per C call: well under a millisecond each.
SLICE = 8_192


def index_of(ids: Sequence[int]) -> dict[int, int]:
    """``{id: row}`` of ``ids`` (``dict(zip(ids, range(len(ids))))``, in slices).

    Parameters
    ----------
    ids : sequence of int
        Sentence ids (any sequence that slices).

    Returns
    -------
    dict
    """
    out: dict[int, int] = {}
    for start in range(0, len(ids), SLICE):
        stop = min(start + SLICE, len(ids))
        out.update(zip(ids[start:stop], range(start, stop)))
    return out


def dict_of(keys: Sequence, values: np.ndarray) -> dict:
    """``dict(zip(keys, values.tolist()))``, in slices (``values``: a 1-D array as long as ``keys``)."""
    out: dict = {}
    for start in range(0, len(keys), SLICE):
        out.update(zip(keys[start : start + SLICE], values[start : start + SLICE].tolist()))
    return out


def list_of(values: np.ndarray) -> list:
    """``values.tolist()`` of a 1-D array, in slices."""
    out: list = []
    for start in range(0, len(values), SLICE):
        out += values[start : start + SLICE].tolist()
    return out

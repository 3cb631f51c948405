"""Big dicts and lists made in slices (tagtool.gil_slices) equal the one-call versions."""

from __future__ import annotations

import numpy as np
import pytest

from tagtool import gil_slices
from tagtool.gil_slices import dict_of, index_of, list_of


@pytest.mark.parametrize("n", [0, 1, 7, gil_slices.SLICE, gil_slices.SLICE + 1, 3 * gil_slices.SLICE + 5])
def test_slices_equal_the_one_call_versions(n):
    rng = np.random.default_rng(n)
    ids = tuple(int(x) for x in rng.permutation(10 * n + 1)[:n] + 3)
    values = rng.random(n)
    assert index_of(ids) == dict(zip(ids, range(len(ids))))
    assert list(index_of(ids).values()) == list(range(n)), "rows in order"
    assert dict_of(ids, values) == dict(zip(ids, values.tolist()))
    assert list_of(values) == values.tolist() and all(type(v) is float for v in list_of(values))
    assert list_of(np.asarray(ids, dtype=np.int64)) == list(ids)

"""The vectors reader on a large file: bounded memory (rows kept), progress, cancel."""

from __future__ import annotations

import gzip
import tracemalloc

import numpy as np
import pytest

from tagtool.errors import Cancelled
from tagtool.store import vectors

ROWS, DIM = 200_000, 8


def _row(i: int) -> str:
    return f"w{i} " + " ".join(f"{(i % 97) / 7 + d:.4f}" for d in range(DIM)) + "\n"


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A 200,000-row word2vec text file (about 10 MB) and its gzip copy, generated row by row."""
    folder = tmp_path_factory.mktemp("big")
    path, gz = folder / "big.vec", folder / "big.vec.gz"
    with open(path, "w") as fh, gzip.open(gz, "wt", compresslevel=1) as gh:
        for out in (fh, gh):
            out.write(f"{ROWS} {DIM}\n")
        for start in range(0, ROWS, 10_000):
            block = "".join(_row(i) for i in range(start, start + 10_000))
            fh.write(block)
            gh.write(block)
    return path, gz


WANTED = [f"w{i}" for i in range(0, ROWS, 4000)] + ["absent"]


@pytest.mark.parametrize("which", [0, 1])
def test_large_file_keeps_only_the_vocabulary_in_bounded_memory(big, which):
    path = big[which]
    reports = []
    tracemalloc.start()
    got = vectors.read_vectors(path, WANTED, progress=lambda f, m: reports.append(f))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert got.rows_read == ROWS
    assert got.words == WANTED[:-1] and got.matrix.shape == (len(WANTED) - 1, DIM)
    np.testing.assert_allclose(got.matrix[3], [float(v) for v in _row(12_000).split()[1:]], rtol=1e-6)
    # read buffers of about 1 MB (a few with gzip), not the 13 MB file
    assert peak < 6 * 2**20 < big[0].stat().st_size / 2
    assert reports == sorted(reports) and reports[-1] == 1.0 and len(reports) >= 2


@pytest.mark.parametrize("which", [0, 1])
def test_cancel_stops_the_read(big, which):
    polls = []

    def should_stop():
        polls.append(1)
        return len(polls) > 3

    with pytest.raises(Cancelled, match="big.vec"):
        vectors.read_vectors(big[which], WANTED, should_stop=should_stop)
    assert len(polls) == 4


def test_cancel_before_a_fasttext_bin_is_loaded(tmp_path):
    from tests.store.vector_files import fasttext_model

    _, path = fasttext_model(tmp_path)
    with pytest.raises(Cancelled):
        vectors.read_vectors(path, ["cat"], should_stop=lambda: True)

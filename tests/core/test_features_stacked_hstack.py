"""Stacked feature sets are joined a block of rows at a time (the GIL is released in between): same result."""

import numpy as np
import scipy.sparse

from tagtool.core.features import stacking as extractor


def _random_csr(rng, n_rows, width):
    dense = rng.random((n_rows, width)) < 0.3
    m = scipy.sparse.csr_array(dense.astype(np.int8))
    return m.indptr.astype(np.int64), m.indices.astype(np.int32)


def test_blockwise_hstack_equals_one_hstack(monkeypatch):
    rng = np.random.default_rng(0)
    widths = [7, 3, 11]
    arrays = [_random_csr(rng, 50, w) for w in widths]
    whole = scipy.sparse.hstack(
        [
            scipy.sparse.csr_array((np.ones(len(i), dtype=np.int8), i, p), shape=(50, w))
            for (p, i), w in zip(arrays, widths)
        ],
        format="csr",
    )
    monkeypatch.setattr(extractor, "HSTACK_ROWS", 8)  # 7 blocks, the last one short
    indptr, indices = extractor._hstack(arrays, widths)
    np.testing.assert_array_equal(indptr, whole.indptr)
    np.testing.assert_array_equal(indices, whole.indices)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    empty = extractor._hstack([(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32))] * 2, [3, 4])
    assert empty[0].tolist() == [0] and len(empty[1]) == 0


def test_a_snapshot_transformed_in_blocks_equals_one_transform():
    """build_snapshot transforms a big corpus a block of sentences at a time (the GIL is released between
    numpy's calls, some of which hold it): the features of every token are those of one call."""
    from pathlib import Path

    from tagtool.core.features import FeatureExtractor
    from tagtool.core.snapshot import transform_in_blocks
    from tagtool.store.formats import read_corpus

    data = Path(__file__).resolve().parents[1] / "data" / "conll2000_train_head.txt"
    sentences = read_corpus(data, column_names=["token", "pos", "chunk"]).sentences
    for fx in (
        FeatureExtractor(min_count=2),
        FeatureExtractor(hashing=True, n_hash=4096),
        FeatureExtractor(feature_set="crfsuite+default", min_count=1),
    ):
        fx.fit(sentences[:60])
        whole = fx.transform(sentences)
        for block in (1, 7, 64):
            indptr, indices = transform_in_blocks(fx, sentences, block)
            np.testing.assert_array_equal(indptr, whole[0])
            np.testing.assert_array_equal(indices, whole[1])
            assert indptr.dtype == np.int64 and indices.dtype == whole[1].dtype


def test_concat_ranges_in_blocks_equals_one_repeat(monkeypatch):
    """concat_ranges makes its output a block of entries at a time (np.repeat holds the GIL): same ranges."""
    from tagtool.core.features import encoding

    rng = np.random.default_rng(1)
    counts, starts = rng.integers(0, 9, 300), rng.integers(0, 10_000, 300)
    expected = np.concatenate([np.arange(s, s + c) for s, c in zip(starts, counts)])
    for block in (1, 5, 64, 10**6):
        monkeypatch.setattr(encoding, "REPEAT_BLOCK", block)
        np.testing.assert_array_equal(encoding.concat_ranges(starts, counts), expected)
    assert len(encoding.concat_ranges(np.zeros(3, np.int64), np.zeros(3, np.int64))) == 0

"""Max-marginals against brute force and the numpy reference."""

from __future__ import annotations

import numpy as np
import pytest
from decode_oracle import MASK_KINDS, SHAPES, enumerate_paths, instances

from tagtool.decode import max_marginals, reference, viterbi


@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize(("n_tokens", "n_labels"), SHAPES)
def test_max_marginals_match_bruteforce(n_tokens, n_labels, mask_kind):
    for _, chain, allowed in instances(n_tokens, n_labels, mask_kind):
        enum = enumerate_paths(*chain, allowed)
        expected = np.full((n_tokens, n_labels), -np.inf)
        for path, score in zip(enum.paths, enum.scores):
            for t, b in enumerate(path):
                expected[t, b] = max(expected[t, b], float(score))
        got = max_marginals(*chain, allowed=allowed)
        np.testing.assert_array_equal(np.isinf(got), np.isinf(expected))
        finite = np.isfinite(expected)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(got, reference.max_marginals(*chain, allowed), rtol=1e-12, atol=1e-9)
        # every token's best max-marginal is the Viterbi score
        np.testing.assert_allclose(got.max(axis=1), viterbi(*chain, allowed=allowed)[1], rtol=1e-12, atol=1e-9)

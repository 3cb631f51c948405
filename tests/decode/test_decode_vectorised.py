"""The numpy decoding of short runs (tagtool.decode.vectorised) gives the kernels' results bit for bit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tagtool.decode import vectorised, viterbi_batch
from tagtool.learn._emission import _emission_kernel

DATA = Path(__file__).parent.parent / "data"


def _chain(rng, n_sent, n_labels, integer):
    lengths = rng.integers(1, 15, size=n_sent)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    draw = (lambda *s: rng.integers(-2, 3, size=s).astype(float)) if integer else (lambda *s: rng.normal(size=s))
    # integer scores make ties everywhere: both must pick the lowest label
    return draw(offsets[-1], n_labels), offsets, draw(n_labels, n_labels), draw(n_labels), draw(n_labels)


@pytest.mark.parametrize("n_labels", [1, 2, 5, 23])  # 23: the kernel's wide step (>= 16 labels)
@pytest.mark.parametrize("integer", [False, True])
def test_numpy_viterbi_batch_equals_the_kernel(n_labels, integer):
    rng = np.random.default_rng(n_labels + 100 * integer)
    emit, offsets, trans, start, end = _chain(rng, 60, n_labels, integer)
    paths, scores = vectorised.viterbi_batch(emit, offsets, trans, start, end)
    expected_paths, expected_scores = viterbi_batch(emit, offsets, trans, start, end)
    np.testing.assert_array_equal(paths, expected_paths)
    np.testing.assert_array_equal(scores, expected_scores)


@pytest.mark.parametrize("view", [-1, 0, 1])
def test_numpy_emission_sums_equal_the_kernel(view):
    rng = np.random.default_rng(view + 5)
    counts = rng.integers(0, 9, size=300)  # tokens without features too
    indptr = np.concatenate(([0], np.cumsum(counts)))
    indices = rng.integers(0, 50, size=indptr[-1]).astype(np.int32)
    weights = rng.normal(size=(50, 7)) * 10.0 ** rng.integers(-8, 8, size=(50, 1))  # rounding depends on order
    feature_view = rng.integers(0, 2, size=50).astype(np.int8)
    expected = np.zeros((300, 7))
    _emission_kernel(indptr, indices, weights, feature_view, view, expected)
    np.testing.assert_array_equal(vectorised.emission_sums(indptr, indices, weights, feature_view, view), expected)


def test_a_short_tag_run_never_loads_numba_or_scipy_and_tags_as_the_kernels_do(tmp_path):
    """``tagtool tag`` of a few sentences decodes with numpy; its output is the kernels' output."""
    from tagtool.cli.main import main
    from tagtool.core.features import FeatureExtractor
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger
    from tagtool.store.formats import read_corpus

    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    tagger = train_tagger(
        corpus,
        make_learner("perceptron", max_iter=2),
        features=FeatureExtractor("crfsuite", min_count=1, pos_column="col1"),
    )
    model = tmp_path / "m.tagger"
    tagger.save(model)
    assert main(["tag", str(model), str(DATA / "conll2000_train_head.txt"), "-o", str(tmp_path / "kernels.txt")]) == 0
    code = (
        "import sys\nfrom tagtool.cli.main import main\n"
        f"code = main(['tag', {str(model)!r}, {str(DATA / 'conll2000_train_head.txt')!r}, '-o', "
        f"{str(tmp_path / 'numpy.txt')!r}])\n"
        "print(code, sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'scipy', 'pandas', 'PySide6'}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[0] == "0 []"
    assert (tmp_path / "numpy.txt").read_text() == (tmp_path / "kernels.txt").read_text()

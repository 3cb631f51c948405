"""The public decoders reject bad input with DecoderInputError and accept array-likes."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tagtool.decode import (
    DecoderInputError,
    entropy_and_gradient,
    forward_backward,
    kbest_viterbi,
    log_partition,
    loss_augmented_viterbi,
    viterbi,
    viterbi_batch,
)
from tagtool.errors import TagtoolError

T, L = 4, 3


def _good():
    rng = np.random.default_rng(0)
    return {
        "emit": rng.normal(size=(T, L)),
        "trans": rng.normal(size=(L, L)),
        "start": rng.normal(size=L),
        "end": rng.normal(size=L),
    }


# Every public decoder, called with keyword scores so one argument can be swapped.
DECODERS = {
    "viterbi": lambda emit, trans, start, end, allowed=None: viterbi(emit, trans, start, end, allowed),
    "viterbi_batch": lambda emit, trans, start, end, allowed=None: viterbi_batch(
        emit, [0, len(emit)] if np.ndim(emit) == 2 else [0], trans, start, end, allowed
    ),
    "kbest_viterbi": lambda emit, trans, start, end, allowed=None: kbest_viterbi(emit, trans, start, end, 3, allowed),
    "loss_augmented_viterbi": lambda emit, trans, start, end, allowed=None: loss_augmented_viterbi(
        emit, trans, start, end, np.zeros(np.shape(emit)[0], dtype=int), 1.0, allowed
    ),
    "forward_backward": lambda emit, trans, start, end, allowed=None: forward_backward(
        emit, trans, start, end, allowed
    ),
    "log_partition": lambda emit, trans, start, end, allowed=None: log_partition(emit, trans, start, end, allowed),
    "entropy_and_gradient": lambda emit, trans, start, end, allowed=None: entropy_and_gradient(
        emit, trans, start, end, allowed
    ),
}

BAD_SCORES = [
    ("emit", np.zeros(L), "emit: expected shape (T, L), got (3,)"),
    ("emit", np.zeros((2, L, 1)), "emit: expected shape (T, L), got (2, 3, 1)"),
    ("emit", np.zeros((T, 0)), "L >= 1"),
    ("emit", np.full((T, L), "a"), "expected real numbers"),
    ("emit", np.ones((T, L), dtype=complex), "expected real numbers"),
    ("trans", np.zeros((L, L + 1)), "trans: expected shape (3, 3) (L from emit), got (3, 4)"),
    ("trans", np.zeros(L), "trans: expected shape (3, 3) (L from emit), got (3,)"),
    ("start", np.zeros(L + 1), "start: expected shape (3,) (L from emit), got (4,)"),
    ("end", np.zeros((L, 1)), "end: expected shape (3,) (L from emit), got (3, 1)"),
    ("end", 1.0, "end: expected shape (3,) (L from emit), got ()"),
]


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize(("name", "value", "message"), BAD_SCORES)
def test_bad_score_shapes_are_named(decoder, name, value, message):
    args = _good() | {name: value}
    with pytest.raises(DecoderInputError) as info:
        DECODERS[decoder](**args)
    assert message in str(info.value)


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize("name", ["emit", "trans", "start", "end"])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_scores_are_named(decoder, name, bad):
    args = _good()
    args[name] = args[name].copy()
    args[name].flat[-1] = bad
    with pytest.raises(DecoderInputError, match=rf"^{name}: non-finite value"):
        DECODERS[decoder](**args)


@pytest.mark.parametrize("decoder", [d for d in DECODERS if d != "viterbi_batch"])
def test_empty_sentence_is_rejected(decoder):
    args = _good() | {"emit": np.zeros((0, L))}
    message = r"emit: expected at least one token \(T >= 1\), got shape \(0, 3\)"
    with pytest.raises(DecoderInputError, match=message):
        DECODERS[decoder](**args)


BAD_MASKS = [
    (np.ones((T, L + 1), dtype=bool), r"allowed: expected shape \(4, 3\) \(T, L of emit\), got \(4, 4\)"),
    (np.ones(T, dtype=bool), r"allowed: expected shape \(4, 3\) \(T, L of emit\), got \(4,\)"),
    (np.full((T, L), 0.5), "allowed: expected a boolean mask"),
    (np.full((T, L), "x"), "allowed: expected a boolean mask"),
    (np.array([[1, 0, 0], [0, 1, 1], [0, 0, 0], [1, 1, 1]], dtype=bool), r"allowed: row 2 allows no label"),
    (np.zeros((T, L), dtype=bool), r"allowed: row 0 allows no label"),
]


@pytest.mark.parametrize("decoder", DECODERS)
@pytest.mark.parametrize(("mask", "message"), BAD_MASKS)
def test_bad_masks_are_rejected(decoder, mask, message):
    with pytest.raises(DecoderInputError, match=message):
        DECODERS[decoder](**_good(), allowed=mask)


def test_error_is_a_value_error_and_a_tagtool_error():
    assert issubclass(DecoderInputError, ValueError)
    assert issubclass(DecoderInputError, TagtoolError)


@pytest.mark.parametrize(
    ("offsets", "message"),
    [
        ([0, 2, 2, 4], r"offsets: sentence 1 has length 0"),
        ([0, 3, 2, 4], r"offsets: sentence 1 has length -1"),
        ([1, 4], "offsets: expected to run from 0 to 4"),
        ([0, 3], "offsets: expected to run from 0 to 4"),
        ([0.0, 4.0], "offsets: expected a 1-D integer array"),
        ([], "offsets: expected a 1-D integer array"),
        ([[0, 4]], "offsets: expected a 1-D integer array"),
    ],
)
def test_bad_offsets_are_rejected(offsets, message):
    g = _good()
    with pytest.raises(DecoderInputError, match=message):
        viterbi_batch(g["emit"], offsets, g["trans"], g["start"], g["end"])


@pytest.mark.parametrize(
    ("target", "weight", "message"),
    [
        ([0, 1, 2], 1.0, r"target: expected shape \(4,\) \(T of emit\), got \(3,\)"),
        ([0, 1, 2, 3], 1.0, r"target: expected labels in \[0, 3\), got values from 0 to 3"),
        ([0, -1, 2, 0], 1.0, r"target: expected labels in \[0, 3\)"),
        ([0.0, 1.0, 2.0, 0.0], 1.0, "target: expected integer labels"),
        ([0, 1, 2, 0], [1.0, 2.0], r"loss_weight: expected shape \(4,\)"),
        ([0, 1, 2, 0], np.nan, "loss_weight: non-finite value"),
        ([0, 1, 2, 0], [1.0, np.inf, 1.0, 1.0], r"loss_weight: non-finite value inf at index \(1,\)"),
        ([0, 1, 2, 0], "heavy", "loss_weight: expected real numbers"),
    ],
)
def test_bad_loss_arguments_are_rejected(target, weight, message):
    with pytest.raises(DecoderInputError, match=message):
        loss_augmented_viterbi(**_good(), target=target, loss_weight=weight)


@pytest.mark.parametrize(
    ("k", "message"),
    [(0, "k: expected k >= 1, got 0"), (1.5, "k: expected an integer"), ("2", "k: expected an integer")],
)
def test_bad_k_is_rejected(k, message):
    with pytest.raises(DecoderInputError, match=message):
        kbest_viterbi(**_good(), k=k)


def test_array_likes_and_other_dtypes_give_the_same_answer():
    g = _good()
    expected = viterbi(**g)
    as_lists = {name: value.tolist() for name, value in g.items()}
    np.testing.assert_array_equal(viterbi(**as_lists)[0], expected[0])
    fortran = {name: np.asfortranarray(value) for name, value in g.items()}
    assert viterbi(**fortran)[1] == expected[1]
    strided = np.zeros((T, 2 * L))
    strided[:, ::2] = g["emit"]
    assert viterbi(strided[:, ::2], g["trans"], g["start"], g["end"])[1] == expected[1]
    int_mask = np.ones((T, L), dtype=np.int8)
    assert viterbi(**g, allowed=int_mask)[1] == expected[1]
    integer_scores = {name: np.round(value).astype(np.int32) for name, value in g.items()}
    assert isinstance(log_partition(**integer_scores), float)


def test_decoders_do_not_import_qt():
    code = "import sys, tagtool.decode; sys.exit(any(m.startswith(('PySide6', 'PyQt')) for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0

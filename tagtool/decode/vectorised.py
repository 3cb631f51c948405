"""Numpy decoding of short runs: emission sums and Viterbi without numba.

Loading numba and its compiled kernels costs a process about half a second
(numba's own import, then its target registries, which import scipy.linalg),
far more than decoding a few thousand tokens takes.  A process that has not
loaded numba yet -- ``tagtool tag`` of a short file -- decodes up to
:data:`NUMPY_TOKENS` tokens with these functions instead; longer runs, and
every process that already loaded numba (the app, training), use the
kernels.

Both functions perform the floating-point operations of their kernels in
the same order (:func:`tagtool.learn._emission._emission_kernel`,
:func:`tagtool.decode._viterbi._viterbi_batch_kernel`), vectorised over
sentences and labels instead of looping over them, so their results agree
bit for bit; ties go to the lowest label, as numpy's ``argmax`` returns the
first maximum.  Which one runs therefore never changes an output (the tests
compare them).

References
----------
.. [1] L. R. Rabiner, "A tutorial on hidden Markov models and selected
   applications in speech recognition", Proc. IEEE 77(2), 1989, §III-B.
"""

from __future__ import annotations

import sys

import numpy as np

#: Tokens up to which a process without numba decodes with numpy: such a run costs a fraction of
#: loading numba, though numpy is slower per token than the kernels
#: (benchmarks/results/design-measurements.md, "Decoding: numpy or numba").
NUMPY_TOKENS = 20_000


def numpy_suffices(n_tokens: int) -> bool:
    """True if ``n_tokens`` tokens decode faster here than numba would load (numba not imported yet)."""
    return "numba" not in sys.modules and n_tokens <= NUMPY_TOKENS


def emission_sums(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, feature_view: np.ndarray, view: int = -1
) -> np.ndarray:
    """``emit[N, L]``: per token, the sum of the weight rows of its features (of ``view`` if >= 0).

    The kernel adds a token's rows one by one in feature order, starting
    from zero; here step ``j`` adds the ``j``-th feature's row of every token
    that has one, which is the same sequence of additions per token.
    """
    indptr = np.asarray(indptr, dtype=np.int64)
    indices = np.asarray(indices)
    if view >= 0:
        keep = feature_view[indices] == view
        indptr = np.concatenate(([0], np.cumsum(keep)))[indptr]
        indices = indices[keep]
    counts = np.diff(indptr)
    out = np.zeros((len(counts), weights.shape[1]))
    for j in range(int(counts.max()) if len(counts) else 0):
        rows = np.flatnonzero(counts > j)
        out[rows] += weights[indices[indptr[rows] + j]]
    return out


def viterbi_batch(
    emit: np.ndarray, offsets: np.ndarray, trans: np.ndarray, start: np.ndarray, end: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Best paths and scores of the stacked sentences ``emit[offsets[i]:offsets[i + 1]]``, all labels allowed.

    The same results as :func:`tagtool.decode.viterbi_batch` with
    ``allowed=None`` for finite scores and non-empty sentences.  Sentences
    are sorted longest first, so that those still running at position ``t``
    are a prefix, and advanced one position at a time together.
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.diff(offsets)
    order = np.argsort(-lengths, kind="stable")
    first, lens = offsets[:-1][order], lengths[order]
    running = np.bincount(lens, minlength=int(lens.max(initial=0)) + 1)[::-1].cumsum()[::-1]
    delta = start + emit[first]
    back = np.zeros(emit.shape, dtype=np.int64)
    for t in range(1, int(lens.max(initial=0))):
        k = int(running[t + 1])  # sentences longer than t
        rows = first[:k] + t
        cand = delta[:k, :, None] + trans  # cand[i, a, b] = delta[i, a] + trans[a, b]
        arg = cand.argmax(axis=1)
        back[rows] = arg
        delta[:k] = np.take_along_axis(cand, arg[:, None, :], axis=1)[:, 0, :] + emit[rows]
    final = delta + end
    path = np.empty(emit.shape[0], dtype=np.int64)
    path[first + lens - 1] = final.argmax(axis=1)
    for t in range(int(lens.max(initial=0)) - 1, 0, -1):
        rows = first[: int(running[t + 1])] + t
        path[rows - 1] = back[rows, path[rows]]
    scores = np.empty(len(lengths))
    scores[order] = final.max(axis=1)
    return path, scores

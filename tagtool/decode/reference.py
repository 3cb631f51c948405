"""Pure-numpy references of the decoder kernels: test oracle and benchmark baseline.

Same signatures and results as :mod:`tagtool.decode.max_product` and
:mod:`tagtool.decode.sum_product`, but no argument checks: the inputs
must already be valid (float64 scores, finite, a bool mask with a True in
every row).  Each function loops over tokens and is
vectorised over labels, and performs the same floating-point operations in
the same order as its kernel where that is natural, so max-based results
(paths, Viterbi and k-best scores) agree bit for bit.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode.results import EntropyResult, ForwardBackwardResult


def _mask(allowed, emit: np.ndarray) -> np.ndarray:
    return np.ones(emit.shape, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)


def _lse(x: np.ndarray, axis: int) -> np.ndarray:
    """Log-sum-exp along ``axis``; every slice must hold a finite entry."""
    top = x.max(axis=axis, keepdims=True)
    return np.squeeze(top, axis) + np.log(np.exp(x - top).sum(axis=axis))


def viterbi(emit, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.viterbi`."""
    allowed = _mask(allowed, emit)
    n_tokens = emit.shape[0]
    bp = np.zeros(emit.shape, dtype=np.int64)
    delta = np.where(allowed[0], start + emit[0], -np.inf)
    for t in range(1, n_tokens):
        cand = delta[:, None] + trans
        bp[t] = cand.argmax(axis=0)  # argmax returns the first maximum: lowest label
        delta = np.where(allowed[t], cand.max(axis=0) + emit[t], -np.inf)
    final = delta + end
    path = np.empty(n_tokens, dtype=np.int64)
    path[-1] = final.argmax()
    for t in range(n_tokens - 1, 0, -1):
        path[t - 1] = bp[t, path[t]]
    return path, float(final.max())


def max_marginals(emit, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.max_marginals`."""
    allowed = _mask(allowed, emit)
    n_tokens = emit.shape[0]
    fwd = np.empty(emit.shape)
    bwd = np.empty(emit.shape)
    fwd[0] = np.where(allowed[0], start + emit[0], -np.inf)
    for t in range(1, n_tokens):
        fwd[t] = np.where(allowed[t], (fwd[t - 1][:, None] + trans).max(axis=0) + emit[t], -np.inf)
    bwd[-1] = np.where(allowed[-1], end, -np.inf)
    for t in range(n_tokens - 2, -1, -1):
        bwd[t] = np.where(allowed[t], (trans + emit[t + 1] + bwd[t + 1]).max(axis=1), -np.inf)
    return fwd + bwd


def viterbi_batch(emit, offsets, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.viterbi_batch` (one sentence at a time)."""
    allowed = _mask(allowed, emit)
    paths = np.empty(emit.shape[0], dtype=np.int64)
    scores = np.empty(len(offsets) - 1)
    for i, (lo, hi) in enumerate(zip(offsets[:-1], offsets[1:])):
        paths[lo:hi], scores[i] = viterbi(emit[lo:hi], trans, start, end, allowed[lo:hi])
    return paths, scores


def _top_k(cand: np.ndarray, k: int) -> np.ndarray:
    """Row indices of the k largest entries of each column, ties by row (stable sort)."""
    return np.argsort(-cand, axis=0, kind="stable")[:k]


def kbest_viterbi(emit, trans, start, end, k, allowed=None):
    """Reference of :func:`tagtool.decode.kbest_viterbi`."""
    allowed = _mask(allowed, emit)
    n_tokens, n_labels = emit.shape
    k = int(min(k, np.prod(allowed.sum(axis=1).astype(float))))
    hyp = np.full((n_labels, k), -np.inf)  # hyp[b, r]: r-th best prefix score ending in b
    hyp[:, 0] = np.where(allowed[0], start + emit[0], -np.inf)
    back = []  # back[t - 1][r, b]: flat index a * k + rank of the predecessor
    for t in range(1, n_tokens):
        cand = (hyp[:, :, None] + trans[:, None, :]).reshape(n_labels * k, n_labels)
        idx = _top_k(cand, k)
        back.append(idx)
        hyp = np.take_along_axis(cand, idx, axis=0).T + emit[t][:, None]
        hyp[~allowed[t]] = -np.inf
    final = (hyp + end[:, None]).reshape(n_labels * k)
    order = _top_k(final[:, None], k)[:, 0]
    paths = np.empty((k, n_tokens), dtype=np.int64)
    for i, flat in enumerate(order):
        b, r = divmod(int(flat), k)
        paths[i, -1] = b
        for t in range(n_tokens - 1, 0, -1):
            b, r = divmod(int(back[t - 1][r, b]), k)
            paths[i, t - 1] = b
    return paths, final[order]


def loss_augmented_viterbi(emit, trans, start, end, target, loss_weight=1.0, allowed=None):
    """Reference of :func:`tagtool.decode.loss_augmented_viterbi`."""
    n_tokens = emit.shape[0]
    weights = np.broadcast_to(np.asarray(loss_weight, dtype=float), (n_tokens,))
    augmented = emit + weights[:, None]
    rows = np.arange(n_tokens)
    augmented[rows, target] = emit[rows, target]
    return viterbi(augmented, trans, start, end, allowed)


def _forward(emit, trans, start, allowed):
    alpha = np.full(emit.shape, -np.inf)
    alpha[0] = np.where(allowed[0], start + emit[0], -np.inf)
    for t in range(1, emit.shape[0]):
        alpha[t] = np.where(allowed[t], _lse(alpha[t - 1][:, None] + trans, 0) + emit[t], -np.inf)
    return alpha


def _backward(emit, trans, end, allowed):
    beta = np.full(emit.shape, -np.inf)
    beta[-1] = np.where(allowed[-1], end, -np.inf)
    for t in range(emit.shape[0] - 2, -1, -1):
        ahead = emit[t + 1] + beta[t + 1]
        beta[t] = np.where(allowed[t], _lse(trans + ahead[None, :], 1), -np.inf)
    return beta


def log_partition(emit, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.log_partition`."""
    alpha = _forward(emit, trans, start, _mask(allowed, emit))
    return float(_lse(alpha[-1] + end, 0))


def forward_backward(emit, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.forward_backward`."""
    allowed = _mask(allowed, emit)
    alpha = _forward(emit, trans, start, allowed)
    beta = _backward(emit, trans, end, allowed)
    log_z = float(_lse(alpha[-1] + end, 0))
    marginals = np.exp(alpha + beta - log_z)
    ahead = emit[1:] + beta[1:]
    pairs = np.exp(alpha[:-1, :, None] + trans[None] + ahead[:, None, :] - log_z)
    return ForwardBackwardResult(log_z, marginals, pairs)


def _softmax_mean(log_w: np.ndarray, values: np.ndarray, axis: int):
    """Log-sum-exp of ``log_w`` and the softmax(``log_w``)-weighted mean of ``values``."""
    top = log_w.max(axis=axis, keepdims=True)
    w = np.exp(log_w - top)
    total = w.sum(axis=axis)
    return np.squeeze(top, axis) + np.log(total), (w * values).sum(axis=axis) / total


def _forward_expected(emit, trans, start, allowed):
    alpha = np.full(emit.shape, -np.inf)
    ea = np.zeros(emit.shape)
    alpha[0] = np.where(allowed[0], start + emit[0], -np.inf)
    ea[0] = np.where(allowed[0], start + emit[0], 0.0)
    for t in range(1, emit.shape[0]):
        lse, mean = _softmax_mean(alpha[t - 1][:, None] + trans, ea[t - 1][:, None] + trans, 0)
        alpha[t] = np.where(allowed[t], lse + emit[t], -np.inf)
        ea[t] = np.where(allowed[t], mean + emit[t], 0.0)
    return alpha, ea


def _backward_expected(emit, trans, end, allowed):
    beta = np.full(emit.shape, -np.inf)
    eb = np.zeros(emit.shape)
    beta[-1] = np.where(allowed[-1], end, -np.inf)
    eb[-1] = np.where(allowed[-1], end, 0.0)
    for t in range(emit.shape[0] - 2, -1, -1):
        log_w = trans + (emit[t + 1] + beta[t + 1])[None, :]
        lse, mean = _softmax_mean(log_w, trans + (emit[t + 1] + eb[t + 1])[None, :], 1)
        beta[t] = np.where(allowed[t], lse, -np.inf)
        eb[t] = np.where(allowed[t], mean, 0.0)
    return beta, eb


def entropy_and_gradient(emit, trans, start, end, allowed=None):
    """Reference of :func:`tagtool.decode.entropy_and_gradient`."""
    allowed = _mask(allowed, emit)
    alpha, ea = _forward_expected(emit, trans, start, allowed)
    beta, eb = _backward_expected(emit, trans, end, allowed)
    log_z, expected = _softmax_mean(alpha[-1] + end, ea[-1] + end, 0)
    d_emit = -np.exp(alpha + beta - log_z) * (ea + eb - expected)
    ahead = emit[1:] + beta[1:]
    pairs = np.exp(alpha[:-1, :, None] + trans[None] + ahead[:, None, :] - log_z)
    cond = ea[:-1, :, None] + trans[None] + (emit[1:] + eb[1:])[:, None, :]
    d_trans = -(pairs * (cond - expected)).sum(axis=0)
    return EntropyResult(
        entropy=float(log_z - expected),
        expected_score=float(expected),
        d_emit=d_emit,
        d_trans=d_trans,
        d_start=d_emit[0].copy(),
        d_end=d_emit[-1].copy(),
        log_z=float(log_z),
    )

"""Forward-backward kernels in log space, and their entropy extension.

Everything here sums over the label paths of a chain (the sum-product side of
the decoders).  The tables hold logs, so scores of magnitude 1e3 and beyond
neither overflow nor underflow.  Masked states hold ``-inf`` and contribute
``exp(-inf) = 0``; because every mask row has an allowed label and all scores
are finite, each maximum taken below is finite.

Shifted exponentials.  A textbook log-space forward pass calls ``exp``
``T L^2`` times, and numba's scalar ``exp`` (no SVML) then dominates: the
kernel is barely faster than numpy's vectorised one.  These kernels instead
take ``exp(trans - max trans)`` once per sentence and ``exp(alpha[t-1] - max
alpha[t-1])`` once per token, so a forward step is a matrix-vector product
with ``O(L)`` exps.  Both factors are at most 1, so a product that does not
underflow is accurate to a few ulps, and a sum of products above
``_MIN_SCALED_SUM`` owes less than ``1e-20`` of its value to terms that did
underflow.  Where a sum falls below that bound (scores of magnitude ~1e3 can
do this), the entry is recomputed with a plain log-sum-exp, so the result is
as stable as the textbook recursion.

Entropy (Mann & McCallum 2007; docs/design.md#entropy-regularised-crf).  Next to the log tables, the
passes carry expected scores: ``ea[t, b] = E[prefix score | y_t = b]``
(start, emissions 0..t, transitions up to t) and ``eb[t, a] = E[suffix score
| y_t = a]`` (transitions after t, emissions t+1.., end).  Given ``y_t`` the
prefix and the suffix are independent, so ``E[S | y_t = b] = ea + eb`` and
``E[S | y_{t-1} = a, y_t = b] = ea[t-1, a] + trans[a, b] + emit[t, b] +
eb[t, b]``; the gradient ``dH/dθ = -Cov(F_θ, S)`` then needs no nested
recursion, and the whole computation is ``O(T L^2)``.  Masked states keep 0
in the expectation tables, so their weight 0 multiplies a finite number.

The helpers are shared with no other module: the scaled recursions are
particular to the sum-product side (kernels elsewhere may call them;
:mod:`tagtool.decode._jit` keys the cache on every kernel module).
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit

# Below this, a sum of shifted-exponential products may have lost precision.
_MIN_SCALED_SUM = 1e-280
# Largest log of the rescaling factor in _pair_probs that keeps every product
# of a pair probability >= 1e-200 clear of underflow (see there).
_MAX_LOG_RESCALE = 230.0


@_njit
def _logsumexp(values):
    """``log(sum(exp(values)))`` of a 1-D array with at least one finite entry."""
    top = -np.inf
    for v in values:
        top = max(top, v)
    total = 0.0
    for v in values:
        total += np.exp(v - top)
    return top + np.log(total)


@_njit
def _weighted_lse(log_w, values):
    """``(log sum exp(log_w), sum softmax(log_w) * values)``; at least one finite ``log_w``."""
    top = -np.inf
    for v in log_w:
        top = max(top, v)
    total = 0.0
    acc = 0.0
    for i in range(log_w.shape[0]):
        w = np.exp(log_w[i] - top)
        total += w
        acc += w * values[i]
    return top + np.log(total), acc / total


@_njit
def _shifted_exp(values, out):
    """``out = exp(values - max(values))``; returns the max (``-inf`` entries give 0)."""
    top = -np.inf
    for v in values:
        top = max(top, v)
    for i in range(values.shape[0]):
        out[i] = np.exp(values[i] - top)
    return top


@_njit
def _shifted_exp_matrix(trans):
    """``(exp(trans - max(trans)), max(trans))``."""
    top = trans.max()
    return np.exp(trans - top), top


@_njit
def _pair_probs(alpha_prev, ahead, trans, expo, top, log_z, u, w, out):
    """``out[a, b] = exp(alpha_prev[a] + trans[a, b] + ahead[b] - log_z)``.

    ``expo, top`` come from :func:`_shifted_exp_matrix`; ``u``, ``w`` are
    scratch of length L.  With ``u = exp(alpha_prev - max)``, ``w = K
    exp(ahead - max)`` and ``K`` the remaining factor, ``out = u expo w``.
    ``K >= 1 / L^2`` because the entries sum to one; when ``K <= e^230``,
    every ``out >= 1e-200`` has ``u * expo >= out / K >= 1e-300`` and ``w >=
    out``, so no factor underflows and smaller entries are off by at most
    1e-200.  A larger ``K`` falls back to one ``exp`` per entry.
    """
    log_k = _shifted_exp(alpha_prev, u) + _shifted_exp(ahead, w) + top - log_z
    n_labels = u.shape[0]
    if log_k <= _MAX_LOG_RESCALE:
        scale = np.exp(log_k)
        for b in range(n_labels):
            w[b] *= scale
        for a in range(n_labels):
            ua = u[a]
            for b in range(n_labels):
                out[a, b] = ua * expo[a, b] * w[b]
    else:
        for a in range(n_labels):
            for b in range(n_labels):
                out[a, b] = np.exp(alpha_prev[a] + trans[a, b] + ahead[b] - log_z)


@_njit
def _forward(emit, trans, start, allowed):
    """Log forward table ``alpha[t, b]`` (scores up to and including ``emit[t, b]``)."""
    n_tokens, n_labels = emit.shape
    expo, top = _shifted_exp_matrix(trans)
    alpha = np.full((n_tokens, n_labels), -np.inf)
    prob = np.empty(n_labels)
    sums = np.empty(n_labels)
    buf = np.empty(n_labels)
    for b in range(n_labels):
        if allowed[0, b]:
            alpha[0, b] = start[b] + emit[0, b]
    for t in range(1, n_tokens):
        shift = _shifted_exp(alpha[t - 1], prob) + top
        sums[:] = 0.0
        for a in range(n_labels):
            if allowed[t - 1, a]:
                pa = prob[a]
                for b in range(n_labels):
                    sums[b] += pa * expo[a, b]
        for b in range(n_labels):
            if not allowed[t, b]:
                continue
            if sums[b] > _MIN_SCALED_SUM:
                alpha[t, b] = shift + np.log(sums[b]) + emit[t, b]
            else:
                for a in range(n_labels):
                    buf[a] = alpha[t - 1, a] + trans[a, b]
                alpha[t, b] = _logsumexp(buf) + emit[t, b]
    return alpha


@_njit
def _backward(emit, trans, end, allowed):
    """Log backward table ``beta[t, a]`` (scores after ``emit[t, a]``, through ``end``)."""
    n_tokens, n_labels = emit.shape
    expo, top = _shifted_exp_matrix(trans)
    beta = np.full((n_tokens, n_labels), -np.inf)
    ahead = np.empty(n_labels)
    prob = np.empty(n_labels)
    buf = np.empty(n_labels)
    for a in range(n_labels):
        if allowed[n_tokens - 1, a]:
            beta[n_tokens - 1, a] = end[a]
    for t in range(n_tokens - 2, -1, -1):
        for b in range(n_labels):
            ahead[b] = emit[t + 1, b] + beta[t + 1, b]
        shift = _shifted_exp(ahead, prob) + top
        for a in range(n_labels):
            if not allowed[t, a]:
                continue
            total = 0.0
            for b in range(n_labels):
                total += expo[a, b] * prob[b]
            if total > _MIN_SCALED_SUM:
                beta[t, a] = shift + np.log(total)
            else:
                for b in range(n_labels):
                    buf[b] = trans[a, b] + ahead[b]
                beta[t, a] = _logsumexp(buf)
    return beta


@_njit
def _log_z(alpha, end):
    """Close the forward table with the end scores."""
    last = alpha.shape[0] - 1
    return _logsumexp(alpha[last] + end)


@_njit
def _log_partition_kernel(emit, trans, start, end, allowed):
    """``log Z`` (``log Z_A`` under the mask) by the forward pass alone."""
    return _log_z(_forward(emit, trans, start, allowed), end)


@_njit
def _forward_backward_kernel(emit, trans, start, end, allowed, marginals, pair_marginals):
    """Fill token and pair marginals; returns ``log Z``."""
    n_tokens, n_labels = emit.shape
    alpha = _forward(emit, trans, start, allowed)
    beta = _backward(emit, trans, end, allowed)
    log_z = _log_z(alpha, end)
    for t in range(n_tokens):
        for b in range(n_labels):
            marginals[t, b] = np.exp(alpha[t, b] + beta[t, b] - log_z)
    expo, top = _shifted_exp_matrix(trans)
    ahead = np.empty(n_labels)
    u = np.empty(n_labels)
    w = np.empty(n_labels)
    for t in range(1, n_tokens):
        for b in range(n_labels):
            ahead[b] = emit[t, b] + beta[t, b]
        _pair_probs(alpha[t - 1], ahead, trans, expo, top, log_z, u, w, pair_marginals[t - 1])
    return log_z


@_njit
def _forward_expected(emit, trans, start, allowed):
    """Log forward table and expected prefix scores.

    ``ea[t, b]`` is the mean of ``ea[t-1, a] + trans[a, b]`` under weights
    ``exp(alpha[t-1, a] + trans[a, b])``; with shifted exponentials both the
    normaliser and the weighted sum are matrix-vector products.
    """
    n_tokens, n_labels = emit.shape
    expo, top = _shifted_exp_matrix(trans)
    expo_trans = expo * trans
    alpha = np.full((n_tokens, n_labels), -np.inf)
    ea = np.zeros((n_tokens, n_labels))
    prob = np.empty(n_labels)
    sums = np.empty(n_labels)
    means = np.empty(n_labels)
    log_w = np.empty(n_labels)
    vals = np.empty(n_labels)
    for b in range(n_labels):
        if allowed[0, b]:
            alpha[0, b] = start[b] + emit[0, b]
            ea[0, b] = start[b] + emit[0, b]
    for t in range(1, n_tokens):
        shift = _shifted_exp(alpha[t - 1], prob) + top
        sums[:] = 0.0
        means[:] = 0.0
        for a in range(n_labels):
            if allowed[t - 1, a]:
                pa = prob[a]
                pe = pa * ea[t - 1, a]
                for b in range(n_labels):
                    sums[b] += pa * expo[a, b]
                    means[b] += pe * expo[a, b] + pa * expo_trans[a, b]
        for b in range(n_labels):
            if not allowed[t, b]:
                continue
            if sums[b] > _MIN_SCALED_SUM:
                alpha[t, b] = shift + np.log(sums[b]) + emit[t, b]
                ea[t, b] = means[b] / sums[b] + emit[t, b]
            else:
                for a in range(n_labels):
                    log_w[a] = alpha[t - 1, a] + trans[a, b]
                    vals[a] = ea[t - 1, a] + trans[a, b]
                lse, mean = _weighted_lse(log_w, vals)
                alpha[t, b] = lse + emit[t, b]
                ea[t, b] = mean + emit[t, b]
    return alpha, ea


@_njit
def _backward_expected(emit, trans, end, allowed):
    """Log backward table and expected suffix scores."""
    n_tokens, n_labels = emit.shape
    expo, top = _shifted_exp_matrix(trans)
    expo_trans = expo * trans
    beta = np.full((n_tokens, n_labels), -np.inf)
    eb = np.zeros((n_tokens, n_labels))
    ahead = np.empty(n_labels)
    ahead_e = np.empty(n_labels)
    prob = np.empty(n_labels)
    log_w = np.empty(n_labels)
    vals = np.empty(n_labels)
    for a in range(n_labels):
        if allowed[n_tokens - 1, a]:
            beta[n_tokens - 1, a] = end[a]
            eb[n_tokens - 1, a] = end[a]
    for t in range(n_tokens - 2, -1, -1):
        for b in range(n_labels):
            ahead[b] = emit[t + 1, b] + beta[t + 1, b]
            ahead_e[b] = emit[t + 1, b] + eb[t + 1, b]
        shift = _shifted_exp(ahead, prob) + top
        for a in range(n_labels):
            if not allowed[t, a]:
                continue
            total = 0.0
            acc = 0.0
            for b in range(n_labels):
                total += expo[a, b] * prob[b]
                acc += (expo[a, b] * ahead_e[b] + expo_trans[a, b]) * prob[b]
            if total > _MIN_SCALED_SUM:
                beta[t, a] = shift + np.log(total)
                eb[t, a] = acc / total
            else:
                for b in range(n_labels):
                    log_w[b] = trans[a, b] + ahead[b]
                    vals[b] = trans[a, b] + ahead_e[b]
                beta[t, a], eb[t, a] = _weighted_lse(log_w, vals)
    return beta, eb


@_njit
def _entropy_kernel(emit, trans, start, end, allowed, d_emit, d_trans):
    """Fill ``d_emit`` and ``d_trans``; returns ``(entropy, expected_score, log_z)``.

    ``dH/dstart`` and ``dH/dend`` equal ``d_emit[0]`` and ``d_emit[T-1]``:
    start and end scores fire exactly when the first or last emission does.
    """
    n_tokens, n_labels = emit.shape
    alpha, ea = _forward_expected(emit, trans, start, allowed)
    beta, eb = _backward_expected(emit, trans, end, allowed)
    last = n_tokens - 1
    log_z, expected = _weighted_lse(alpha[last] + end, ea[last] + end)
    for t in range(n_tokens):
        for b in range(n_labels):
            p = np.exp(alpha[t, b] + beta[t, b] - log_z)
            d_emit[t, b] = -p * (ea[t, b] + eb[t, b] - expected)
    d_trans[:, :] = 0.0
    expo, top = _shifted_exp_matrix(trans)
    pairs = np.empty((n_labels, n_labels))
    ahead = np.empty(n_labels)
    ahead_e = np.empty(n_labels)
    u = np.empty(n_labels)
    w = np.empty(n_labels)
    for t in range(1, n_tokens):
        for b in range(n_labels):
            ahead[b] = emit[t, b] + beta[t, b]
            ahead_e[b] = emit[t, b] + eb[t, b]
        _pair_probs(alpha[t - 1], ahead, trans, expo, top, log_z, u, w, pairs)
        for a in range(n_labels):
            if not allowed[t - 1, a]:
                continue
            # (E[S | y_{t-1} = a, y_t = b] - E[S]) weighted by the pair probability
            before = ea[t - 1, a] - expected
            for b in range(n_labels):
                d_trans[a, b] -= pairs[a, b] * (before + trans[a, b] + ahead_e[b])
    return log_z - expected, expected, log_z

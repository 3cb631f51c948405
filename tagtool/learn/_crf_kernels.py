"""Numba kernels of the CRF objective: one pass over a chunk of sentences.

What they compute -- each sentence's term of ``-J(θ)``, its emission
gradient sent to the weights by the chain rule, the scaled forward-backward
and its bound ``max_range``, the chunk-wide pair statistics, the entropy
recursions -- is described in :mod:`tagtool.learn.crf_objective`, which
calls :func:`objective_chunk`.

The per-token weight sum is the one every learner shares
(:func:`tagtool.learn._emission.sentence_emission`); the kernel cache of
:mod:`tagtool.decode._jit` is keyed on every kernel module, so calling a
kernel of another module is safe.

The references (Jiao et al. 2006; Mann & McCallum 2007; Rabiner 1989) are
listed there.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import kernel
from tagtool.learn._emission import path_score, sentence_emission

# tagtool's kernel options plus fastmath: the L x L inner loops are sums of
# products, and letting LLVM reassociate and fuse them (no assumptions about
# inf or nan) vectorises them, about twice as fast.
_fast = kernel(fastmath={"reassoc", "contract"})

#: Sentence kinds in ``kinds`` (the snapshot's status codes).
KIND_NONE, KIND_PARTIAL, KIND_FULL = 0, 1, 2
#: Default bound on the score range below which the scaled passes are exact.
DEFAULT_MAX_RANGE = 500.0


@_fast
def _largest_token_range(emit, n_tokens):
    """Largest ``max - min`` of one token's emission scores."""
    worst = 0.0
    for t in range(n_tokens):
        worst = max(worst, emit[t].max() - emit[t].min())
    return worst


@_fast
def _scaled_emissions(emit, n_tokens, allowed, s0, constrained, exp_emit):
    """``exp_emit[t] = exp(emit[t] - shift_t)`` (0 where masked); returns ``Σ_t shift_t``."""
    n_labels = emit.shape[1]
    total = 0.0
    for t in range(n_tokens):
        top = -np.inf
        for b in range(n_labels):
            if not constrained or allowed[s0 + t, b]:
                top = max(top, emit[t, b])
        for b in range(n_labels):
            if not constrained or allowed[s0 + t, b]:
                exp_emit[t, b] = np.exp(emit[t, b] - top)
            else:
                exp_emit[t, b] = 0.0
        total += top
    return total


@_fast
def _normalise(row):
    """Divide ``row`` by its sum; return the sum."""
    total = row.sum()
    inv = 1.0 / total
    for b in range(row.shape[0]):
        row[b] *= inv
    return total


@_fast
def _forward_scaled(exp_emit, n_tokens, exp_trans_t, exp_start, exp_end, alpha, scale):
    """Normalised forward vectors; returns ``Σ log scale`` including the end step.

    ``alpha[t]`` sums to one; ``scale[t]`` is the factor removed at token
    ``t`` and ``scale[n_tokens]`` the closing sum with the end scores.
    A step is ``L`` dot products with the rows of ``expT`` transposed:
    sums over contiguous memory vectorise better than ``L`` row updates
    (a third faster).
    """
    n_labels = exp_emit.shape[1]
    for b in range(n_labels):
        alpha[0, b] = exp_start[b] * exp_emit[0, b]
    scale[0] = _normalise(alpha[0])
    log_scale = np.log(scale[0])
    for t in range(1, n_tokens):
        prev = alpha[t - 1]
        cur = alpha[t]
        for b in range(n_labels):
            column = exp_trans_t[b]
            total = 0.0
            for a in range(n_labels):
                total += prev[a] * column[a]
            cur[b] = total * exp_emit[t, b]
        scale[t] = _normalise(cur)
        log_scale += np.log(scale[t])
    closing = 0.0
    for b in range(n_labels):
        closing += alpha[n_tokens - 1, b] * exp_end[b]
    scale[n_tokens] = closing
    return log_scale + np.log(closing)


@_fast
def _backward_scaled(exp_emit, n_tokens, exp_trans, exp_end, alpha, scale, beta, w, sign, outer):
    """Scaled backward vectors, and the pair statistics on the way.

    ``p(y_t = a) = alpha[t, a] beta[t, a]`` and ``p(y_t = a, y_{t+1} = b) =
    alpha[t, a] expT[a, b] w[b]`` with ``w = exp_emit[t+1] beta[t+1] /
    scale[t+1]``, the vector the step needs anyway; so ``outer += sign
    alpha[t] ⊗ w`` here, and ``expT ∘ outer`` is the pair-marginal sum.
    ``beta[t] = expT w``: dot products with the rows of ``expT``, over
    contiguous memory.
    """
    n_labels = exp_emit.shape[1]
    last = n_tokens - 1
    for b in range(n_labels):
        beta[last, b] = exp_end[b] / scale[n_tokens]
    for t in range(last - 1, -1, -1):
        inv = 1.0 / scale[t + 1]
        nxt = beta[t + 1]
        ahead = exp_emit[t + 1]
        for b in range(n_labels):
            w[b] = ahead[b] * nxt[b] * inv
        cur = beta[t]
        for a in range(n_labels):
            row = exp_trans[a]
            total = 0.0
            for b in range(n_labels):
                total += row[b] * w[b]
            cur[a] = total
        here = alpha[t]
        for a in range(n_labels):
            pa = sign * here[a]
            row = outer[a]
            for b in range(n_labels):
                row[b] += pa * w[b]


@_fast
def _posterior(emit, n_tokens, allowed, s0, constrained, tables, work, marginals, sign, outer):
    """``log Z`` (``log Z_A`` if constrained); fills token marginals, adds pair outer products.

    ``tables`` come from :func:`_chunk_tables` (the exponentiated
    transition, start and end scores and the maxima they were shifted by);
    ``work = (exp_emit, alpha, beta, scale, w)`` is scratch.
    """
    exp_trans, exp_trans_t, exp_start, exp_end, start_shift, end_shift, trans_shift = tables[:7]
    exp_emit, alpha, beta, scale, w = work
    n_labels = emit.shape[1]
    shift = _scaled_emissions(emit, n_tokens, allowed, s0, constrained, exp_emit)
    log_scale = _forward_scaled(exp_emit, n_tokens, exp_trans_t, exp_start, exp_end, alpha, scale)
    _backward_scaled(exp_emit, n_tokens, exp_trans, exp_end, alpha, scale, beta, w, sign, outer)
    for t in range(n_tokens):
        for b in range(n_labels):
            marginals[t, b] = alpha[t, b] * beta[t, b]
    return log_scale + shift + start_shift + end_shift + (n_tokens - 1) * trans_shift


@_fast
def _entropy_sentence(emit, n_tokens, allowed, start, end, tables, work, ea, eb, gamma, grad_emit, outer, cross):
    """``H(p(·|x))``; ``grad_emit = γ dH/demit``; adds the transition statistics.

    Forward and backward passes carry, next to the scaled vectors, the
    expected prefix score ``ea[t, b] = E[prefix | y_t = b]`` and suffix score
    ``eb[t, a] = E[suffix | y_t = a]`` (Mann & McCallum 2007), so
    ``dH/demit[t, b] = -p_t(b) (ea + eb - E[S])`` and ``dH/dtrans[a, b] =
    -Σ_t p_t(a, b) (ea[t-1, a] - E[S] + trans[a, b] + emit[t, b] + eb[t, b])``
    (Mann & McCallum 2007).  With ``p_t(a, b) = expT[a, b] α̂[t-1, a] w_t[b]`` the
    transition gradient is ``-expT ∘ (cross + trans ∘ outer)`` with the
    chunk sums ``outer += γ α̂ ⊗ w`` and ``cross += γ (α̂ (ea - E[S])) ⊗ w +
    γ α̂ ⊗ (w (emit + eb))``; the caller forms it once per chunk.
    """
    exp_trans, exp_trans_t, exp_start, exp_end, start_shift, end_shift, trans_shift = tables[:7]
    # exp_trans * trans, and its transpose, for the expected transition scores
    weighted, weighted_t = tables[7], tables[8]
    exp_emit, alpha, beta, scale, w = work
    n_labels = emit.shape[1]
    last = n_tokens - 1
    shift = _scaled_emissions(emit, n_tokens, allowed, 0, False, exp_emit)
    # forward with expected prefix scores
    for b in range(n_labels):
        alpha[0, b] = exp_start[b] * exp_emit[0, b]
        ea[0, b] = start[b] + emit[0, b]
    scale[0] = _normalise(alpha[0])
    log_scale = np.log(scale[0])
    sums = np.empty(n_labels)
    means = np.empty(n_labels)
    for t in range(1, n_tokens):
        sums[:] = 0.0
        means[:] = 0.0
        for a in range(n_labels):
            pa = alpha[t - 1, a]
            pe = pa * ea[t - 1, a]
            for b in range(n_labels):
                sums[b] += pa * exp_trans[a, b]
                means[b] += pe * exp_trans[a, b] + pa * weighted[a, b]
        for b in range(n_labels):
            alpha[t, b] = sums[b] * exp_emit[t, b]
            ea[t, b] = means[b] / sums[b] + emit[t, b]
        scale[t] = _normalise(alpha[t])
        log_scale += np.log(scale[t])
    closing = 0.0
    for b in range(n_labels):
        closing += alpha[last, b] * exp_end[b]
    scale[n_tokens] = closing
    log_z = log_scale + np.log(closing) + shift + start_shift + end_shift + last * trans_shift
    # backward with expected suffix scores
    acc = np.empty(n_labels)
    we = np.empty(n_labels)
    for b in range(n_labels):
        beta[last, b] = exp_end[b] / closing
        eb[last, b] = end[b]
    for t in range(last - 1, -1, -1):
        inv = 1.0 / scale[t + 1]
        for b in range(n_labels):
            w[b] = exp_emit[t + 1, b] * beta[t + 1, b] * inv
            we[b] = w[b] * (emit[t + 1, b] + eb[t + 1, b])
            beta[t, b] = 0.0
            acc[b] = 0.0
        for b in range(n_labels):
            wb = w[b]
            web = we[b]
            for a in range(n_labels):
                beta[t, a] += exp_trans_t[b, a] * wb
                acc[a] += exp_trans_t[b, a] * web + weighted_t[b, a] * wb
        for a in range(n_labels):
            eb[t, a] = acc[a] / beta[t, a]
    expected = 0.0
    for b in range(n_labels):
        expected += alpha[last, b] * beta[last, b] * (ea[last, b] + end[b])
    for t in range(n_tokens):
        for b in range(n_labels):
            grad_emit[t, b] = -gamma * alpha[t, b] * beta[t, b] * (ea[t, b] + eb[t, b] - expected)
    u0 = np.empty(n_labels)
    u1 = np.empty(n_labels)
    for t in range(1, n_tokens):
        inv = gamma / scale[t]
        for b in range(n_labels):
            w[b] = exp_emit[t, b] * beta[t, b] * inv
            we[b] = w[b] * (emit[t, b] + eb[t, b])
        for a in range(n_labels):
            u0[a] = alpha[t - 1, a]
            u1[a] = alpha[t - 1, a] * (ea[t - 1, a] - expected)
        for a in range(n_labels):
            for b in range(n_labels):
                outer[a, b] += u0[a] * w[b]
                cross[a, b] += u1[a] * w[b] + u0[a] * we[b]
    return log_z - expected


@_fast
def _scatter(grad_emit, n_tokens, feat_indptr, feat_indices, s0, grad_w, grad_start, grad_end):
    """Chain rule from the emission gradient to weights, start and end scores."""
    n_labels = grad_emit.shape[1]
    for b in range(n_labels):
        grad_start[b] += grad_emit[0, b]
        grad_end[b] += grad_emit[n_tokens - 1, b]
    for t in range(n_tokens):
        for j in range(feat_indptr[s0 + t], feat_indptr[s0 + t + 1]):
            k = feat_indices[j]
            for b in range(n_labels):
                grad_w[k, b] += grad_emit[t, b]


@_fast
def _chunk_tables(trans, start, end):
    exp_trans = np.exp(trans - trans.max())
    exp_trans_t = np.ascontiguousarray(exp_trans.T)
    exp_start = np.exp(start - start.max())
    exp_end = np.exp(end - end.max())
    weighted = exp_trans * trans
    weighted_t = np.ascontiguousarray(weighted.T)
    return (exp_trans, exp_trans_t, exp_start, exp_end, start.max(), end.max(), trans.max(), weighted, weighted_t)


@_fast
def objective_chunk(
    weights,
    trans,
    start,
    end,
    offsets,
    feat_indptr,
    feat_indices,
    allowed,
    gold,
    kinds,
    gamma,
    lo,
    hi,
    max_range,
    grad_w,
    grad_trans,
    grad_start,
    grad_end,
    totals,
    skipped,
):
    """Add the objective terms and gradients of sentences ``lo .. hi-1``.

    Parameters
    ----------
    weights, trans, start, end : float64 arrays
        ``θ``: ``W[n_features, L]``, ``trans[L, L]``, ``start[L]``, ``end[L]``.
    offsets, feat_indptr, feat_indices, allowed : arrays of the snapshot
    gold : int64 array, shape (n_tokens,)
        The label of each token of a fully labeled sentence (else unused).
    kinds : int8 array, shape (n_sentences,)
        2 full, 1 partial, 0 unlabeled (the snapshot's status codes).
    gamma : float
        Entropy weight; unlabeled sentences are skipped when it is 0.
    lo, hi : int
        The sentence range of this chunk.
    max_range : float
        Score range above which a sentence is left to the caller.
    grad_w, grad_trans, grad_start, grad_end : float64 arrays
        Gradient accumulators of the minimised ``-J`` (added to).
    totals : float64 array, shape (3,)
        Added to: ``Σ -log p(y|x)`` (full), ``Σ -log p(A|x)`` (partial),
        ``Σ H`` (unlabeled; the objective adds ``γ`` times it).
    skipped : int64 array, shape (hi - lo,)
        Receives the indices of the sentences left to the caller.

    Returns
    -------
    int
        Number of entries written to ``skipped``.
    """
    n_labels = weights.shape[1]
    tables = _chunk_tables(trans, start, end)
    exp_trans = tables[0]
    base_range = (trans.max() - trans.min()) + (start.max() - start.min()) + (end.max() - end.min())
    longest = 1
    for i in range(lo, hi):
        longest = max(longest, offsets[i + 1] - offsets[i])
    emit = np.empty((longest, n_labels))
    grad_emit = np.empty((longest, n_labels))
    constrained_marginals = np.empty((longest, n_labels))
    ea = np.empty((longest, n_labels))
    eb = np.empty((longest, n_labels))
    work = (
        np.empty((longest, n_labels)),
        np.empty((longest, n_labels)),
        np.empty((longest, n_labels)),
        np.empty(longest + 1),
        np.empty(n_labels),
    )
    outer_lik = np.zeros((n_labels, n_labels))
    outer_ent = np.zeros((n_labels, n_labels))
    cross_ent = np.zeros((n_labels, n_labels))
    n_skipped = 0
    for i in range(lo, hi):
        kind = kinds[i]
        if kind == KIND_NONE and gamma == 0.0:
            continue
        s0 = offsets[i]
        n_tokens = offsets[i + 1] - s0
        sentence_emission(feat_indptr, feat_indices, feat_indices, -1, s0, s0 + n_tokens, weights, emit)
        if base_range + _largest_token_range(emit, n_tokens) > max_range:
            skipped[n_skipped] = i
            n_skipped += 1
            continue
        if kind == KIND_FULL:
            log_z = _posterior(emit, n_tokens, allowed, s0, False, tables, work, grad_emit, 1.0, outer_lik)
            totals[0] += log_z - path_score(emit, trans, start, end, gold[s0 : s0 + n_tokens])
            for t in range(n_tokens):
                grad_emit[t, gold[s0 + t]] -= 1.0
            for t in range(1, n_tokens):
                grad_trans[gold[s0 + t - 1], gold[s0 + t]] -= 1.0
        elif kind == KIND_PARTIAL:
            log_z = _posterior(emit, n_tokens, allowed, s0, False, tables, work, grad_emit, 1.0, outer_lik)
            log_za = _posterior(emit, n_tokens, allowed, s0, True, tables, work, constrained_marginals, -1.0, outer_lik)
            totals[1] += log_z - log_za
            for t in range(n_tokens):
                for b in range(n_labels):
                    grad_emit[t, b] -= constrained_marginals[t, b]
        else:
            totals[2] += _entropy_sentence(
                emit, n_tokens, allowed, start, end, tables, work, ea, eb, gamma, grad_emit, outer_ent, cross_ent
            )
        _scatter(grad_emit, n_tokens, feat_indptr, feat_indices, s0, grad_w, grad_start, grad_end)
    for a in range(n_labels):
        for b in range(n_labels):
            grad_trans[a, b] += exp_trans[a, b] * (outer_lik[a, b] - cross_ent[a, b] - trans[a, b] * outer_ent[a, b])
    return n_skipped

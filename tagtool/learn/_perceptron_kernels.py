"""numba kernels of the (multi-view) hidden Markov perceptron: one call per chunk of an epoch.

Private: :mod:`tagtool.learn.perceptron` validates and prepares every array.
A pass takes the sentence's emissions from the CSR features
(:func:`tagtool.learn._emission.sentence_emission`), Viterbi, plain and
constrained to the allowed sets, and max-marginals from the decoders'
loops (:func:`tagtool.decode._viterbi.span_wide`,
:func:`tagtool.decode._viterbi.max_product_tables`); the sparse update of
the weight rows and transitions and the bookkeeping of Collins averaging are
here.

Averaging without touching every weight at every step (Daumé III 2006,
§2.1.1, the closed form of Collins' lazy timestamps): besides the weights
``w`` the kernels keep ``acc = Σ_s (s − 1) δ_s`` over the updates ``δ_s``
made at step ``s`` (steps count sentence visits from 1).  After ``S`` steps
the average of the ``S`` weight vectors ``w_1 … w_S`` is ``w − acc / S``, and
each update costs only the features it touches.

References
----------
.. [1] M. Collins. Discriminative training methods for hidden Markov models:
   theory and experiments with perceptron algorithms. EMNLP 2002.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §4, Table 1, Eq. 14–16.
.. [3] H. Daumé III. Practical structured learning techniques for natural
   language processing. PhD thesis, USC, 2006, §2.1.1.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.decode._viterbi import max_product_tables, span_wide
from tagtool.learn._emission import sentence_emission


@_njit
def _add(array_w, array_acc, index, amount, scaled):
    """``w[index] += amount`` and its averaging term ``acc[index] += (s − 1) · amount``."""
    array_w[index] += amount
    array_acc[index] += scaled


@_njit
def _update_view(
    indptr,
    indices,
    feature_view,
    view,
    lo,
    n_tokens,
    target,
    pred,
    eta,
    step,
    weights,
    trans,
    start,
    end,
    acc_weights,
    acc_trans,
    acc_start,
    acc_end,
):
    """``w^v += η (Φ^v(x, target) − Φ^v(x, pred))`` touching only the differing parts."""
    later = (step - 1) * eta
    for t in range(n_tokens):
        good, bad = target[t], pred[t]
        if good != bad:
            for j in range(indptr[lo + t], indptr[lo + t + 1]):
                k = indices[j]
                if view < 0 or feature_view[k] == view:
                    weights[k, good] += eta
                    weights[k, bad] -= eta
                    acc_weights[k, good] += later
                    acc_weights[k, bad] -= later
        if t > 0 and (good != bad or target[t - 1] != pred[t - 1]):
            _add(trans, acc_trans, (target[t - 1], good), eta, later)
            _add(trans, acc_trans, (pred[t - 1], bad), -eta, -later)
    if target[0] != pred[0]:
        _add(start, acc_start, target[0], eta, later)
        _add(start, acc_start, pred[0], -eta, -later)
    last = n_tokens - 1
    if target[last] != pred[last]:
        _add(end, acc_end, target[last], eta, later)
        _add(end, acc_end, pred[last], -eta, -later)


@_njit
def _differs(a, b, n):
    for t in range(n):
        if a[t] != b[t]:
            return True
    return False


@_njit
def _max_marginal_gaps(emit, n_tokens, trans, start, end, allowed, path, fwd, bwd, gap):
    """``gap[t]`` = max-marginal of ``path[t]`` minus the best other allowed label's (``inf`` if none).

    Max-marginals (a max-product forward and backward pass inside
    ``allowed[:n_tokens]``) give the best score of a path through each label
    of token ``t``; their gap at the Viterbi label is the token's margin, how
    much the score must change before that token's label flips.
    """
    n_labels = emit.shape[1]
    max_product_tables(emit, n_tokens, trans, start, end, allowed, fwd, bwd)
    for t in range(n_tokens):
        own = fwd[t, path[t]] + bwd[t, path[t]]
        other = -np.inf
        for b in range(n_labels):
            if b != path[t]:
                other = max(other, fwd[t, b] + bwd[t, b])
        gap[t] = own - other if other > -np.inf else np.inf


@_njit
def _gated_mask(allowed, lo, n_tokens, peer_path, peer_gap, threshold, mask):
    """Partial annotation from the peer: its label ``b`` where ``gap ≥ threshold[b]``, else the allowed set."""
    n_labels = mask.shape[1]
    for t in range(n_tokens):
        fixed = peer_gap[t] >= threshold[peer_path[t]]
        for b in range(n_labels):
            mask[t, b] = allowed[lo + t, b] and ((not fixed) or b == peer_path[t])


@_njit
def peer_margins(offsets, indptr, indices, feature_view, allowed, is_full, order, weights, trans, start, end):
    """Per view, the token margins of its constrained argmax on the free tokens of ``order``.

    Free tokens: those of sentences that are not fully labeled whose allowed
    set has more than one label (labeled tokens are not the peer's guess).
    Returns the margins and the labels of the argmax, both ``(n_views,
    n_free)``; the multi-view perceptron takes quantiles of them as each
    view's confidence thresholds (the gating of :func:`perceptron_chunk`).
    """
    n_views, n_labels = trans.shape[0], trans.shape[1]
    longest = 1
    n_free = 0
    for i in order:
        longest = max(longest, offsets[i + 1] - offsets[i])
        if not is_full[i]:
            for t in range(offsets[i], offsets[i + 1]):
                if allowed[t].sum() > 1:
                    n_free += 1
    out = np.empty((n_views, n_free))
    labels = np.empty((n_views, n_free), dtype=np.int64)
    emit = np.empty((longest, n_labels))
    path = np.empty(longest, dtype=np.int64)
    gap = np.empty(longest)
    fwd = np.empty((longest, n_labels))
    bwd = np.empty((longest, n_labels))
    delta = np.empty(n_labels)
    prev = np.empty(n_labels)
    bp = np.zeros((longest, n_labels), dtype=np.int64)
    first = np.int64(0)  # not the literal 0, which would compile a span_wide of its own (see perceptron_chunk)
    for v in range(n_views):
        view = v if n_views > 1 else -1
        r = 0
        for i in order:
            if is_full[i]:
                continue
            lo, hi = offsets[i], offsets[i + 1]
            n_tokens = hi - lo
            sentence_emission(indptr, indices, feature_view, view, lo, hi, weights, emit)
            span_wide(emit, trans[v], start[v], end[v], allowed[lo:hi], first, n_tokens, delta, prev, bp, path)
            _max_marginal_gaps(emit, n_tokens, trans[v], start[v], end[v], allowed[lo:hi], path, fwd, bwd, gap)
            for t in range(n_tokens):
                if allowed[lo + t].sum() > 1:
                    out[v, r] = gap[t]
                    labels[v, r] = path[t]
                    r += 1
    return out, labels


@_njit
def perceptron_chunk(
    offsets,
    indptr,
    indices,
    feature_view,
    allowed,
    gold,
    is_full,
    eta,
    order,
    first_step,
    weights,
    trans,
    start,
    end,
    acc_weights,
    acc_trans,
    acc_start,
    acc_end,
    gating,
    thresholds,
):
    """One chunk of an epoch of the (multi-view) hidden Markov perceptron.

    For every sentence ``i`` of ``order`` and every view ``v`` (``n_views =
    trans.shape[0]``, 1 or 2): ``ŷ^v`` = Viterbi with view ``v``'s scores
    (Eq. 14); the target = the gold labels of a fully labeled sentence, else
    the constrained argmax of the peer view ``v̄`` (the view itself when there
    is one: the latent structured perceptron).  All predictions and targets
    are decoded before any update (Table 1, step 3), then every view whose
    prediction misses its target is updated with weight ``eta[i]`` (Eq. 15,
    16).  With one view all features belong to it; with two, view ``v`` owns
    the features ``k`` with ``feature_view[k] == v`` and ``trans[v]``,
    ``start[v]``, ``end[v]``.

    With ``gating`` (two views), the peer's constrained argmax becomes a
    *partial* annotation: tokens where the peer's max-marginal margin is at
    least ``thresholds[v̄]`` keep the peer's label, the others keep their
    allowed set, and view ``v``'s target is its own constrained argmax in
    that space (docs/design.md#constrained-argmax).  Without ``gating`` every token keeps the
    peer's label (Table 1).

    Returns the number of (view, sentence) updates made.  Step ``s`` of the
    averaging (``first_step`` for the first sentence of ``order``) advances by
    one per sentence.
    """
    n_views, n_labels = trans.shape[0], trans.shape[1]
    longest = 1
    for i in order:
        longest = max(longest, offsets[i + 1] - offsets[i])
    emit = np.empty((n_views, longest, n_labels))
    pred = np.empty((n_views, longest), dtype=np.int64)
    target = np.empty((n_views, longest), dtype=np.int64)
    guess = np.empty((n_views, longest), dtype=np.int64)
    gap = np.empty((n_views, longest))
    fwd = np.empty((longest, n_labels))
    bwd = np.empty((longest, n_labels))
    mask = np.empty((longest, n_labels), dtype=np.bool_)
    free = np.ones((longest, n_labels), dtype=np.bool_)  # the unconstrained argmax's mask
    delta = np.empty(n_labels)
    prev = np.empty(n_labels)
    bp = np.zeros((longest, n_labels), dtype=np.int64)
    gated = gating and n_views > 1
    # Row 0 of each sentence's buffers, as an int64 rather than the literal 0: numba specialises a callee
    # on a literal argument, and span_wide with an int64 start is the one the decoders compile anyway.
    first = np.int64(0)
    updates = 0
    step = first_step
    for i in order:
        lo, hi = offsets[i], offsets[i + 1]
        n_tokens = hi - lo
        for v in range(n_views):
            view = v if n_views > 1 else -1
            sentence_emission(indptr, indices, feature_view, view, lo, hi, weights, emit[v])
        for v in range(n_views):
            span_wide(emit[v], trans[v], start[v], end[v], free, first, n_tokens, delta, prev, bp, pred[v])
            if is_full[i]:
                for t in range(n_tokens):
                    target[v, t] = gold[lo + t]
            elif not gated and (v == 0 or n_views > 1):
                peer = n_views - 1 - v
                span_wide(
                    emit[peer],
                    trans[peer],
                    start[peer],
                    end[peer],
                    allowed[lo:hi],
                    first,
                    n_tokens,
                    delta,
                    prev,
                    bp,
                    target[v],
                )
        if gated and not is_full[i]:
            for v in range(n_views):  # each view's guess and its per-token confidence
                span_wide(
                    emit[v], trans[v], start[v], end[v], allowed[lo:hi], first, n_tokens, delta, prev, bp, guess[v]
                )
                _max_marginal_gaps(
                    emit[v], n_tokens, trans[v], start[v], end[v], allowed[lo:hi], guess[v], fwd, bwd, gap[v]
                )
            for v in range(n_views):
                peer = n_views - 1 - v
                _gated_mask(allowed, lo, n_tokens, guess[peer], gap[peer], thresholds[peer], mask)
                span_wide(emit[v], trans[v], start[v], end[v], mask, first, n_tokens, delta, prev, bp, target[v])
        for v in range(n_views):
            if _differs(pred[v], target[v], n_tokens):
                view = v if n_views > 1 else -1
                _update_view(
                    indptr,
                    indices,
                    feature_view,
                    view,
                    lo,
                    n_tokens,
                    target[v],
                    pred[v],
                    eta[i],
                    step,
                    weights,
                    trans[v],
                    start[v],
                    end[v],
                    acc_weights,
                    acc_trans[v],
                    acc_start[v],
                    acc_end[v],
                )
                updates += 1
        step += 1
    return updates

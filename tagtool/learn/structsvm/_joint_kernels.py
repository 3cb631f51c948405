"""numba kernels of the structural SVMs' joint features: token kernel, Gram entries, updates.

An output ``ȳ`` of sentence ``i`` in one view is kept as its label path;
its joint-feature difference ``δΦ(ȳ) = Φ(x, y) − Φ(x, ȳ)`` (``y`` the
working set's target) is never built.  What the dual needs follows from the
paths and one ``T × T`` matrix per sentence and view, the *token kernel*
``K[t, s] = ⟨φ^v(x_t), φ^v(x_s)⟩`` (features the two tokens share):

* Gram entries (:func:`gram_entry`): ``⟨δΦ(p), δΦ(q)⟩ = Σ_{t,s} K[t, s]
  ⟨e_{y_t} − e_{p_t}, e_{y_s} − e_{q_s}⟩`` plus the same sum over
  transition pairs, start and end labels (one indicator each, no ``K``);
* margins: ``⟨w, δΦ(p)⟩ = f(x, y) − f(x, p)``, a difference of path scores;
* updates (:func:`apply_path`): ``w += a δΦ(p)`` moves the sentence's own
  emission scores by ``a K[t, s]`` (no recomputation) and adds ``±a`` to a
  ``T × L`` table of per-token label coefficients, which
  :func:`flush_weights` scatters over the tokens' features once per visit.

For sentences of ``T`` tokens with ``n`` features each this costs ``O(T²)``
per Gram entry instead of ``O(T n log(T n))`` for building and merging
sparse ``δΦ`` vectors, which made a working-set round slow in Python
with the default features.  A sentence's emission scores come from
the shared :func:`tagtool.learn._emission.sentence_emission`.

References
----------
.. [1] I. Tsochantaridis, T. Joachims, T. Hofmann, Y. Altun. Large margin
   methods for structured and interdependent output variables. JMLR 6, 2005.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Table 2 (working sets per example).
"""

from __future__ import annotations

from tagtool.decode._jit import _njit


@_njit
def token_kernel(indptr, indices, feature_view, view, lo, hi, counts, out):
    """``out[t, s]`` = number of features of view ``view`` tokens ``lo + t`` and ``lo + s`` share.

    ``counts`` is a zeroed int64 scratch of one entry per feature, left
    zeroed.  Repeated indices count with their multiplicity, as in ``Φ``.
    """
    n = hi - lo
    for t in range(n):
        for j in range(indptr[lo + t], indptr[lo + t + 1]):
            k = indices[j]
            if view < 0 or feature_view[k] == view:
                counts[k] += 1
        for s in range(t, n):
            total = 0
            for j in range(indptr[lo + s], indptr[lo + s + 1]):
                total += counts[indices[j]]
            out[t, s] = total
            out[s, t] = total
        for j in range(indptr[lo + t], indptr[lo + t + 1]):
            counts[indices[j]] = 0


@_njit
def _same(a, b, c, d):
    """``[a = c] − [a = d] − [b = c] + [b = d]``: ⟨e_a − e_b, e_c − e_d⟩."""
    return int(a == c) - int(a == d) - int(b == c) + int(b == d)


@_njit
def gram_entry(K, y, p, q):
    """``⟨δΦ(p), δΦ(q)⟩`` for target ``y`` (module docstring)."""
    n = y.shape[0]
    total = 0.0
    for t in range(n):
        if p[t] == y[t]:
            continue
        for s in range(n):
            if q[s] != y[s]:
                total += K[t, s] * _same(y[t], p[t], y[s], q[s])
    # transition pairs, coded a·n_big + b so a pair compares as one integer
    big = 1 << 20
    for t in range(1, n):
        yt, pt = y[t - 1] * big + y[t], p[t - 1] * big + p[t]
        if yt == pt:
            continue
        for s in range(1, n):
            ys, qs = y[s - 1] * big + y[s], q[s - 1] * big + q[s]
            if ys != qs:
                total += _same(yt, pt, ys, qs)
    if p[0] != y[0] and q[0] != y[0]:
        total += _same(y[0], p[0], y[0], q[0])
    if p[n - 1] != y[n - 1] and q[n - 1] != y[n - 1]:
        total += _same(y[n - 1], p[n - 1], y[n - 1], q[n - 1])
    return total


@_njit
def gram_matrix(K, y, paths, m, out):
    """``out[:m, :m]``: the Gram matrix of the first ``m`` paths."""
    for j in range(m):
        for k in range(j, m):
            g = gram_entry(K, y, paths[j], paths[k])
            out[j, k] = g
            out[k, j] = g


@_njit
def apply_path(delta, trans, start, end, emit, K, y, p, a):
    """``w += a δΦ(p)``: transitions and the sentence's emission ``emit`` now, emissions into ``delta``.

    The emission weights move by ``Σ_t φ(x_t) ⊗ delta[t]``; that scatter over
    every feature of the sentence waits for :func:`flush_weights` at the end
    of the visit (a visit re-solves its outputs many times), while ``emit``
    follows at once through the token kernel.
    """
    n = y.shape[0]
    for t in range(n):
        if p[t] == y[t]:
            continue
        delta[t, y[t]] += a
        delta[t, p[t]] -= a
        for s in range(n):
            if K[s, t] != 0:
                emit[s, y[t]] += a * K[s, t]
                emit[s, p[t]] -= a * K[s, t]
    for t in range(1, n):
        if p[t - 1] != y[t - 1] or p[t] != y[t]:
            trans[y[t - 1], y[t]] += a
            trans[p[t - 1], p[t]] -= a
    if p[0] != y[0]:
        start[y[0]] += a
        start[p[0]] -= a
    if p[n - 1] != y[n - 1]:
        end[y[n - 1]] += a
        end[p[n - 1]] -= a


@_njit
def flush_weights(indptr, indices, feature_view, view, lo, weights, delta):
    """``weights[k] += delta[t]`` for every feature ``k`` of token ``lo + t`` in the view; zeroes ``delta``."""
    n, n_labels = delta.shape
    for t in range(n):
        nonzero = False
        for b in range(n_labels):
            if delta[t, b] != 0.0:
                nonzero = True
                break
        if not nonzero:
            continue
        for j in range(indptr[lo + t], indptr[lo + t + 1]):
            k = indices[j]
            if view < 0 or feature_view[k] == view:
                for b in range(n_labels):
                    weights[k, b] += delta[t, b]
        for b in range(n_labels):
            delta[t, b] = 0.0

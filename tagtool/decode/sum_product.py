"""Public sum-product decoders for first-order linear chains (docs/design.md#decoders): sums over label paths.

The path score ``S(y)``, the arguments and the optional ``allowed`` mask are
those of :mod:`tagtool.decode.max_product`.  Here: the log partition
function, posterior marginals (forward-backward) and the entropy of the path
distribution with its gradient (docs/design.md#entropy-regularised-crf); the wrappers validate and
convert their arguments, then call one numba kernel of
:mod:`tagtool.decode._forward_backward`.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode import _validate
from tagtool.decode._forward_backward import (
    _entropy_kernel,
    _forward_backward_kernel,
    _log_partition_kernel,
)
from tagtool.decode.results import EntropyResult, ForwardBackwardResult

__all__ = ["entropy_and_gradient", "forward_backward", "log_partition"]


def forward_backward(emit, trans, start, end, allowed=None) -> ForwardBackwardResult:
    """Log partition function and posterior marginals, in log space.

    With ``allowed`` the distribution is restricted to the allowed paths,
    ``p_A(y) = exp(S(y)) / Z_A``: ``log_z`` is then ``log Z_A`` (so
    ``log Z_A - log Z`` is the log marginal likelihood of a partial
    annotation) and the marginals are those of ``p_A``.

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.

    Returns
    -------
    ForwardBackwardResult
        ``log_z``, ``marginals[T, L]`` and ``pair_marginals[T - 1, L, L]``.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, a non-finite score, or a mask
        row without any allowed label.

    References
    ----------
    .. [1] L. R. Rabiner, "A tutorial on hidden Markov models and selected
       applications in speech recognition", Proc. IEEE 77(2), 1989, §III-A.
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    n_tokens, n_labels = emit.shape
    marginals = np.empty((n_tokens, n_labels))
    pairs = np.empty((n_tokens - 1, n_labels, n_labels))
    log_z = _forward_backward_kernel(emit, trans, start, end, allowed, marginals, pairs)
    return ForwardBackwardResult(float(log_z), marginals, pairs)


def log_partition(emit, trans, start, end, allowed=None) -> float:
    """``log Z`` (``log Z_A`` with a mask) by the forward pass alone.

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.

    Returns
    -------
    float
        ``log sum_{y allowed} exp(S(y))``.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, a non-finite score, or a mask
        row without any allowed label.

    References
    ----------
    .. [1] L. R. Rabiner, "A tutorial on hidden Markov models and selected
       applications in speech recognition", Proc. IEEE 77(2), 1989, §III-A.
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    return float(_log_partition_kernel(emit, trans, start, end, allowed))


def entropy_and_gradient(emit, trans, start, end, allowed=None) -> EntropyResult:
    """Conditional entropy ``H(y|x)`` and its gradient in every score.

    ``H = log Z - E_p[S]`` and ``dH/dθ = -Cov_p(F_θ, S)``, where ``F_θ``
    counts how often the score ``θ`` enters ``S``; so
    ``dH/demit[t, b] = -p(y_t = b) (E[S | y_t = b] - E[S])`` and
    ``dH/dtrans[a, b] = -sum_t p(y_{t-1} = a, y_t = b)
    (E[S | y_{t-1} = a, y_t = b] - E[S])`` (Mann & McCallum 2007).  With ``allowed``,
    everything refers to the restricted distribution ``p_A``, and masked
    emissions get a zero gradient.

    Parameters
    ----------
    emit : array_like of float, shape (T, L)
        Emission scores, ``T >= 1``.
    trans : array_like of float, shape (L, L)
        ``trans[a, b]`` scores label ``a`` at ``t - 1`` followed by ``b`` at ``t``.
    start, end : array_like of float, shape (L,)
        Scores of the first and of the last label.
    allowed : array_like of bool, shape (T, L), optional
        Labels each token may take; None allows all.

    Returns
    -------
    EntropyResult
        ``entropy``, ``expected_score``, ``d_emit``, ``d_trans``,
        ``d_start``, ``d_end`` and ``log_z``.

    Raises
    ------
    DecoderInputError
        On a wrong shape or dtype, ``T = 0``, a non-finite score, or a mask
        row without any allowed label.

    Notes
    -----
    One forward and one backward pass carry, beside the log tables,
    expected prefix and suffix scores, which give every conditional
    expectation above in ``O(T L^2)``, instead of the ``O(T L^3)`` nested
    recursion of Jiao et al.

    References
    ----------
    .. [1] F. Jiao, S. Wang, C.-H. Lee, R. Greiner and D. Schuurmans,
       "Semi-supervised conditional random fields for improved sequence
       segmentation and labeling", COLING/ACL 2006.
    .. [2] G. S. Mann and A. McCallum, "Efficient computation of entropy
       gradient for semi-supervised conditional random fields", NAACL-HLT
       2007 (short papers).
    """
    emit, trans, start, end, allowed = _validate.chain(emit, trans, start, end, allowed)
    n_tokens, n_labels = emit.shape
    d_emit = np.empty((n_tokens, n_labels))
    d_trans = np.empty((n_labels, n_labels))
    entropy, expected, log_z = _entropy_kernel(emit, trans, start, end, allowed, d_emit, d_trans)
    return EntropyResult(
        entropy=float(entropy),
        expected_score=float(expected),
        d_emit=d_emit,
        d_trans=d_trans,
        d_start=d_emit[0].copy(),
        d_end=d_emit[-1].copy(),
        log_z=float(log_z),
    )

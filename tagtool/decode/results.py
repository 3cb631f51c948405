"""Result records of the probabilistic decoders."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ForwardBackwardResult:
    """Partition function and posterior marginals of a linear chain.

    Attributes
    ----------
    log_z : float
        ``log Z``, or the constrained ``log Z_A`` when a mask was given.
    marginals : ndarray of float64, shape (T, L)
        ``p(y_t = b)``; rows sum to one, masked entries are 0.
    pair_marginals : ndarray of float64, shape (T - 1, L, L)
        ``pair_marginals[t - 1, a, b] = p(y_{t-1} = a, y_t = b)``.
    """

    log_z: float
    marginals: np.ndarray
    pair_marginals: np.ndarray


@dataclass(frozen=True)
class EntropyResult:
    """Conditional entropy of a linear chain and its gradient.

    Attributes
    ----------
    entropy : float
        ``H(y|x) = log Z - E_p[S]``.
    expected_score : float
        ``E_p[S]``, the expected path score.
    d_emit : ndarray of float64, shape (T, L)
        ``dH / d emit``.
    d_trans : ndarray of float64, shape (L, L)
        ``dH / d trans``.
    d_start : ndarray of float64, shape (L,)
        ``dH / d start``.
    d_end : ndarray of float64, shape (L,)
        ``dH / d end``.
    log_z : float
        ``log Z`` (``log Z_A`` when a mask was given), a by-product.
    """

    entropy: float
    expected_score: float
    d_emit: np.ndarray
    d_trans: np.ndarray
    d_start: np.ndarray
    d_end: np.ndarray
    log_z: float

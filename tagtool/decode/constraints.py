"""Forbidden transitions as a penalty on the scores every decoder already takes.

A scheme constraint -- in BIO, ``I-X`` may not open a sentence nor follow
anything but ``B-X``/``I-X`` (:func:`tagtool.core.labels.bio_transitions`) --
forbids start labels and label pairs rather than token labels, so the
``allowed[T, L]`` mask cannot express it.  Instead of a second mask in
every kernel, :func:`forbid_transitions` subtracts a penalty ``P`` from the
start and transition scores of what is forbidden.  ``P`` exceeds the score
range of every path, so (Viterbi, max-marginals) the best path with ``k``
forbidden steps always beats every path with more than ``k``: the decoder
returns the best valid path whenever one exists, and otherwise the path with
the fewest forbidden steps -- when the annotations' own allowed sets
contradict the scheme (``I-X`` annotated after ``O``), the user's labels win.

Why not ``-inf``: the decoders refuse non-finite scores (a masked state
that no path reaches would leave a sentence without any path), and a finite
penalty keeps that fallback.

For the sum-product decoders (forward-backward), ``P`` also carries
``T ln L + 64``: the ``L^T`` paths of a sentence then hold, together, less
than ``e^-64`` of the probability of its best valid path, so the marginals
are those of the distribution restricted to valid paths to within rounding.
"""

from __future__ import annotations

import numpy as np

__all__ = ["forbid_transitions", "transition_penalty"]

#: Nats of headroom beyond the score range and the path count (see the module doc).
_HEADROOM = 64.0


def _spread(a: np.ndarray) -> float:
    return float(a.max() - a.min()) if a.size else 0.0


def transition_penalty(emit, offsets, trans, start, end) -> float:
    """A penalty larger than ``max S - min S + T ln L`` over the paths of every sentence.

    Parameters
    ----------
    emit : ndarray, shape (N, L)
        Stacked emission scores.
    offsets : ndarray of int, shape (n_sent + 1,)
        Sentence boundaries in ``emit`` (``[0, N]`` for one sentence).
    trans : ndarray, shape (L, L)
    start, end : ndarray, shape (L,)

    Returns
    -------
    float
        ``R + T ln L + 64`` for the sentence with the largest bound, where
        ``R = sum_t spread(emit_t) + (T - 1) spread(trans) + spread(start)
        + spread(end)`` bounds the score range of its paths.
    """
    emit = np.asarray(emit, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_labels = emit.shape[1]
    lengths = np.diff(offsets)
    token_spread = emit.max(axis=1) - emit.min(axis=1)
    per_sentence = np.add.reduceat(token_spread, offsets[:-1]) if len(lengths) else np.zeros(0)
    bound = per_sentence + np.maximum(lengths - 1, 0) * _spread(np.asarray(trans)) + lengths * np.log(n_labels)
    worst = float(bound.max()) if bound.size else 0.0
    return worst + _spread(np.asarray(start)) + _spread(np.asarray(end)) + _HEADROOM


def forbid_transitions(emit, offsets, trans, start, end, trans_ok, start_ok) -> tuple[np.ndarray, np.ndarray]:
    """Transition and start scores with the forbidden ones lowered by :func:`transition_penalty`.

    Parameters
    ----------
    emit, offsets, trans, start, end
        The chain the scores will be decoded with (see :func:`transition_penalty`).
    trans_ok : bool ndarray, shape (L, L)
        ``trans_ok[a, b]``: label ``b`` may follow ``a``.
    start_ok : bool ndarray, shape (L,)
        Labels that may open a sentence.

    Returns
    -------
    (trans, start) : tuple of float64 ndarray
        New arrays; ``end`` and ``emit`` need no change.
    """
    penalty = transition_penalty(emit, offsets, trans, start, end)
    trans = np.where(trans_ok, trans, np.asarray(trans, dtype=np.float64) - penalty)
    start = np.where(start_ok, start, np.asarray(start, dtype=np.float64) - penalty)
    return np.ascontiguousarray(trans, dtype=np.float64), np.ascontiguousarray(start, dtype=np.float64)

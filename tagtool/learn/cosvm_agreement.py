"""``cosvm`` on one unlabeled or partially labeled sentence: Algorithm 1 of Brefeld & Scheffer (2006).

The views' outputs for the sentence are dropped (line 1), then up to
``r_max`` times each view takes the *peer* view's constrained argmax as its
target (line 11, docs/design.md#constrained-argmax), adds its most violating
output and re-solves its sub-QP, until the views agree and neither is
violated.  The cost is ``min{γ^{v̄}, 1}·C_u·C`` (Optimization Problem 5,
Eq. 26–27), ``γ^{v̄}`` the peer's margin on its own prediction; a partially
labeled sentence applies it token by token (docs/design.md#sentence-weight).
With ``peer_margin > 0`` only the peer's confident tokens are passed on
(:func:`~tagtool.learn.structsvm.coviews.gated_target`).  The learner, its
passes and the ``C_u`` schedule are :class:`tagtool.learn.cosvm.CoSVM`.

References
----------
.. [1] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §4, Optimization Problem 5, Alg. 1.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5 (Eq. 25–27).
"""

from __future__ import annotations

import numpy as np

from tagtool.learn.structsvm.coviews import gated_target, token_margins
from tagtool.learn.svm import partial_cost

#: A view whose duals moved by less than this in a repetition counts as unchanged.
_MOVED = 1e-12


def agree_on_sentence(views, snapshot, i, c_u, info, monitor, r_max: int, peer_margin: float) -> tuple[int, int]:
    """Algorithm 1 of Brefeld & Scheffer (2006) on sentence ``i`` (``info``: its tokens' information).

    Returns (number of repetitions that changed a view, whether the
    views disagreed at the start of the visit).
    """
    rows = snapshot.sentence_slice(i)
    partial = bool(np.any(info > 0))
    allowed = snapshot.allowed[rows] if partial else None
    for view in views:
        view.begin(i)
        view.reset(i)
    moved = 0
    disagreed = 0
    for rep in range(int(r_max)):
        monitor.check()
        decoders = [view.decoder(i) for view in views]
        preds, gaps = zip(*(dec.margin_gap(allowed) for dec in decoders))
        agree = np.array_equal(preds[0], preds[1])
        if rep == 0:
            disagreed = int(not agree)
        gates = [_gate(dec, pred, allowed, peer_margin) for dec, pred in zip(decoders, preds)]
        changed = False
        for v, view in enumerate(views):
            peer = 1 - v
            target, gap, passed, gate = preds[peer], gaps[peer], None, gates[peer]
            if gate is not None:
                target, gap, passed = gated_target(decoders[v], preds[peer], gate, allowed, peer_margin)
            cost, weights = _cost_and_weights(view.settings, c_u * min(gap, 1.0), info if partial else None, passed)
            kept, change = view.step(i, target, cost, weights)
            changed |= kept or change > _MOVED
        if not changed:
            break
        moved += 1
    return moved, disagreed


def _gate(dec, pred: np.ndarray, allowed, peer_margin: float) -> np.ndarray | None:
    """Token margins of ``pred`` (the view's constrained argmax), or None when not gating."""
    if not peer_margin > 0:
        return None
    return token_margins(dec, pred, allowed)


def _cost_and_weights(settings, weight_u: float, info, passed) -> tuple[float, np.ndarray | None]:
    """A view's cost and per-token Hamming weights for its peer's target.

    ``info`` is None for an unlabeled sentence (cost ``C · weight_u``), else
    the tokens' information of a partially labeled one
    (:func:`~tagtool.learn.svm.partial_cost`).  Tokens the gate did not pass
    (``passed`` False) carry no loss: weight 0, or ``info_t`` where partially labeled.
    """
    if info is not None:
        cost, weights = partial_cost(settings, info, weight_u)
        if passed is not None and weights is not None:
            weights = np.where(passed, weights, info)
        return cost, weights
    if passed is not None and not passed.all():
        return settings.C * weight_u, passed.astype(np.float64)
    return settings.C * weight_u, None

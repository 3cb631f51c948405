"""The two views of the co-trained SVM: the peer's targets and one- vs two-view models.

In ``cosvm`` each view learns from the other's constrained argmax (Brefeld &
Scheffer 2006, Alg. 1).  :func:`token_margins` measures how sure a view is
of each token of its prediction (the sentence margin ``γ`` of Brefeld et al.
2005, §5, is their minimum); :func:`gated_target` keeps only the confident
tokens of the peer's prediction (the ``peer_margin`` option).
:func:`joined_views` and :func:`split_views` convert between a two-view
model and a one-view model with the same joint scores (the supervised twin).

References
----------
.. [1] U. Brefeld, T. Scheffer. Semi-supervised learning for structured
   output variables. ICML 2006, §4, Alg. 1.
.. [2] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §5, Eq. 17.
"""

from __future__ import annotations

import numpy as np

from tagtool.decode import max_marginals
from tagtool.learn.chain import ChainModel


def gated_target(
    dec, peer_pred: np.ndarray, peer_margins: np.ndarray, allowed, peer_margin: float
) -> tuple[np.ndarray, float, np.ndarray]:
    """A view's target from the peer's confident tokens (``cosvm``'s ``peer_margin``).

    Tokens whose peer margin is at least ``peer_margin`` pass.  Returns the
    target (the peer's label on passed tokens, the view's own constrained
    argmax elsewhere), the peer's margin ``γ`` over the passed tokens (0 if
    none passes: the sentence then costs nothing) and the mask of passed
    tokens.
    """
    n_tokens, n_labels = dec.emit.shape
    free = np.ones((n_tokens, n_labels), dtype=bool) if allowed is None else allowed
    passed = peer_margins >= peer_margin
    mask = free & (~passed[:, None] | (np.arange(n_labels)[None, :] == peer_pred[:, None]))
    target = dec.best(mask)
    gap = float(peer_margins[passed].min()) if passed.any() else 0.0
    return target, gap, passed


def token_margins(dec, pred: np.ndarray, allowed=None) -> np.ndarray:
    """Per token, the max-marginal of ``pred_t`` minus the best other allowed label's (``inf`` if none).

    The smallest of them is the sentence margin ``γ = f(ŷ) − max_{y ≠ ŷ}
    f(y)`` of Brefeld et al. (2005, §5): the second-best path differs from
    ``ŷ`` in at least one token.
    """
    mm = max_marginals(dec.emit, dec.trans, dec.start, dec.end, allowed)
    rows = np.arange(len(pred))
    own = mm[rows, pred]
    mm[rows, pred] = -np.inf
    other = mm.max(axis=1)
    return np.where(np.isfinite(other), own - other, np.inf)


def joined_views(model: ChainModel) -> ChainModel:
    """A one-view copy of a two-view model with the same joint scores (transitions added)."""
    out = ChainModel.zeros(model.labels, model.n_features, model.feature_view, n_views=1)
    out.weights[...] = model.weights
    out.trans[0], out.start[0], out.end[0] = model.trans.sum(0), model.start.sum(0), model.end.sum(0)
    out.learner, out.params = model.learner, dict(model.params)
    return out


def split_views(model: ChainModel) -> ChainModel:
    """A two-view copy of a one-view model with the same joint scores (transitions halved per view)."""
    out = ChainModel.zeros(model.labels, model.n_features, model.feature_view, n_views=2)
    out.weights[...] = model.weights
    for v in (0, 1):
        out.trans[v], out.start[v], out.end[v] = model.trans[0] / 2, model.start[0] / 2, model.end[0] / 2
    out.info.update(model.info)
    return out

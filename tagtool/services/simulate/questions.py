"""A model's questions about the open sentences of a simulation's data (:mod:`tagtool.services.simulate`)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from tagtool.core.features import concat_ranges
from tagtool.core.snapshot import Snapshot
from tagtool.learn.chain import ChainModel
from tagtool.services import strategies
from tagtool.services.simulate.pool import Pool
from tagtool.services.strategies import DEFAULT_THRESHOLD, Evidence, Showing, Tokens
from tagtool.services.uncertainty import (
    contention_question,
    gives_confidences,
    margin_scale,
    margins,
    token_uncertainty,
)


@dataclass
class Questions:
    """A model's questions about the open sentences of the data (see the module doc).

    ``q[N]`` per token of the data (0 outside the open sentences), the
    sentences' scores, the token scores and margin scale for
    :func:`tagtool.services.uncertainty.pair_uncertainty`; ``suggested[N]`` (``review``
    mode) the model's labels of the open sentences' tokens; ``best[N]`` each open token's best-scoring
    label (what span questions read, :mod:`tagtool.services.span_questions`; -1 elsewhere).
    """

    q: np.ndarray
    sentence_scores: dict[int, float]
    scores: np.ndarray | None
    scale: float | None
    probabilistic: bool
    suggested: np.ndarray | None = None
    best: np.ndarray | None = None


def ask_questions(
    model: ChainModel,
    pool: Pool,
    allowed: np.ndarray,
    open_ids: np.ndarray,
    strategy: str,
    need_scores: bool,
    need_suggestions: bool = False,
    showing: Showing | None = None,
    cheap: np.ndarray | None = None,
) -> Questions:
    """Score the open sentences ``open_ids`` of the data under ``model`` for ``strategy``.

    The questions and the sentence scores are the strategy's
    (:mod:`tagtool.services.strategies`); ``showing`` is the cost model its score
    reads (default: ``full`` mode at the default costs); ``cheap[N]`` the data's tokens
    whose ``review`` suggestion is likely right without the model (:class:`Tokens`).
    """
    entry = strategies.get(strategy)
    n = pool.data.n_tokens
    q = np.zeros(n)
    scores_all = np.zeros((n, pool.data.n_labels)) if need_scores else None
    suggested = np.full(n, -1, dtype=np.int64) if need_suggestions else None
    if len(open_ids) == 0:
        return Questions(q, {}, scores_all, None, model.probabilistic, suggested, np.full(n, -1, dtype=np.int64))
    snap = replace(pool.data, allowed=allowed).subset(open_ids)
    scores = model.score_tokens(snap)
    scale = None if model.probabilistic else margin_scale(margins(scores))
    local = entry.question(_evidence(entry, model, snap, scores, scale))
    offsets = pool.data.offsets
    positions = concat_ranges(offsets[open_ids], offsets[open_ids + 1] - offsets[open_ids])
    q[positions] = local
    if scores_all is not None:
        scores_all[positions] = scores
    best = np.full(n, -1, dtype=np.int64)
    best[positions] = np.argmax(scores, axis=1)  # as the app's analysis (best_and_runner_up)
    if suggested is not None:
        suggested[positions] = model.predict(snap, constrained=True)  # as the editor shows them
    sentence = {}
    if entry.guided:
        showing = showing or Showing(threshold=DEFAULT_THRESHOLD[model.probabilistic])
        tokens = Tokens.from_allowed(snap.allowed, snap.offsets, None if cheap is None else cheap[positions])
        ranked = entry.score(local, tokens, showing)
        sentence = dict(zip(open_ids.tolist(), ranked.tolist()))
    return Questions(q, sentence, scores_all, scale, model.probabilistic, suggested, best)


def _evidence(
    entry: strategies.Strategy, model: ChainModel, snap: Snapshot, scores: np.ndarray, scale: float | None
) -> Evidence:
    """What ``entry``'s question reads: the uncertainty, and the views or WD-PSL's contention it uses."""
    u = token_uncertainty(scores, model.probabilistic, scale)
    disagree = contention = None
    if "views" in entry.uses and model.n_views == 2:
        y0, y1 = model.disagreement(snap)
        disagree = y0 != y1
    elif "contention" in entry.uses and gives_confidences(model.learner):
        contention = contention_question(model, snap, scores)
    return Evidence(u, disagree, contention)

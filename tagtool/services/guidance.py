"""What guides the annotator in the app (docs/design.md#guidance): a model's guidance of sentences, and the queue.

No Qt here: the desktop app draws these numbers, and ``tagtool simulate``
orders sentences with the same :func:`queue`.  The numbers per token and
per sentence (uncertainty, view disagreement, informativeness) are those of
:mod:`tagtool.services.uncertainty`.

* **Queue**: sentences not fully labeled, the most informative first.
* **Guidance**: the app gets both views of a model's guidance from
  :func:`analyse_all`: the per-sentence :class:`SentenceGuidance` the editor
  draws (suggestions, uncertainty, each view's labels, WD-PSL's candidate
  confidences), and the same numbers as flat arrays (:class:`Analysis`)
  that a queue strategy (:mod:`tagtool.services.strategies`) scores and
  that say where the model is torn between two labels.  The margin
  models' scale ``τ`` is the median over the sentences not fully labeled,
  as ``tagtool simulate`` takes it: the margins of the training sentences
  grow as the model fits them, and would make every open token look less
  sure.
* **View disagreement** (two-view learners): the tokens where view 0's and
  view 1's Viterbi labels differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.snapshot import build_snapshot
from tagtool.services.strategies import Evidence, Tokens
from tagtool.services.uncertainty import (
    best_and_runner_up,
    candidate_confidences,
    contention_question,
    informativeness,
    margin_scale,
    margins,
    pair_uncertainty,
    token_uncertainty,
)

__all__ = [
    "Analysis",
    "SentenceGuidance",
    "analyse",
    "analyse_all",
    "known_labels",
    "queue",
    "queue_order",
    "sentence_guidance",
]


def queue(scores: Mapping[int, float], status: Mapping[int, str]) -> list[int]:
    """Sentence ids that are not fully labeled, the most informative first.

    Parameters
    ----------
    scores : mapping id → informativeness
        Sentences without a score come after the scored ones.
    status : mapping id → ``"full"``/``"partial"``/``"none"``
        Every candidate sentence, in the order that breaks ties (document order).
    """
    ids = list(status)
    if not ids:
        return []
    open_ = np.fromiter((st != "full" for st in status.values()), dtype=bool, count=len(ids))
    ranked = np.fromiter((scores.get(sid, np.nan) for sid in ids), dtype=np.float64, count=len(ids))
    return [ids[i] for i in queue_order(ranked, open_).tolist()]


def queue_order(scores: np.ndarray, open_: np.ndarray, tie_rank: np.ndarray | None = None) -> np.ndarray:
    """:func:`queue` on arrays: the open rows, the highest score first, unscored (NaN) rows last.

    Ties go by ``tie_rank`` (default: row order).  Sorted by numpy (a
    100,000-sentence project's queue in milliseconds, not a Python sort).
    """
    rows = np.flatnonzero(np.asarray(open_, dtype=bool))
    ranked = np.asarray(scores, dtype=np.float64)[rows]
    unscored = np.isnan(ranked)
    ties = rows if tie_rank is None else np.asarray(tie_rank)[rows]
    return rows[np.lexsort((ties, np.where(unscored, 0.0, -ranked), unscored))]


@dataclass(frozen=True)
class SentenceGuidance:
    """A model's view of one sentence, ready to draw.

    Attributes
    ----------
    suggestions : tuple of str
        Constrained Viterbi labels (inside each token's allowed set: a
        partial token's best candidate; a full token's own label).
    uncertainty : tuple of float
    views : tuple of (tuple of str, tuple of str), optional
        Each view's Viterbi labels (two-view models).
    confidences : tuple of dict, optional
        WD-PSL confidence of each candidate of each partially labeled token.
    score : float
        :func:`informativeness`.
    """

    suggestions: tuple[str, ...]
    uncertainty: tuple[float, ...]
    views: tuple[tuple[str, ...], tuple[str, ...]] | None = None
    confidences: tuple[dict, ...] | None = None
    score: float = 0.0

    def disagreement_share(self) -> float:
        if self.views is None or not self.suggestions:
            return 0.0
        return sum(a != b for a, b in zip(*self.views)) / len(self.suggestions)


@dataclass(frozen=True)
class Analysis:
    """A model's guidance of some sentences as flat arrays over their tokens (:func:`analyse_all`).

    Attributes
    ----------
    evidence : Evidence
        What the queue strategies read (:mod:`tagtool.services.strategies`); the WD-PSL
        contention only for WD-PSL.
    tokens : Tokens
        Which tokens carried annotations when the model scored them.
    probabilistic : bool
        The model's kind (which question threshold applies).
    best, runner_up : int arrays [N]
        The best-scoring label of each token and the strongest other one.
    torn : float array [N]
        :func:`pair_uncertainty` between the two: where it is high, the
        annotator may give the candidate set {best, runner-up}.
    labels : tuple of str
        Label names, by index.
    scored : bool array [n_sentences], optional
        The sentences scored so far, while a big project is scored chunk by
        chunk (:mod:`tagtool.services.chunked_guidance`); the others' tokens hold
        zeros.  None: every sentence.
    """

    evidence: Evidence
    tokens: Tokens
    probabilistic: bool
    best: np.ndarray
    runner_up: np.ndarray
    torn: np.ndarray
    labels: tuple[str, ...]
    scored: np.ndarray | None = None

    @property
    def complete(self) -> bool:
        return self.scored is None or bool(self.scored.all())


def analyse(tagger, sentences: Sequence, should_stop=None) -> list[SentenceGuidance]:
    """Suggestions, uncertainty, view labels and confidences of ``sentences`` under ``tagger``.

    Annotations whose labels the tagger does not know are ignored (the
    sentence is decoded unconstrained there).
    """
    return analyse_all(tagger, sentences, should_stop)[0]


def analyse_all(tagger, sentences: Sequence, should_stop=None) -> tuple[list[SentenceGuidance], Analysis | None]:
    """:func:`analyse` and the same guidance as flat arrays (None without sentences)."""
    sentences = [known_labels(s, tagger.labels) for s in sentences]
    if not sentences:
        return [], None
    model = tagger.model
    snapshot = build_snapshot(sentences, tagger.labels, tagger.extractor, model.feature_view)
    names = np.asarray(tagger.labels.names, dtype=object)
    best = names[model.predict(snapshot, constrained=True)]
    scores = model.score_tokens(snapshot)
    scale = None if model.probabilistic else margin_scale(margins(scores)[_open_rows(snapshot)])
    uncertainty = token_uncertainty(scores, model.probabilistic, scale)
    views = disagree = None
    if model.n_views == 2:
        y0, y1 = model.disagreement(snapshot)
        views, disagree = (names[y0], names[y1]), y0 != y1
    conf = candidate_confidences(tagger, snapshot)
    out = []
    for i in range(snapshot.n_sentences):
        if should_stop is not None and should_stop():
            from tagtool.errors import Cancelled

            raise Cancelled("cancelled")
        out.append(
            sentence_guidance(
                snapshot.sentence_slice(i), best, uncertainty, snapshot.allowed, views, conf, disagree, names
            )
        )
    contention = contention_question(model, snapshot, scores) if conf is not None else None
    return out, _analysis(
        snapshot,
        scores,
        scale,
        model.probabilistic,
        Evidence(uncertainty, disagree, contention),
        tuple(tagger.labels.names),
    )


def sentence_guidance(rows: slice, best, uncertainty, allowed, views, conf, disagree, names) -> SentenceGuidance:
    """One sentence's :class:`SentenceGuidance` from flat arrays over tokens (``rows``: its tokens).

    ``best`` and ``views`` hold label names (object arrays); ``views``,
    ``conf`` and ``disagree`` may be None.  Shared by :func:`analyse_all`
    and the chunked guidance of big projects (:mod:`tagtool.services.chunked_guidance`),
    so that both give equal objects.
    """
    allowed = allowed[rows]
    return SentenceGuidance(
        suggestions=tuple(best[rows]),
        uncertainty=tuple(float(u) for u in uncertainty[rows]),
        views=None if views is None else (tuple(views[0][rows]), tuple(views[1][rows])),
        confidences=None if conf is None else _token_confidences(conf[rows], allowed, names),
        score=informativeness(uncertainty[rows], allowed, None if disagree is None else disagree[rows]),
    )


def _open_rows(snapshot) -> np.ndarray:
    """Token rows of the sentences not fully labeled (every row when all are: the scale then has them all)."""
    rows = np.repeat(snapshot.sentence_status() < 2, snapshot.lengths)
    return rows if rows.any() else np.ones(len(rows), dtype=bool)


def _analysis(snapshot, scores, scale, probabilistic: bool, evidence: Evidence, labels) -> Analysis:
    top, other = best_and_runner_up(scores)
    torn = np.zeros(len(scores)) if scores.shape[1] < 2 else pair_uncertainty(scores, top, other, probabilistic, scale)
    return Analysis(
        evidence, Tokens.from_allowed(snapshot.allowed, snapshot.offsets), bool(probabilistic), top, other, torn, labels
    )


def _token_confidences(conf: np.ndarray, allowed: np.ndarray, names: np.ndarray) -> tuple[dict, ...]:
    out = []
    for row, mask in zip(conf, allowed):
        partial = 1 < mask.sum() < len(mask)
        out.append({str(names[j]): float(row[j]) for j in np.flatnonzero(mask)} if partial else {})
    return tuple(out)


def known_labels(sentence, labels):
    """``sentence`` with the annotations of tokens whose labels ``labels`` lacks dropped (those tokens decode free)."""
    anns = sentence.annotations
    if all(name in labels for a in anns for name in a):
        return sentence
    return sentence.with_annotations([a if all(n in labels for n in a) else () for a in anns])

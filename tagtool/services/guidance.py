"""What guides the annotator (DESIGN §6): uncertainty, informativeness, the queue.

No Qt here: the desktop app draws these numbers, and a later ``tagtool
simulate`` orders sentences with the same :func:`queue`.

* **Uncertainty** of a token, in [0, 1]: the normalised entropy of its
  marginal for probabilistic models (CRFs), and for the margin-based ones
  (SVMs, perceptrons) ``exp(−m / τ)`` of the margin ``m`` between the best and
  the second-best label's max-marginal score, with ``τ`` the median margin
  of the tokens scored together (the weights' scale differs between learners
  and grows with perceptron epochs; the median makes the shading comparable).
  :func:`analyse_all` takes the median over the sentences not fully labeled,
  as ``tagtool simulate`` does: the margins of the training sentences grow
  as the model fits them, and would make every open token look less sure.
* **View disagreement** (two-view learners): the tokens where view 0's and
  view 1's Viterbi labels differ.
* **Informativeness** of a sentence: the mean over its tokens of ``(1 −
  info_t) · u_t`` — the token's missing information (DESIGN §2: 1 without a
  label, 0 with a full one) times its open question (1 where the views
  disagree, else the uncertainty).  Fully labeled sentences score 0.
* **Queue**: sentences not fully labeled, the most informative first.

For ``tagtool simulate`` (:mod:`tagtool.services.simulate`), which scores a whole
corpus per step, the same numbers come vectorised
(:func:`sentence_informativeness`), together with two helpers a simulated
annotator needs: :func:`pair_uncertainty` (how torn the model is between two
given labels of a token) and, for WD-PSL, :func:`contention_mask` and
:func:`candidate_uncertainty` (its candidate confidences among the labels
in contention, turned into an uncertainty: :func:`contention_question`).

The app gets both views of a model's guidance from :func:`analyse_all`: the
per-sentence :class:`SentenceGuidance` the editor draws, and the same
numbers as flat arrays (:class:`Analysis`) that a queue strategy
(:mod:`tagtool.services.strategies`) scores and that say where the model is torn
between two labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.annotation import information_from_mask
from tagtool.core.snapshot import build_snapshot
from tagtool.services.strategies import Evidence, Tokens

__all__ = [
    "Analysis",
    "SentenceGuidance",
    "analyse",
    "analyse_all",
    "candidate_uncertainty",
    "contention_mask",
    "contention_question",
    "informativeness",
    "margin_uncertainty",
    "entropy_uncertainty",
    "open_question",
    "pair_uncertainty",
    "queue",
    "queue_order",
    "sentence_guidance",
    "sentence_informativeness",
    "strongest_other",
    "token_uncertainty",
]


def entropy_uncertainty(marginals: np.ndarray) -> np.ndarray:
    """Token marginal entropy divided by ``log L``: ``[T, L]`` → ``[T]`` in [0, 1]."""
    p = np.clip(np.asarray(marginals, dtype=np.float64), 0.0, 1.0)
    n_labels = p.shape[1]
    if n_labels < 2:
        return np.zeros(len(p))
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(p > 0, p * np.log(p), 0.0).sum(axis=1)
    return np.clip(h / np.log(n_labels), 0.0, 1.0)


def margins(scores: np.ndarray) -> np.ndarray:
    """Best minus second-best score of every token (``[T, L]`` → ``[T]``, ≥ 0)."""
    s = np.asarray(scores, dtype=np.float64)
    if s.shape[1] < 2:
        return np.full(len(s), np.inf)
    top2 = np.sort(s, axis=1)[:, -2:]
    return np.maximum(top2[:, 1] - top2[:, 0], 0.0)


def margin_uncertainty(scores: np.ndarray, scale: float | None = None) -> np.ndarray:
    """``exp(−m / τ)`` of the best-vs-second margin ``m``: 1 for a tie, → 0 when sure.

    Parameters
    ----------
    scores : float array [T, L]
        Max-marginal scores (any offset per token).
    scale : float, optional
        ``τ``; by default the median of the positive margins (1 if none).
    """
    m = margins(scores)
    if scale is None:
        scale = margin_scale(m)
    return np.exp(-m / scale)


def margin_scale(m: np.ndarray) -> float:
    """The median positive finite margin (1.0 if there is none)."""
    positive = m[np.isfinite(m) & (m > 0)]
    return float(np.median(positive)) if positive.size else 1.0


def token_uncertainty(scores: np.ndarray, probabilistic: bool, scale: float | None = None) -> np.ndarray:
    """Uncertainty in [0, 1] of each token from :meth:`ChainModel.score_tokens` output."""
    if probabilistic:
        return entropy_uncertainty(scores)
    return margin_uncertainty(scores, scale)


def informativeness(uncertainty: np.ndarray, allowed: np.ndarray, disagree: np.ndarray | None = None) -> float:
    """Score of one sentence: mean over tokens of ``(1 − info_t) · u_t`` (see the module doc).

    Parameters
    ----------
    uncertainty : float array [T]
    allowed : bool array [T, L]
        The sentence's allowed sets (all True for an unlabeled token).
    disagree : bool array [T], optional
        Where the two views' labels differ; such a token counts 1.
    """
    if len(uncertainty) == 0:
        return 0.0
    missing = 1.0 - information_from_mask(np.asarray(allowed, dtype=bool))
    return float(np.mean(missing * open_question(uncertainty, disagree)))


def open_question(uncertainty: np.ndarray, disagree: np.ndarray | None = None) -> np.ndarray:
    """Per token: 1 where the views disagree, else the uncertainty (float ``[T]``)."""
    question = np.asarray(uncertainty, dtype=np.float64)
    if disagree is not None:
        question = np.where(disagree, 1.0, question)
    return question


def sentence_informativeness(
    uncertainty: np.ndarray, allowed: np.ndarray, offsets: np.ndarray, disagree: np.ndarray | None = None
) -> np.ndarray:
    """:func:`informativeness` of every sentence of a snapshot at once.

    Parameters
    ----------
    uncertainty : float array [N]
    allowed : bool array [N, L]
    offsets : int array [n_sentences + 1]
        Sentence ``i`` spans tokens ``offsets[i]:offsets[i + 1]`` (no empty sentence).
    disagree : bool array [N], optional

    Returns
    -------
    float array [n_sentences]
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    if len(offsets) < 2:
        return np.zeros(0)
    missing = 1.0 - information_from_mask(np.asarray(allowed, dtype=bool))
    per_token = missing * open_question(uncertainty, disagree)
    return np.add.reduceat(per_token, offsets[:-1]) / np.diff(offsets)


def strongest_other(scores: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Per token, the best-scoring label other than ``label[t]`` (``[T, L]``, ``[T]`` → ``[T]``)."""
    s = np.array(scores, dtype=np.float64)
    if s.shape[1] < 2:
        raise ValueError("a token needs at least two labels to have another one")
    s[np.arange(len(s)), np.asarray(label, dtype=np.int64)] = -np.inf
    return np.argmax(s, axis=1)


def pair_uncertainty(
    scores: np.ndarray, a: np.ndarray, b: np.ndarray, probabilistic: bool, scale: float | None = None
) -> np.ndarray:
    """How torn the model is between labels ``a[t]`` and ``b[t]`` of each token, in [0, 1].

    The token uncertainty of the module doc restricted to two labels: for
    probabilistic models the entropy (in bits) of the two marginals
    renormalised, ``p_a / (p_a + p_b)``; for the others ``exp(−|s_a − s_b| / τ)``
    of their max-marginal scores.  1 when the two tie.

    Parameters
    ----------
    scores : float array [T, L]
        :meth:`ChainModel.score_tokens` output.
    a, b : int arrays [T]
    probabilistic : bool
    scale : float, optional
        ``τ``; by default the median positive best-vs-second margin of ``scores``.
    """
    s = np.asarray(scores, dtype=np.float64)
    rows = np.arange(len(s))
    sa, sb = s[rows, np.asarray(a, dtype=np.int64)], s[rows, np.asarray(b, dtype=np.int64)]
    if probabilistic:
        total = sa + sb
        with np.errstate(divide="ignore", invalid="ignore"):
            q = np.where(total > 0, sa / np.where(total > 0, total, 1.0), 0.5)
            h = -np.where(q > 0, q * np.log2(q), 0.0) - np.where(q < 1, (1 - q) * np.log2(1 - q), 0.0)
        return np.clip(h, 0.0, 1.0)
    if scale is None:
        scale = margin_scale(margins(s))
    return np.exp(-np.abs(sa - sb) / scale)


def contention_mask(scores: np.ndarray, allowed: np.ndarray, k: int = 2) -> np.ndarray:
    """``allowed`` with every unlabeled token narrowed to its ``k`` best-scoring labels.

    WD-PSL's candidate confidences (DESIGN §5.4) rank the candidates of
    constrained tokens; a token without any label takes part in no piece
    of its own.  Narrowing it to the labels the model hesitates between
    gives the confidences the annotator would see had they offered that
    candidate set.
    """
    allowed = np.asarray(allowed, dtype=bool)
    n_labels = allowed.shape[1]
    if k >= n_labels:
        return allowed.copy()
    best = np.argsort(-np.asarray(scores, dtype=np.float64), axis=1, kind="stable")[:, :k]
    narrowed = np.zeros_like(allowed)
    np.put_along_axis(narrowed, best, True, axis=1)
    unlabeled = allowed.all(axis=1)
    return np.where(unlabeled[:, None], narrowed, allowed)


def candidate_uncertainty(confidences: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``1 − (c₁ − c₂)`` of the two most confident allowed labels of each token, in [0, 1].

    1 when two candidates tie, 0 for a token with one allowed label or a
    candidate holding all the confidence.
    """
    conf = np.where(np.asarray(allowed, dtype=bool), np.asarray(confidences, dtype=np.float64), 0.0)
    if conf.shape[1] < 2:
        return np.zeros(len(conf))
    top2 = np.sort(conf, axis=1)[:, -2:]
    return np.clip(1.0 - (top2[:, 1] - top2[:, 0]), 0.0, 1.0)


def contention_question(model, snapshot, scores: np.ndarray) -> np.ndarray:
    """WD-PSL's question per token: :func:`candidate_uncertainty` of its confidences among the
    labels in contention (every unlabeled token narrowed to its two best, :func:`contention_mask`).

    ``model`` a :class:`~tagtool.learn.chain.ChainModel` of a learner that
    :func:`gives_confidences` (WD-PSL), ``scores`` its :meth:`score_tokens`
    of ``snapshot`` (DESIGN §5.4, Lu & Chow Eq. 22).
    """
    from dataclasses import replace

    from tagtool.learn import find_learner

    narrowed = contention_mask(scores, snapshot.allowed, k=2)
    conf = find_learner(model.learner).candidate_confidences(model, replace(snapshot, allowed=narrowed))
    return candidate_uncertainty(conf, narrowed)


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


def gives_confidences(learner: str) -> bool:
    """Whether models of ``learner`` give candidate confidences (its class's ``gives_confidences``: WD-PSL)."""
    from tagtool.learn import find_learner

    cls = find_learner(learner)
    return cls is not None and cls.gives_confidences


def candidate_confidences(tagger, snapshot) -> np.ndarray | None:
    """The tagger's per-candidate confidences ``[N, L]`` of ``snapshot``, if its learner gives them."""
    from tagtool.learn import find_learner

    cls = find_learner(tagger.learner)
    return cls.candidate_confidences(tagger.model, snapshot) if cls is not None and cls.gives_confidences else None


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
    sentences = [_known_labels(s, tagger.labels) for s in sentences]
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
        out.append(sentence_guidance(snapshot.sentence_slice(i), best, uncertainty, snapshot.allowed, views, conf,
                                     disagree, names))
    contention = contention_question(model, snapshot, scores) if conf is not None else None
    return out, _analysis(snapshot, scores, scale, model.probabilistic, Evidence(uncertainty, disagree, contention),
                          tuple(tagger.labels.names))


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
    top = np.argmax(scores, axis=1) if scores.shape[1] else np.zeros(len(scores), dtype=np.int64)
    if scores.shape[1] < 2:
        other, torn = top, np.zeros(len(scores))
    else:
        other = strongest_other(scores, top)
        torn = pair_uncertainty(scores, top, other, probabilistic, scale)
    return Analysis(evidence, Tokens.from_allowed(snapshot.allowed, snapshot.offsets), bool(probabilistic),
                    top, other, torn, labels)


def _token_confidences(conf: np.ndarray, allowed: np.ndarray, names: np.ndarray) -> tuple[dict, ...]:
    out = []
    for row, mask in zip(conf, allowed):
        partial = 1 < mask.sum() < len(mask)
        out.append({str(names[j]): float(row[j]) for j in np.flatnonzero(mask)} if partial else {})
    return tuple(out)


def _known_labels(sentence, labels):
    anns = sentence.annotations
    if all(name in labels for a in anns for name in a):
        return sentence
    return sentence.with_annotations([a if all(n in labels for n in a) else () for a in anns])

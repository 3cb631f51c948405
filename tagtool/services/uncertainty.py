"""How unsure a model is, per token and per sentence (docs/design.md#guidance): the numbers guidance is made of.

No Qt here; :mod:`tagtool.services.guidance` (the app's view of a model's
guidance), :mod:`tagtool.services.chunked_guidance` (a big project's, chunk by
chunk), :mod:`tagtool.services.strategies` (the queue strategies) and
``tagtool simulate`` (:mod:`tagtool.services.simulate`) read them.

* **Uncertainty** of a token, in [0, 1]: the normalised entropy of its
  marginal for probabilistic models (CRFs), and for the margin-based ones
  (SVMs, perceptrons) ``exp(−m / τ)`` of the margin ``m`` between the best and
  the second-best label's max-marginal score, with ``τ`` the median margin
  of the tokens scored together (the weights' scale differs between learners
  and grows with perceptron epochs; the median makes the shading comparable).
* **Informativeness** of a sentence: the mean over its tokens of ``(1 −
  info_t) · u_t`` — the token's missing information (docs/design.md#sentence-weight: 1 without a
  label, 0 with a full one) times its open question (1 where the views
  disagree, else the uncertainty).  Fully labeled sentences score 0.
  :func:`sentence_informativeness` gives it for every sentence of a
  snapshot at once.
* What a simulated annotator needs besides: :func:`pair_uncertainty` (how
  torn the model is between two given labels of a token) and, for WD-PSL,
  :func:`contention_mask` and :func:`candidate_uncertainty` (its candidate
  confidences among the labels in contention, turned into an uncertainty:
  :func:`contention_question`).
"""

from __future__ import annotations

import numpy as np

from tagtool.core.annotation import information_from_mask


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


def best_and_runner_up(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per token the best-scoring label and :func:`strongest_other` (``[T, L]`` → ``[T]``, ``[T]``).

    With fewer than two labels the runner-up is the best label itself.
    """
    s = np.asarray(scores)
    top = np.argmax(s, axis=1) if s.shape[1] else np.zeros(len(s), dtype=np.int64)
    return top, (top if s.shape[1] < 2 else strongest_other(s, top))


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

    WD-PSL's candidate confidences (docs/design.md#wd-psl) rank the candidates of
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
    of ``snapshot`` (Lu & Chow, Eq. 22; docs/design.md#wd-psl).
    """
    from dataclasses import replace

    from tagtool.learn import find_learner

    narrowed = contention_mask(scores, snapshot.allowed, k=2)
    conf = find_learner(model.learner).candidate_confidences(model, replace(snapshot, allowed=narrowed))
    return candidate_uncertainty(conf, narrowed)


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

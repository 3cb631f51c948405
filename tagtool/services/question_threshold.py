"""The question threshold a project sets for itself, and the cold-start rule, from its cross-validation.

The app cross-validates each model (:mod:`tagtool.services.crossval`: ``k``
contiguous blocks of the fully labeled sentences, each held out of its
fold's training data, text and labels).  Each held-out token gets, from the
fold's model, the same *question* ``q`` the queue strategy asks of an
unlabeled token (:meth:`tagtool.services.strategies.Strategy.question` of
the uncertainty, the views' disagreement, WD-PSL's contention; the margin
scale is the fold model's median margin over its held-out tokens), and
whether the fold model's label is wrong (:class:`HeldOut`).

**Threshold** (:func:`self_set_threshold`).  The token modes ask a token
when ``q ≥ t`` and leave the others unlabeled for the learner to fill.  The
project's threshold ``t`` is the largest value such that, among the
held-out tokens with ``q < t``, the out-of-fold model is wrong at most at
the rate :data:`MISS_RATE`: the tokens left unasked are expected to be
wrong at most that often.  With fewer than :data:`MIN_HELD_OUT` held-out
tokens (or no cross-validation) the threshold is the model kind's constant
(:data:`tagtool.services.strategies.DEFAULT_THRESHOLD`), and it is never
above that constant: a model wrong on fewer than ``r`` of all held-out
tokens would otherwise ask nothing (a 2,000-sentence NER project gave
1.0); a threshold the
user gives (``tagtool simulate --threshold``) overrides both.  It is
recomputed after every training run, as the labels grow.  In ``review``,
where nothing is asked and every suggestion is shown, the ``gain`` ranking
keeps the kind's constant unless :data:`OWN_IN_REVIEW`.  Only fully
labeled sentences are held out: in the token modes they are the first
step's and the cold start's, whole sentences in the queue's order.

**Cold start** (:class:`Calibration`).  While the cross-validated span F1
of the latest model is below :data:`COLD_F1` — or there are too few fully
labeled sentences to cross-validate — the token modes show whole sentences:
every unlabeled token is marked, and the sentence is reviewed as in
``review`` — the model's suggestions, the wrong ones corrected, Enter
accepts the rest (:data:`COLD_TOKENS`; ``"full"``: every token labeled);
the model's token questions before it is reliable are mostly noise.  The
queue keeps the strategy's order (:data:`COLD_ORDER`; ``"random"``: the
``random`` tie order, :func:`tagtool.services.strategies.tie_order`).
Once the F1 has reached the level it stays warm (no flapping back).  With
cross-validation off (0 folds) there is no F1 to go by: no cold start, and
the kind's threshold.

The constants are chosen by measurement (benchmarks/results/question_threshold.md).

References
----------
.. [1] K. Tomanek, U. Hahn. Semi-supervised active learning for sequence
   labeling. ACL-IJCNLP 2009 (the unasked tokens are labeled by the model;
   a threshold on its uncertainty decides which).
.. [2] B. Settles, M. Craven. An analysis of active learning strategies for
   sequence labeling tasks. EMNLP 2008 (random sentences first, then
   uncertainty sampling).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from tagtool.services.strategies import DEFAULT_THRESHOLD, TOKEN_MODES, Evidence, Strategy

#: ``r``: the largest share of wrong labels among the held-out tokens below the threshold (module doc).
MISS_RATE = 0.03
#: Held-out tokens below which the threshold is the model kind's constant.
MIN_HELD_OUT = 2000
#: Cross-validated span F1 (fraction) below which the queue is in its cold start (module doc); 0: only while
#: too few sentences are fully labeled to cross-validate (40 % measured no better).
COLD_F1 = 0.0
#: What the token modes show in the cold start: ``"review"`` (the model's suggestions on every token of the
#: sentence, the wrong ones corrected, Enter accepts the rest) or ``"full"`` (every token labeled).
COLD_TOKENS = "review"
#: The queue's order in the cold start: ``"random"`` (the ``random`` tie order) or ``"strategy"`` (the guided
#: strategy's, as once warm: the cold start then only changes what the token modes show).
COLD_ORDER = "strategy"
#: The project's threshold also ranks the sentences in ``review`` (where nothing is asked, every suggestion is
#: shown; ``gain`` counts the tokens above the threshold as the corrections); False: the kind's constant there.
OWN_IN_REVIEW = False


@dataclass(frozen=True, eq=False)
class HeldOut:
    """The held-out tokens of a cross-validation: what each fold's model says of them, and where it is wrong.

    Attributes
    ----------
    evidence : Evidence
        Flat over the held-out tokens, folds one after the other.
    wrong : bool array [N]
        The fold model's label differs from the annotation.
    """

    evidence: Evidence
    wrong: np.ndarray

    @property
    def n_tokens(self) -> int:
        return len(self.wrong)

    @classmethod
    def join(cls, parts: Sequence[HeldOut]) -> HeldOut | None:
        """The folds' held-out tokens together (None without any)."""
        if not parts:
            return None

        def cat(name: str):
            arrays = [getattr(p.evidence, name) for p in parts]
            return None if any(a is None for a in arrays) else np.concatenate(arrays)

        evidence = Evidence(cat("uncertainty"), cat("disagree"), cat("contention"))
        return cls(evidence, np.concatenate([p.wrong for p in parts]))


def held_out(tagger, sentences: Sequence, predicted: Sequence[Sequence[str]]) -> HeldOut:
    """What ``tagger`` (a fold's) says of the held-out ``sentences`` it tagged as ``predicted``.

    The evidence is that of :func:`tagtool.services.guidance.analyse_all`
    on the sentences without their annotations (as the fold model meets new
    text); a token is wrong where ``predicted`` differs from its annotation
    (fully labeled sentences: one label each).
    """
    from tagtool.core.snapshot import build_snapshot
    from tagtool.services.uncertainty import (
        contention_question,
        gives_confidences,
        margin_scale,
        margins,
        token_uncertainty,
    )

    model = tagger.model
    snap = build_snapshot([s.unlabeled() for s in sentences], tagger.labels, tagger.extractor, model.feature_view)
    scores = model.score_tokens(snap)
    scale = None if model.probabilistic else margin_scale(margins(scores))
    disagree = contention = None
    if model.n_views == 2:
        y0, y1 = model.disagreement(snap)
        disagree = y0 != y1
    elif gives_confidences(model.learner):
        contention = contention_question(model, snap, scores)
    gold = [next(iter(a)) for s in sentences for a in s.annotations]
    guess = [label for labels in predicted for label in labels]
    wrong = np.fromiter((g != p for g, p in zip(gold, guess)), dtype=bool, count=len(gold))
    return HeldOut(Evidence(token_uncertainty(scores, model.probabilistic, scale), disagree, contention), wrong)


def self_set_threshold(q, wrong, miss_rate: float | None = None, minimum: int | None = None) -> float | None:
    """The largest ``t`` such that the held-out tokens with ``q < t`` are wrong at a rate ``≤ miss_rate``.

    Parameters
    ----------
    q : float array [N]
        The held-out tokens' questions.
    wrong : bool array [N]
        Where the out-of-fold model's label is wrong.
    miss_rate : float, optional
        ``r`` (default :data:`MISS_RATE`).
    minimum : int, optional
        Fewer held-out tokens: None, the caller falls back to a constant (default :data:`MIN_HELD_OUT`).

    Returns
    -------
    float or None
        One of the distinct values of ``q`` (the set below it is the tokens
        with a smaller question), or 1.0 when the tokens below 1 meet the
        rate; an empty set meets it, so ``t ≥ min(q)``.
    """
    miss_rate = MISS_RATE if miss_rate is None else miss_rate
    minimum = MIN_HELD_OUT if minimum is None else minimum
    q = np.asarray(q, dtype=np.float64)
    wrong = np.asarray(wrong, dtype=bool)
    if len(q) < max(int(minimum), 1):
        return None
    values = np.append(np.unique(q), 1.0) if q.max() < 1.0 else np.unique(q)
    order = np.argsort(q, kind="stable")
    below = np.searchsorted(q[order], values, side="left")  # tokens with q < value
    wrong_below = np.concatenate([[0], np.cumsum(wrong[order])])[below]
    ok = wrong_below <= miss_rate * below
    return float(values[np.flatnonzero(ok)[-1]])


@dataclass(frozen=True, eq=False)
class Calibration:
    """The project's question threshold and cold-start state after its latest cross-validation (module doc).

    Attributes
    ----------
    held_out : HeldOut or None
        The latest cross-validation's held-out tokens.
    f1 : float or None
        Its span F1 (None: none yet, or not possible).
    warm : bool
        The F1 has reached :data:`COLD_F1` once (it stays warm).
    checked : bool
        Cross-validation runs (False: 0 folds; no cold start, the kind's threshold).
    given : float or None
        A threshold the user gave: it overrides the project's.
    """

    held_out: HeldOut | None = None
    f1: float | None = None
    warm: bool = False
    checked: bool = True
    given: float | None = None
    #: The thresholds computed so far, by (strategy, kind): the simulation asks for one per sentence shown.
    _known: dict = field(default_factory=dict, init=False, repr=False)

    @property
    def cold(self) -> bool:
        """The queue's cold start: random sentences, whole sentences in the token modes."""
        return self.checked and not self.warm

    @property
    def random_order(self) -> bool:
        """The queue in the ``random`` tie order rather than by the strategy's scores (cold, :data:`COLD_ORDER`)."""
        return self.cold and COLD_ORDER == "random"

    def after_cv(self, metrics: Mapping | None, held: HeldOut | None) -> Calibration:
        """The state after a training run whose cross-validation gave ``metrics`` (None: it had none).

        ``metrics`` without ``"f1"`` and ``"cv"`` (no folds asked for) turn
        the rule off; ``{"cv": reason}`` (too few labeled sentences) keeps
        the project cold.
        """
        metrics = metrics or {}
        if "f1" not in metrics and "cv" not in metrics:
            return replace(self, held_out=None, f1=None, warm=True, checked=False)
        f1 = float(metrics["f1"]) if "f1" in metrics else None
        warm = (self.warm and self.checked) or (f1 is not None and f1 >= COLD_F1)
        return replace(self, held_out=held, f1=f1, warm=warm, checked=True)

    def source(self, strategy: Strategy, probabilistic: bool, mode: str = "tokens") -> tuple[float, int]:
        """``(threshold, held-out tokens it came from)``; 0 tokens: a given or the kind's constant.

        In ``review`` and ``full`` the kind's constant unless :data:`OWN_IN_REVIEW`.
        """
        if self.given is not None:
            return float(self.given), 0
        if mode not in TOKEN_MODES and not OWN_IN_REVIEW:
            return DEFAULT_THRESHOLD[bool(probabilistic)], 0
        key = (strategy.name, bool(probabilistic), MISS_RATE, MIN_HELD_OUT)
        if key not in self._known:
            held = self.held_out
            self._known[key] = (DEFAULT_THRESHOLD[bool(probabilistic)], 0)
            if held is not None:
                t = self_set_threshold(np.asarray(strategy.question(held.evidence), dtype=np.float64), held.wrong)
                if t is not None:  # at most the kind's constant: see the module doc
                    self._known[key] = (min(t, DEFAULT_THRESHOLD[bool(probabilistic)]), held.n_tokens)
        return self._known[key]

    def threshold(self, strategy: Strategy, probabilistic: bool, mode: str = "tokens") -> float:
        """A token is asked when ``q ≥`` this in ``mode`` (:meth:`source`)."""
        return self.source(strategy, probabilistic, mode)[0]

    def describe(self, strategy: Strategy, probabilistic: bool, asking: bool = True) -> str:
        """One line for the status bar and the model panel: the cold start, or where the threshold comes from.

        ``asking``: in the token modes (where the cold start shows whole sentences and the threshold decides
        what is asked); otherwise ``review``.
        """
        if self.cold and (asking or self.random_order):
            shown = ["random sentences"] if self.random_order else []
            if asking:
                shown.append("whole sentences " + ("reviewed" if COLD_TOKENS == "review" else "labeled"))
            if COLD_F1 <= 0 or self.f1 is None:
                until = "until enough sentences are fully labeled to cross-validate the model"
            else:
                until = f"until the cross-validated F1 reaches {100 * COLD_F1:.0f} % (now {100 * self.f1:.1f} %)"
            return f"cold start: {', '.join(shown)} {until}"
        t, n = self.source(strategy, probabilistic)
        if self.given is not None:
            return f"asks where the question is ≥ {t:.2f} (the threshold given)"
        if n and t >= DEFAULT_THRESHOLD[bool(probabilistic)]:
            line = (
                f"asks where the question is ≥ {t:g}, the model kind's default: the {n:,} held-out tokens allowed "
                "a higher threshold, and it is never above the default"
            )
        elif n:
            line = (
                f"asks where the model may be wrong: threshold {t:.2f} from {n:,} held-out tokens "
                f"(below it the model was wrong on at most {100 * MISS_RATE:g} %)"
            )
        else:
            why = "cross-validation is off" if not self.checked else f"fewer than {MIN_HELD_OUT} held-out tokens"
            line = f"asks where the question is ≥ {t:g}, the model kind's default ({why})"
        if asking or OWN_IN_REVIEW:
            return line
        kind = DEFAULT_THRESHOLD[bool(probabilistic)]
        return f"review ranks with the model kind's threshold {kind:g}; in token-question mode it {line}"


#: No rule: no cold start, the kind's threshold (cross-validation off, or code that plans without a project).
NO_RULE = Calibration(warm=True, checked=False)

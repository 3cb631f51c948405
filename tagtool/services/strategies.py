"""Queue strategies: which sentence next, and which tokens the model asks about (one registry).

Every strategy is one :class:`Strategy` in :data:`REGISTRY`, and nothing else
lists them: ``tagtool simulate --strategy`` (its choices and help), the
simulated annotator (:mod:`tagtool.services.simulate`), and the desktop app's queue
(Go › Queue strategy, the sentence list's Info column, J and the token
questions) all read it.  Adding a strategy is adding one entry here.

A strategy has two functions:

* ``question(evidence) → q[N]``: the model's *question* about each token,
  in [0, 1], from what the model says (:class:`Evidence`: the token
  uncertainty of :mod:`tagtool.services.guidance`, where two views disagree, WD-PSL's
  confidence among the two labels in contention).  In the token modes a
  token is asked when it is unlabeled and ``q ≥ threshold``
  (:data:`DEFAULT_THRESHOLD`).
* ``score(q, tokens, showing) → s[n_sentences]``: how high a sentence stands
  in the queue (highest first; ties in the strategy's tie order), given
  which tokens carry annotations (:class:`Tokens`) and what showing a
  sentence costs in the mode (:class:`Showing`).  None for the strategies
  that need no model (``sequential``, ``random``).

The scores (module-level functions below):

* :func:`mean_question` — the informativeness of docs/design.md#guidance: the mean over the
  sentence's tokens of ``(1 − info_t) · q_t``.
* :func:`questions_per_cost` — ``combined``: the questions a sentence would
  ask, ``Σ_{t asked} q_t``, over what showing it costs in the mode (asked
  tokens at ``full``, the other unlabeled ones at ``skip``).
* :func:`gain_per_cost` — ``gain``, the app's default: as ``combined``, with
  the cost of opening a sentence (:data:`SENTENCE_COST`) added to every
  sentence's cost, and in ``review`` the tokens-mode cost (the asked tokens
  are the suggestions likely to be corrected, the rest are read and
  accepted).  The other scores are ratios of sums over tokens alone, so a
  one-token sentence whose only token is uncertain ("Energy", a headline)
  scores as high as a sentence can; with a cost per sentence the questions
  of a longer sentence share it.  Ringger et al. (2008) measured annotation
  time as a cost per token read, a cost per correction and a cost per
  sentence (its size: benchmarks/results/design-measurements.md, "Smaller settings").

Modes (:data:`MODES`; the same names in ``tagtool simulate --mode`` and in
the app's help): ``full`` (every token labeled), ``tokens`` (only the asked
tokens), ``partial`` (as ``tokens``, with a two-label candidate set where
the model is torn between two labels: pair uncertainty ≥ :data:`DEFAULT_CLOSE`),
``review`` (the suggestions shown, the wrong ones corrected, Enter accepts
the rest).

References
----------
.. [1] B. Settles, M. Craven. An analysis of active learning strategies for
   sequence labeling tasks. EMNLP 2008.
.. [2] K. Tomanek, U. Hahn. Semi-supervised active learning for sequence
   labeling. ACL-IJCNLP 2009.
.. [3] E. Ringger et al. Assessing the costs of machine-assisted corpus
   annotation through a user study. LREC 2008.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

# numpy and tagtool.services.guidance are imported inside the functions: the CLI builds
# its parser (the --strategy choices) from this registry without loading them.

#: What the annotator gives in a sentence it is shown (module doc).
MODES = ("full", "tokens", "partial", "review")
#: Modes in which the annotator is asked only some tokens (the threshold applies).
TOKEN_MODES = ("tokens", "partial")
#: Default question threshold by the kind of model (``probabilistic``):
#: normalised entropy (CRFs) and ``exp(−margin / median margin)`` (the
#: others) are different scales.  A question whose suggestion is right is
#: accepted at the cost of reading its token, so asking more costs little:
#: 0.3 for the margin-based learners (0.7 before; measured in
#: benchmarks/results/annotation_efficiency.md).
DEFAULT_THRESHOLD = {True: 0.3, False: 0.3}
#: ``partial``: a two-label candidate set where the pair uncertainty is at least this.
DEFAULT_CLOSE = 0.9
#: Cost of opening a sentence, in full labels (``gain`` only; module doc).
SENTENCE_COST = 1.4
#: The app's queue strategy until the user picks another.
DEFAULT_STRATEGY = "gain"


@dataclass(frozen=True)
class Evidence:
    """What a model says about some tokens (flat arrays over them).

    Attributes
    ----------
    uncertainty : float array [N]
        :func:`tagtool.services.uncertainty.token_uncertainty`.
    disagree : bool array [N], optional
        Where the two views' Viterbi labels differ (two-view models).
    contention : float array [N], optional
        WD-PSL: ``1 − (c₁ − c₂)`` of its candidate confidences with every
        unlabeled token narrowed to its two best labels
        (:func:`tagtool.services.uncertainty.contention_question`).
    """

    uncertainty: object
    disagree: object = None
    contention: object = None

    def rows(self, rows: slice) -> Evidence:
        pick = lambda a: None if a is None else a[rows]  # noqa: E731
        return Evidence(self.uncertainty[rows], pick(self.disagree), pick(self.contention))


@dataclass(frozen=True)
class Tokens:
    """Which tokens of some sentences carry annotations.

    ``offsets[n + 1]`` (sentence ``i`` is ``offsets[i]:offsets[i + 1]``, none
    empty), ``missing[N]`` the information an annotation still lacks
    (``1 − info_t``: 1 unlabeled, 0 full, docs/design.md#sentence-weight) and ``unlabeled[N]``.
    ``cheap[N]`` (optional): unlabeled tokens whose ``review`` suggestion is
    likely right without the model (a string match of labeled spans whose
    evidence agrees, :mod:`tagtool.services.string_matches`): the cost-aware
    scores count them as accepted, not corrected.
    """

    offsets: object
    missing: object
    unlabeled: object
    cheap: object = None

    @classmethod
    def from_allowed(cls, allowed, offsets, cheap=None) -> Tokens:
        import numpy as np

        from tagtool.core.annotation import information_from_mask

        allowed = np.asarray(allowed, dtype=bool)
        unlabeled = allowed.all(axis=1)
        cheap = None if cheap is None else np.asarray(cheap, dtype=bool) & unlabeled
        return cls(np.asarray(offsets, dtype=np.int64), 1.0 - information_from_mask(allowed), unlabeled, cheap)

    def corrected(self, asked, showing: Showing):
        """In ``review``: the asked tokens expected to need a correction (the cheap ones are accepted)."""
        if showing.mode != "review" or self.cheap is None:
            return asked
        return asked & ~self.cheap


@dataclass(frozen=True)
class Showing:
    """What showing a sentence costs in a mode (the cost model of ``tagtool simulate``).

    ``threshold``: a token is asked in the token modes when ``q ≥ threshold``.
    ``accept``: a suggestion accepted in ``review`` (None: ``skip``).
    ``sentence``: the cost of opening a sentence (only ``gain`` reads it;
    the simulated annotator is not charged it).
    """

    mode: str = "full"
    threshold: float = DEFAULT_THRESHOLD[False]
    full: float = 1.0
    partial: float = 0.5
    skip: float = 0.1
    sentence: float = SENTENCE_COST
    accept: float | None = None

    def asked(self, q, unlabeled):
        """The tokens the annotator is asked: unlabeled ones, in the token modes those with ``q ≥ threshold``."""
        return unlabeled & (q >= self.threshold) if self.mode in TOKEN_MODES else unlabeled.copy()


# ---------------------------------------------------------------------------
# questions


def uncertainty_question(evidence: Evidence):
    return evidence.uncertainty


def disagreement_question(evidence: Evidence):
    import numpy as np

    return np.asarray(evidence.disagree, dtype=np.float64)


def contention_question(evidence: Evidence):
    return evidence.contention


def combined_question(evidence: Evidence):
    """1 where the views disagree, else the uncertainty; for WD-PSL the larger of it and the contention."""
    import numpy as np

    from tagtool.services.uncertainty import open_question

    if evidence.disagree is not None:
        return open_question(evidence.uncertainty, evidence.disagree)
    if evidence.contention is not None:
        return np.maximum(evidence.uncertainty, evidence.contention)
    return evidence.uncertainty


# ---------------------------------------------------------------------------
# sentence scores


def mean_question(q, tokens: Tokens, showing: Showing):
    """Mean over each sentence's tokens of ``(1 − info_t) · q_t`` (informativeness, docs/design.md#guidance)."""
    import numpy as np

    offsets = tokens.offsets
    if len(offsets) < 2:
        return np.zeros(0)
    return np.add.reduceat(tokens.missing * np.asarray(q, dtype=np.float64), offsets[:-1]) / np.diff(offsets)


def questions_per_cost(q, tokens: Tokens, showing: Showing):
    """``combined``: ``Σ_{t asked} q_t`` over the cost of showing the sentence (module doc)."""
    import numpy as np

    offsets = tokens.offsets
    if len(offsets) < 2:
        return np.zeros(0)
    unlabeled = tokens.unlabeled
    asked = showing.asked(q, unlabeled)
    gain = np.add.reduceat(np.where(asked, q, 0.0), offsets[:-1])
    paid = tokens.corrected(asked, showing)
    read = showing.accept if showing.mode == "review" and showing.accept is not None else showing.skip
    cost = np.add.reduceat(np.where(paid, showing.full, np.where(unlabeled, read, 0.0)), offsets[:-1])
    return np.where(cost > 0, gain / np.where(cost > 0, cost, 1.0), 0.0)


def gain_per_cost(q, tokens: Tokens, showing: Showing):
    """``gain``: the questions over the cost of opening and answering the sentence (module doc).

    Outside ``full`` mode the asked tokens are those with ``q ≥ threshold``
    (at ``full``; the other unlabeled ones are read, at ``skip``, or
    accepted, at ``accept``) in ``review`` too: there they are the suggestions likely to need a
    correction, and an uncalibrated ``q`` summed over every token would
    send the queue to the longest sentences (tables of numbers).
    """
    import numpy as np

    offsets = tokens.offsets
    if len(offsets) < 2:
        return np.zeros(0)
    unlabeled = tokens.unlabeled
    asked = unlabeled & (q >= showing.threshold) if showing.mode != "full" else unlabeled
    starts = offsets[:-1]
    gain = np.add.reduceat(q * asked, starts)
    n_asked = np.add.reduceat(tokens.corrected(asked, showing), starts, dtype=np.int64)
    n_read = np.add.reduceat(unlabeled, starts, dtype=np.int64) - n_asked
    read = showing.accept if showing.mode == "review" and showing.accept is not None else showing.skip
    cost = showing.sentence + showing.full * n_asked + read * n_read
    return np.divide(gain, cost, out=np.zeros_like(gain), where=(gain > 0) & (cost > 0))


# ---------------------------------------------------------------------------
# the registry


@dataclass(frozen=True)
class Strategy:
    """One queue strategy (module doc).

    Attributes
    ----------
    name : str
        As typed (``--strategy``) and stored (the app's settings).
    label : str
        Menu text.
    description : str
        One line for ``--help`` and tooltips.
    question : callable
        ``Evidence → q[N]``.
    score : callable or None
        ``(q, Tokens, Showing) → scores[n]``; None: no model needed, the
        order is the tie order alone.
    needs : str or None
        ``"two views"`` or ``"confidences"`` (candidate confidences, WD-PSL):
        the learner must have it (its class's ``two_view``, ``gives_confidences``).
    uses : frozenset of str
        Evidence beyond the uncertainty the question reads
        (``"views"``, ``"contention"``): computed only when used.
    file_order : bool
        Ties (and the whole order of an unguided strategy) in file order;
        otherwise in the permutation fixed by the seed (:func:`tie_order`):
        ``random`` is that order, the guided strategies break ties by it,
        and it is the order of the first sentences, before any model (the
        simulation's first step; in the app, J under ``random``).
    """

    name: str
    label: str
    description: str
    question: Callable
    score: Callable | None = None
    needs: str | None = None
    uses: frozenset = field(default_factory=frozenset)
    file_order: bool = False

    @property
    def guided(self) -> bool:
        """Whether the strategy needs a model to order the sentences."""
        return self.score is not None


_VIEWS, _CONTENTION = frozenset({"views"}), frozenset({"contention"})

REGISTRY: dict[str, Strategy] = {
    s.name: s
    for s in (
        Strategy("sequential", "&Document order", "file order", uncertainty_question, file_order=True),
        Strategy("random", "&Random order", "a random order fixed by the seed", uncertainty_question),
        Strategy(
            "uncertainty",
            "Most &uncertain",
            "the highest mean token uncertainty first",
            uncertainty_question,
            mean_question,
        ),
        Strategy(
            "disagreement",
            "View &disagreement",
            "the largest share of tokens where the two views disagree first; two-view learners",
            disagreement_question,
            mean_question,
            "two views",
            _VIEWS,
        ),
        Strategy(
            "confidence",
            "WD-PSL &confidence",
            "the closest WD-PSL candidate confidences between each token's two best labels first; wdpsl",
            contention_question,
            mean_question,
            "confidences",
            _CONTENTION,
        ),
        Strategy(
            "combined",
            "&Combined, per unit of cost",
            "the app's question, disagreement else uncertainty, per unit of annotation cost",
            combined_question,
            questions_per_cost,
            None,
            _VIEWS | _CONTENTION,
        ),
        Strategy(
            "gain",
            "Expected &gain per unit of cost",
            "as combined, with a cost of opening each sentence "
            f"of {SENTENCE_COST:g} full labels, so that short sentences do not come first; the app's default",
            combined_question,
            gain_per_cost,
            None,
            _VIEWS | _CONTENTION,
        ),
    )
}


def names() -> tuple[str, ...]:
    """Every strategy's name, in the registry's order."""
    return tuple(REGISTRY)


def get(name: str) -> Strategy:
    """The strategy called ``name`` (KeyError names the known ones)."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown strategy {name!r} (known: {', '.join(REGISTRY)})") from None


def help_text() -> str:
    """``--strategy`` help: every strategy with its description."""
    return "sentence order: " + "; ".join(f"{s.name}: {s.description}" for s in REGISTRY.values())


def unavailable(strategy: Strategy, learner: str, two_view: bool) -> str | None:
    """Why ``learner`` cannot serve ``strategy`` (None: it can)."""
    from tagtool.learn import find_learner, learner_names

    if strategy.needs == "two views" and not two_view:
        return (
            f"strategy {strategy.name} needs a two-view learner ({', '.join(learner_names(two_view=True))}); "
            f"{learner} has one view"
        )
    if strategy.needs == "confidences" and not getattr(find_learner(learner), "gives_confidences", False):
        offered = " or ".join(f"--learner {name}" for name in learner_names(gives_confidences=True))
        return f"strategy {strategy.name} needs WD-PSL's candidate confidences ({offered}), not {learner}"
    return None


def tie_order(strategy: Strategy, n: int, seed: int = 0):
    """Rows ``0..n-1`` in ``strategy``'s tie order: file order, or a permutation fixed by ``seed``.

    The one derivation of the random order: ``tagtool simulate --seed`` and
    the app (the seed of its settings, 0 by default) give the same sentences
    of the same project the same order.  It is the first child of
    ``SeedSequence(seed)`` (the simulation spawns its other random streams
    after it).
    """
    import numpy as np

    if strategy.file_order:
        return np.arange(n)
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0,))).permutation(n)


def default_threshold(probabilistic: bool) -> float:
    """The question threshold of a model kind (:data:`DEFAULT_THRESHOLD`)."""
    return DEFAULT_THRESHOLD[bool(probabilistic)]

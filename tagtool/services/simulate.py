"""A simulated annotator: what guidance and partial labels save (``tagtool simulate``).

An oracle annotator who knows the gold labels works through the data in the
order a *strategy* of :mod:`tagtool.services.strategies` picks (the registry the
desktop app's queue reads too), with the queue the app uses
(:func:`tagtool.services.guidance.queue`); after every *step* the learner retrains,
warm-started from the previous step's model, and its span F1 on the test
sentences is recorded against the annotation *cost* spent so far.

Strategies (which sentence next; the per-token *question* ``q_t`` in [0, 1])
    ``sequential``  file order; ``q`` = the model's uncertainty.
    ``random``      a random order fixed by the seed; ``q`` = uncertainty.
    ``uncertainty`` most informative first (:func:`tagtool.services.guidance.informativeness`
                    with the token uncertainty: entropy / margin).
    ``disagreement`` two-view learners: share of open tokens where view 0's
                    and view 1's Viterbi labels differ; ``q`` = 1 there, else 0.
    ``confidence``  WD-PSL: every open token narrowed to the model's two best
                    labels (:func:`tagtool.services.guidance.contention_mask`) and
                    ``q`` = ``1 − (c₁ − c₂)`` of WD-PSL's candidate
                    confidences among them (Eq. 22).
    ``combined``    the desktop app's question (1 where the views disagree,
                    else the uncertainty; for WD-PSL the larger of the
                    uncertainty and the confidence question), ranked per unit
                    of cost: a sentence scores the questions it would ask,
                    ``Σ_{t asked} q_t``, over what showing it would cost in the
                    mode (asked tokens at ``full``, the other unlabeled ones at
                    ``skip``).  In ``full`` mode that is the mean question of
                    its tokens, as ``uncertainty``; in ``tokens`` mode it
                    prefers sentences whose few questions come cheap.
    ``gain``        as ``combined``, with a cost of opening each sentence in
                    the ranking (not charged; :func:`tagtool.services.strategies.gain_per_cost`).
    The other guided strategies score a sentence the mean over its tokens
    of ``(1 − info_t) · q_t`` (:func:`tagtool.services.guidance.informativeness`,
    DESIGN §6).  Ties, and the order of ``sequential``/``random``, come from
    the order the queue is given.  The queue is recomputed after every step
    from the new model (batch-mode active learning).

Modes (what the annotator gives in a sentence it is shown)
    ``full``     every token its gold label.
    ``tokens``   only the unlabeled tokens with ``q_t ≥ threshold`` get a
                 gold label; the others stay unlabeled (not shown, but read:
                 cost ``skip``) — semi-supervised active learning (Tomanek &
                 Hahn 2009).  The default threshold depends on the scale of
                 the model's uncertainty (:data:`DEFAULT_THRESHOLD`).
    ``partial``  as ``tokens``, and where the model is torn between the gold
                 label and its strongest wrong label
                 (:func:`tagtool.services.guidance.pair_uncertainty` ≥ ``close``) the
                 annotator — simulated as unsure there — gives the candidate
                 set {gold, strongest wrong} instead (cost ``partial``).
    ``review``   the app's correction workflow (a mode beyond the issue's
                 three): the sentence is shown with the model's suggestions
                 (its Viterbi path under the annotations already there, as
                 the editor shows them); the annotator corrects every wrong
                 suggestion (cost ``full`` each) and accepts the rest with
                 Enter (cost ``skip`` each: read, not typed).  Every token of
                 the sentence ends up with its gold label.  The questions
                 only order the sentences, as in ``full``.
    In ``tokens``/``partial``, a sentence with nothing to ask (no unlabeled
    token with ``q ≥ threshold``) is not shown and costs nothing; a sentence can be shown
    again at a later step if the new model has a question about its
    remaining unlabeled tokens.  Tokens already labeled cost nothing.  When
    no sentence has a question left before a step's cost is spent (the
    model is sure of every unlabeled token), the rest of the step labels
    whole sentences in queue order, as an annotator with nothing flagged
    would go on; a note says from which cost on.

Steps and cost
    The first step has no model to guide it: the annotator labels whole
    sentences in the strategy's tie order (:func:`tagtool.services.strategies.tie_order`:
    random order, file order for ``sequential``; the app's J goes in that
    order under ``random``).  A step shows sentences until its cost reaches
    ``step`` (the first) or ``growth`` times the previous step's target;
    the last sentence of a step may overshoot, the recorded cost is exact.
    The run ends when ``budget`` is spent, nothing is left to label, or —
    with ``until_95`` — at ``cost_to_95``.  Costs: ``full`` per full label,
    ``partial`` per candidate set, ``skip`` per unlabeled token read and
    left unlabeled, ``accept`` per suggestion read and accepted in
    ``review`` (defaults 1, 0.5, 0.1 and ``accept`` = ``skip``).
    ``tagtool simulate --costs-from PROJECT`` measures them in an app
    session's action log (:mod:`tagtool.services.annotation_costs`).

Training
    The data is featurised once (extractor fitted on the data text, as
    ``tagtool experiment --fit-features pool`` does with its pool, so one
    feature space serves every step and the warm start) and the test with
    the same extractor; each step trains on a subset of that snapshot with
    the oracle's allowed sets (:meth:`Snapshot.subset`), warm-started from
    the previous step's model.  Sentences without any label are left out,
    except for learners that use unlabeled sentences (``"none" in
    learner.uses``): they get at most ``max_unlabeled`` of them, the first
    still unlabeled ones of a fixed random order of the data (so steps stay
    fast and the sample changes only as the annotator labels its
    sentences; the app trains on all of them, as ``max_unlabeled`` at
    least the data's size does).  The training sentences are in document
    order, as the app's.  Test F1 is computed with :class:`F1Scorer` (seqeval's chunk
    rules on index arrays).

``cost_to_95``
    The cost of the first curve point whose F1 reaches 95 % of
    ``full_data_f1``: the same learner (same settings, cold start) trained on
    all of the data fully labeled and scored on the test sentences.

References
----------
.. [1] K. Tomanek, U. Hahn. Semi-supervised active learning for sequence
   labeling. ACL-IJCNLP 2009.
.. [2] B. Settles, M. Craven. An analysis of active learning strategies for
   sequence labeling tasks. EMNLP 2008.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from tagtool.services import guidance
from tagtool.services import strategies
from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import concat_ranges
from tagtool.core.chunks import F1Scorer  # noqa: F401  (moved there; simulate's scorer)
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import SCALE, percent
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.errors import Cancelled, TagtoolError
from tagtool.learn import Learner, get_learner
from tagtool.learn.chain import ChainModel
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.services.pipeline import attach_representations, feature_views, make_extractor, view_split_for
from tagtool.services.strategies import DEFAULT_CLOSE, DEFAULT_THRESHOLD, MODES, TOKEN_MODES, Evidence, Showing, Tokens

logger = logging.getLogger(__name__)

#: The strategies' names (:data:`tagtool.services.strategies.REGISTRY`, the only list of them).
STRATEGIES = strategies.names()
#: Share of the full-data F1 that ``cost_to_95`` waits for.
TARGET_SHARE = 0.95
#: Costs closer than this are one cost: the float sum of a step's costs (0.1 at a time) must not decide
#: whether the step's target is reached (the app's action log sums the same costs in another order).
COST_TOLERANCE = 1e-6


def reached(spent: float, target: float) -> bool:
    """Whether ``spent`` has reached ``target`` (within :data:`COST_TOLERANCE`)."""
    return spent >= target - COST_TOLERANCE


class SimulationError(TagtoolError, ValueError):
    """Settings the learner or the data cannot satisfy."""


@dataclass(frozen=True)
class Costs:
    """What the simulated annotator pays per token (stated in every output).

    ``accept`` (a suggestion accepted in ``review``) is None unless measured
    or given: it then costs ``skip``, as before it had its own price.
    ``sentence`` (opening a sentence) is None unless measured or given: the
    ``gain`` strategy then ranks with :data:`tagtool.services.strategies.SENTENCE_COST`.
    It only ranks: the simulated annotator is not charged for opening a
    sentence, measured or not, so that costs stay comparable with the
    default runs (and with the app's action log priced by
    :func:`tagtool.services.annotation_costs.logged_cost`).
    """

    full: float = 1.0
    partial: float = 0.5
    skip: float = 0.1
    accept: float | None = None
    sentence: float | None = None

    @property
    def accepted(self) -> float:
        """Cost of an accepted suggestion."""
        return self.skip if self.accept is None else self.accept

    @property
    def opening(self) -> float:
        """Cost of opening a sentence, as the ``gain`` strategy ranks with it."""
        return strategies.SENTENCE_COST if self.sentence is None else self.sentence

    def to_dict(self) -> dict:
        """The costs as written to JSON (``accept`` only when it has its own value)."""
        return {name: value for name, value in asdict(self).items() if value is not None}

    def check(self) -> None:
        for name, value in self.to_dict().items():
            if not (value >= 0 and np.isfinite(value)):
                raise SimulationError(f"cost of {name} must be a finite number >= 0, got {value}")
        if self.full <= 0:
            raise SimulationError("the cost of a full label must be > 0")


@dataclass(frozen=True)
class SimulationConfig:
    """One simulated annotation session (see the module doc).

    Attributes
    ----------
    learner : str
    strategy, mode : str
        One of :data:`STRATEGIES` and :data:`MODES`.
    budget : float, optional
        Total cost; default the cost of labeling every token of the data.
    step : float
        Cost of the first step (the learner retrains after each).
    growth : float
        Each step costs ``growth`` times the previous one (1: fixed steps;
        above 1 the curve is sampled evenly on a log scale of cost, densely
        where the model changes fastest).
    seed : int
        Random order, learner seed and view split.
    params, features, views, decode : dict
        Learner parameters, feature, view and decoding settings (as ``--set``).
    costs : Costs
    threshold : float, optional
        ``tokens``/``partial``: a token is asked when its question ``q ≥ threshold``;
        default :data:`DEFAULT_THRESHOLD` of the model's kind.
    close : float
        ``partial``: a candidate set is given where the gold and strongest
        wrong label's pair uncertainty is ``≥ close``.
    max_unlabeled : int
        Unlabeled sentences given to learners that use them, per step.
    full_data_f1 : float, optional
        Known F1 of the learner on the whole data: skips that training.
    until_95 : bool
        Stop once the curve reaches 95 % of ``full_data_f1`` (``cost_to_95``
        is then the last point).
    """

    learner: str
    strategy: str = "uncertainty"
    mode: str = "full"
    budget: float | None = None
    step: float = 500.0
    growth: float = 1.0
    seed: int = 0
    params: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    views: dict = field(default_factory=dict)
    decode: dict = field(default_factory=dict)
    costs: Costs = field(default_factory=Costs)
    threshold: float | None = None
    close: float = DEFAULT_CLOSE
    max_unlabeled: int = 500
    full_data_f1: float | None = None
    until_95: bool = False

    def check(self, learner_cls: type[Learner]) -> None:
        """Raise :class:`SimulationError` for settings that cannot run with ``learner_cls``."""
        if self.strategy not in STRATEGIES:
            raise SimulationError(f"unknown strategy {self.strategy!r} (known: {', '.join(STRATEGIES)})")
        if self.mode not in MODES:
            raise SimulationError(f"unknown mode {self.mode!r} (known: {', '.join(MODES)})")
        why = strategies.unavailable(strategies.get(self.strategy), learner_cls.name, learner_cls.two_view)
        if why is not None:
            raise SimulationError(why)
        if not self.step > 0:
            raise SimulationError(f"--step must be > 0, got {self.step}")
        if not 1.0 <= self.growth <= 10.0:
            raise SimulationError(f"--growth must lie in [1, 10], got {self.growth}")
        if self.budget is not None and not self.budget > 0:
            raise SimulationError(f"--budget must be > 0, got {self.budget}")
        for name in ("threshold", "close"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise SimulationError(f"--{name} must lie in [0, 1], got {value}")
        if self.max_unlabeled < 0:
            raise SimulationError(f"--max-unlabeled must be >= 0, got {self.max_unlabeled}")
        if self.full_data_f1 is not None and not 0.0 <= self.full_data_f1 <= 1.0:
            raise SimulationError(f"--full-data-f1 must lie in [0, 1], got {self.full_data_f1}")
        self.costs.check()


@dataclass(frozen=True)
class CurvePoint:
    """The state after one step.

    Attributes
    ----------
    cost : float
        Annotation cost spent so far.
    tokens_labeled : int
        Tokens with an annotation (a full label or a candidate set).
    f1 : float
        Test span F1 of the model trained after this step.
    train_seconds : float
        That training's seconds (warm start included).
    candidate_sets : int
        Tokens annotated with a candidate set (``partial`` mode).
    sentences : int
        Sentences with at least one annotation.
    warm_start : bool
        Whether the training started from the previous step's model.
    accepted : int
        Tokens whose suggestion the annotator accepted (``review`` mode).
    """

    cost: float
    tokens_labeled: int
    f1: float
    train_seconds: float
    candidate_sets: int = 0
    sentences: int = 0
    warm_start: bool = False
    accepted: int = 0


@dataclass
class SimulationResult:
    """A simulation's curve, its reference F1 and notes; :meth:`to_dict` is the ``--json`` output."""

    learner: str
    strategy: str
    mode: str
    full_data_f1: float
    curve: list[CurvePoint]
    costs: Costs
    data_tokens: int
    notes: list[str] = field(default_factory=list)

    @property
    def cost_to_95(self) -> float | None:
        return cost_to_reach(self.curve, TARGET_SHARE * self.full_data_f1)

    @property
    def final_f1(self) -> float:
        return self.curve[-1].f1 if self.curve else 0.0

    def to_dict(self) -> dict:
        """The ``--json`` output (issue 6 schema, plus ``costs``, ``data_tokens`` and ``notes``).

        F1 in percent (``"scale": "percent"``), as every command prints and
        writes scores; the object itself keeps fractions.
        """
        return {
            "learner": self.learner,
            "strategy": self.strategy,
            "mode": self.mode,
            "scale": SCALE,
            "full_data_f1": percent(self.full_data_f1),
            "cost_to_95": self.cost_to_95,
            "costs": self.costs.to_dict(),
            "data_tokens": self.data_tokens,
            "curve": [dict(asdict(p), f1=percent(p.f1)) for p in self.curve],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, record: dict) -> SimulationResult:
        """Inverse of :meth:`to_dict`; records written before issue 11 hold fractions."""
        scale = 100.0 if record.get("scale") == SCALE else 1.0
        curve = [CurvePoint(**dict(point, f1=point["f1"] / scale)) for point in record["curve"]]
        return cls(record["learner"], record["strategy"], record["mode"], record["full_data_f1"] / scale, curve,
                   Costs(**record["costs"]), record["data_tokens"], list(record.get("notes", [])))


def cost_to_reach(curve: Sequence[CurvePoint], target: float) -> float | None:
    """Cost of the first point with ``f1 ≥ target`` (None if the curve never gets there)."""
    for point in curve:
        if point.f1 >= target:
            return point.cost
    return None


# ---------------------------------------------------------------------------
# data


def _gold(sentences: Sequence[Sentence], labels: LabelSet) -> np.ndarray:
    return np.array([labels.index(next(iter(a))) for s in sentences for a in s.annotations], dtype=np.int64)


def _fully_labeled(corpus: Corpus, name: str, notes: list[str]) -> list[Sentence]:
    full = [s for s in corpus if s.status == "full"]
    if not full:
        raise SimulationError(f"{name}: no fully labeled sentence (the oracle and the scores need gold labels)")
    if len(full) < len(corpus):
        notes.append(f"{name}: {len(corpus) - len(full)} sentences not fully labeled were left out")
    return full


@dataclass(frozen=True)
class Pool:
    """The featurised data (every token unlabeled), its gold labels, and the test set."""

    data: Snapshot
    gold: np.ndarray
    test: Snapshot
    test_scorer: F1Scorer
    labels: LabelSet


def build_pool(config: SimulationConfig, learner_cls: type[Learner], data: Corpus, test: Corpus,
               notes: list[str], names: tuple[str, str] = ("data", "test"), representations=None) -> Pool:
    """Featurise ``data`` (extractor fitted on its text) and ``test`` once.

    ``names`` name the two corpora in errors and notes (the CLI gives the file names).
    ``representations``: for ``dist`` feature sets; by default learned from ``data``'s text.
    """
    data_sentences = _fully_labeled(data, names[0], notes)
    test_sentences = _fully_labeled(test, names[1], notes)
    labels = data.labels.union(test.labels)
    if len(labels) < 2:
        raise SimulationError("the data has fewer than two labels: nothing to learn")
    extractor = make_extractor(learner_cls, config.features)
    attach_representations(extractor, data_sentences, representations)  # dist sets: the data's text, not the test's
    extractor.fit(data_sentences)
    spec = {"seed": config.seed, **config.views}
    # the extractor: with a stack of two feature sets the default split gives each a view, as in training
    split = view_split_for(learner_cls, spec if (learner_cls.two_view or config.views) else None, config.seed,
                           extractor)
    views = feature_views(extractor, split)
    unlabeled = [s.unlabeled() for s in data_sentences]
    test_snapshot = build_snapshot([s.unlabeled() for s in test_sentences], labels, extractor, views)
    return Pool(
        data=build_snapshot(unlabeled, labels, extractor, views),
        gold=_gold(data_sentences, labels),
        test=test_snapshot,
        test_scorer=F1Scorer(labels, _gold(test_sentences, labels), test_snapshot.offsets),
        labels=labels,
    )


# ---------------------------------------------------------------------------
# the oracle


class Oracle:
    """The annotator's state: every token's allowed set, the cost spent, counts.

    Parameters
    ----------
    gold : int array [N]
    offsets : int array [n_sentences + 1]
    n_labels : int
    costs : Costs
    """

    def __init__(self, gold: np.ndarray, offsets: np.ndarray, n_labels: int, costs: Costs):
        self.gold = np.asarray(gold, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.allowed = np.ones((len(self.gold), n_labels), dtype=bool)
        self.costs = costs
        self.spent = 0.0
        self.candidate_sets = 0
        self.accepted = 0

    def rows(self, i: int) -> slice:
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def unlabeled(self, i: int) -> np.ndarray:
        """Bool mask of sentence ``i``'s tokens that carry no annotation yet."""
        return self.allowed[self.rows(i)].all(axis=1)

    def annotate(self, i: int, ask: np.ndarray, candidates: np.ndarray | None = None,
                 accepted: np.ndarray | None = None) -> float:
        """Show sentence ``i``: the tokens ``ask`` get gold (or a candidate set); returns the cost.

        Parameters
        ----------
        i : int
        ask : bool array [T]
            Tokens the annotator labels (only unlabeled ones count).
        candidates : int array [T], optional
            Where ``≥ 0``, an asked token gets the candidate set
            ``{gold, candidates[t]}`` instead of its gold label.
        accepted : bool array [T], optional
            Asked tokens whose suggestion was gold: labeled at the cost of
            accepting (``accept``) instead of ``full`` (``review`` mode).
        """
        rows = self.rows(i)
        open_ = self.unlabeled(i)
        ask = np.asarray(ask, dtype=bool) & open_
        partial = ask & (candidates >= 0) if candidates is not None else np.zeros_like(ask)
        accepted = ask & ~partial & np.asarray(accepted, dtype=bool) if accepted is not None else np.zeros_like(ask)
        full = ask & ~partial & ~accepted
        block = self.allowed[rows]
        gold = self.gold[rows]
        block[ask] = False
        block[ask, gold[ask]] = True
        if partial.any():
            other = candidates[partial]
            if np.any(other == gold[partial]):
                raise ValueError("a candidate set needs a label other than gold")
            block[partial, other] = True
        self.allowed[rows] = block
        cost = (self.costs.full * int(full.sum()) + self.costs.partial * int(partial.sum())
                + self.costs.skip * int((open_ & ~ask).sum()) + self.costs.accepted * int(accepted.sum()))
        self.spent += cost
        self.candidate_sets += int(partial.sum())
        self.accepted += int(accepted.sum())
        return cost

    @property
    def tokens_labeled(self) -> int:
        return int((~self.allowed.all(axis=1)).sum())

    def sentence_status(self) -> np.ndarray:
        """Per sentence: 2 full, 1 partial, 0 unlabeled (as :meth:`Snapshot.sentence_status`)."""
        sizes = self.allowed.sum(axis=1)
        starts = self.offsets[:-1]
        full = np.add.reduceat((sizes == 1).astype(np.int64), starts)
        none = np.add.reduceat((sizes == self.allowed.shape[1]).astype(np.int64), starts)
        lengths = np.diff(self.offsets)
        status = np.ones(len(lengths), dtype=np.int8)
        status[full == lengths] = 2
        status[(none == lengths) & (full != lengths)] = 0
        return status


# ---------------------------------------------------------------------------
# questions


@dataclass
class Questions:
    """A model's questions about the open sentences of the data (see the module doc).

    ``q[N]`` per token of the data (0 outside the open sentences), the
    sentences' scores, the token scores and margin scale for
    :func:`tagtool.services.guidance.pair_uncertainty`; ``suggested[N]`` (``review``
    mode) the model's labels of the open sentences' tokens.
    """

    q: np.ndarray
    sentence_scores: dict[int, float]
    scores: np.ndarray | None
    scale: float | None
    probabilistic: bool
    suggested: np.ndarray | None = None


def ask_questions(model: ChainModel, pool: Pool, allowed: np.ndarray, open_ids: np.ndarray, strategy: str,
                  need_scores: bool, need_suggestions: bool = False, showing: Showing | None = None) -> Questions:
    """Score the open sentences ``open_ids`` of the data under ``model`` for ``strategy``.

    The questions and the sentence scores are the strategy's
    (:mod:`tagtool.services.strategies`); ``showing`` is the cost model its score
    reads (default: ``full`` mode at the default costs).
    """
    entry = strategies.get(strategy)
    n = pool.data.n_tokens
    q = np.zeros(n)
    scores_all = np.zeros((n, pool.data.n_labels)) if need_scores else None
    suggested = np.full(n, -1, dtype=np.int64) if need_suggestions else None
    if len(open_ids) == 0:
        return Questions(q, {}, scores_all, None, model.probabilistic, suggested)
    snap = replace(pool.data, allowed=allowed).subset(open_ids)
    scores = model.score_tokens(snap)
    scale = None if model.probabilistic else guidance.margin_scale(guidance.margins(scores))
    local = entry.question(_evidence(entry, model, snap, scores, scale))
    offsets = pool.data.offsets
    positions = concat_ranges(offsets[open_ids], offsets[open_ids + 1] - offsets[open_ids])
    q[positions] = local
    if scores_all is not None:
        scores_all[positions] = scores
    if suggested is not None:
        suggested[positions] = model.predict(snap, constrained=True)  # as the editor shows them
    sentence = {}
    if entry.guided:
        showing = showing or Showing(threshold=DEFAULT_THRESHOLD[model.probabilistic])
        ranked = entry.score(local, Tokens.from_allowed(snap.allowed, snap.offsets), showing)
        sentence = dict(zip(open_ids.tolist(), ranked.tolist()))
    return Questions(q, sentence, scores_all, scale, model.probabilistic, suggested)


def _evidence(entry: strategies.Strategy, model: ChainModel, snap: Snapshot, scores: np.ndarray,
              scale: float | None) -> Evidence:
    """What ``entry``'s question reads: the uncertainty, and the views or WD-PSL's contention it uses."""
    u = guidance.token_uncertainty(scores, model.probabilistic, scale)
    disagree = contention = None
    if "views" in entry.uses and model.n_views == 2:
        y0, y1 = model.disagreement(snap)
        disagree = y0 != y1
    elif "contention" in entry.uses and guidance.gives_confidences(model.learner):
        contention = guidance.contention_question(model, snap, scores)
    return Evidence(u, disagree, contention)


@dataclass
class Answer:
    """What the simulated annotator does in one shown sentence.

    ``ask``: the tokens annotated; ``candidates``: where ``≥ 0``, the
    candidate-set partner of gold (``partial``); ``accepted``: the asked
    tokens whose suggestion was gold (``review``).
    """

    ask: np.ndarray
    candidates: np.ndarray | None = None
    accepted: np.ndarray | None = None


# ---------------------------------------------------------------------------
# the simulation


class Simulation:
    """Runs a :class:`SimulationConfig` on data and test corpora (``names``: theirs, for messages)."""

    def __init__(self, config: SimulationConfig, data: Corpus, test: Corpus,
                 names: tuple[str, str] = ("data", "test"), representations=None):
        self.learner_cls = get_learner(config.learner)
        config.check(self.learner_cls)
        self.config = config
        self.notes: list[str] = []
        self.pool = build_pool(config, self.learner_cls, data, test, self.notes, names, representations)
        snap = self.pool.data
        self.oracle = Oracle(self.pool.gold, snap.offsets, snap.n_labels, config.costs)
        unlabeled_rng = np.random.default_rng(np.random.SeedSequence(config.seed).spawn(2)[1])
        self.strategy = strategies.get(config.strategy)
        self.order = strategies.tie_order(self.strategy, snap.n_sentences, config.seed)  # as the app's
        self.unlabeled_order = unlabeled_rng.permutation(snap.n_sentences)
        self.budget = float(config.budget) if config.budget is not None else config.costs.full * snap.n_tokens
        #: Cost at which a step first ran out of questions (None: never).
        self.fallback_from: float | None = None

    # -- training and scoring -----------------------------------------------

    def make_learner(self) -> Learner:
        learner = self.learner_cls()
        params = dict(self.config.params)
        for name in ("seed", "random_state"):
            if name in learner.param_names() and name not in params:
                params[name] = self.config.seed
        try:
            return learner.set_params(**params)
        except ValueError as exc:
            raise SimulationError(str(exc)) from None

    def score(self, model: ChainModel) -> float:
        """Span F1 (token accuracy for non-span labels) of ``model`` on the test sentences."""
        return self.pool.test_scorer.f1(model.predict(self.pool.test))

    def full_data_f1(self, should_stop: StopCallback | None = None) -> float:
        """F1 of the learner trained (cold) on every sentence of the data, fully labeled."""
        if self.config.full_data_f1 is not None:
            return float(self.config.full_data_f1)
        snap = replace(self.pool.data, allowed=np.eye(self.pool.data.n_labels, dtype=bool)[self.pool.gold])
        model = self.make_learner().fit(snap, should_stop=should_stop)
        model.set_decode(self.config.decode)
        return self.score(model)

    def training_ids(self, status: np.ndarray) -> np.ndarray:
        """Labeled and partially labeled sentences, plus the capped unlabeled sample, in document order (module doc).

        Document order, as the app trains: a learner that visits the
        sentences in a seeded order (the perceptrons) then sees the same
        sentences in the same order as the app's model would.
        """
        ids = np.flatnonzero(status > 0)
        if "none" in self.learner_cls.uses and self.config.max_unlabeled > 0:
            free = self.unlabeled_order[status[self.unlabeled_order] == 0][: self.config.max_unlabeled]
            ids = np.sort(np.concatenate([ids, free]))
        return ids

    def train(self, previous: ChainModel | None, should_stop: StopCallback | None) -> tuple[ChainModel, float]:
        status = self.oracle.sentence_status()
        snap = replace(self.pool.data, allowed=self.oracle.allowed).subset(self.training_ids(status))
        started = time.perf_counter()
        model = self.make_learner().fit(snap, warm_start=previous, should_stop=should_stop)
        seconds = time.perf_counter() - started
        model.set_decode(self.config.decode)
        for note in model.info.get("notes", []):
            self._note(note)
        return model, seconds

    # -- one step -----------------------------------------------------------

    def questions(self, model: ChainModel | None, status: np.ndarray) -> Questions | None:
        """The model's questions, or None where none are needed (first step, unguided full mode)."""
        if model is None or (not self.strategy.guided and self.config.mode == "full"):
            return None
        open_ids = np.flatnonzero(status < 2)
        return ask_questions(model, self.pool, self.oracle.allowed, open_ids, self.config.strategy,
                             need_scores=self.config.mode == "partial",
                             need_suggestions=self.config.mode == "review", showing=self.showing(model.probabilistic))

    def showing(self, probabilistic: bool) -> Showing:
        """The cost model the strategy's sentence scores read (the mode, threshold and costs of the config)."""
        c = self.config.costs
        return Showing(self.config.mode, self.threshold(probabilistic), c.full, c.partial, c.skip, c.opening,
                       accept=c.accept)

    def queue(self, status: np.ndarray, questions: Questions | None) -> list[int]:
        """:func:`tagtool.services.guidance.queue` over the data by the strategy's scores, ties in its order."""
        names = ("none", "partial", "full")
        ordered = {int(i): names[status[i]] for i in self.order}
        scores = questions.sentence_scores if questions is not None and self.strategy.guided else {}
        return guidance.queue(scores, ordered)

    def threshold(self, probabilistic: bool) -> float:
        """The ``tokens``/``partial`` threshold (given, or the default of the model's kind)."""
        if self.config.threshold is not None:
            return float(self.config.threshold)
        return DEFAULT_THRESHOLD[probabilistic]

    def what_to_ask(self, i: int, questions: Questions | None) -> Answer:
        """What the annotator does in sentence ``i`` (module doc, "Modes")."""
        open_ = self.oracle.unlabeled(i)
        rows = self.oracle.rows(i)
        if questions is None or self.config.mode == "full":
            return Answer(open_)
        if self.config.mode == "review":
            return Answer(open_, accepted=open_ & (questions.suggested[rows] == self.oracle.gold[rows]))
        ask = open_ & (questions.q[rows] >= self.threshold(questions.probabilistic))
        if self.config.mode != "partial" or not ask.any():
            return Answer(ask)
        scores = questions.scores[rows]
        gold = self.oracle.gold[rows]
        other = guidance.strongest_other(scores, gold)
        torn = guidance.pair_uncertainty(scores, gold, other, questions.probabilistic, questions.scale)
        return Answer(ask, candidates=np.where(ask & (torn >= self.config.close), other, -1))

    def annotate_step(self, questions: Questions | None, status: np.ndarray, step: float) -> int:
        """Show sentences from the queue until ``step`` is spent; returns how many were shown.

        When no sentence has a question left before the step is spent (the
        model is sure of every unlabeled token), the rest of the step labels
        whole sentences in queue order, as an annotator with nothing flagged
        would go on.
        """
        target = min(self.oracle.spent + step, self.budget)
        order = self.queue(status, questions)
        shown = 0
        for i in order:
            if reached(self.oracle.spent, target):
                return shown
            answer = self.what_to_ask(i, questions)
            if answer.ask.any():  # a sentence without a question is not shown
                self.oracle.annotate(i, answer.ask, answer.candidates, answer.accepted)
                shown += 1
        if not reached(self.oracle.spent, target) and questions is not None and self.config.mode in TOKEN_MODES:
            if self.fallback_from is None:
                self.fallback_from = self.oracle.spent
                self._note(f"from cost {self.oracle.spent:g} on, steps ran out of questions above the threshold "
                           "and went on with whole sentences")
            for i in order:
                if reached(self.oracle.spent, target):
                    break
                open_ = self.oracle.unlabeled(i)
                if open_.any():
                    self.oracle.annotate(i, open_)
                    shown += 1
        return shown

    # -- the loop -------------------------------------------------------------

    def run(self, progress: ProgressCallback | None = None, should_stop: StopCallback | None = None) -> SimulationResult:
        """Annotate, retrain and score until the budget is spent (module doc)."""
        report = progress or (lambda fraction, message="": None)
        report(0.0, "full-data F1" if self.config.full_data_f1 is None else "starting")
        full_f1 = self.full_data_f1(should_stop)
        curve: list[CurvePoint] = []
        model = None
        step = float(self.config.step)
        while not reached(self.oracle.spent, self.budget):
            if should_stop is not None and should_stop():
                raise Cancelled("simulation cancelled")
            status = self.oracle.sentence_status()
            if not self.annotate_step(self.questions(model, status), status, step):
                self._note(f"stopped at cost {self.oracle.spent:g}: every token carries an annotation")
                break
            step *= self.config.growth
            warm = model is not None
            model, seconds = self.train(model, should_stop)
            point = self._point(model, seconds, warm)
            curve.append(point)
            report(min(point.cost / self.budget, 1.0), f"cost {point.cost:,.0f}, F1 {100 * point.f1:.2f}%")
            if self.config.until_95 and point.f1 >= TARGET_SHARE * full_f1:
                break
        return SimulationResult(
            self.config.learner, self.config.strategy, self.config.mode, full_f1, curve, self.config.costs,
            self.pool.data.n_tokens, self.notes,
        )

    def _point(self, model: ChainModel, seconds: float, warm: bool) -> CurvePoint:
        return CurvePoint(
            cost=round(self.oracle.spent, 6), tokens_labeled=self.oracle.tokens_labeled, f1=self.score(model),
            train_seconds=seconds, candidate_sets=self.oracle.candidate_sets,
            sentences=int((self.oracle.sentence_status() > 0).sum()), warm_start=warm, accepted=self.oracle.accepted,
        )

    def _note(self, message: str) -> None:
        if message not in self.notes:
            logger.info(message)
            self.notes.append(message)


def simulate(
    config: SimulationConfig,
    data: Corpus,
    test: Corpus,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
    names: tuple[str, str] = ("data", "test"),
    representations=None,
) -> SimulationResult:
    """Run one simulated annotation session (module doc).

    Parameters
    ----------
    config : SimulationConfig
    data : Corpus
        Fully labeled sentences the oracle annotates (others are left out).
    test : Corpus
        Fully labeled sentences the F1 is measured on.
    progress, should_stop : callables, optional
        ``progress(fraction, message)`` after every step; ``should_stop()``
        True raises :class:`~tagtool.errors.Cancelled`.
    names : (str, str)
        What to call ``data`` and ``test`` in errors and notes (file names).

    Returns
    -------
    SimulationResult
    """
    return Simulation(config, data, test, names, representations).run(progress, should_stop)


# ---------------------------------------------------------------------------
# plot


def check_plotting() -> None:
    """Raise :class:`SimulationError` unless matplotlib (the ``plot`` extra) can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise SimulationError("--plot needs matplotlib: pip install 'tagtool[plot]'") from None


def draw_curves(ax, results: Sequence[SimulationResult], title: str = "") -> None:
    """Draw F1 against cost (log scale) of ``results`` on a matplotlib ``ax``.

    The colour says the strategy and the line the mode (solid ``full``,
    dashed ``tokens``, dash-dotted ``partial``, dotted ``review``), the same in every plot; the
    grey dotted line is 95 % of the first result's full-data F1, and a dot
    marks each curve's ``cost_to_95`` point.
    """
    styles = {"full": "-", "tokens": "--", "partial": "-.", "review": (0, (1, 1))}
    for r in results:
        color = f"C{STRATEGIES.index(r.strategy)}" if r.strategy in STRATEGIES else None
        (line,) = ax.plot([p.cost for p in r.curve], [p.f1 for p in r.curve], linestyle=styles.get(r.mode, "-"),
                          color=color, marker=".", markersize=3, linewidth=1.6 if r.mode == "review" else 1.2,
                          label=f"{r.strategy}+{r.mode}")
        reached = [p for p in r.curve if p.cost == r.cost_to_95]
        if reached:
            ax.plot([reached[0].cost], [reached[0].f1], "o", color=line.get_color(), markersize=5)
    if results:
        ax.axhline(TARGET_SHARE * results[0].full_data_f1, color="grey", linestyle=":", linewidth=1,
                   label="95 % of full-data F1")
    ax.set_xscale("log")
    ax.set_xlabel("annotation cost")
    ax.set_ylabel("test F1")
    ax.set_title(title or (results[0].learner if results else ""), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def plot_curves(results: Sequence[SimulationResult], path: str | Path, title: str = "") -> None:
    """Write :func:`draw_curves` of ``results`` to a PNG (matplotlib, the ``plot`` extra).

    Raises
    ------
    SimulationError
        matplotlib is not installed.
    """
    check_plotting()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.8), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    draw_curves(ax, results, title)
    if results:
        c = results[0].costs
        accepted = f", accepted suggestion {c.accept:g}" if c.accept is not None else ""
        ax.set_xlabel(f"annotation cost (full label {c.full:g}, candidate set {c.partial:g}, "
                      f"skipped token {c.skip:g}{accepted})")
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)

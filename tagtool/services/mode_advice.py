"""Which way of working a project's own data propose: token questions or reviewing whole sentences.

The two ways of working of the app carry the simulator's names
(:mod:`tagtool.services.strategies`): ``review`` (whole sentences: the
suggestions are shown, the wrong ones corrected, Enter accepts the rest) and
``tokens`` (token questions: only the tokens the model asks about are
labeled).  Which one costs less depends on the corpus — on how long its
mentions are, how fast the model learns, and what accepting a suggestion
costs the person — so the proposal is measured on the project itself:

* the project's fully labeled sentences (at most :data:`MAX_SENTENCES`, a
  seeded sample) are split into a pool (two thirds) and a held-out third;
* ``tagtool simulate`` (:func:`tagtool.services.simulate.loop.simulate`) runs
  an oracle that knows the person's labels through the pool in both modes —
  the app's learner, strategy ``gain``, the annotation costs the queue ranks
  with (the project's measured ones once its action log has enough) — until
  the model scores 95 % of the F1 (accuracy for word classes) of the model
  trained on the whole pool, on the held-out third;
* the mode that got there cheaper by more than one step of the simulated
  curve (:data:`STEP_GROWTH`) is proposed; within a step, and with fewer
  than :data:`MIN_SENTENCES` labeled sentences, the development suite's
  choice for the kind of labels (:func:`suite_mode`): token questions for
  spans (chunks, entities) — cheaper on both NER corpora, within a step on
  chunking — and review for word classes such as part of speech, where the
  two were within a step and reviewing leaves every token of a sentence
  labeled (benchmarks/results/annotation_efficiency.md).

No Qt here: the app runs :func:`advise` in a worker thread after a training
run (:mod:`tagtool.gui.mode_advice_watch`), ``tagtool mode PROJECT`` in the
command line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.learn.progress import ProgressCallback, StopCallback

#: Fully labeled sentences below which the project's own data do not choose.
MIN_SENTENCES = 60
#: At most this many labeled sentences are simulated (a seeded sample): the proposal must come in seconds.
MAX_SENTENCES = 600
#: The simulated steps grow by this factor; token questions are proposed only when cheaper beyond one step.
STEP_GROWTH = 1.25
#: The first simulated step, as a share of the pool's tokens (at least :data:`MIN_STEP`).
FIRST_STEP_SHARE = 0.01
MIN_STEP = 10.0
#: What each mode is called in the app.
MODE_NAMES = {"review": "whole sentences (review)", "tokens": "token questions"}
#: What each mode is called inside a sentence.
MODE_WORDS = {"review": "reviewing whole sentences", "tokens": "token questions"}
#: Where the suite's measurement stands.
SUITE = "benchmarks/results/annotation_efficiency.md"
#: The project's ``meta`` key of the mode in use (``"1"``: token questions; anything else: whole sentences).
MODE_META = "gui.token_questions"


def project_mode(project) -> str:
    """The mode a project was left in: ``tokens`` or ``review`` (a new project: ``review``)."""
    return "tokens" if project.meta.get(MODE_META) == "1" else "review"


def set_project_mode(project, mode: str) -> None:
    """Keep ``mode`` (``tokens`` or ``review``) in the project: the app opens it in that mode."""
    if mode not in MODE_NAMES:
        raise ValueError(f"unknown mode {mode!r} (known: {', '.join(MODE_NAMES)})")
    project.set_meta(MODE_META, "1" if mode == "tokens" else "0")


@dataclass(frozen=True)
class ModeAdvice:
    """The proposed mode and why.

    Attributes
    ----------
    mode : str
        ``review`` or ``tokens``.
    reason : str
        One or two sentences a person reads: what was measured, on what.
    sentences : int
        Fully labeled sentences the proposal was measured on (0: not measured, the suite's default).
    cost_share : dict
        Per mode: the simulated cost to 95 % as a share of labeling the whole pool (None: not reached).
    """

    mode: str
    reason: str
    sentences: int = 0
    cost_share: dict = field(default_factory=dict)

    @property
    def measured(self) -> bool:
        return self.sentences > 0


def suite_mode(span_labels: bool) -> str:
    """The development suite's mode for a kind of labels: ``tokens`` for spans, ``review`` for word classes."""
    return "tokens" if span_labels else "review"


def _suite_reason(span_labels: bool) -> str:
    """Why :func:`suite_mode` chose, in a person's words."""
    if span_labels:
        return (
            "on the span corpora of the development suite token questions cost less than reviewing whole "
            f"sentences on named entities and as much on chunks ({SUITE})"
        )
    return (
        "on the part-of-speech corpora of the development suite the two cost the same within a step, and "
        f"reviewing leaves every token labeled ({SUITE})"
    )


def span_labels_of(sentences: Sequence[Sentence]) -> bool:
    """Whether the labels used in ``sentences`` are B-/I- spans (no labels yet: spans, the commoner project)."""
    names = {name for s in sentences for labels in s.annotations for name in labels if name}
    return span_label_set(LabelSet.from_observed(sorted(names)))


def span_label_set(labels: LabelSet) -> bool:
    """Whether a project's label set is B-/I- spans (an empty or ``O``-only one counts as spans)."""
    return labels.is_span_scheme or not any(name != "O" for name in labels.names)


def suite_default(span_labels: bool = True) -> ModeAdvice:
    """The proposal before the project's sentences are counted: the development suite's for the kind of labels."""
    mode = suite_mode(span_labels)
    return ModeAdvice(
        mode,
        f"{MODE_NAMES[mode].capitalize()}: {_suite_reason(span_labels)}; measured on this project once "
        f"{MIN_SENTENCES} sentences are fully labeled.",
    )


def fully_labeled(sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences every token of which carries exactly one label."""
    return [s for s in sentences if s.annotations and all(len(a) == 1 for a in s.annotations)]


def advise(
    sentences: Sequence[Sentence],
    learner: str | None = None,
    costs=None,
    measured_costs: bool = False,
    seed: int = 0,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> ModeAdvice:
    """Propose ``review`` or ``tokens`` for a project from its own labeled ``sentences`` (module doc).

    Parameters
    ----------
    sentences : sequence of Sentence
        The project's sentences; only the fully labeled ones are read.
    learner : str, optional
        The learner the app trains (default: :data:`tagtool.learn.DEFAULT_LEARNER`).
    costs : Costs, optional
        :class:`tagtool.services.simulate.config.Costs` (default: the simulator's).
    measured_costs : bool
        Whether ``costs`` were measured in the project's action log (the reason says which).
    seed : int
        The sample, the split and the simulated annotator's order.
    progress, should_stop : callables, optional
        ``progress(fraction, message)``; ``should_stop()`` True raises :class:`~tagtool.errors.Cancelled`.
    """
    from tagtool.learn import DEFAULT_LEARNER

    learner = learner or DEFAULT_LEARNER
    labeled = fully_labeled(sentences)
    spans = span_labels_of(sentences)
    if len(labeled) < MIN_SENTENCES:
        mode = suite_mode(spans)
        return ModeAdvice(
            mode,
            f"{MODE_NAMES[mode].capitalize()}: {len(labeled)} fully labeled sentences are too few to measure "
            f"on this project (from {MIN_SENTENCES} on it is measured here); {_suite_reason(spans)}.",
        )
    pool, test = split(labeled, seed)
    shares = {}
    for number, mode in enumerate(("review", "tokens")):
        report = _part(progress, number)
        shares[mode] = _simulated_share(pool, test, mode, learner, costs, seed, report, should_stop)
    return _verdict(shares, len(labeled), len(pool) + len(test), measured_costs, spans)


def split(labeled: Sequence[Sentence], seed: int) -> tuple[Corpus, Corpus]:
    """A seeded sample of at most :data:`MAX_SENTENCES`: two thirds the pool, one third held out."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(labeled))[:MAX_SENTENCES]
    chosen = [labeled[i] for i in order]
    cut = (2 * len(chosen)) // 3
    names = sorted({next(iter(a)) for s in chosen for a in s.annotations})
    labels = LabelSet.from_observed(names)
    return Corpus.from_sentences(chosen[:cut], labels=labels), Corpus.from_sentences(chosen[cut:], labels=labels)


def _simulated_share(pool, test, mode, learner, costs, seed, progress, should_stop) -> float | None:
    """The cost to 95 % of full-pool F1 in ``mode``, over the cost of labeling the whole pool (None: not reached)."""
    from tagtool.services.simulate.config import Costs, SimulationConfig
    from tagtool.services.simulate.loop import simulate

    costs = costs or Costs()
    step = max(MIN_STEP, FIRST_STEP_SHARE * pool.n_tokens)
    config = SimulationConfig(
        learner=learner,
        strategy="gain",
        mode=mode,
        step=step,
        growth=STEP_GROWTH,
        seed=seed,
        costs=costs,
        until_95=True,
        cv_folds=0,  # the kind's question threshold: the pool is too small for the project's own, and it is faster
    )
    result = simulate(config, pool, test, progress=progress, should_stop=should_stop)
    whole = costs.full * pool.n_tokens
    return None if result.cost_to_95 is None else result.cost_to_95 / whole


def cheaper_mode(review: float | None, tokens: float | None, span_labels: bool) -> str:
    """The mode cheaper by more than one step (:data:`STEP_GROWTH`); within a step, :func:`suite_mode`.

    ``review`` and ``tokens`` are costs to 95 % (None: never reached).
    """
    inf = float("inf")
    r, t = (inf if review is None else review), (inf if tokens is None else tokens)
    if t * STEP_GROWTH < r:
        return "tokens"
    if r * STEP_GROWTH < t:
        return "review"
    return suite_mode(span_labels)


def _verdict(shares: dict, n_labeled: int, used: int, measured_costs: bool, span_labels: bool) -> ModeAdvice:
    review, tokens = shares["review"], shares["tokens"]
    mode = cheaper_mode(review, tokens, span_labels)
    cell = lambda v: "never reached" if v is None else f"{100 * v:.0f} %"  # noqa: E731
    priced = "your measured annotation costs" if measured_costs else "the default costs"
    sample = f"{used:,} of {n_labeled:,} of " if used < n_labeled else f"{n_labeled:,} of "
    why = (
        f"simulated on {sample}your fully labeled sentences with {priced}, reaching 95 % of the score of a "
        f"model trained on two thirds of them (scored on the other third) cost {cell(review)} of labeling "
        "those two thirds token by token when reviewing "
        f"whole sentences and {cell(tokens)} with token questions"
    )
    other = tokens if mode == "review" else review
    if other is not None and other <= shares[mode]:  # cheaper, but within a step (else it were proposed)
        why += (
            f" ({MODE_WORDS['tokens' if mode == 'review' else 'review']} not cheaper by more than one step, "
            f"×{STEP_GROWTH:g}: {_suite_reason(span_labels)})"
        )
    return ModeAdvice(mode, f"{MODE_NAMES[mode].capitalize()}: {why}.", n_labeled, dict(shares))


def _part(progress: ProgressCallback | None, number: int) -> ProgressCallback | None:
    """Progress of one of the two simulations as half of the whole."""
    if progress is None:
        return None
    whole = progress

    def half(fraction: float, message: str = "") -> None:
        whole(0.5 * (number + fraction), message)

    return half

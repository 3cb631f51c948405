"""Inter-annotator agreement from each annotator's own answers (docs/design.md#team-answers).

Where a project holds several annotators' answers for the same tokens
(``annotator_labels``: a Label Studio import with several annotators, or a
merge of their projects), :func:`compute` gives, per pair of annotators and
overall:

* **Cohen's kappa** on tokens (:func:`~tagtool.services.agreement.measures.cohen_kappa`).
  Overall: the mean of the pairs' kappas (Light's kappa, 1971), not
  Fleiss' kappa: Fleiss assumes every token rated by the same number of
  annotators, which split-and-merged work (each sentence to one annotator,
  a share to two or more) is not.
* **Krippendorff's alpha**, nominal level (the ``krippendorff`` package).
  Per pair on the pair's tokens; overall on every annotator at once, with
  missing answers as missing data (what alpha is made for).
* **Span precision/recall/F1** (seqeval's chunk rules) of the second
  annotator of the pair (by name) against the first as reference; F1 is
  symmetric.  Overall: the pooled F1 ``2 Σ matched / Σ (spans a + spans b)``
  over the pairs.  Only for span label sets (``O``, ``B-X``, ``I-X``, …:
  :attr:`LabelSet.is_span_scheme`); for other label sets (part of speech)
  a token is the unit, span scores are None and the observed token
  agreement is what to read.
* **Per-label confusion**: counts of (a's label, b's label) per pair;
  overall the unordered label pairs summed over the pairs.
* **Observed agreement**: per pair the share of compared tokens labeled
  alike; overall the same over every pair's compared tokens pooled.

Which tokens count
------------------
Only tokens both annotators of a pair answered count for the pair.  A token
where either gave a **candidate set** is left out of kappa, alpha, the
confusion and the spans (a set is not a nominal value), and counted apart:
``set_tokens``, of which ``sets_compatible`` where the two answers share a
label (the full label lies in the other's set, or the sets meet).  Spans are
compared over the stretches of consecutive tokens both gave a full label
(:func:`~tagtool.services.agreement.measures.segments`), so a left-out token splits
a stretch for both alike.

Many annotators
---------------
Kappa, the spans and the candidate-set counts are pairwise by nature
(:mod:`~tagtool.services.agreement.pairs`): a team of ``n`` annotators
who all answered the same tokens has ``n (n - 1) / 2`` pairs.  They are
computed, and the pairs listed, for up to ``pair_limit`` annotators
(:data:`PAIR_ANNOTATORS`, 50, by default: 1,225 pairs); the pairs looked
at are only those sharing an answered token.  Alpha, the observed
agreement of all pairs pooled (pairs of answers alike over pairs compared),
the tokens compared and the overall confusion need no pair: they come from
how many annotators gave each label to each token
(:mod:`~tagtool.services.agreement.tallies`), in time and memory
proportional to the answers, for any number of annotators.  Above the
limit kappa, span F1 and the set counts are None (``pairs_computed``
False) rather than a different statistic under the same name.

Numbers are fractions in [0, 1] here; the CLI's JSON and table print
percent for agreement and span scores, as every tagtool command does, and
kappa and alpha as coefficients in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tagtool.errors import Cancelled
from tagtool.services.agreement import measures
from tagtool.services.agreement.answers import Answers, collect, from_table
from tagtool.services.agreement.measures import SpanCounts
from tagtool.services.agreement.pairs import PairAgreement, sharing_pair_agreements
from tagtool.services.agreement.tallies import tally
from tagtool.services.agreement_limits import PAIR_ANNOTATORS

__all__ = ["PAIR_ANNOTATORS", "Agreement", "Answers", "PairAgreement", "collect", "compute", "from_table"]


@dataclass(frozen=True)
class Agreement:
    """Every pair's agreement and the overall figures (module doc).

    ``pairs_computed`` is False when more annotators answered than the
    per-pair measures were asked for (:func:`compute`'s ``pair_limit``):
    then ``pairs`` is empty and ``kappa`` and ``spans`` (and the candidate
    set counts, which are per pair) are None; ``alpha``, ``observed``,
    ``compared`` and ``confusion`` are there for any number.
    """

    annotators: tuple[str, ...]
    span_scheme: bool
    pairs: list[PairAgreement]
    kappa: float | None
    alpha: float | None
    spans: SpanCounts | None
    compared: int
    confusion: dict[tuple[str, str], int] = field(default_factory=dict)
    observed: float | None = None
    pairs_computed: bool = True
    pair_limit: int = PAIR_ANNOTATORS

    @property
    def f1(self) -> float | None:
        return None if self.spans is None else self.spans.f1


def compute(
    answers: Answers,
    span_scheme: bool,
    checkpoint: Callable[[], bool] | None = None,
    progress: Callable[[float, str], None] | None = None,
    pair_limit: int = PAIR_ANNOTATORS,
) -> Agreement:
    """Agreement of every pair of annotators and overall (module doc).

    Parameters
    ----------
    answers : Answers
    span_scheme : bool
        Whether the project's labels are a span scheme (spans scored).
    checkpoint : callable, optional
        Called between steps; returning True stops with
        :class:`Cancelled` (a worker thread asked to stop, or
        giving the GUI thread its turn).
    progress : callable, optional
        ``progress(fraction, message)`` as the pairs are computed.
    pair_limit : int
        Most annotators for which the per-pair measures are computed
        (:data:`PAIR_ANNOTATORS`); with more, only the overall figures
        that need no pair (:mod:`tagtool.services.agreement.tallies`).
    """
    if checkpoint is not None and checkpoint():
        raise Cancelled
    overall = tally(answers)
    computed = len(answers.annotators) <= pair_limit
    found = sharing_pair_agreements(answers, span_scheme, checkpoint, progress) if computed else []
    spans = None
    if span_scheme and computed:
        spans = SpanCounts()
        for pair in found:
            spans.add(pair.spans)
    return Agreement(
        annotators=answers.annotators,
        span_scheme=span_scheme,
        pairs=found,
        kappa=measures.mean_defined([p.kappa for p in found]),
        alpha=overall.alpha,
        spans=spans,
        compared=overall.compared,
        confusion=overall.confusion,
        observed=overall.observed,
        pairs_computed=computed,
        pair_limit=pair_limit,
    )

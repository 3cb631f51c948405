"""Span questions in the app: the plan's token questions grown, and the span a token question belongs to (no Qt).

With ``questions = spans`` (Go › Queue strategy › Ask whole spans) each token question of the queue
plan (:class:`tagtool.gui.questions.QueuePlan`) grows to the uncertain mention around it by the rule
``tagtool simulate --questions spans`` applies (:func:`tagtool.services.span_questions.grow`, the same
inputs: the model's best-scoring labels, the questions, the threshold).  Each run of asked tokens of a
sentence is then one question: Tab selects it whole, a label key labels it (``B-`` on the first token,
``I-`` on the rest by the project's scheme) in one undo step, ``O``'s key marks it outside.
"""

from __future__ import annotations

from collections.abc import Iterable

from tagtool.services import guidance, span_questions


def span_plan(plan, analysis: guidance.Analysis):
    """``plan`` (a :class:`tagtool.gui.questions.QueuePlan`) with its token questions grown to span questions.

    The sentences that ask stay those that did (a question grows within its sentence), so the queue's
    record of them holds.
    """
    unlabeled, names = analysis.tokens.unlabeled, analysis.labels
    grown = span_questions.grow(plan.asked, plan.q, plan.threshold, analysis.best, unlabeled, plan.offsets, names)
    plan.asked, plan.spans = grown, True
    return plan


def question_span(questions: Iterable[int], token: int) -> tuple[int, int] | None:
    """The run of contiguous question tokens holding ``token``: ``(first, last)``, both included (None: none)."""
    asked = set(questions)
    if token not in asked:
        return None
    first, last = token, token
    while first - 1 in asked:
        first -= 1
    while last + 1 in asked:
        last += 1
    return first, last

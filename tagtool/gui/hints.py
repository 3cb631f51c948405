"""Per-token model hints the editor can show (no Qt here).

The hook through which a trained model's output reaches the editor
(docs/design.md#guidance): a suggested label for tokens the annotator has not labeled,
an uncertainty in [0, 1], the two views' labels where they disagree, a
confidence per candidate of a partially labeled token (WD-PSL), and — in
the token-question mode — which tokens the model asks about and the two
labels it is torn between (:mod:`tagtool.gui.questions`).

Without a trained model the editor gets :data:`NO_HINTS` and draws nothing
extra; :func:`hints_for` builds the hints from a
:class:`tagtool.services.guidance.SentenceGuidance`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tagtool.gui.span_plan import question_span
from tagtool.services.guidance import SentenceGuidance


@dataclass(frozen=True)
class TokenHint:
    """What a model says about one token; every field optional."""

    suggestion: str | None = None
    uncertainty: float | None = None
    disagreement: tuple[str, str] | None = None
    candidate_confidence: Mapping[str, float] = field(default_factory=dict)
    #: The model asks about this unlabeled token (token-question mode).
    question: bool = False
    #: The token's question q_t (the queue strategy's), when it asks.
    question_value: float | None = None
    #: The two labels the model is torn between (Shift+Space gives both as candidates).
    pair: tuple[str, str] | None = None
    #: Where a string match's evidence conflicts: its candidate set, the model's pick first
    #: (accepted as that set when :attr:`suggestion` is None; :mod:`tagtool.gui.match_hints`).
    candidates: tuple[str, ...] = ()
    #: The source of a string-match suggestion (``StringMatch.note``), empty for the model's own.
    source: str = ""
    #: The model's suggestion where a string match's is shown instead.
    model_suggestion: str | None = None

    def accepted(self) -> frozenset[str] | None:
        """What accepting the hint gives: the suggestion, else the string match's candidate set."""
        if self.suggestion:
            return frozenset([self.suggestion])
        return frozenset(self.candidates) if self.candidates else None


@dataclass(frozen=True)
class SentenceHints:
    """Hints for the tokens of one sentence (missing tokens have none)."""

    sentence_id: int | None = None
    tokens: Mapping[int, TokenHint] = field(default_factory=dict)
    #: The token-question mode is on (the editor marks the questions and moves between them).
    asking: bool = False
    #: Each run of question tokens is one span question (:mod:`tagtool.gui.span_plan`).
    spans: bool = False

    def get(self, token: int) -> TokenHint | None:
        return self.tokens.get(token)

    def questions(self) -> list[int]:
        """The tokens the model asks about, in order."""
        return sorted(t for t, h in self.tokens.items() if h.question)

    def question_span(self, token: int) -> tuple[int, int] | None:
        """The span question holding ``token``: ``(first, last)`` (None: not a span question, or token questions)."""
        return question_span(self.questions(), token) if self.spans else None


#: No model: nothing to show.
NO_HINTS = SentenceHints()


@dataclass(frozen=True)
class Marks:
    """Which model marks the editor draws (View menu toggles)."""

    suggestions: bool = True
    uncertainty: bool = True
    disagreement: bool = True
    confidences: bool = True
    #: String-match suggestions (the person's labeled strings, dictionaries, patterns) beside the model's.
    string_matches: bool = True


def hints_for(
    sid: int, guidance: SentenceGuidance | None, annotations, marks: Marks, questions=None, asking: bool = False
) -> SentenceHints:
    """Editor hints of one sentence from its guidance and current annotations.

    ``questions`` (:class:`tagtool.gui.questions.SentenceQuestions`): the
    tokens the model asks about and where it is torn between two labels;
    ``asking``: the token-question mode is on (questions are marked).
    """
    if guidance is None or len(guidance.suggestions) != len(annotations):
        return NO_HINTS if guidance is None else SentenceHints(sid, asking=asking)
    tokens = {}
    for t, ann in enumerate(annotations):
        if len(ann) == 1:
            continue  # a full label needs no hint
        suggestion = guidance.suggestions[t]
        if ann and suggestion not in ann:
            suggestion = None
        views = guidance.views
        disagree = None
        if marks.disagreement and views is not None and views[0][t] != views[1][t]:
            disagree = (views[0][t], views[1][t])
        conf = guidance.confidences[t] if marks.confidences and guidance.confidences else {}
        asked = asking and questions is not None and not ann and t in questions.asked
        tokens[t] = TokenHint(
            suggestion=suggestion if marks.suggestions else None,
            uncertainty=guidance.uncertainty[t] if marks.uncertainty else None,
            disagreement=disagree,
            candidate_confidence=conf,
            question=asked,
            question_value=questions.question.get(t) if asked else None,
            pair=questions.pairs.get(t) if questions is not None else None,
        )
    return SentenceHints(sid, tokens, asking, bool(questions is not None and questions.spans))


def hint_tooltip(hint: TokenHint | None) -> str:
    """Plain text explaining a token's hint (the editor's tooltip)."""
    if hint is None:
        return ""
    lines = []
    if hint.source:
        shown = " | ".join(hint.candidates) if hint.candidates else hint.suggestion
        lines.append(f"Suggested {shown}: {hint.source}")
        if hint.candidates and hint.suggestion:
            lines.append(f"Enter and Space give the model's pick, {hint.suggestion}; a click on a half gives it")
        elif hint.candidates:
            lines.append("Enter and Space give the candidate set; a click on a half gives that label")
        if hint.model_suggestion:
            lines.append(f"Model suggests: {hint.model_suggestion}")
    elif hint.suggestion:
        lines.append(f"Model suggests: {hint.suggestion}")
    if hint.uncertainty is not None:
        lines.append(f"Uncertainty: {hint.uncertainty:.2f}")
    if hint.disagreement:
        lines.append(f"Views disagree: view 1 says {hint.disagreement[0]}, view 2 says {hint.disagreement[1]}")
    if hint.candidate_confidence:
        ranked = sorted(hint.candidate_confidence.items(), key=lambda kv: -kv[1])
        lines.append("Candidate confidence: " + ", ".join(f"{n} {100 * c:.0f}%" for n, c in ranked))
    if hint.question:
        value = f" (question {hint.question_value:.2f})" if hint.question_value is not None else ""
        lines.append(f"The model asks about this token{value}: label it, or Tab to the next question")
    if hint.pair:
        lines.append(f"Torn between {hint.pair[0]} and {hint.pair[1]}: Shift+Space gives both as candidates")
    return "\n".join(lines)

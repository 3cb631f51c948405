"""Per-token model hints the editor can show (no Qt here).

The hook through which a trained model's output reaches the editor
(DESIGN §6): a suggested label for tokens the annotator has not labeled,
an uncertainty in [0, 1], the two views' labels where they disagree, and a
confidence per candidate of a partially labeled token (WD-PSL).

Without a trained model the editor gets :data:`NO_HINTS` and draws nothing
extra; :mod:`tagtool.gui.model_loop` builds the hints from
:class:`tagtool.guidance.SentenceGuidance`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TokenHint:
    """What a model says about one token; every field optional."""

    suggestion: str | None = None
    uncertainty: float | None = None
    disagreement: tuple[str, str] | None = None
    candidate_confidence: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class SentenceHints:
    """Hints for the tokens of one sentence (missing tokens have none)."""

    sentence_id: int | None = None
    tokens: Mapping[int, TokenHint] = field(default_factory=dict)

    def get(self, token: int) -> TokenHint | None:
        return self.tokens.get(token)


#: No model: nothing to show.
NO_HINTS = SentenceHints()


def hint_tooltip(hint: TokenHint | None) -> str:
    """Plain text explaining a token's hint (the editor's tooltip)."""
    if hint is None:
        return ""
    lines = []
    if hint.suggestion:
        lines.append(f"Model suggests: {hint.suggestion}")
    if hint.uncertainty is not None:
        lines.append(f"Uncertainty: {hint.uncertainty:.2f}")
    if hint.disagreement:
        lines.append(f"Views disagree: view 1 says {hint.disagreement[0]}, view 2 says {hint.disagreement[1]}")
    if hint.candidate_confidence:
        ranked = sorted(hint.candidate_confidence.items(), key=lambda kv: -kv[1])
        lines.append("Candidate confidence: " + ", ".join(f"{n} {100 * c:.0f}%" for n, c in ranked))
    return "\n".join(lines)

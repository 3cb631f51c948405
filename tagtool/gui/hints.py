"""Per-token model hints the editor can show (no Qt here).

The hook through which a trained model's output reaches the editor
(DESIGN §6): a suggested label for tokens the annotator has not labeled,
an uncertainty in [0, 1], the two views' labels where they disagree, and a
confidence per candidate of a partially labeled token (WD-PSL).

Until a learner is wired in, the editor gets :data:`NO_HINTS` and draws
nothing extra.
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

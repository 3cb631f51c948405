"""String-match suggestions among the model's hints (no Qt here).

A string match (:class:`tagtool.services.string_matches.StringMatch`: a
span the person labeled, recurring on unlabeled tokens; or a dictionary or
pattern match, :mod:`tagtool.gui.string_suggestions`) becomes the hint of
each of its tokens, beside what the model says there:

* **Evidence that agrees** (one label a token): the string match's label is
  the suggestion Enter, Space and a click accept, also where the model
  suggests another.  It repeats a decision the person already made on the
  same text (or one their dictionary states), which is what a reviewer
  checks fastest; the model's guess from few labels is the less reliable
  one early on, and where the person's own labels of the string disagree the
  match is a candidate set instead (below).  The model's other suggestion
  stays in the tooltip ("Model suggests: …").
* **Evidence that conflicts** (the string was labeled as two types, or as a
  type and ``O``): the token shows the candidate set (``B-ORG | B-PER``),
  the model's pick first.  Where the model picks one of the set, Enter and
  Space accept that pick (the model judges the context the string alone
  cannot); otherwise they give the candidate set as a partial label, which
  every learner trains on.  A click on a part gives that label.

**A token question keeps the model's suggestion**: where the model asks
(token-question mode), Space accepts the model's label, not a string
match's.  Measured with ``tagtool simulate`` on the 2,000-sentence pools:
string matches over the questions cost token questions one or two steps to
95 % of the full-pool F1 on both NER corpora (5 of 6 seeds), and nothing
elsewhere (benchmarks/results/annotation_efficiency_string_matches.md) — the
model asks exactly where a string is ambiguous.

Either way the chip's suggestion band is outlined (:mod:`tagtool.gui.chips`)
and the tooltip names the source (``StringMatch.note``).  The person's own
string matches come first; dictionary and pattern matches fill the tokens
they leave; both only ever cover unlabeled tokens, and a match stays on
the rest of its span while the tokens of it labeled so far agree with it
(Space on the first token of a suggested name keeps the suggestion on the
others).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tagtool.gui.hints import SentenceHints, TokenHint
from tagtool.services.string_matches import StringMatch, agrees


def _ordered(allowed: frozenset[str], first: str | None, names: Sequence[str]) -> tuple[str, ...]:
    rank = {name: i for i, name in enumerate(names)}
    rest = sorted(allowed - {first}, key=lambda n: (rank.get(n, len(rank)), n))
    return (first, *rest) if first in allowed else tuple(rest)


def match_hint(base: TokenHint | None, allowed: frozenset[str], note: str, names: Sequence[str]) -> TokenHint:
    """A token's hint from a string match's allowed set, over the model's ``base`` hint (module doc)."""
    base = base or TokenHint()
    model = base.suggestion
    if len(allowed) == 1:
        (label,) = allowed
        return replace(
            base,
            suggestion=label,
            pair=None,  # the band shows the string match's label, which Enter accepts (Shift+Space still asks)
            candidates=(),
            source=note,
            model_suggestion=model if model and model != label else None,
        )
    pick = model if model in allowed else None
    return replace(
        base,
        suggestion=pick,
        candidates=_ordered(allowed, pick, names),
        source=note,
        model_suggestion=model if model and pick is None else None,
    )


def with_matches(
    sid: int,
    hints: SentenceHints,
    matches: Sequence[StringMatch],
    annotations: Sequence[frozenset],
    names: Sequence[str],
) -> SentenceHints:
    """``hints`` (the model's, maybe none) with the string matches of sentence ``sid`` on top.

    ``matches`` in precedence order (the person's first): a token already
    covered by an earlier match keeps it; a match is shown on its unlabeled
    tokens while its labeled ones agree with it
    (:func:`tagtool.services.string_matches.agrees`), and left out otherwise;
    a token question keeps the model's suggestion (module doc).
    """
    if not matches:
        return hints
    tokens = dict(hints.tokens) if hints.sentence_id == sid else {}
    covered: set[int] = set()
    for match in matches:
        span = range(match.start, match.end)
        if (
            match.end > len(annotations)
            or covered.intersection(span)
            or not agrees(annotations, match.start, match.allowed)
        ):
            continue
        covered.update(span)
        for t, allowed in zip(span, match.allowed):
            base = tokens.get(t)
            if not annotations[t] and not (base is not None and base.question):
                tokens[t] = match_hint(base, allowed, match.note, names)
    asking = hints.asking if hints.sentence_id == sid else False
    return SentenceHints(sid, tokens, asking)

"""The team rule across a split or a merge of tokens (:mod:`tagtool.store.retokenize`).

A split or a merge maps each annotator's answer of the tokens it changes by
the rules of :mod:`tagtool.core.retokenize`, and the training label too. The
two can disagree: ``B-PER`` (alice and bob) then ``I-PER|O`` (alice said
``I-PER``, bob ``O``) merge to ``B-PER``, while alice's answers merge to
``B-PER`` and bob's to ``B-PER|O``, of which the rule
(:func:`tagtool.core.annotators.combine`) makes ``B-PER|O``. A training label
kept under its joint giver ``alice+bob`` that the answers no longer make
would look, to the next merge, like an edit by a person called
``alice+bob``. So, for the tokens a change makes that have answers:

* before the change, a training label of the changed tokens that is not
  what the rule makes of their answers (an edit in the app after the
  answers came) becomes its giver's answer, as a merge of answers does
  (:mod:`tagtool.store.annotators`), so the change carries it as that
  person's answer; the project's own label (the person under no name of
  theirs, an import naming nobody) is no answer: like a resolved token,
  it keeps the label the change makes of it;
* after the change, the token's training label is what the rule makes of
  the changed answers, given by those who gave it. Where nobody answered
  both tokens of a merge, nobody answered the merged token
  (:mod:`tagtool.core.retokenize`: a token without a label makes the merged
  token unlabeled), and it has no training label either: the person who
  merged the tokens gave no answer, and is not made an annotator.

Tokens an adjudicator resolved keep the label the change makes of the
resolution (the changed tokens' resolutions are dropped: the tokens are
new), and where none of the changed tokens had answers (no team work on
them) the labels are as the change made them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from tagtool.core.annotators import PROJECT_GIVERS
from tagtool.core.labels import LabelSet
from tagtool.store import sentence_rows as _rows
from tagtool.store.annotators import derived, is_joint

if TYPE_CHECKING:  # the state is defined where it is rewritten
    from tagtool.store.retokenize import TokenState


def _votes(state: TokenState) -> dict[int, dict[str, frozenset[str]]]:
    """``{token: {annotator: answer}}`` of a state's answers."""
    out: dict[int, dict[str, frozenset[str]]] = {}
    for t, who, text in state.annotator_labels:
        out.setdefault(t, {})[who] = _rows.parse_stored(text)
    return out


def _sorted(rows: Iterable[tuple]) -> tuple[tuple, ...]:
    return tuple(sorted(rows, key=lambda r: (r[0], str(r[1]))))


def _unruled(state: TokenState, tokens: set[int], labels: LabelSet) -> list[tuple[int, str, str]]:
    """``(token, label, giver)`` of the training labels of ``tokens`` that have answers but are not what
    the rule makes of them; resolved tokens left out."""
    votes = _votes(state)
    resolved = {t for t, *_ in state.adjudicated}
    return [
        (t, text, who)
        for t, text, who, _ in state.annotations
        if t in tokens and t not in resolved and votes.get(t) and (derived(votes[t], labels) or (None,))[0] != text
    ]


def project_labeled(state: TokenState, tokens: set[int], labels: LabelSet) -> bool:
    """Whether one of ``tokens`` holds the project's own label beside its answers (a giver of
    :data:`~tagtool.core.annotators.PROJECT_GIVERS`): the change then keeps the labels it makes,
    as it does for a resolved token (:mod:`tagtool.store.annotators`)."""
    names = {who for _, who, _ in state.annotator_labels}
    return any(who in PROJECT_GIVERS and who not in names for _, _, who in _unruled(state, tokens, labels))


def seeded(state: TokenState, tokens: set[int], labels: LabelSet) -> TokenState:
    """``state`` with the training labels of ``tokens`` that have answers but are not what the rule
    makes of them made their givers' answers (module doc); resolved tokens, joint givers and the
    project's own labels left out."""
    names = {who for _, who, _ in state.annotator_labels}
    own = list(state.annotator_labels)
    for t, text, who in _unruled(state, tokens, labels):
        if is_joint(who, names) or (who in PROJECT_GIVERS and who not in names):
            continue
        own = [row for row in own if row[:2] != (t, who)] + [(t, who, text)]
    return replace(state, annotator_labels=_sorted(own))


def answered(state: TokenState, tokens: set[int]) -> bool:
    """Whether some annotator answered one of ``tokens``."""
    return any(t in tokens for t, _, _ in state.annotator_labels)


def ruled(state: TokenState, tokens: set[int], labels: LabelSet, now: float) -> TokenState:
    """``state`` with the training label of each of ``tokens`` made by the rule of its answers
    (module doc; none without answers); a label already so keeps its time."""
    votes = _votes(state)
    current = {t: (text, who, when) for t, text, who, when in state.annotations}
    rows = [row for row in state.annotations if row[0] not in tokens]
    for t in sorted(tokens):
        row = derived(votes.get(t, {}), labels)
        if row is not None:
            old = current.get(t)
            rows.append((t, *old) if old is not None and old[:2] == row else (t, *row, now))
    return replace(state, annotations=_sorted(rows))

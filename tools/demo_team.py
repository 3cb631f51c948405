"""A made-up team from gold-labeled sentences: for the screenshots and the agreement benchmark.

Not a model of annotator noise (``benchmarks/team_noise.py`` has one with
stated rates); it only gives the agreement panel something to show: each
annotator copies the gold label of a token and, with a small chance per
token, gives another label of the same position kind (``B-`` stays ``B-``)
or a candidate set of the gold label and another one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from tagtool.core.corpus import Sentence

#: Annotators of the demo team.
NAMES = ("ana", "ben", "chen")


def _answer(gold: str, labels: Sequence[str], rng: random.Random, confusion: float, sets: float) -> frozenset:
    draw = rng.random()
    if draw >= confusion + sets:
        return frozenset([gold])
    same_kind = [n for n in labels if n != gold and n[:2] == gold[:2]] or [n for n in labels if n != gold]
    other = rng.choice(same_kind)
    return frozenset([other]) if draw < confusion else frozenset([gold, other])


def team_sentences(
    gold: Sequence[Sentence],
    labels: Sequence[str],
    names: Sequence[str] = NAMES,
    overlap: float = 1.0,
    confusion: float = 0.04,
    sets: float = 0.01,
    seed: int = 0,
) -> list[Sentence]:
    """``gold`` (fully labeled sentences) as answered by ``names``.

    Each sentence goes to one annotator in turn; a share ``overlap`` of
    them to every annotator.  Its training labels are the common answer,
    else the union of the answers (the team design's candidate set).
    """
    rng = random.Random(seed)
    out = []
    for i, sentence in enumerate(gold):
        who = list(names) if rng.random() < overlap else [names[i % len(names)]]
        answers = {}
        for name in who:
            answers[name] = tuple(_answer(next(iter(a)), labels, rng, confusion, sets) for a in sentence.annotations)
        training = tuple(frozenset().union(*column) for column in zip(*answers.values()))
        out.append(Sentence(sentence.tokens, training, sentence.columns, sentence.meta, answers))
    return out

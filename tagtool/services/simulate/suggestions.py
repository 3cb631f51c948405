"""String-match suggestions in the simulated review and token questions (``tagtool simulate --string-matches``).

In ``review`` mode the simulated annotator is shown a sentence with
suggestions and pays ``accept`` for every right one and ``full`` for every
wrong one (:mod:`tagtool.services.simulate`); in the token modes whole
sentences — before any model, and in the cold start — are labeled with the
string matches' suggestions too, while a question shows the model's
suggestion (the app shows no string match over a question: measured to cost
token questions one or two steps on both NER corpora,
benchmarks/results/annotation_efficiency_string_matches.md).  The suggestions are the app's index's
(:class:`tagtool.services.match_index.MatchIndex`), given every label as
the app's is.  With string matches on, the
suggestions also come from the labels given so far: every span the
annotator has labeled is suggested wherever its string recurs
(:func:`tagtool.services.string_matches.string_matches`, INCEpTION's
string-matching recommender, Klie et al. 2018), updated with every label,
so a string labeled in one sentence is suggested in the next one of the
same step, and in the rest of the same sentence.  From the first label on: in the first step,
before any model, the matched tokens are suggested and the others typed.

What is shown on a token a string match covers is the app's precedence rule
(``tagtool.gui.match_hints``; :func:`shown_labels`):

* evidence that agrees (one label): the string match's label, also where
  the model suggests another (it repeats a decision the person already
  made on the same text);
* evidence that conflicts (a candidate set): the model's label where it
  lies in the set (the model judges the context); otherwise no single
  label — the app's Enter would give the set as a partial label, and the
  simulated reviewer, who ends every token with its gold label, picks the
  gold part instead, charged as a correction (the simulator has no cheaper
  price for a click among the labels shown).

The annotator pays for what is shown: ``accept`` where it is the gold
label, ``full`` (a correction) otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.services.match_index import MatchIndex
from tagtool.services.string_matches import StringMatch


class StringMatchSuggester:
    """The labels given so far, and the string-match suggestions they make in a sentence about to be shown.

    The app's own index (:class:`tagtool.services.match_index.MatchIndex`)
    over the data's sentences, given each label as the app's is: its rule
    for evidence (every span whose tokens carry full labels) and for where a
    match is shown (:func:`tagtool.services.string_matches.agrees`).

    Parameters
    ----------
    tokens : sequence of tuple of str
        The data's sentences' tokens (the pool's order).
    names : sequence of str
        Label names by index (the pool's :class:`~tagtool.core.labels.LabelSet`).
    """

    def __init__(self, tokens: Sequence[tuple[str, ...]], names: Sequence[str]):
        self.tokens = list(tokens)
        self.names = list(names)
        self.index = {name: k for k, name in enumerate(self.names)}
        self.matcher = MatchIndex((Sentence(t) for t in self.tokens), self.names)
        #: Tokens shown with a string-match suggestion first, and those of them that were gold.
        self.shown = 0
        self.right = 0

    def add(self, i: int, labels: np.ndarray) -> None:
        """Sentence ``i`` now carries the full labels ``labels`` (indices; ``-1``: none yet)."""
        self.matcher.set_annotations(i, {t: self._annotation(k) for t, k in enumerate(labels)})

    def _annotation(self, k) -> frozenset:
        return frozenset((self.names[int(k)],)) if k >= 0 else frozenset()

    def agreeing(self, offsets: np.ndarray) -> np.ndarray:
        """Bool mask over the data's tokens: covered by a string match whose evidence agrees (one label).

        The queue can rank with it (:class:`tagtool.services.strategies.Tokens`' ``cheap``: such
        tokens counted as accepted, not corrected) when ``Simulation.rank_matches`` is set; off by
        default, as it was not measured to help (benchmarks/results/string_match_review.md).
        """
        mask = np.zeros(int(offsets[-1]), dtype=bool)
        if not self.matcher.keys():
            return mask
        for i in range(len(self.tokens)):
            for match in self.matcher.matches(i):
                if not match.conflicting:
                    start = int(offsets[i])
                    mask[start + match.start : start + match.end] = True
        return mask

    def matches(self, i: int) -> list[StringMatch]:
        """The string matches in sentence ``i`` from the labels given so far (its own too)."""
        return self.matcher.matches(i)

    def suggested(self, i: int) -> np.ndarray:
        """Per token of sentence ``i``: its string match's allowed set (bool rows; none where no match covers it)."""
        allowed = np.zeros((len(self.tokens[i]), len(self.names)), dtype=bool)
        for match in self.matches(i):
            for t, names in zip(range(match.start, match.end), match.allowed):
                allowed[t, [self.index[name] for name in names]] = True
        return allowed

    def walk(self, i: int, order: np.ndarray, gold: np.ndarray, model: np.ndarray | None) -> np.ndarray:
        """Which of sentence ``i``'s tokens ``order`` the annotator finds suggested right, left to right.

        As the app's hints do, the string matches follow the labels given as
        the annotator goes: a wrong suggestion typed over labels its token
        there and then; a match whose labeled tokens no longer agree with it
        is shown no more (its other tokens show the model's suggestion), and a
        span the labels complete is matched in the rest of the sentence.  The
        right ones are labeled after the walk (Enter).  Returns a bool mask
        over the sentence's tokens.
        """
        shown, matched = shown_labels(self.suggested(i), model)
        right = np.zeros(len(gold), dtype=bool)
        for t in (int(t) for t in order):
            right[t] = shown[t] == gold[t]
            self.shown += int(matched[t])
            self.right += int(matched[t] and right[t])
            if right[t]:
                continue
            self.matcher.set_annotations(i, {t: self._annotation(gold[t])})
            shown, matched = shown_labels(self.suggested(i), model)
        return right


def shown_labels(allowed: np.ndarray, model: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The label shown on each token, and where a string match decides it (module doc, the precedence rule).

    Parameters
    ----------
    allowed : bool array [T, K]
        Each token's string-match allowed set: one label where the evidence
        agrees, a candidate set where it conflicts, none where no match covers it.
    model : int array [T], optional
        The model's suggestions (None: no model yet).

    Returns
    -------
    shown : int array [T]
        -1 where no single label is shown (no model and no agreeing match, or
        a candidate set without the model's label).
    matched : bool array [T]
        The tokens a string match covers.
    """
    n = len(allowed)
    size = allowed.sum(axis=1)
    model = np.full(n, -1, dtype=np.int64) if model is None else np.asarray(model, dtype=np.int64)
    single = np.where(size == 1, allowed.argmax(axis=1), -1)
    picked = allowed[np.arange(n), np.maximum(model, 0)] & (model >= 0)
    shown = np.where(size == 1, single, np.where(size > 1, np.where(picked, model, -1), model))
    return shown, size > 0

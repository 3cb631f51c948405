"""String-match suggestions in the simulated review (``tagtool simulate --string-matches``).

In ``review`` mode the simulated annotator is shown a sentence with
suggestions and pays ``accept`` for every right one and ``full`` for every
wrong one (:mod:`tagtool.services.simulate`).  With string matches on, the
suggestions also come from the labels given so far: every span the
annotator has labeled is suggested wherever its string recurs
(:func:`tagtool.services.string_matches.string_matches`, INCEpTION's
string-matching recommender, Klie et al. 2018), recomputed before each
sentence is shown, so a string labeled in one sentence is suggested in the
next one of the same step.  From the first label on: in the first step,
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

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.services.string_matches import StringMatch, _forms, labeled_spans, string_matches


class StringMatchSuggester:
    """The spans labeled so far, and the string-match suggestions they make in a sentence about to be shown.

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
        self.labeled: list[Sentence] = []
        self.labeled_ids: list[int] = []
        #: First-token forms of the labeled spans, and the labeled sentences (positions) holding each form.
        self.starts: set[str] = set()
        self.holding: dict[str, list[int]] = defaultdict(list)
        #: Tokens shown with a string-match suggestion first, and those of them that were gold.
        self.shown = 0
        self.right = 0

    def add(self, i: int, gold: np.ndarray) -> None:
        """Sentence ``i`` now carries the full labels ``gold`` (indices): its spans are evidence from now on."""
        annotations = tuple(frozenset((self.names[int(k)],)) for k in gold)
        sentence = Sentence(self.tokens[i], annotations)
        for _, start, _ in labeled_spans(sentence):
            self.starts.update(_forms(sentence.tokens, start))
        for form in _sentence_forms(sentence.tokens):
            self.holding[form].append(len(self.labeled))
        self.labeled.append(sentence)
        self.labeled_ids.append(i)

    def agreeing(self, offsets: np.ndarray) -> np.ndarray:
        """Bool mask over the data's tokens: covered by a string match whose evidence agrees (one label).

        The queue can rank with it (:class:`tagtool.services.strategies.Tokens`' ``cheap``: such
        tokens counted as accepted, not corrected) when ``Simulation.rank_matches`` is set; off by
        default, as it was not measured to help (benchmarks/results/string_match_review.md).
        """
        mask = np.zeros(int(offsets[-1]), dtype=bool)
        if not self.labeled:
            return mask
        sentences = [Sentence(tokens) for tokens in self.tokens]
        for i, sentence in zip(self.labeled_ids, self.labeled):
            sentences[i] = sentence
        for match in string_matches(sentences, self.names):
            if not match.conflicting:
                start = int(offsets[match.sentence])
                mask[start + match.start : start + match.end] = True
        return mask

    def matches(self, i: int) -> list[StringMatch]:
        """The string matches in sentence ``i`` (unlabeled) from the sentences labeled so far."""
        forms = _sentence_forms(self.tokens[i]) & self.starts
        if not forms:
            return []
        # only the labeled sentences holding a string that can start a match here are evidence for it
        relevant = sorted({k for form in forms for k in self.holding[form]})
        found = string_matches([*(self.labeled[k] for k in relevant), Sentence(self.tokens[i])], self.names)
        return [m for m in found if m.sentence == len(relevant)]

    def suggested(self, i: int) -> np.ndarray:
        """Per token of sentence ``i``: its string match's allowed set (bool rows; none where no match covers it)."""
        allowed = np.zeros((len(self.tokens[i]), len(self.names)), dtype=bool)
        for match in self.matches(i):
            for t, labels in zip(range(match.start, match.end), match.allowed):
                allowed[t, [self.index[name] for name in labels]] = True
        return allowed

    def review(self, i: int, gold: np.ndarray, model: np.ndarray | None) -> np.ndarray:
        """The labels shown in sentence ``i`` (:func:`shown_labels`), counting the string-matched ones."""
        shown, matched = shown_labels(self.suggested(i), model)
        self.shown += int(matched.sum())
        self.right += int((matched & (shown == gold)).sum())
        return shown


def _sentence_forms(tokens: Sequence[str]) -> set[str]:
    """Every token of a sentence, and its first token's lowercased-initial form (the service's case rule)."""
    return {*tokens, *_forms(tokens, 0)}


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

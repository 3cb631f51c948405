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

What is shown on a token a string match covers (the precedence rule,
:func:`shown_labels`):

* no model yet, or the model has a question about the token (its question
  ``q_t`` at or above the mode's threshold, :data:`DEFAULT_THRESHOLD`):
  the string match's label (its majority label where its evidence
  conflicts);
* the model's label where it lies in the string match's allowed set (they
  agree, or the model picks one of the match's candidate set);
* where a confident model and the match conflict, the candidate set of
  both, the model's label first.

The annotator pays for what is shown first: ``accept`` where it is the
gold label, ``full`` (a correction) otherwise; the other members of a
candidate set only inform.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.services.string_matches import StringMatch, _forms, labeled_spans, span_labels, string_matches


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

        The queue ranks with it (:class:`tagtool.services.strategies.Tokens`' ``cheap``).
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

    def suggested(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Per token of sentence ``i``: the match's first label (-1: no match) and its allowed set (bool rows)."""
        n = len(self.tokens[i])
        first = np.full(n, -1, dtype=np.int64)
        allowed = np.zeros((n, len(self.names)), dtype=bool)
        for match in self.matches(i):
            majority = span_labels(match.evidence[0][0], match.end - match.start, self.names)
            for offset, t in enumerate(range(match.start, match.end)):
                first[t] = self.index[majority[offset]]
                allowed[t, [self.index[name] for name in match.allowed[offset]]] = True
        return first, allowed

    def review(
        self, i: int, gold: np.ndarray, model: np.ndarray | None, q: np.ndarray | None, threshold: float
    ) -> np.ndarray:
        """The labels shown first in sentence ``i`` (:func:`shown_labels`), counting the string-matched ones."""
        first, allowed = self.suggested(i)
        shown, matched = shown_labels(first, allowed, model, q, threshold)
        self.shown += int(matched.sum())
        self.right += int((matched & (shown == gold)).sum())
        return shown


def _sentence_forms(tokens: Sequence[str]) -> set[str]:
    """Every token of a sentence, and its first token's lowercased-initial form (the service's case rule)."""
    return {*tokens, *_forms(tokens, 0)}


def shown_labels(
    first: np.ndarray, allowed: np.ndarray, model: np.ndarray | None, q: np.ndarray | None, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """The label shown first on each token, and where it is a string match's (module doc, the precedence rule).

    Parameters
    ----------
    first : int array [T]
        The string match's (majority) label, -1 where no match covers the token.
    allowed : bool array [T, K]
        The match's allowed set (its candidate set where its evidence conflicts).
    model : int array [T], optional
        The model's suggestions (None: no model yet; unsuggested tokens are then -1).
    q : float array [T], optional
        The model's question about each token; ``q ≥ threshold``: not confident.
    threshold : float

    Returns
    -------
    shown : int array [T]
        -1 where nothing is suggested (no model, no match).
    matched : bool array [T]
        Where the shown label is the string match's.
    """
    covered = first >= 0
    if model is None:
        return first.copy(), covered
    rows = np.arange(len(first))
    agrees = covered & allowed[rows, np.maximum(model, 0)]
    unsure = covered & ~agrees & (np.asarray(q) >= threshold)
    shown = np.where(unsure, first, model)
    return shown, unsure | agrees

"""The simulated annotator's state: every token's allowed set, the cost spent, and what it gives in a sentence."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tagtool.services.simulate.config import Costs


class Oracle:
    """The annotator's state: every token's allowed set, the cost spent, counts.

    Parameters
    ----------
    gold : int array [N]
    offsets : int array [n_sentences + 1]
    n_labels : int
    costs : Costs
    """

    def __init__(self, gold: np.ndarray, offsets: np.ndarray, n_labels: int, costs: Costs):
        self.gold = np.asarray(gold, dtype=np.int64)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.allowed = np.ones((len(self.gold), n_labels), dtype=bool)
        self.costs = costs
        self.spent = 0.0
        self.candidate_sets = 0
        self.accepted = 0

    def rows(self, i: int) -> slice:
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def unlabeled(self, i: int) -> np.ndarray:
        """Bool mask of sentence ``i``'s tokens that carry no annotation yet."""
        return self.allowed[self.rows(i)].all(axis=1)

    def annotate(
        self, i: int, ask: np.ndarray, candidates: np.ndarray | None = None, accepted: np.ndarray | None = None
    ) -> float:
        """Show sentence ``i``: the tokens ``ask`` get gold (or a candidate set); returns the cost.

        Parameters
        ----------
        i : int
        ask : bool array [T]
            Tokens the annotator labels (only unlabeled ones count).
        candidates : int array [T], optional
            Where ``≥ 0``, an asked token gets the candidate set
            ``{gold, candidates[t]}`` instead of its gold label.
        accepted : bool array [T], optional
            Asked tokens whose suggestion was gold: labeled at the cost of
            accepting (``accept``) instead of ``full`` (``review``, and the
            questions of the token modes).
        """
        rows = self.rows(i)
        open_ = self.unlabeled(i)
        ask = np.asarray(ask, dtype=bool) & open_
        partial = ask & (candidates >= 0) if candidates is not None else np.zeros_like(ask)
        accepted = ask & ~partial & np.asarray(accepted, dtype=bool) if accepted is not None else np.zeros_like(ask)
        full = ask & ~partial & ~accepted
        block = self.allowed[rows]
        gold = self.gold[rows]
        block[ask] = False
        block[ask, gold[ask]] = True
        if partial.any():
            other = candidates[partial]
            if np.any(other == gold[partial]):
                raise ValueError("a candidate set needs a label other than gold")
            block[partial, other] = True
        self.allowed[rows] = block
        cost = (
            self.costs.full * int(full.sum())
            + self.costs.partial * int(partial.sum())
            + self.costs.skip * int((open_ & ~ask).sum())
            + self.costs.accepted * int(accepted.sum())
        )
        self.spent += cost
        self.candidate_sets += int(partial.sum())
        self.accepted += int(accepted.sum())
        return cost

    def full_labels(self, i: int) -> np.ndarray:
        """Sentence ``i``'s full labels (indices), ``-1`` where a token has none or a candidate set."""
        block = self.allowed[self.rows(i)]
        return np.where(block.sum(axis=1) == 1, block.argmax(axis=1), -1)

    @property
    def tokens_labeled(self) -> int:
        return int((~self.allowed.all(axis=1)).sum())

    def sentence_status(self) -> np.ndarray:
        """Per sentence: 2 full, 1 partial, 0 unlabeled (as :meth:`Snapshot.sentence_status`)."""
        sizes = self.allowed.sum(axis=1)
        starts = self.offsets[:-1]
        full = np.add.reduceat((sizes == 1).astype(np.int64), starts)
        none = np.add.reduceat((sizes == self.allowed.shape[1]).astype(np.int64), starts)
        lengths = np.diff(self.offsets)
        status = np.ones(len(lengths), dtype=np.int8)
        status[full == lengths] = 2
        status[(none == lengths) & (full != lengths)] = 0
        return status


@dataclass
class Answer:
    """What the simulated annotator does in one shown sentence.

    ``ask``: the tokens annotated; ``candidates``: where ``≥ 0``, the
    candidate-set partner of gold (``partial``); ``accepted``: the asked
    tokens whose suggestion was gold and is accepted.
    """

    ask: np.ndarray
    candidates: np.ndarray | None = None
    accepted: np.ndarray | None = None

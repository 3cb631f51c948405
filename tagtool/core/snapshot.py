"""The immutable arrays a learner trains on (DESIGN §3, §5).

A :class:`Snapshot` holds no Python objects per token: flat CSR-like feature
indices, sentence offsets, the allowed mask and the view of every feature.
The GUI builds one from the project on its own thread and hands it to the
training worker, which never sees the live database connection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def _frozen(array: np.ndarray, dtype) -> np.ndarray:
    array = np.ascontiguousarray(array, dtype=dtype)
    if array.flags.writeable:
        array = array.copy()
        array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Snapshot:
    """Token features, allowed sets and views of a corpus, as read-only arrays.

    Attributes
    ----------
    labels : tuple of str
        Label names; column ``j`` of :attr:`allowed` is ``labels[j]``.
    offsets : int64 array, shape (n_sentences + 1,)
        Sentence ``i`` spans tokens ``offsets[i]:offsets[i + 1]``.
    feat_indptr : int64 array, shape (n_tokens + 1,)
        Token ``t`` has features ``feat_indices[feat_indptr[t]:feat_indptr[t + 1]]``.
    feat_indices : int32 array, shape (nnz,)
        Feature columns in ``0 .. n_features - 1`` (binary features).
    allowed : bool array, shape (n_tokens, n_labels)
        The allowed set of every token (all True = no label).
    feature_view : int8 array, shape (n_features,)
        View (0 or 1) of every feature.
    sentence_ids : int64 array, shape (n_sentences,)
        Caller's identifiers of the sentences (project ids, or positions).
    """

    labels: tuple[str, ...]
    offsets: np.ndarray
    feat_indptr: np.ndarray
    feat_indices: np.ndarray
    allowed: np.ndarray
    feature_view: np.ndarray
    sentence_ids: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple(self.labels))
        for name, dtype in (
            ("offsets", np.int64),
            ("feat_indptr", np.int64),
            ("feat_indices", np.int32),
            ("allowed", np.bool_),
            ("feature_view", np.int8),
            ("sentence_ids", np.int64),
        ):
            object.__setattr__(self, name, _frozen(getattr(self, name), dtype))
        self._validate()

    def _validate(self) -> None:
        n_tokens = int(self.offsets[-1]) if len(self.offsets) else 0
        if len(self.offsets) == 0 or self.offsets[0] != 0 or np.any(np.diff(self.offsets) <= 0):
            raise ValueError("offsets must start at 0 and increase strictly (no empty sentence)")
        if self.allowed.shape != (n_tokens, len(self.labels)):
            raise ValueError(
                f"allowed has shape {self.allowed.shape}, expected {(n_tokens, len(self.labels))}"
            )
        if len(self.feat_indptr) != n_tokens + 1 or self.feat_indptr[-1] != len(self.feat_indices):
            raise ValueError("feat_indptr does not match the tokens and feat_indices")
        if len(self.feat_indices) and (
            self.feat_indices.min() < 0 or self.feat_indices.max() >= len(self.feature_view)
        ):
            raise ValueError("feat_indices out of range of feature_view")
        if not self.allowed.any(axis=1).all():
            raise ValueError("a token has an empty allowed set")
        if len(self.sentence_ids) != self.n_sentences:
            raise ValueError("one sentence id per sentence is required")

    @property
    def n_sentences(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_tokens(self) -> int:
        return int(self.offsets[-1])

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_features(self) -> int:
        return len(self.feature_view)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def sentence_slice(self, i: int) -> slice:
        """Token range of sentence ``i``."""
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def token_features(self, t: int) -> np.ndarray:
        """Feature columns of token ``t``."""
        return self.feat_indices[self.feat_indptr[t] : self.feat_indptr[t + 1]]

    def sentence_status(self) -> np.ndarray:
        """Per sentence: 2 fully labeled, 0 unlabeled, 1 partially labeled."""
        sizes = self.allowed.sum(axis=1)
        full = np.add.reduceat((sizes == 1).astype(np.int64), self.offsets[:-1])
        none = np.add.reduceat((sizes == self.n_labels).astype(np.int64), self.offsets[:-1])
        lengths = self.lengths
        status = np.ones(self.n_sentences, dtype=np.int8)
        status[full == lengths] = 2
        status[(none == lengths) & (full != lengths)] = 0
        return status

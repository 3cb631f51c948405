"""The immutable arrays a learner trains on (docs/design.md#chain-scores).

A :class:`Snapshot` holds no Python objects per token: flat CSR-like feature
indices, sentence offsets, the allowed mask and the view of every feature.
The GUI builds one from the project on its own thread (:func:`build_snapshot`)
and hands it to the training worker, which never sees the live database
connection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.annotation import allowed_mask
from tagtool.core.features import FeatureExtractor, concat_ranges
from tagtool.core.labels import LabelSet
from tagtool.core.views import ViewSplit
from tagtool.gil_slices import SLICE


def _frozen(array: np.ndarray, dtype) -> np.ndarray:
    """``array`` as a read-only contiguous ``dtype`` array, copied only if the caller could still write it.

    A read-only array is taken as it is (:func:`build_snapshot` hands over
    the arrays it built that way); a conversion already made a private copy.
    """
    converted = np.ascontiguousarray(array, dtype=dtype)
    if not converted.flags.writeable:
        return converted
    if isinstance(array, np.ndarray) and np.may_share_memory(converted, array):
        converted = converted.copy()
    converted.flags.writeable = False
    return converted


def _handed_over(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """The arrays, made read-only: nobody else holds them, so the snapshot need not copy them."""
    for array in arrays:
        array.flags.writeable = False
    return arrays


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
            raise ValueError(f"allowed has shape {self.allowed.shape}, expected {(n_tokens, len(self.labels))}")
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

    def subset(self, indices: Sequence[int] | np.ndarray) -> Snapshot:
        """The sentences ``indices`` (in that order, repeats allowed), same feature space.

        Learners use it for training/holdout splits and resampling; labels
        and :attr:`feature_view` are shared, :attr:`sentence_ids` follow
        the chosen sentences.

        Parameters
        ----------
        indices : int array, or bool array of shape (n_sentences,)
            Sentence positions (negative ones count from the end), or a
            mask such as ``snapshot.sentence_status() == 2``.
        """
        indices = np.asarray(indices)
        if indices.dtype == np.bool_:
            if indices.shape != (self.n_sentences,):
                raise IndexError(f"a boolean mask needs {self.n_sentences} values, got {indices.shape}")
            indices = np.flatnonzero(indices)
        indices = indices.astype(np.int64).reshape(-1)
        if len(indices) and (indices.min() < -self.n_sentences or indices.max() >= self.n_sentences):
            raise IndexError(f"sentence index out of range for {self.n_sentences} sentences")
        indices = indices % max(self.n_sentences, 1)
        lengths = self.lengths[indices]
        tokens = concat_ranges(self.offsets[indices], lengths)
        n_feats = np.diff(self.feat_indptr)[tokens]
        return Snapshot(
            labels=self.labels,
            offsets=np.concatenate(([0], np.cumsum(lengths))),
            feat_indptr=np.concatenate(([0], np.cumsum(n_feats))),
            feat_indices=self.feat_indices[concat_ranges(self.feat_indptr[tokens], n_feats)],
            allowed=self.allowed[tokens],
            feature_view=self.feature_view,
            sentence_ids=self.sentence_ids[indices],
        )


def _allowed_rows(sentences: Sequence, labels: LabelSet) -> np.ndarray:
    """Allowed mask of every token; one row computed per distinct annotation (lists, not a token loop).

    The distinct annotations and each token's row are found :data:`~tagtool.gil_slices.SLICE`
    tokens per C call: over a big project one ``dict.fromkeys`` or ``np.fromiter`` holds the GIL
    long enough to stall the window while a worker trains.
    """
    flat = [annotation for sentence in sentences for annotation in sentence.annotations]
    distinct: dict = {}
    for start in range(0, len(flat), SLICE):
        distinct.update(dict.fromkeys(flat[start : start + SLICE]))  # first-seen order, as over the whole list
    rows = {annotation: i for i, annotation in enumerate(distinct)}
    if not rows:
        return np.zeros((0, len(labels)), dtype=bool)
    table = np.stack([allowed_mask([annotation], labels)[0] for annotation in rows])
    if len(rows) == 1:  # one annotation everywhere (no label at all, when tagging): no lookup per token
        return np.repeat(table, len(flat), axis=0)
    codes = np.empty(len(flat), dtype=np.int64)
    for start in range(0, len(flat), SLICE):
        part = flat[start : start + SLICE]
        codes[start : start + len(part)] = np.fromiter(map(rows.__getitem__, part), dtype=np.int64, count=len(part))
    return table[codes]


#: Sentences per call of the extractor's ``transform`` in :func:`build_snapshot`.  One call over a
#: big project runs numpy calls that hold the GIL (``ndarray.repeat``) long enough to freeze the
#: window while a worker thread trains; per block they are short, and between two blocks the app's
#: worker gives the window a turn (benchmarks/results/design-measurements.md, "GIL slices").
TRANSFORM_BLOCK = 512


def transform_in_blocks(
    extractor: FeatureExtractor, sentences: Sequence, block: int | None = None, should_stop=None
) -> tuple[np.ndarray, np.ndarray]:
    """``extractor.transform(sentences)``, :data:`TRANSFORM_BLOCK` sentences per call (the same arrays).

    A token's features depend on its sentence alone, so the blocks' rows
    joined are the whole call's.  ``should_stop`` is polled between blocks
    (True raises :class:`~tagtool.errors.Cancelled`).
    """
    block = TRANSFORM_BLOCK if block is None else block
    if len(sentences) <= block:
        return extractor.transform(sentences)
    indptrs, indices, shift = [np.zeros(1, dtype=np.int64)], [], 0
    for start in range(0, len(sentences), block):
        if should_stop is not None and should_stop():
            from tagtool.errors import Cancelled

            raise Cancelled("cancelled while extracting features")
        indptr, cols = extractor.transform(sentences[start : start + block])
        indptrs.append(np.asarray(indptr[1:], dtype=np.int64) + shift)
        indices.append(cols)
        shift += int(indptr[-1])
    return np.concatenate(indptrs), np.concatenate(indices)


def build_snapshot(
    corpus_or_sentences: Iterable,
    labels: LabelSet,
    extractor: FeatureExtractor,
    view_split: ViewSplit | np.ndarray,
    sentence_ids: Sequence[int] | np.ndarray | None = None,
    should_stop=None,
    block: int | None = None,
    features: tuple[np.ndarray, np.ndarray] | None = None,
) -> Snapshot:
    """Freeze a corpus into the arrays a learner trains on.

    Parameters
    ----------
    corpus_or_sentences : Corpus or iterable of Sentence
    labels : LabelSet
        Columns of the allowed mask; every annotation must use these labels.
    extractor : FeatureExtractor
        Already fitted; its :meth:`~FeatureExtractor.transform` gives the features.
    view_split : ViewSplit or int8 array of shape (n_features,)
        A split to apply to the extractor's features, or the views of a
        trained model to reuse as they are.
    sentence_ids : sequence of int, optional
        The caller's id of every sentence (project ids); default positions.
    should_stop : callable() -> bool, optional
        Polled between blocks of sentences (:func:`transform_in_blocks`).
    block : int, optional
        Sentences per block (default :data:`TRANSFORM_BLOCK`).
    features : (indptr, indices), optional
        The extractor's features of these sentences when the caller has them
        already (``extractor.fit_transform``: a cold fit extracts once, not twice).

    Returns
    -------
    Snapshot
    """
    sentences = list(corpus_or_sentences)
    lengths = np.array([len(s) for s in sentences], dtype=np.int64)
    if features is None:
        feat_indptr, feat_indices = transform_in_blocks(extractor, sentences, block, should_stop=should_stop)
    else:
        feat_indptr, feat_indices = features
        if len(feat_indptr) != int(lengths.sum()) + 1:
            raise ValueError(f"features cover {len(feat_indptr) - 1} tokens, the sentences {int(lengths.sum())}")
    if isinstance(view_split, ViewSplit):
        feature_view = view_split.assign(extractor)
    else:
        feature_view = np.asarray(view_split)
        if feature_view.shape != (extractor.n_features_,) or not np.isin(feature_view, (0, 1)).all():
            raise ValueError(f"feature_view must be {extractor.n_features_} values in {{0, 1}}")
    if sentence_ids is None:
        sentence_ids = np.arange(len(sentences), dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    allowed = _allowed_rows(sentences, labels)
    _handed_over(offsets, feat_indptr, feat_indices, allowed)
    return Snapshot(
        labels=tuple(labels),
        offsets=offsets,
        feat_indptr=feat_indptr,
        feat_indices=feat_indices,
        allowed=allowed,
        feature_view=feature_view,
        sentence_ids=sentence_ids,
    )

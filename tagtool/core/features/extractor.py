"""The :class:`FeatureExtractor`: fit a vocabulary, transform sentences (serialised: :mod:`.serialised`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from tagtool.core.features import serialised
from tagtool.core.features.columns import check_named_columns, input_columns
from tagtool.core.features.encoding import (
    _as_tokens_and_columns,
    _BaseTable,
    _drop_unknown,
    _encode_batch,
    _window_codes,
)
from tagtool.core.features.frozen import frozen_columns
from tagtool.core.features.gazetteers import GAZ_SETS, Gazetteers, gazetteer_feature_set
from tagtool.core.features.hashing import hashed_columns
from tagtool.core.features.settings import _KNOWN_SETS, _PARAM_NAMES, EXTRA_SETS, FEATURE_PARAMS
from tagtool.core.features.stacking import _hstack, stacked_names
from tagtool.core.features.templates import (
    BOS,
    EOS,
    FEATURE_SETS,
    GROUP_SURFACE,
    GROUP_TOKEN,
    FeatureError,
    FeatureSet,
    feature_name,
)
from tagtool.core.features.wordreps import DIST_SETS, VEC_SETS, WordRepresentations
from tagtool.core.params import SettingError

# The package's name, as before the split into modules.
logger = logging.getLogger(__package__)


class NotFittedError(FeatureError, AttributeError):
    """A method that needs a fitted extractor was called before :meth:`~FeatureExtractor.fit`."""


# --------------------------------------------------------------------------
# The extractor (its settings: tagtool.core.features.settings)
# --------------------------------------------------------------------------


class FeatureExtractor:
    """Turns sentences into CSR-like token × feature indicator arrays.

    scikit-learn style: ``__init__`` only stores the settings, :meth:`fit`
    learns the frozen vocabulary, :meth:`transform` maps any sentences into
    it (features not in the vocabulary are dropped).

    Parameters
    ----------
    feature_set : {"default", "crfsuite"} or "A+B"
        The named template set (see the module docstring).  Two or more sets
        joined by ``+`` (``"crfsuite+default"``) are *stacked*: each set is
        fitted on its own (its own window if it has a fixed one, else
        ``window``; the same ``min_count``), its columns follow the previous
        set's, and its feature names carry the set's name (``default/lw=the``).
        :attr:`feature_family_` says which set a column comes from — the
        ``"feature-sets"`` view split gives each set its own view.  Not with
        ``hashing``.
    window : int, default 1
        Context ±``window`` tokens, at most
        :data:`~tagtool.core.features.settings.MAX_WINDOW` (64).  ``"crfsuite"`` allows only 1.
    min_count : int, default 2
        Keep the features seen at least this many times (token occurrences)
        in the data given to :meth:`fit`.  2 drops the features seen once
        (mostly identity, affixes and n-grams of words seen once), which
        cannot be learned from and would make the weight matrices much
        larger (benchmarks/results/design-measurements.md, "Features and views"); use 1 to
        reproduce CRFsuite, whose ``feature.minfreq`` keeps everything.
        Ignored with ``hashing=True``.
    hashing : bool, default False
        Map a feature to a column by a stable hash of its name (CRC-32)
        instead of a vocabulary.  Token-group features go to the columns
        ``[0, n_hash/2)``, surface-group features to ``[n_hash/2, n_hash)``,
        so that the token/surface view split stays available.
    n_hash : int, default 2**18
        Number of hashed columns (even, at most 2**31).
    pos_column : str or None
        ``"crfsuite"`` only: the extra column holding POS tags; None takes
        the first extra column of the data given to :meth:`fit` that is not
        an annotation layer (none there: no POS features).
    columns : sequence of str or None
        ``"default"`` only: the extra columns that become features; None
        takes every column seen in the data given to :meth:`fit` except the
        annotation layers (CoNLL-U fields, :mod:`tagtool.core.features.columns`).
        A named column (here or in ``pos_column``) missing from that data
        is a :class:`FeatureError` listing the columns it has.

    Attributes
    ----------
    columns_ : tuple of str
        The extra columns the features read.
    n_features_ : int
        Number of columns (``n_hash`` when hashing).
    feature_names_ : ndarray of object (str), or None
        Name of every column, in column order (None when hashing).
    feature_group_ : ndarray of int8
        0 (token) or 1 (surface) for every column.
    feature_family_ : ndarray of int8
        Position in ``feature_set.split("+")`` of the set every column comes
        from (all 0 for a single set).

    Examples
    --------
    >>> fx = FeatureExtractor(min_count=1).fit([["The", "cat"]])
    >>> indptr, indices = fx.transform([["The", "dog"]])
    >>> names = fx.feature_names_[indices[indptr[1]:indptr[2]]]  # of "dog"
    >>> [n for n in names if ":" not in n]  # "w=dog" … were not seen in fit
    ['shape=xxx', 'sshape=x', 'len=3', 'EOS']
    >>> "-1:lw=the" in names
    True
    """

    params = FEATURE_PARAMS

    def __init__(
        self,
        feature_set: str = "default",
        window: int = 1,
        min_count: int = 2,
        hashing: bool = False,
        n_hash: int = 2**18,
        pos_column: str | None = None,
        columns: Sequence[str] | None = None,
        representations: WordRepresentations | None = None,
        vectors: WordRepresentations | None = None,
        gazetteers: Gazetteers | None = None,
    ):
        self.feature_set = feature_set
        # Data, not settings: kept out of get_params and to_dict (the tagger file stores them beside
        # meta.json, by fingerprint): word representations (dist sets), the user's vectors (vec), dictionaries (gaz).
        self.representations, self.vectors, self.gazetteers = representations, vectors, gazetteers
        self.window = window
        self.min_count = min_count
        self.hashing = hashing
        self.n_hash = n_hash
        self.pos_column = pos_column
        self.columns = columns

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"FeatureExtractor({args})"

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments (scikit-learn convention)."""
        return {name: getattr(self, name) for name in _PARAM_NAMES}

    def set_params(self, **params) -> FeatureExtractor:
        """Change constructor arguments; a refit is needed afterwards."""
        for name, value in params.items():
            if name not in _PARAM_NAMES:
                raise FeatureError(f"unknown parameter {name!r}; expected one of {', '.join(_PARAM_NAMES)}")
            setattr(self, name, value)
        return self

    # -- validation -------------------------------------------------------

    @property
    def _set_names(self) -> list[str]:
        return str(self.feature_set).split("+")

    @property
    def _is_stacked(self) -> bool:
        return isinstance(self.feature_set, str) and "+" in self.feature_set

    def _part_extractors(self) -> list[FeatureExtractor]:
        """One unfitted extractor per set of a stacked ``feature_set``."""
        if self.hashing:
            raise FeatureError(f"hashing is not available for the stacked feature set {self.feature_set!r}")
        names = self._set_names
        if not FEATURE_PARAMS["feature_set"].choice_ok(self.feature_set):
            twice, choices = ", ".join(EXTRA_SETS), ", ".join(_KNOWN_SETS)
            msg = f"join distinct sets of {choices} with '+' ({twice} may appear twice)"
            raise FeatureError(f"bad stacked feature set {self.feature_set!r}: {msg}")
        parts = []
        for name in names:
            fixed = FEATURE_SETS[name].fixed_window if name in FEATURE_SETS else None
            part = FeatureExtractor(
                feature_set=name,
                window=self.window if fixed is None else fixed,
                min_count=self.min_count,
                pos_column=self.pos_column,
                columns=self.columns,
                representations=self.representations,
                vectors=self.vectors,
                gazetteers=self.gazetteers,
            )
            part._checked_feature_set()
            parts.append(part)
        return parts

    def _named_set(self) -> FeatureSet:
        """The :class:`FeatureSet` of a single (not stacked) ``feature_set``."""
        if self.feature_set in VEC_SETS:
            if self.vectors is None:
                raise FeatureError(f"the {self.feature_set!r} feature set needs word vectors (train --vectors FILE)")
            return self.vectors.feature_set(self.feature_set)
        if self.feature_set in DIST_SETS:
            if self.representations is None:
                raise FeatureError(
                    f"the {self.feature_set!r} feature set needs word representations learned from text "
                    "(tagtool.services.represent.learn_representations)"
                )
            return self.representations.feature_set(self.feature_set)
        if self.feature_set in GAZ_SETS:
            return gazetteer_feature_set(self.feature_set, self.gazetteers)
        fs = FEATURE_SETS.get(self.feature_set)
        if fs is None:
            raise FeatureError(f"unknown feature set {self.feature_set!r}; choose one of {', '.join(_KNOWN_SETS)}")
        return fs

    def _checked_feature_set(self) -> FeatureSet:
        if self._is_stacked:
            return self._part_extractors()[0]._named_set()  # validates every part
        fs = self._named_set()
        try:
            for name in ("window", "min_count", "n_hash") if self.hashing else ("window", "min_count"):
                FEATURE_PARAMS[name].check(getattr(self, name))
        except SettingError as exc:
            raise FeatureError(str(exc)) from None
        if fs.fixed_window is not None and self.window != fs.fixed_window:
            raise FeatureError(f"the {fs.name!r} feature set has a fixed window of {fs.fixed_window}")
        if self.hashing and self.n_hash % 2:
            raise FeatureError(f"n_hash must be even, got {self.n_hash!r}")
        return fs

    def _resolve_columns(self, fs: FeatureSet, sentences: Sequence) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for sentence in sentences:
            for name in _as_tokens_and_columns(sentence)[1]:
                seen.setdefault(name, None)
        seen_names = tuple(seen)
        # Annotation layers (CoNLL-U fields) are features only when named (tagtool.core.features.columns).
        if fs.column_policy == "none":
            return ()
        if fs.column_policy == "pos":
            if self.pos_column is not None:
                check_named_columns([self.pos_column], seen_names, "pos_column")
                return (self.pos_column,)
            return input_columns(seen_names)[:1]
        if self.columns is None:
            return input_columns(seen_names)
        check_named_columns(list(self.columns), seen_names)
        return tuple(self.columns)

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_features_"):
            raise NotFittedError("this FeatureExtractor is not fitted yet; call fit() first")

    # -- fitting ----------------------------------------------------------

    @property
    def _n_slots(self) -> int:
        return 2 * self.window + 1

    def fit(self, sentences: Iterable) -> FeatureExtractor:
        """Learn the vocabulary of ``sentences`` (Sentence objects or token lists)."""
        self._fit(sentences)
        return self

    def fit_transform(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`fit` then :meth:`transform` of the same sentences, in one pass."""
        return self._fit(sentences)

    def _fit(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        if self._is_stacked:
            return self._fit_stacked(sentences)
        tic = time.perf_counter()
        fs = self._checked_feature_set()
        sentences = list(sentences)
        if not sentences:
            raise FeatureError("cannot fit a feature extractor on no sentences")
        columns = self._resolve_columns(fs, sentences)
        table = _BaseTable(fs)
        lengths, sources = _encode_batch(sentences, fs, columns, table, grow=True)
        indptr, codes = _window_codes(lengths, sources, self.window, len(table), (0, 1))
        self.columns_ = columns
        if self.hashing:
            self._set_hashed()
            result = indptr, hashed_columns(indptr, codes, table, self.window, self.n_hash)
        else:
            lookup = self._set_vocabulary(codes, table)
            result = _drop_unknown(indptr, lookup[codes])
        logger.info(
            "fitted %s features on %d tokens (%d base features) in %.2f s",
            self.n_features_, len(indptr) - 1, len(table), time.perf_counter() - tic,
        )  # fmt: skip
        return result

    def _fit_stacked(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        parts = self._part_extractors()
        sentences = list(sentences)
        arrays = [part.fit_transform(sentences) for part in parts]
        self._set_parts(parts)
        return _hstack(arrays, [p.n_features_ for p in parts])

    def _set_parts(self, parts: list[FeatureExtractor]) -> None:
        """State of a stacked extractor from its fitted parts."""
        self._parts = parts
        self._table = self._lookup = None
        self.columns_ = tuple(dict.fromkeys(c for p in parts for c in p.columns_))
        self.n_features_ = sum(p.n_features_ for p in parts)
        self.feature_names_ = stacked_names([(p.feature_set, p.feature_names_) for p in parts])
        self.feature_group_ = np.concatenate([p.feature_group_ for p in parts]).astype(np.int8)
        self.feature_family_ = np.concatenate([np.full(p.n_features_, i, dtype=np.int8) for i, p in enumerate(parts)])

    def _set_vocabulary(self, codes: np.ndarray, table: _BaseTable) -> np.ndarray:
        """Keep the codes seen ``min_count`` times; return the code → column lookup of the fit data."""
        n_bases = len(table)
        counts = np.bincount(codes, minlength=self._n_slots * n_bases)
        kept = np.flatnonzero(counts >= self.min_count)
        slots, bases = np.divmod(kept, n_bases)
        pruned, new_id = table.subset(np.unique(bases))
        self._set_state(pruned, slots, new_id[bases])
        lookup = np.full(len(counts), -1, dtype=np.int32)
        lookup[kept] = np.arange(len(kept))
        return lookup

    def _set_state(
        self, table: _BaseTable, slots: np.ndarray, bases: np.ndarray, names: Sequence[str] | None = None
    ) -> None:
        """Frozen vocabulary: column ``j`` is base ``bases[j]`` of ``table`` at window slot ``slots[j]``."""
        n_bases = len(table)
        self._table = table
        self._lookup = np.full(self._n_slots * n_bases, -1, dtype=np.int32)
        self._lookup[slots * n_bases + bases] = np.arange(len(bases))
        if names is None:
            offsets = (slots - self.window).tolist()
            names = [feature_name(table.names[b], o) for b, o in zip(bases.tolist(), offsets)]
        self.n_features_ = len(names)
        self.feature_names_ = np.array(list(names), dtype=object)
        self.feature_group_ = np.asarray(table.group, dtype=np.int8)[bases]
        self.feature_family_ = np.zeros(self.n_features_, dtype=np.int8)

    def _set_hashed(self) -> None:
        self._table = None
        self._lookup = None
        self.n_features_ = self.n_hash
        self.feature_names_ = None
        self.feature_group_ = np.repeat(np.array([GROUP_TOKEN, GROUP_SURFACE], dtype=np.int8), self.n_hash // 2)
        self.feature_family_ = np.zeros(self.n_hash, dtype=np.int8)

    # -- transforming -----------------------------------------------------

    def transform(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        """Feature columns of every token of ``sentences``, concatenated.

        Returns
        -------
        indptr : int64 array, shape (n_tokens + 1,)
            Token ``t`` has the columns ``indices[indptr[t]:indptr[t + 1]]``.
        indices : int32 array, shape (nnz,)
            Distinct columns within each token.

        Notes
        -----
        The extractor is not modified, so several threads may transform at
        once.  Base features are computed once per distinct word of the
        call; nothing is cached between calls.
        """
        self._check_fitted()
        if self._is_stacked:
            sentences = list(sentences)
            return _hstack([p.transform(sentences) for p in self._parts], [p.n_features_ for p in self._parts])
        fs = self._named_set()
        if self.hashing:
            table = _BaseTable(fs)  # local: hashing keeps no vocabulary
            lengths, sources = _encode_batch(sentences, fs, self.columns_, table, grow=True)
            indptr, codes = _window_codes(lengths, sources, self.window, len(table), (0, 1))
            return indptr, hashed_columns(indptr, codes, table, self.window, self.n_hash)
        table = self._table
        lengths, sources = _encode_batch(sentences, fs, self.columns_, table, grow=False)
        pads = (table.index[BOS], table.index[EOS])
        return frozen_columns(lengths, sources, self.window, len(table), self._lookup, pads)

    # -- serialisation (tagtool.core.features.serialised) ------------------

    def to_dict(self) -> dict:
        """JSON-compatible description: settings, fitted columns and the vocabulary (:func:`.serialised.to_dict`)."""
        self._check_fitted()
        return serialised.to_dict(self)

    @property
    def uses_representations(self) -> bool:
        """True if a set of ``feature_set`` reads word representations (``dist``, ``dist-dims``)."""
        return any(name in DIST_SETS for name in self._set_names)

    @property
    def uses_vectors(self) -> bool:
        """True if a set of ``feature_set`` reads the user's word vectors (``vec``, ``vec-dims``)."""
        return any(name in VEC_SETS for name in self._set_names)

    @property
    def uses_gazetteers(self) -> bool:
        """True if a set of ``feature_set`` reads dictionaries (``gaz``)."""
        return any(name in GAZ_SETS for name in self._set_names)

    @classmethod
    def from_dict(
        cls,
        data: Mapping,
        representations: WordRepresentations | None = None,
        vectors: WordRepresentations | None = None,
        gazetteers: Gazetteers | None = None,
    ) -> FeatureExtractor:
        """Rebuild a fitted extractor written by :meth:`to_dict` (:func:`.serialised.from_dict`).

        The data a set reads are required, those it was fitted with (same fingerprint).
        """
        return serialised.from_dict(cls, data, representations, vectors, gazetteers)

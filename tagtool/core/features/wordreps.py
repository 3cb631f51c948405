"""Word representations learned from unlabeled text, as token features (the ``dist`` sets).

A :class:`WordRepresentations` holds what :mod:`tagtool.services.represent` learned
from a project's text — FastText skip-gram vectors (Bojanowski et al. 2017)
and spherical k-means clusters of them at several granularities — as plain
arrays, and turns a word into indicator features:

``"dist"``
    The cluster of the word at every granularity: ``c64=17``, ``c256=201``,
    ``c1024=877``, copied to the neighbours of the extractor's window
    (``-1:c256=4``).  Cluster ids of word vectors are the classic way to
    give a linear tagger what unlabeled text knows (Turian et al. 2010;
    Guo et al. 2014 found k-means clusters of skip-gram vectors at several
    granularities among the best of them for NER).
``"dist-dims"``
    The binarised vector dimensions of Guo et al. (2014, §3.2): dimension
    ``j`` gives ``e=j+`` when the value is at least the mean of the
    positive values of that dimension over the vocabulary, ``e=j-`` when at
    most the mean of the negative ones, nothing in between.  The learners
    here take binary features only, so this is how the dense dimensions
    enter them.

Which words get features (documented in docs/learners.md, "Word representations from your own text"):

1. The word is normalised as the text was (:func:`normalise_word`: every
   digit becomes ``0``; case is kept) and looked up; failing that, its
   lower-cased form is.
2. A word still unknown gets the vector FastText composes from its
   character 3–5-grams (the mean of the n-gram vectors, as FastText does
   for unseen words), restricted to the n-grams that occur in the
   vocabulary's words — the only ones training moved away from their random
   start — and that vector's nearest cluster centre at each granularity.
3. A word none of whose n-grams is known gets no ``dist`` feature.

No pickle anywhere: :meth:`WordRepresentations.to_arrays` gives numbers
only (strings as UTF-8 bytes with end offsets), which the project and the
tagger file store as ``.npz``.

References
----------
.. [1] P. Bojanowski, E. Grave, A. Joulin, T. Mikolov. Enriching word
   vectors with subword information. TACL 5, 2017 (§3.1–3.2: n-grams of
   ``<word>``, n = 3…6, the word vector as the sum of its n-gram vectors).
.. [2] J. Guo, W. Che, H. Wang, T. Liu. Revisiting embedding features for
   simple semi-supervised learning. EMNLP 2014, §3.2 (binarisation),
   §3.3 (clusters of embeddings), Table 2.
.. [3] J. Turian, L. Ratinov, Y. Bengio. Word representations: a simple
   and general method for semi-supervised learning. ACL 2010.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from tagtool.core.features.templates import (
    BOS,
    EOS,
    GROUP_SURFACE,
    GROUP_TOKEN,
    FeatureError,
    FeatureSet,
    Template,
)

#: Names of the feature sets that read word representations.
DIST_SETS = ("dist", "dist-dims")
#: The same features read from the word vectors a user brought (:mod:`tagtool.services.user_vectors`).
VEC_SETS = ("vec", "vec-dims")

#: Version of the array layout of :meth:`WordRepresentations.to_arrays`.
ARRAYS_VERSION = 1

_DIGIT = re.compile(r"\d")


def normalise_word(word: str) -> str:
    """The form a word is learned and looked up under: every digit becomes ``0``, case is kept.

    Digits carry little identity (``1998`` and ``2003`` behave alike) and
    would otherwise scatter numbers over the vocabulary.
    """
    return _DIGIT.sub("0", word)


def char_ngrams(word: str, min_n: int, max_n: int) -> list[str]:
    """Character n-grams of ``<word>`` as FastText takes them (Bojanowski et al. 2017, §3.2).

    >>> char_ngrams("ab", 3, 4)
    ['<ab', 'ab>', '<ab>']
    """
    marked = f"<{word}>"
    return [marked[i : i + n] for n in range(min_n, max_n + 1) for i in range(len(marked) - n + 1)]


def _strings_to_arrays(strings: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    encoded = [s.encode("utf-8", "surrogatepass") for s in strings]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64)
    return np.frombuffer(b"".join(encoded), dtype=np.uint8).copy(), ends


def _arrays_to_strings(data: np.ndarray, ends: np.ndarray, what: str) -> list[str]:
    if data.dtype != np.uint8 or data.ndim != 1 or ends.ndim != 1:
        raise FeatureError(f"word representations: {what} are not UTF-8 bytes with end offsets")
    if len(ends) and (ends[-1] != len(data) or np.any(np.diff(ends) < 0) or ends[0] < 0):
        raise FeatureError(f"word representations: the end offsets of {what} do not match their bytes")
    raw = data.tobytes()
    starts = np.concatenate(([0], ends[:-1])) if len(ends) else ends
    try:
        return [raw[s:e].decode("utf-8", "surrogatepass") for s, e in zip(starts.tolist(), ends.tolist())]
    except UnicodeDecodeError as exc:
        raise FeatureError(f"word representations: {what} are not valid UTF-8 ({exc})") from None


def _quantise(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 rows and one float32 scale per row: 4× smaller, and nearest centres barely move."""
    scale = np.abs(vectors).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    return np.round(vectors / scale[:, None]).astype(np.int8), scale.astype(np.float32)


@dataclass(frozen=True, eq=False)
class WordRepresentations:
    """Vectors, clusters and subword vectors of a vocabulary, and the features they give.

    Attributes
    ----------
    words : tuple of str
        The vocabulary, as :func:`normalise_word` forms.
    vectors : float32 array, shape (n_words, dim)
        Unit-length word vectors, rounded to float16 precision (what
        :meth:`to_arrays` stores, so a loaded copy gives the same features).
    clusters : mapping of int to int32 array, shape (n_words,)
        For every granularity ``k``, the cluster of every word.
    centres : mapping of int to float32 array, shape (k, dim)
        Unit-length cluster centres (nearest by cosine).
    ngrams : tuple of str
        The character n-grams of the vocabulary's words.
    ngram_vectors : int8 array, shape (n_ngrams, dim), and ngram_scale : float32 array
        Their FastText vectors, quantised per row.
    info : dict
        How they were learned (method, settings, the text's size), JSON-compatible.
    """

    words: tuple[str, ...]
    vectors: np.ndarray
    clusters: Mapping[int, np.ndarray]
    centres: Mapping[int, np.ndarray]
    ngrams: tuple[str, ...] = ()
    ngram_vectors: np.ndarray | None = None
    ngram_scale: np.ndarray | None = None
    info: Mapping = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", tuple(self.words))
        # Held at the precision the file stores (float16): the dist-dims binarisation of a
        # value near its threshold would otherwise differ between training and a loaded tagger.
        object.__setattr__(self, "vectors", np.asarray(self.vectors, dtype=np.float16).astype(np.float32))
        object.__setattr__(self, "ngrams", tuple(self.ngrams))
        object.__setattr__(self, "clusters", MappingProxyType({int(k): v for k, v in sorted(self.clusters.items())}))
        object.__setattr__(self, "centres", MappingProxyType({int(k): v for k, v in sorted(self.centres.items())}))
        self._validate()
        object.__setattr__(self, "_index", {w: i for i, w in enumerate(self.words)})
        object.__setattr__(self, "_ngram_index", {g: i for i, g in enumerate(self.ngrams)})
        object.__setattr__(self, "_cache", {})

    def _validate(self) -> None:
        n, dim = self.vectors.shape if self.vectors.ndim == 2 else (-1, -1)
        if n != len(self.words) or dim < 1:
            raise FeatureError(
                f"word representations: {len(self.words)} words but vectors of shape {self.vectors.shape}"
            )
        if len(set(self.words)) != len(self.words):
            raise FeatureError("word representations: a word appears twice in the vocabulary")
        if not self.clusters or set(self.clusters) != set(self.centres):
            raise FeatureError("word representations: every granularity needs its clusters and centres")
        for k, ids in self.clusters.items():
            centres = self.centres[k]
            if k < 1 or ids.shape != (n,) or centres.shape != (k, dim):
                raise FeatureError(f"word representations: the arrays of granularity {k} have the wrong shape")
            if n and (ids.min() < 0 or ids.max() >= k):
                raise FeatureError(f"word representations: a cluster id of granularity {k} is out of range")
        if self.ngrams:
            g = len(self.ngrams)
            if self.ngram_vectors is None or self.ngram_vectors.shape != (g, dim) or self.ngram_scale.shape != (g,):
                raise FeatureError("word representations: the n-gram vectors do not match the n-grams")

    def __repr__(self) -> str:
        return (
            f"WordRepresentations({len(self.words)} words, dim {self.dim}, clusters {list(self.granularities)}, "
            f"{len(self.ngrams)} n-grams, {self.fingerprint})"
        )

    # -- lookups -------------------------------------------------------------

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def granularities(self) -> tuple[int, ...]:
        return tuple(self.clusters)

    def word_index(self, word: str) -> int | None:
        """Row of ``word`` in the vocabulary (its normalised form, else its lower-cased form), or None."""
        form = normalise_word(word)
        index = self._index.get(form)
        if index is None:
            index = self._index.get(form.lower())
        return index

    def subword_vector(self, word: str) -> np.ndarray | None:
        """Unit mean of the known n-gram vectors of an unseen word; None if none is known (module doc, rule 2)."""
        if not self.ngrams:
            return None
        n_min, n_max = self.info.get("min_n", 3), self.info.get("max_n", 5)
        rows = [self._ngram_index.get(g) for g in char_ngrams(normalise_word(word), n_min, n_max)]
        rows = [r for r in rows if r is not None]
        if not rows:
            return None
        vector = (self.ngram_vectors[rows].astype(np.float32) * self.ngram_scale[rows, None]).mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm > 0 else None

    def cluster_ids(self, word: str) -> dict[int, int] | None:
        """Cluster of ``word`` at every granularity, or None (no representation)."""
        index = self.word_index(word)
        if index is not None:
            return {k: int(ids[index]) for k, ids in self.clusters.items()}
        vector = self.subword_vector(word)
        if vector is None:
            return None
        return {k: int(np.argmax(centres @ vector)) for k, centres in self.centres.items()}

    def vector(self, word: str) -> np.ndarray | None:
        """The word's unit vector (its own, or composed from n-grams), or None."""
        index = self.word_index(word)
        return self.vectors[index] if index is not None else self.subword_vector(word)

    # -- features ------------------------------------------------------------

    def cluster_features(self, word: str) -> list[str]:
        """Base features of the ``dist`` set: ``c64=17`` … (none for a word without a representation)."""
        key = ("c", word)
        cached = self._cache.get(key)
        if cached is None:
            ids = self.cluster_ids(word)
            cached = self._cache[key] = [] if ids is None else [f"c{k}={c}" for k, c in ids.items()]
        return list(cached)

    def dimension_features(self, word: str) -> list[str]:
        """Base features of the ``dist-dims`` set: binarised dimensions (Guo et al. 2014, §3.2)."""
        key = ("e", word)
        cached = self._cache.get(key)
        if cached is None:
            vector = self.vector(word)
            if vector is None:
                cached = []
            else:
                high, low = self._thresholds
                cached = [f"e={j}+" for j in np.flatnonzero(vector >= high).tolist()]
                cached += [f"e={j}-" for j in np.flatnonzero(vector <= low).tolist()]
            self._cache[key] = cached
        return list(cached)

    @property
    def _thresholds(self) -> tuple[np.ndarray, np.ndarray]:
        """Per dimension: the mean of the positive values and the mean of the negative ones."""
        cached = self._cache.get("thresholds")
        if cached is None:
            v = self.vectors
            pos, neg = np.where(v > 0, v, 0), np.where(v < 0, v, 0)
            high = pos.sum(axis=0) / np.maximum((v > 0).sum(axis=0), 1)
            low = neg.sum(axis=0) / np.maximum((v < 0).sum(axis=0), 1)
            # A dimension without positive (negative) values never fires on that side.
            high[(v > 0).sum(axis=0) == 0] = np.inf
            low[(v < 0).sum(axis=0) == 0] = -np.inf
            cached = self._cache["thresholds"] = (high, low)
        return cached

    def feature_set(self, name: str) -> FeatureSet:
        """The ``dist`` or ``dist-dims`` :class:`FeatureSet` of these representations (``vec``: the same)."""
        if name in ("dist", "vec"):
            templates = [Template(f"c{k}", GROUP_TOKEN) for k in self.granularities]
            word_features = self.cluster_features
        elif name in ("dist-dims", "vec-dims"):
            templates = [Template("e", GROUP_TOKEN)]
            word_features = self.dimension_features
        else:
            raise FeatureError(f"{name!r} is not a word-representation feature set ({', '.join(DIST_SETS + VEC_SETS)})")
        templates += [Template(BOS, GROUP_SURFACE), Template(EOS, GROUP_SURFACE)]
        return FeatureSet(
            name=name,
            templates=MappingProxyType({t.tag: t for t in templates}),
            word_features=word_features,
            column_features=lambda column, value: [],
            column_policy="none",
        )

    # -- storage -------------------------------------------------------------

    @property
    def fingerprint(self) -> str:
        """SHA-256 (first 16 hex digits) of the arrays: names the representations a tagger was fitted with."""
        cached = self._cache.get("fingerprint")
        if cached is None:
            digest = hashlib.sha256()
            for name, array in sorted(self.to_arrays().items()):
                if name != "info_json":
                    digest.update(name.encode())
                    digest.update(np.ascontiguousarray(array).tobytes())
            cached = self._cache["fingerprint"] = digest.hexdigest()[:16]
        return cached

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Numbers only (for ``np.savez``, loaded with ``allow_pickle=False``)."""
        words, word_ends = _strings_to_arrays(self.words)
        arrays = {
            "version": np.array([ARRAYS_VERSION], dtype=np.int64),
            "words_utf8": words, "word_ends": word_ends,
            "vectors": self.vectors.astype(np.float16),
            "granularities": np.array(self.granularities, dtype=np.int64),
            "info_json": np.frombuffer(json.dumps(dict(self.info), sort_keys=True).encode(), dtype=np.uint8).copy(),
        }  # fmt: skip
        for k in self.granularities:
            arrays[f"clusters_{k}"] = self.clusters[k].astype(np.int32)
            arrays[f"centres_{k}"] = self.centres[k].astype(np.float32)
        if self.ngrams:
            arrays["ngrams_utf8"], arrays["ngram_ends"] = _strings_to_arrays(self.ngrams)
            arrays["ngram_vectors"] = self.ngram_vectors.astype(np.int8)
            arrays["ngram_scale"] = self.ngram_scale.astype(np.float32)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> WordRepresentations:
        """Inverse of :meth:`to_arrays`; :class:`FeatureError` on anything inconsistent."""
        try:
            version = int(np.asarray(arrays["version"]).reshape(-1)[0])
            if version != ARRAYS_VERSION:
                raise FeatureError(f"word representations format {version} is not supported (only {ARRAYS_VERSION})")
            info = json.loads(bytes(np.asarray(arrays["info_json"], dtype=np.uint8)).decode("utf-8"))
            ks = [int(k) for k in np.asarray(arrays["granularities"]).reshape(-1)]
            has_ngrams = "ngrams_utf8" in arrays
            return cls(
                words=_arrays_to_strings(arrays["words_utf8"], arrays["word_ends"], "the words"),
                vectors=np.asarray(arrays["vectors"], dtype=np.float32),
                clusters={k: np.asarray(arrays[f"clusters_{k}"], dtype=np.int32) for k in ks},
                centres={k: np.asarray(arrays[f"centres_{k}"], dtype=np.float32) for k in ks},
                ngrams=_arrays_to_strings(arrays["ngrams_utf8"], arrays["ngram_ends"], "the n-grams")
                if has_ngrams
                else (),
                ngram_vectors=np.asarray(arrays["ngram_vectors"], dtype=np.int8) if has_ngrams else None,
                ngram_scale=np.asarray(arrays["ngram_scale"], dtype=np.float32) if has_ngrams else None,
                info=info if isinstance(info, dict) else {},
            )
        except KeyError as exc:
            raise FeatureError(f"word representations: the array {exc} is missing") from None
        except (ValueError, TypeError, IndexError) as exc:
            raise FeatureError(f"word representations are damaged ({type(exc).__name__}: {exc})") from None

    def to_bytes(self) -> bytes:
        """The ``.npz`` file of :meth:`to_arrays` (no pickle)."""
        import io

        buffer = io.BytesIO()
        np.savez_compressed(buffer, **self.to_arrays())
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> WordRepresentations:
        """Inverse of :meth:`to_bytes`; refuses pickles."""
        import io
        import zipfile

        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                arrays = {name: npz[name] for name in npz.files}
        except (ValueError, OSError, zipfile.BadZipFile, EOFError) as exc:
            raise FeatureError(f"word representations are damaged or hold a pickle ({exc})") from None
        return cls.from_arrays(arrays)


def quantised_ngrams(ngrams: Sequence[str], vectors: np.ndarray) -> tuple[tuple[str, ...], np.ndarray, np.ndarray]:
    """The ``ngrams``/``ngram_vectors``/``ngram_scale`` fields from float vectors."""
    q, scale = _quantise(np.asarray(vectors, dtype=np.float32))
    return tuple(ngrams), q, scale

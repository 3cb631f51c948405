"""Word vectors a user brings: read a pretrained vectors file, keep a vocabulary's rows, store them as npz.

Reads word2vec text and binary (Mikolov et al. 2013), GloVe text without a
header (Pennington et al. 2014), fastText ``.vec`` text and ``.bin`` models
(Bojanowski et al. 2017), plain or gzip-compressed.  The text and word2vec
binary layouts are streamed (:mod:`tagtool.store.vectors_stream`) and only
the rows of the wanted words are kept, so memory is bounded by the
vocabulary, not the file.  A fastText ``.bin`` is loaded whole with gensim's
``load_facebook_vectors`` (its n-gram table is needed): words it lacks get
the sum of their character n-gram vectors (Bojanowski et al. 2017, eq. 2,
as gensim computes it, i.e. the mean).

The result is plain arrays -- ``words``, a float32 ``matrix`` ``[n, dim]``
and a ``subword`` mask of the rows built from n-grams -- saved and loaded
as npz without pickle.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tagtool.errors import Cancelled, FormatError
from tagtool.store import vectors_stream
from tagtool.store.atomic import atomic_write

#: The first four bytes of a fastText ``.bin`` model (little-endian int32 793712314).
FASTTEXT_MAGIC = (793712314).to_bytes(4, "little")
#: Layouts :func:`read_vectors` accepts as ``fmt`` (None detects it).
FORMATS = ("word2vec-text", "word2vec-binary", "glove", "fasttext-bin")


@dataclass
class WordVectors:
    """The vectors kept for a vocabulary.

    Attributes
    ----------
    words : list of str
        The kept words, in the order of the vocabulary given.
    matrix : numpy.ndarray
        float32 ``[len(words), dim]``; row ``i`` is ``words[i]``'s vector.
    subword : numpy.ndarray
        bool ``[len(words)]``: the row was built from character n-grams
        (a word a fastText ``.bin`` lacks).
    source : str
        The file's name (no folder), for the model panel.
    fmt : str
        One of :data:`FORMATS`.
    rows_read : int
        Rows the file holds that were passed over (not stored).
    ngrams : list of str, ngram_matrix : numpy.ndarray or None, min_n, max_n : int
        From a fastText ``.bin`` read with ``ngrams_of``: the character
        ``min_n``–``max_n``-grams of those words and their float32 vectors
        (``[len(ngrams), dim]``), from which a word never seen is composed.
    """

    words: list[str]
    matrix: np.ndarray
    subword: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    source: str = ""
    fmt: str = ""
    rows_read: int = 0
    ngrams: list[str] = field(default_factory=list)
    ngram_matrix: np.ndarray | None = None
    min_n: int = 0
    max_n: int = 0

    @property
    def dim(self) -> int:
        return int(self.matrix.shape[1])

    def index(self) -> dict[str, int]:
        """Row of each word."""
        return {w: i for i, w in enumerate(self.words)}


def detect_format(path: str | os.PathLike) -> str:
    """The layout of a vectors file, from its content (never its name): one of :data:`FORMATS`."""
    with vectors_stream.open_stream(path) as (stream, _):
        try:
            start = stream.read(4)
        except (OSError, EOFError) as e:
            raise FormatError(path, None, f"cannot be read as a vectors file ({e})") from e
    if start == FASTTEXT_MAGIC:
        return "fasttext-bin"
    header = vectors_stream.read_header(path)
    if header.count is None:
        return "glove"
    return "word2vec-binary" if header.binary else "word2vec-text"


def read_vectors(
    path: str | os.PathLike,
    vocabulary: Iterable[str],
    fmt: str | None = None,
    fold_case: bool = True,
    progress=None,
    should_stop=None,
    ngrams_of: Iterable[str] | None = None,
) -> WordVectors:
    """The vectors of ``vocabulary``'s words in the file at ``path``.

    Parameters
    ----------
    path : str or PathLike
        A vectors file in one of :data:`FORMATS`, plain or gzip-compressed.
    vocabulary : iterable of str
        The words wanted (the project's words); duplicates are ignored.
    fmt : str, optional
        One of :data:`FORMATS`; detected from the content when None.
    fold_case : bool
        A word the file lacks takes the vector of its lower-case form when
        the file has that (GloVe and many fastText files are lower-cased).
    progress : callable(fraction, message), optional
        Reports the fraction of the file read.
    should_stop : callable() -> bool, optional
        Polled every few thousand rows; True raises :class:`~tagtool.errors.Cancelled`.
    ngrams_of : iterable of str, optional
        fastText ``.bin`` only: also keep the vectors of these words'
        character n-grams (Bojanowski et al. 2017, §3.2), the only ones a
        word never seen can be composed from later.

    Returns
    -------
    WordVectors
        The words found, in vocabulary order.  From a fastText ``.bin`` every
        word is found: those it lacks are built from n-grams (``subword``).

    Raises
    ------
    FormatError
        Naming the file (and line) of bad input: a wrong number of values,
        a non-number, a truncated file.
    """
    fmt = detect_format(path) if fmt is None else fmt
    if fmt not in FORMATS:
        raise ValueError(f"unknown vectors format {fmt!r}; known: {', '.join(FORMATS)}")
    vocab = list(dict.fromkeys(vocabulary))
    if fmt == "fasttext-bin":
        vectors = _read_fasttext_bin(path, vocab, fold_case, progress, should_stop, ngrams_of)
    else:
        vectors = _read_streamed(path, vocab, fmt, fold_case, progress, should_stop)
    vectors.source, vectors.fmt = Path(path).name, fmt
    if progress is not None:
        progress(1.0, f"read {len(vectors.words)} vectors from {vectors.source}")
    return vectors


def _read_streamed(path, vocab: list[str], fmt: str, fold_case: bool, progress, should_stop) -> WordVectors:
    header = vectors_stream.read_header(path)
    if (fmt == "glove") != (header.count is None) or header.binary != (fmt == "word2vec-binary"):
        raise FormatError(path, 1, f"is not in the {fmt} layout")
    exact = {w.encode("utf-8") for w in vocab}
    folded = {w.lower().encode("utf-8") for w in vocab} - exact if fold_case else set()
    found: dict[bytes, np.ndarray] = {}

    def keep(word: bytes, parse) -> None:
        if word not in found:  # the first row of a word repeated in the file wins
            found[word] = parse()

    stream = vectors_stream.stream_binary if header.binary else vectors_stream.stream_text
    rows = stream(path, header, exact | folded, keep, progress, should_stop)
    words, matrix = [], []
    for w in vocab:
        row = found.get(w.encode("utf-8"))
        if row is None and fold_case:
            row = found.get(w.lower().encode("utf-8"))
        if row is not None:
            words.append(w)
            matrix.append(row)
    return WordVectors(words, _stack(matrix, header.dim), np.zeros(len(words), dtype=bool), rows_read=rows)


def _stack(rows: list[np.ndarray], dim: int) -> np.ndarray:
    return np.stack(rows).astype(np.float32) if rows else np.zeros((0, dim), dtype=np.float32)


def _read_fasttext_bin(path, vocab: list[str], fold_case: bool, progress, should_stop, ngrams_of=None) -> WordVectors:
    from gensim.models.fasttext import load_facebook_vectors

    if should_stop is not None and should_stop():
        raise Cancelled(f"reading {Path(path).name} cancelled")
    if progress is not None:
        progress(0.0, f"loading {Path(path).name}")
    try:
        with _uncompressed(path, should_stop) as plain:
            kv = load_facebook_vectors(str(plain))
    except (OSError, EOFError, ValueError, AssertionError, NotImplementedError) as e:
        raise FormatError(path, None, f"cannot be read as a fastText .bin model ({e})") from e
    rows, subword = [], []
    for w in vocab:
        key = w if w in kv.key_to_index or not fold_case or w.lower() not in kv.key_to_index else w.lower()
        subword.append(key not in kv.key_to_index)
        rows.append(np.asarray(kv.get_vector(key), dtype=np.float32))
    matrix = _stack(rows, kv.vector_size)
    got = WordVectors(vocab, matrix, np.array(subword, dtype=bool), rows_read=len(kv.key_to_index))
    if ngrams_of is not None:
        got.ngrams, got.ngram_matrix = _ngram_vectors(kv, ngrams_of)
        got.min_n, got.max_n = int(kv.min_n), int(kv.max_n)
    return got


def _ngram_vectors(kv, words: Iterable[str]) -> tuple[list[str], np.ndarray]:
    """The distinct character n-grams of ``words`` (as fastText takes them) and their rows of ``kv``'s n-gram table."""
    from gensim.models.fasttext_inner import ft_hash_bytes  # fastText's FNV-1a hash of an n-gram's bytes

    from tagtool.core.features.wordreps import char_ngrams

    ngrams = list(dict.fromkeys(g for w in words for g in char_ngrams(w, kv.min_n, kv.max_n)))
    rows = np.fromiter(
        (ft_hash_bytes(g.encode("utf-8", "surrogatepass")) % kv.bucket for g in ngrams),
        dtype=np.int64,
        count=len(ngrams),
    )
    return ngrams, np.asarray(kv.vectors_ngrams, dtype=np.float32)[rows]


@contextmanager
def _uncompressed(path, should_stop) -> Iterator[Path]:
    """``path`` itself, or a gzip-compressed file's content in a temporary file (gensim misreads gzip streams)."""
    with open(path, "rb") as fh:
        compressed = fh.read(2) == vectors_stream.GZIP_MAGIC
    if not compressed:
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="tagtool-vectors-") as folder:
        plain = Path(folder) / "model.bin"
        with vectors_stream.open_stream(path) as (stream, _), open(plain, "wb") as out:
            while chunk := stream.read(vectors_stream.CHUNK):
                if should_stop is not None and should_stop():
                    raise Cancelled(f"reading {Path(path).name} cancelled")
                out.write(chunk)
        yield plain


def save_npz(vectors: WordVectors, path: str | os.PathLike) -> None:
    """Write ``vectors`` to ``path`` as an uncompressed npz of plain arrays (no pickled objects)."""
    arrays = {
        "words": np.array(vectors.words, dtype=str),
        "matrix": np.ascontiguousarray(vectors.matrix, dtype=np.float32),
        "subword": np.asarray(vectors.subword, dtype=bool),
        "source": np.array(vectors.source, dtype=str),
        "fmt": np.array(vectors.fmt, dtype=str),
    }
    with atomic_write(Path(path), None) as fh:
        np.savez(fh, allow_pickle=False, **arrays)


def load_npz(path: str | os.PathLike) -> WordVectors:
    """The vectors :func:`save_npz` wrote, read with ``allow_pickle=False``."""
    try:
        with np.load(path, allow_pickle=False) as z:
            words = [str(w) for w in z["words"]]
            matrix = np.asarray(z["matrix"], dtype=np.float32)
            subword = np.asarray(z["subword"], dtype=bool)
            source, fmt = str(z["source"]), str(z["fmt"])
    except (OSError, ValueError, KeyError) as e:
        raise FormatError(path, None, f"is not a word-vectors file ({e})") from e
    if matrix.ndim != 2 or matrix.shape[0] != len(words) or subword.shape != (len(words),):
        raise FormatError(path, None, f"holds {len(words)} words but a {matrix.shape} matrix")
    return WordVectors(words, matrix, subword, source, fmt)

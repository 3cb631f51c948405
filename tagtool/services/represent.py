"""Learning word representations from a project's own text (FastText + spherical k-means).

:func:`learn_representations` turns the sentences of a project — labeled or
not — and any extra raw text into a
:class:`~tagtool.core.features.wordreps.WordRepresentations`:

1. **Vectors.**  gensim's FastText, skip-gram with negative sampling
   (Bojanowski et al. 2017), 100 dimensions, window 5, words seen at least
   twice, 10 epochs, character 3–5-grams.  FastText was chosen over
   word2vec because its n-gram vectors give a representation to words the
   text never had, which helped a CRF more than word2vec's on NCBI disease
   (benchmarks/results/design-measurements.md, "Word representations").  Training runs epoch by epoch on one thread, so
   progress is reported, a cancel takes effect after the current epoch,
   and the same text gives the same vectors.
2. **Clusters.**  Spherical k-means (cosine; Dhillon & Modha 2001) of the
   unit vectors at every granularity (64, 256, 1024 by default, capped at
   a quarter of the vocabulary), Lloyd iterations as matrix products.

gensim is imported here only, and only when representations are learned;
nothing gensim writes is kept (its own save format pickles): the result is
plain arrays.

References
----------
.. [1] P. Bojanowski, E. Grave, A. Joulin, T. Mikolov. Enriching word
   vectors with subword information. TACL 5, 2017.
.. [2] I. S. Dhillon, D. S. Modha. Concept decompositions for large sparse
   text data using clustering. Machine Learning 42, 2001 (spherical k-means).
.. [3] J. Guo, W. Che, H. Wang, T. Liu. Revisiting embedding features for
   simple semi-supervised learning. EMNLP 2014.
"""

from __future__ import annotations

import logging
import time
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

from tagtool.core.features.wordreps import WordRepresentations, char_ngrams, normalise_word, quantised_ngrams
from tagtool.core.labels import LabelSet
from tagtool.errors import TagtoolError
from tagtool.learn.progress import ProgressCallback, StopCallback, TrainingMonitor

logger = logging.getLogger(__name__)


class RepresentationError(TagtoolError, ValueError):
    """Word representations cannot be learned (too little text, bad settings)."""


@dataclass(frozen=True)
class RepresentationSettings:
    """How :func:`learn_representations` learns (see the module docstring for the choices)."""

    method: str = "fasttext"
    dim: int = 100
    window: int = 5
    min_count: int = 2
    epochs: int = 10
    min_n: int = 3
    max_n: int = 5
    granularities: tuple[int, ...] = (64, 256, 1024)
    kmeans_iterations: int = 25
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("dim", "window", "min_count", "epochs", "min_n", "kmeans_iterations"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise RepresentationError(f"{name} must be a positive int, got {value!r}")
        if self.method not in ("fasttext", "word2vec"):
            raise RepresentationError(f"method must be fasttext or word2vec, got {self.method!r}")
        if self.max_n < self.min_n:
            raise RepresentationError("max_n must be at least min_n")
        if not self.granularities or any(not isinstance(k, int) or k < 2 for k in self.granularities):
            raise RepresentationError(f"granularities must be ints >= 2, got {self.granularities!r}")


#: Fewest distinct words (seen ``min_count`` times) worth learning vectors for.
MIN_VOCABULARY = 50

#: Tokens of text from which the app uses word representations by default,
#: chosen on the development suite (benchmarks/results/design-measurements.md,
#: "Word representations").  Below it they stay off unless set on.
MIN_AUTO_TEXT_TOKENS = 200_000


#: Labeled sentences from which the "auto" rule lets a two-view learner read the
#: representations when the labels are spans (chunks, entities).  With 20 labeled
#: sentences raw-text representations lowered both two-view learners' span F1 on
#: all three span corpora, from 100 on they were at or above the learners without
#: them (benchmarks/results/knowledge.md, "At their defaults").
MIN_TWO_VIEW_SPAN_SENTENCES = 100


def wanted_by_default(text_tokens: int) -> bool:
    """The app's rule for "auto": word representations pay once the project holds enough text."""
    return text_tokens >= MIN_AUTO_TEXT_TOKENS


def held_back_by_default(two_view: bool, sentences: Iterable) -> str:
    """Why the "auto" rule keeps learned representations out of a training run ("" when it does not).

    A two-view learner on span labels reads them only from
    :data:`MIN_TWO_VIEW_SPAN_SENTENCES` labeled sentences (fully or partly):
    below that the extra features gave its co-training views more to
    disagree on than the few labels could settle.  Other learners, and
    labels that are not spans (part of speech), read them as soon as they
    are learned.

    Parameters
    ----------
    two_view : bool
        The learner's :attr:`~tagtool.learn.base.Learner.two_view`.
    sentences : iterable of Sentence
        The training sentences, labeled or not.
    """
    if not two_view:
        return ""
    names: set[str] = set()
    labeled = 0
    for sentence in sentences:
        if sentence.status != "none":
            labeled += 1
            names.update(name for labels in sentence.annotations for name in labels)
            if labeled >= MIN_TWO_VIEW_SPAN_SENTENCES:  # enough: a big project is not read to its end
                return ""
    if not names or not LabelSet.from_observed(names).is_span_scheme:
        return ""
    return (
        f"a two-view learner reads them on span labels from {MIN_TWO_VIEW_SPAN_SENTENCES} labeled "
        f"sentences ({labeled} so far)"
    )


def _stable_hash(text: str) -> int:
    # gensim seeds per-word vectors through hashfxn; Python's hash() differs between runs.
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def text_of(sentences: Iterable) -> list[list[str]]:
    """Normalised token lists of sentences (Sentence objects or token lists) and raw lines."""
    out = []
    for sentence in sentences:
        tokens = getattr(sentence, "tokens", sentence)
        if isinstance(tokens, str):
            tokens = tokens.split()
        if tokens:
            out.append([normalise_word(t) for t in tokens])
    return out


def read_text_file(path, **options) -> list[list[str]]:
    """Tokens of each sentence of a plain UTF-8 text file, read as raw text is (:mod:`tagtool.store.formats.text`).

    ``options`` are the raw-text reader's (``tokenizer``, ``sentence_split``,
    ``document_unit``). Sentences need not be right: the vectors only read
    which words occur near which. A byte that is not UTF-8 is an error
    naming the file and line.
    """
    from tagtool.errors import FormatError
    from tagtool.store.formats import iter_sentences

    try:
        return [list(s.tokens) for s in iter_sentences(path, "text", label_column=None, **options)]
    except FormatError as exc:
        if exc.line is not None and "cannot decode" in exc.message:
            raise RepresentationError(f"{path}:{exc.line}: not UTF-8 text ({exc.message})") from None
        if exc.message.startswith("empty file"):
            return []
        raise


def learn_representations(
    sentences: Iterable,
    settings: RepresentationSettings | None = None,
    *,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> WordRepresentations:
    """Learn FastText vectors and their clusters from ``sentences`` (module docstring).

    Parameters
    ----------
    sentences : iterable of Sentence, token lists or raw text lines
        All the text: labels are not read.
    settings : RepresentationSettings, optional
    progress, should_stop : callables
        The learners' progress/cancel contract (:mod:`tagtool.learn.progress`);
        a cancel raises :class:`~tagtool.errors.Cancelled`.

    Raises
    ------
    RepresentationError
        Fewer than :data:`MIN_VOCABULARY` words occur ``min_count`` times.
    """
    settings = settings or RepresentationSettings()
    monitor = TrainingMonitor(progress, should_stop)
    text = text_of(sentences)
    n_tokens = sum(map(len, text))
    tic = time.perf_counter()
    model = _fasttext(text, settings, monitor)
    words = list(model.wv.index_to_key)
    vectors = _unit_rows(np.asarray(model.wv.vectors, dtype=np.float32))
    if settings.method == "fasttext":
        ngrams, ngram_vectors = _vocabulary_ngrams(model, words, settings)
    else:  # word2vec: no subword vectors, unseen words get no feature
        ngrams, ngram_vectors = [], np.zeros((0, settings.dim), dtype=np.float32)
    clusters, centres = {}, {}
    ks = granularities(settings.granularities, len(words))
    for i, k in enumerate(ks):
        monitor.report(0.8 + 0.2 * i / len(ks), f"clustering words: {k} clusters")
        centres[k], clusters[k] = spherical_kmeans(vectors, k, settings.kmeans_iterations, settings.seed, monitor)
    info = {
        **asdict(settings), "method": f"{settings.method}-skipgram", "granularities": list(ks),
        "n_sentences": len(text), "n_tokens": n_tokens, "n_words": len(words),
        "seconds": round(time.perf_counter() - tic, 2),
    }  # fmt: skip
    monitor.done(f"word representations: {len(words)} words, {n_tokens} tokens of text")
    logger.info(
        "learned word representations of %d words from %d tokens in %.1f s", len(words), n_tokens, info["seconds"]
    )
    return WordRepresentations(
        words=words, vectors=vectors, clusters=clusters, centres=centres,
        **dict(zip(("ngrams", "ngram_vectors", "ngram_scale"), quantised_ngrams(ngrams, ngram_vectors))),
        info=info,
    )  # fmt: skip


def _fasttext(text: list[list[str]], settings: RepresentationSettings, monitor: TrainingMonitor):
    """A trained gensim FastText model: vocabulary, then one epoch per call (progress and cancel between)."""
    # gensim is heavy: imported only when representations are learned.
    from gensim.models import FastText, Word2Vec

    common = dict(
        vector_size=settings.dim, window=settings.window, min_count=settings.min_count, sg=1,
        seed=settings.seed, workers=1, hashfxn=_stable_hash,
    )  # fmt: skip
    if settings.method == "fasttext":
        model = FastText(min_n=settings.min_n, max_n=settings.max_n, bucket=2**18, **common)
    else:
        model = Word2Vec(**common)
    monitor.report(0.0, "word representations: reading the text", force=True)
    model.build_vocab(corpus_iterable=text)
    n_words = len(model.wv.index_to_key)
    if n_words < MIN_VOCABULARY:
        raise RepresentationError(
            f"too little text for word representations: {n_words} distinct words occur "
            f"{settings.min_count}+ times (at least {MIN_VOCABULARY} are needed)"
        )
    start, end = model.alpha, model.min_alpha
    for epoch in range(settings.epochs):
        monitor.report(
            0.05 + 0.75 * epoch / settings.epochs, f"word vectors: epoch {epoch + 1}/{settings.epochs}", force=True
        )
        a0 = start - (start - end) * epoch / settings.epochs
        a1 = start - (start - end) * (epoch + 1) / settings.epochs
        model.train(
            corpus_iterable=text, total_examples=model.corpus_count, epochs=1, start_alpha=a0, end_alpha=a1,
        )  # fmt: skip
    return model


def _vocabulary_ngrams(model, words: Sequence[str], settings: RepresentationSettings) -> tuple[list[str], np.ndarray]:
    """The n-grams of the vocabulary's words and their trained FastText vectors.

    Only these n-grams were updated by training; the other hash buckets
    still hold their random start, so they are left out (see
    :meth:`~tagtool.core.features.wordreps.WordRepresentations.subword_vector`).
    """
    from gensim.models.fasttext_inner import ft_hash_bytes  # FastText's FNV-1a hash of an n-gram's bytes

    ngrams = list(dict.fromkeys(g for w in words for g in char_ngrams(w, settings.min_n, settings.max_n)))
    bucket = model.wv.bucket
    rows = np.fromiter((ft_hash_bytes(g.encode("utf-8")) % bucket for g in ngrams), dtype=np.int64, count=len(ngrams))
    return ngrams, np.asarray(model.wv.vectors_ngrams, dtype=np.float32)[rows]


def granularities(requested: Sequence[int], n_words: int) -> tuple[int, ...]:
    """The requested cluster counts, each capped at a quarter of the vocabulary, without repeats."""
    cap = max(2, n_words // 4)
    return tuple(dict.fromkeys(min(k, cap) for k in requested))


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def spherical_kmeans(
    vectors: np.ndarray, k: int, iterations: int = 25, seed: int = 0, monitor: TrainingMonitor | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Spherical k-means (Dhillon & Modha 2001) of unit rows: centres and the cluster of every row.

    Lloyd's iterations with cosine similarity: assign each row to the centre
    of largest dot product, set each centre to the normalised sum of its
    rows.  Starts from ``k`` distinct rows drawn at random; an emptied
    cluster restarts from the row farthest from its centre.  Stops early
    when no row changes cluster.
    """
    n = len(vectors)
    if not 1 <= k <= n:
        raise RepresentationError(f"cannot make {k} clusters of {n} words")
    rng = np.random.default_rng(seed)
    centres = vectors[rng.choice(n, k, replace=False)].copy()
    assignment = np.full(n, -1, dtype=np.int64)
    for _ in range(iterations):
        if monitor is not None:
            monitor.check()
        similarity = vectors @ centres.T
        new = np.argmax(similarity, axis=1)
        if np.array_equal(new, assignment):
            break
        assignment = new
        sums = np.zeros_like(centres)
        np.add.at(sums, assignment, vectors)
        empty = np.flatnonzero(np.linalg.norm(sums, axis=1) == 0)
        if len(empty):
            farthest = np.argsort(similarity[np.arange(n), assignment])[: len(empty)]
            sums[empty] = vectors[farthest]
        centres = _unit_rows(sums)
    return centres.astype(np.float32), np.argmax(vectors @ centres.T, axis=1).astype(np.int32)

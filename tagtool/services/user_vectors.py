"""Word vectors a user brings: read from a file, kept for a project's words, clustered, stored (``vec`` sets).

:func:`load_user_vectors` turns a pretrained vectors file — word2vec text or
binary (Mikolov et al. 2013), GloVe text (Pennington et al. 2014), fastText
``.vec`` or ``.bin`` (Bojanowski et al. 2017), plain or gzip-compressed,
read by :func:`tagtool.store.vectors.read_vectors` in bounded memory — into
a :class:`~tagtool.core.features.wordreps.WordRepresentations`, the same
arrays the project's own representations are (:mod:`tagtool.services.represent`):

1. **Words kept.**  The vectors of the vocabulary's words only (a word the
   file lacks takes its lower-case form's vector), as unit rows under
   their :func:`~tagtool.core.features.wordreps.normalise_word` forms;
   words that share a form (``1998`` and ``2003`` → ``0000``) get the
   normalised mean of their vectors.
2. **Clusters.**  Spherical k-means (Dhillon & Modha 2001) at the
   granularities of the ``dist`` sets (64, 256, 1024, capped at a quarter
   of the words): :func:`tagtool.services.represent.spherical_kmeans`.
3. **Unseen words.**  From a fastText ``.bin``, the n-gram vectors of the
   vocabulary's character n-grams are kept too, so a tagger composes a
   vector for a word it never saw, as
   :meth:`~tagtool.core.features.wordreps.WordRepresentations.subword_vector`
   does.  From any other file an unseen word is looked up as it is, then
   lower-cased, and otherwise gets no ``vec`` feature (measured against the
   ``.bin`` in benchmarks/results/user_vectors.md).

The features (``vec``: clusters; ``vec-dims``: binarised dimensions, Guo et
al. 2014) are read from the extractor's second slot,
``FeatureExtractor(vectors=...)``, so they stack with ``dist``.  The project
keeps the result in its resources table (kind ``vectors``, name
``vectors``) as an ``.npz`` of numbers: no pickle.

References
----------
.. [1] P. Bojanowski, E. Grave, A. Joulin, T. Mikolov. Enriching word
   vectors with subword information. TACL 5, 2017.
.. [2] I. S. Dhillon, D. S. Modha. Concept decompositions for large sparse
   text data using clustering. Machine Learning 42, 2001.
.. [3] J. Guo, W. Che, H. Wang, T. Liu. Revisiting embedding features for
   simple semi-supervised learning. EMNLP 2014, §3.2–3.3.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from tagtool.core.features.wordreps import VEC_SETS, WordRepresentations, normalise_word, quantised_ngrams
from tagtool.core.params import Param, ParamTable
from tagtool.errors import TagtoolError
from tagtool.learn.progress import ProgressCallback, StopCallback, TrainingMonitor
from tagtool.services.represent import RepresentationSettings, granularities, spherical_kmeans

logger = logging.getLogger(__name__)

#: The resource kind and name the project keeps its vectors under (:mod:`tagtool.store.resources`).
KIND = "vectors"
NAME = "vectors"
#: The project ``meta`` row holding :data:`VECTOR_PARAMS`'s ``use``.
USE_META = "vectors.use"

#: The project's setting for its stored vectors (``tagtool vectors PROJECT --use off``).
VECTOR_PARAMS = ParamTable(
    Param(
        "use",
        str,
        "on",
        "training on the project reads its stored word vectors (the vec set added) unless off",
        choices=("on", "off"),
    ),
    owner="vectors",
)


class UserVectorsError(TagtoolError, ValueError):
    """A vectors file that gives nothing to use (no word of the project in it)."""


def load_user_vectors(
    path: str | os.PathLike,
    vocabulary: Iterable[str],
    *,
    fmt: str | None = None,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> WordRepresentations:
    """The vectors file's vectors of ``vocabulary``'s words, clustered like the ``dist`` ones (module docstring).

    Parameters
    ----------
    path : str or PathLike
        A vectors file (:data:`tagtool.store.vectors.FORMATS`), plain or gzip.
    vocabulary : iterable of str
        The project's words (tokens as written; repeats are ignored).
    fmt : str, optional
        The file's layout; detected from its content when None.
    progress, should_stop : callables
        Progress (reading is most of it, then clustering) and cancel: a
        cancel raises :class:`~tagtool.errors.Cancelled`.

    Returns
    -------
    WordRepresentations
        ``info``: ``source`` ("vectors file"), ``file`` (name), ``format``,
        ``dim``, ``words`` (kept), ``from_subwords`` (of them composed from
        n-grams), ``vocabulary`` (words asked for), ``granularities``, and
        for a ``.bin`` ``min_n``/``max_n``/``ngrams``.

    Raises
    ------
    FormatError
        Bad input, naming the file (and line).
    UserVectorsError
        None of the vocabulary's words is in the file.
    """
    from tagtool.store.vectors import read_vectors

    monitor = TrainingMonitor(progress, should_stop)
    vocab = [w for w in dict.fromkeys(vocabulary) if w]
    forms = list(dict.fromkeys(normalise_word(w) for w in vocab))
    reading = None if progress is None else (lambda fraction, message: progress(0.8 * fraction, message))
    read = read_vectors(path, vocab, fmt, True, reading, should_stop, ngrams_of=forms)
    if not read.words:
        raise UserVectorsError(f"{Path(path).name}: none of the {len(vocab):,} words asked for has a vector in it")
    words, vectors = _by_form(read.words, read.matrix)
    ks = granularities(RepresentationSettings().granularities, len(words))
    clusters, centres = {}, {}
    for i, k in enumerate(ks):
        monitor.report(0.8 + 0.2 * i / len(ks), f"clustering the vectors: {k} clusters", force=True)
        centres[k], clusters[k] = spherical_kmeans(vectors, k, RepresentationSettings().kmeans_iterations, 0, monitor)
    info = {
        "source": "vectors file", "file": read.source, "format": read.fmt, "dim": read.dim,
        "words": len(words), "from_subwords": int(np.sum(read.subword)), "vocabulary": len(vocab),
        "granularities": list(ks), "rows_read": int(read.rows_read),
    }  # fmt: skip
    ngram_fields: dict = {}
    if read.ngrams and read.ngram_matrix is not None:
        info.update(min_n=read.min_n, max_n=read.max_n, ngrams=len(read.ngrams))
        ngram_fields = dict(
            zip(("ngrams", "ngram_vectors", "ngram_scale"), quantised_ngrams(read.ngrams, read.ngram_matrix))
        )
    monitor.done(f"word vectors: {len(words):,} of {len(vocab):,} words from {read.source}")
    logger.info("kept %d vectors of %d words from %s (%s)", len(words), len(vocab), read.source, read.fmt)
    return WordRepresentations(
        words=tuple(words), vectors=vectors, clusters=clusters, centres=centres, info=info, **ngram_fields
    )


def _by_form(words: list[str], matrix: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Unit rows under normalised forms; the normalised mean where several words share a form."""
    forms = [normalise_word(w) for w in words]
    order = list(dict.fromkeys(forms))
    row_of = {f: i for i, f in enumerate(order)}
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit = matrix / np.where(norms == 0, 1.0, norms)
    sums = np.zeros((len(order), matrix.shape[1]), dtype=np.float32)
    np.add.at(sums, np.fromiter((row_of[f] for f in forms), dtype=np.int64, count=len(forms)), unit)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return order, (sums / np.where(norms == 0, 1.0, norms)).astype(np.float32)


# -- the project's vectors (tagtool.store.resources) -------------------------


def project_vocabulary(project) -> list[str]:
    """The words of a project's sentences and added texts, each once, in order of first occurrence.

    What :func:`load_user_vectors` keeps vectors of (read on the caller's thread).
    """
    words: dict[str, None] = {}
    for sentence in project.corpus():
        words.update(dict.fromkeys(sentence.tokens))
    for line in project.stored.text_lines():
        words.update(dict.fromkeys(line))
    return list(words)


def _info(reps: WordRepresentations) -> dict:
    return {**dict(reps.info), "fingerprint": reps.fingerprint}


def store_vectors(stored, reps: WordRepresentations) -> None:
    """Keep ``reps`` in the project (``project.stored``), replacing vectors stored before."""
    stored.add_resource(KIND, NAME, reps.to_bytes(), _info(reps))


def store_vectors_in_file(path, reps: WordRepresentations) -> None:
    """:func:`store_vectors` through the calling thread's own connection to the project file at ``path``.

    For the app's worker thread (:func:`tagtool.store.resources.put_in_file`).
    """
    from tagtool.store.resources import put_in_file

    put_in_file(path, KIND, NAME, reps.to_bytes(), _info(reps))


def project_vectors(stored) -> WordRepresentations | None:
    """The vectors kept in the project, or None."""
    data = stored.resource_data(KIND, NAME)
    return None if data is None else WordRepresentations.from_bytes(data)


def vectors_info(stored) -> dict | None:
    """What the stored vectors are (their ``info`` and ``fingerprint``, ``size`` in bytes), without reading them."""
    for record in stored.resources(KIND):
        if record.name == NAME:
            return {**record.info, "size": record.size, "added": record.added}
    return None


def remove_vectors(stored) -> bool:
    """Remove the project's vectors; False if it had none."""
    return bool(stored.remove_resource(KIND, NAME))


def describe(info: Mapping | None) -> str:
    """One line on vectors (the ``info`` of :func:`load_user_vectors`): for ``tagtool info`` and the model panel."""
    if not info:
        return "none"
    subwords = f", {info['from_subwords']:,} from subwords" if info.get("from_subwords") else ""
    ngrams = ", unseen words from n-grams" if info.get("ngrams") else ""
    return (
        f"{info.get('file', '?')} ({info.get('format', '?')}, dim {info.get('dim', '?')}): "
        f"{info.get('words', 0):,} of {info.get('vocabulary', 0):,} words{subwords}{ngrams}"
        + (f" [{info['fingerprint']}]" if info.get("fingerprint") else "")
    )


# -- the project's setting and the default rule ------------------------------


def vectors_use(project) -> str:
    """The project's ``use`` setting (:data:`VECTOR_PARAMS`): ``on`` unless set."""
    value = project.meta.get(USE_META, VECTOR_PARAMS["use"].default)
    return VECTOR_PARAMS.check({"use": value}, "vectors.")["use"]


def set_vectors_use(project, value: str) -> None:
    """Keep the ``use`` setting in the project (checked by :data:`VECTOR_PARAMS`)."""
    project.set_meta(USE_META, VECTOR_PARAMS.check({"use": value}, "vectors.")["use"])


def vector_sets(sentences: Iterable | None = None) -> tuple[str, ...]:
    """The ``vec`` feature sets the default rule adds for training ``sentences``.

    None for labels that are B-/I- spans (chunks, entities); for word-class
    tagging — labels that are not spans, such as part of speech — the
    clusters (``vec``), and the binarised dimensions too (``vec-dims``) on
    plain tokens (no input column).  Measured in
    benchmarks/results/user_vectors.md and benchmarks/results/knowledge.md
    (vectors from other English text): they paid for part of speech, and on
    chunking and NER they stayed near neutral at best and cost the default
    learner disease-NER F1 beyond one standard error at L = 500.  A feature
    set that names ``vec`` reads them on any labels.
    """
    from tagtool.core.features.columns import input_columns

    columns: dict[str, None] = {}
    names: set[str] = set()
    for sentence in sentences or ():
        columns.update(dict.fromkeys(getattr(sentence, "columns", {}) or {}))
        names.update(n for labels in getattr(sentence, "annotations", ()) for n in labels)
    if not names or spans_only(names):
        return ()
    return VEC_SETS[:1] if input_columns(tuple(columns)) else VEC_SETS


def spans_only(label_names: Iterable[str]) -> bool:
    """Whether labels named ``label_names`` are B-/I- spans: the default rule adds no ``vec`` set for them."""
    from tagtool.core.labels import LabelSet

    names = [n for n in label_names if n]
    return not names or LabelSet.from_observed(names).is_span_scheme


def vectors_for_training(project, named: bool = False) -> WordRepresentations | None:
    """The project's vectors when a training run should read them, else None.

    Stored, unless the feature sets name them (``named``): ``use`` not ``off`` and labels the default rule
    adds a ``vec`` set for (:func:`vector_sets`: not spans).
    """
    if not named and (vectors_use(project) == "off" or spans_only(project.labels.names)):
        return None
    return project_vectors(project.stored)

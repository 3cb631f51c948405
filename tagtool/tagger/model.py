"""The exported tagger: a trained model with everything needed to tag text.

A :class:`Tagger` bundles the label set, the fitted feature extractor, the
view split and the :class:`~tagtool.learn.chain.ChainModel` of a learner.
It tags sentences without Qt and without the project store, and it is saved
as one file (docs/design.md#tagger-file) whose layout, writing and checked reading are
:mod:`tagtool.tagger.file_format`, :mod:`tagtool.tagger.arrays` and
:mod:`tagtool.tagger.reading`; :func:`load_tagger` reads one.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from os import PathLike
from pathlib import Path

import numpy as np

from tagtool import __version__
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.learn.chain import ChainModel, ModelMismatchError
from tagtool.store.atomic import atomic_write
from tagtool.tagger.file_format import FORMAT_NAME, FORMAT_VERSION, write_archive
from tagtool.tagger.inputs import check_input, record_for
from tagtool.tagger.reading import check_readable_path, read_tagger

logger = logging.getLogger(__name__)


def _as_sentence(item) -> Sentence:
    """A :class:`Sentence` without annotations (tagging never looks at them)."""
    if isinstance(item, Sentence):
        return item.unlabeled() if any(item.annotations) else item
    return Sentence(tuple(item))


@dataclass(eq=False)
class Tagger:
    """A trained tagger: labels, features, views and the model's weights.

    Parameters
    ----------
    labels : LabelSet
        Label order of the model's score columns.
    extractor : FeatureExtractor
        Fitted; maps sentences into the model's feature columns.
    view_split : ViewSplit or None
        How the features were divided between two views (None for a
        single-view model).  The per-feature views themselves travel in
        ``model.feature_view``, so tagging never recomputes them.
    model : ChainModel
    metrics : dict, optional
        JSON-compatible scores measured by whoever trained it.
    created : str, optional
        ISO 8601 time stamp (set on creation).
    input_columns : dict, optional
        The extra columns tagging needs and the expected loss without them
        (:mod:`tagtool.tagger.inputs`); default: the extractor's columns,
        loss unknown.
    """

    labels: LabelSet
    extractor: FeatureExtractor
    view_split: ViewSplit | None
    model: ChainModel
    metrics: dict = field(default_factory=dict)
    created: str = ""
    input_columns: dict | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.labels, LabelSet):
            self.labels = LabelSet(self.labels)
        if tuple(self.labels) != self.model.labels:
            raise ModelMismatchError(f"tagger labels {tuple(self.labels)} differ from the model's {self.model.labels}")
        if self.extractor.n_features_ != self.model.n_features:
            raise ModelMismatchError(
                f"the feature extractor has {self.extractor.n_features_} features, the model {self.model.n_features}"
            )
        if not self.created:
            self.created = datetime.now(UTC).isoformat(timespec="seconds")
        if self.input_columns is None:
            self.input_columns = record_for(self.extractor.columns_)

    @property
    def learner(self) -> str:
        return self.model.learner

    @property
    def two_view(self) -> bool:
        return self.model.n_views == 2

    # -- tagging ---------------------------------------------------------

    def snapshot(self, sentences: Iterable, block: int | None = None) -> Snapshot:
        """The model's feature arrays of ``sentences`` (annotations ignored).

        ``block``: sentences per feature transform (default
        :data:`~tagtool.core.snapshot.TRANSFORM_BLOCK`).
        """
        sentences = [_as_sentence(s) for s in sentences]
        return build_snapshot(sentences, self.labels, self.extractor, self.model.feature_view, block=block)

    def predict(self, sentences: Iterable, block: int | None = None) -> tuple[Snapshot, np.ndarray]:
        """Snapshot of ``sentences`` and the Viterbi label index of every token (``block`` as in :meth:`snapshot`)."""
        snapshot = self.snapshot(sentences, block)
        return snapshot, self.model.predict(snapshot)

    def check_input(self, sentences: Iterable, source: str = "", allow_missing_columns: bool = False) -> list[str]:
        """Warnings for ``sentences`` that lack a column the features read (see :meth:`tag`).

        Raises
        ------
        TaggerInputError
            A column is missing and ``allow_missing_columns`` is False; the
            message names ``source``, the column and the expected loss.
        """
        return check_input(self.input_columns, sentences, source, allow_missing_columns)

    def tag(self, sentences: Iterable, *, allow_missing_columns: bool = False) -> list[list[str]]:
        """Predicted labels, one list per sentence.

        Parameters
        ----------
        sentences : iterable of Sentence or of token sequences
        allow_missing_columns : bool
            Tag sentences lacking an extra column the tagger was trained
            with (from their tokens alone, at the recorded expected loss).

        Raises
        ------
        TaggerInputError
            A sentence lacks such a column and ``allow_missing_columns`` is False.
        """
        names, bounds = self.tag_flat(sentences, allow_missing_columns=allow_missing_columns)
        return [names[a:b] for a, b in zip(bounds, bounds[1:])]

    def tag_flat(
        self, sentences: Iterable, *, allow_missing_columns: bool = False, block: int | None = None
    ) -> tuple[list[str], list[int]]:
        """Predicted labels of every token, concatenated, and the sentence bounds into them.

        Sentence ``i``'s labels are ``names[bounds[i]:bounds[i + 1]]``; what
        :meth:`tag` returns, without a list per sentence (writers that go
        column by column need none).  ``block`` as in :meth:`snapshot`.
        Raises as :meth:`tag`.
        """
        sentences = list(sentences)
        if not sentences:
            return [], [0]
        self.check_input(sentences, allow_missing_columns=allow_missing_columns)
        snapshot, paths = self.predict(sentences, block)
        return np.asarray(self.labels.names, dtype=object)[paths].tolist(), snapshot.offsets.tolist()

    def tag_corpus(self, corpus: Corpus | Iterable[Sentence], *, allow_missing_columns: bool = False) -> Corpus:
        """A copy of ``corpus`` whose annotations are the predictions (full labels).

        Documents, extra columns and sentence meta are kept; the label set is
        the tagger's.  ``allow_missing_columns`` as in :meth:`tag`.
        """
        documents = corpus.documents if isinstance(corpus, Corpus) else (Document("tagged", tuple(corpus)),)
        flat = [s for d in documents for s in d.sentences]
        predicted = iter(self.tag(flat, allow_missing_columns=allow_missing_columns))
        # One frozenset per label, shared by every token that gets it: building
        # one per token was a sixth of the tagging time of ``tagtool tag``.
        full = {name: frozenset((name,)) for name in self.labels.names}
        tagged = []
        for document in documents:
            sentences = tuple(
                replace(s, annotations=tuple(map(full.__getitem__, next(predicted)))) for s in document.sentences
            )
            tagged.append(Document(document.name, sentences))
        return Corpus(self.labels, tuple(tagged))

    def score_tokens(self, sentences: Iterable) -> list[np.ndarray]:
        """Per-token label scores ``[T, L]`` of every sentence.

        Token marginals for probabilistic models (CRFs), else max-marginal
        margins (0 for the best label, negative for the others); see
        :meth:`~tagtool.learn.chain.ChainModel.score_tokens`.
        """
        sentences = list(sentences)
        if not sentences:
            return []
        snapshot = self.snapshot(sentences)
        scores = self.model.score_tokens(snapshot)
        return [scores[snapshot.sentence_slice(i)] for i in range(snapshot.n_sentences)]

    def disagreement(self, sentences: Iterable) -> list[tuple[list[str], list[str]]]:
        """Each view's Viterbi labels per sentence: ``[(view0, view1), ...]`` (two-view models).

        Tokens where the two lists differ are where the views disagree
        (docs/design.md#guidance).
        """
        sentences = list(sentences)
        if not sentences:
            return []
        snapshot = self.snapshot(sentences)
        y0, y1 = self.model.disagreement(snapshot)
        names = np.asarray(self.labels.names, dtype=object)
        out = []
        for i in range(snapshot.n_sentences):
            rows = snapshot.sentence_slice(i)
            out.append((list(names[y0[rows]]), list(names[y1[rows]])))
        return out

    # -- serialisation ---------------------------------------------------

    def to_meta(self) -> dict:
        """The ``meta.json`` document (see :mod:`tagtool.tagger.file_format`)."""
        view_split = None if self.view_split is None else self.view_split.to_dict()
        return {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "tagtool_version": __version__,
            "created": self.created,
            "labels": list(self.labels),
            "features": self.extractor.to_dict(),
            "view_split": view_split,
            "learner": {"name": self.model.learner, "params": self.model.params},
            "model": self.model.to_meta(),
            "metrics": self.metrics,
            "input_columns": self.input_columns,
        }

    def to_bytes(self) -> bytes:
        """The tagger file's content (the project store keeps model blobs)."""
        buffer = io.BytesIO()
        self._write(buffer)
        return buffer.getvalue()

    def _write(self, stream) -> None:
        reps = self.extractor.representations.to_arrays() if self.extractor.uses_representations else None
        gaz = self.extractor.gazetteers.to_json() if self.extractor.uses_gazetteers else None
        vectors = self.extractor.vectors.to_arrays() if self.extractor.uses_vectors else None
        write_archive(stream, self.to_meta(), self.model.to_arrays(), reps, gaz, vectors)

    def save(self, path: str | PathLike) -> None:
        """Write the tagger file atomically: the target appears only when complete."""
        path = Path(path)
        # Also on Ctrl-C: atomic_write never leaves a half-written temporary file.
        with atomic_write(path, encoding=None) as fh:
            self._write(fh)
        logger.info("saved %s tagger to %s", self.learner, path)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Tagger:
        """Inverse of :meth:`to_bytes`; :class:`~tagtool.tagger.file_format.TaggerFileError` if the
        data is not a valid tagger."""
        return read_tagger(io.BytesIO(data), source, cls)


def load_tagger(path: str | PathLike) -> Tagger:
    """Read a tagger file written by :meth:`Tagger.save`.

    Parameters
    ----------
    path : str or PathLike

    Returns
    -------
    Tagger

    Raises
    ------
    TaggerFileError
        The file is not a tagger file, is damaged or altered, or was
        written by a newer tagtool.
    FileNotFoundError
        No file at ``path``.
    """
    path = Path(path)
    check_readable_path(path)
    with open(path, "rb") as fh:
        return read_tagger(fh, str(path), Tagger)

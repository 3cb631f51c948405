"""The exported tagger: a trained model with everything needed to tag text.

A :class:`Tagger` bundles the label set, the fitted feature extractor, the
view split and the :class:`~tagtool.learn.chain.ChainModel` of a learner.
It tags sentences without Qt and without the project store, and it is saved
as one file (DESIGN §7):

``meta.json``
    ``{"format": "tagtool-tagger", "format_version": 1, "tagtool_version",
    "created" (ISO 8601, UTC), "labels", "features" (the extractor's
    :meth:`~tagtool.core.features.FeatureExtractor.to_dict`: settings and
    vocabulary), "view_split" (``{"kind", "seed"}`` or null for single-view
    models), "learner" (``{"name", "params"}``), "model" (the
    :meth:`~tagtool.learn.chain.ChainModel.to_meta`, with its decoding
    settings ``"decode": {"bio_constraint"}``; a file written before they
    existed decodes with the defaults, so with the BIO constraint), "metrics",
    "input_columns" (the extra columns tagging needs and the expected loss
    without them, :mod:`tagtool.tagger.inputs`; absent in older files)}``.
``weights.npz``
    The model's arrays (:meth:`~tagtool.learn.chain.ChainModel.to_arrays`),
    read back member by member, each ``.npy`` header checked before its
    data (numbers only: an object array, which would need a pickle, is refused).
``representations.npz``
    Only when the features read word representations (the ``dist`` sets):
    :meth:`~tagtool.core.features.wordreps.WordRepresentations.to_arrays`,
    read the same way; ``meta.json`` names them by fingerprint.

Every size a file announces is bounded before memory is reserved for it
(:mod:`tagtool.tagger.limits`): ``meta.json`` at most 256 MiB, all members
together at most 1100 times the file's size (no zip bombs), array shapes
those the meta implies, the feature window at most 64.

Both members sit in a zip archive written atomically (temporary file beside
the target, then ``os.replace``).  No pickle anywhere: a tagger file from a
stranger cannot run code.  Every way a file can be broken — not a zip,
truncated, a member missing, edited JSON, arrays of the wrong shape or type,
a pickle inside the npz, a newer format — raises :class:`TaggerFileError`
with a message that says what is wrong.
"""

from __future__ import annotations

import io
import json
import logging
import lzma
import math
import struct
import tokenize
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from os import PathLike
from pathlib import Path

import numpy as np

from tagtool import __version__
from tagtool.tagger import limits
from tagtool.core.corpus import Corpus, Document, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.errors import TagtoolError
from tagtool.learn.chain import ChainModel, ModelMismatchError
from tagtool.store.atomic import atomic_write
# TaggerInputError is re-exported: tagging errors are imported from here.
from tagtool.tagger.inputs import TaggerInputError, check_input, read_record, record_for  # noqa: F401

logger = logging.getLogger(__name__)

FORMAT_NAME = "tagtool-tagger"
#: Version of the tagger file this tagtool writes (and the newest it reads).
FORMAT_VERSION = 1
META_MEMBER = "meta.json"
WEIGHTS_MEMBER = "weights.npz"
#: Word representations (:mod:`tagtool.core.features.wordreps`), present when the features read them.
REPRESENTATIONS_MEMBER = "representations.npz"
_ARRAY_NAMES = ("weights", "trans", "start", "end", "feature_view")
_META_KEYS = ("labels", "features", "view_split", "learner", "model")


class TaggerFileError(TagtoolError):
    """A tagger file that cannot be read: not one, damaged, altered or too new."""


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
                f"the feature extractor has {self.extractor.n_features_} features, "
                f"the model {self.model.n_features}"
            )
        if not self.created:
            self.created = datetime.now(timezone.utc).isoformat(timespec="seconds")
        if self.input_columns is None:
            self.input_columns = record_for(self.extractor.columns_)

    @property
    def learner(self) -> str:
        return self.model.learner

    @property
    def two_view(self) -> bool:
        return self.model.n_views == 2

    # -- tagging ---------------------------------------------------------

    def snapshot(self, sentences: Iterable) -> Snapshot:
        """The model's feature arrays of ``sentences`` (annotations ignored)."""
        sentences = [_as_sentence(s) for s in sentences]
        return build_snapshot(sentences, self.labels, self.extractor, self.model.feature_view)

    def predict(self, sentences: Iterable) -> tuple[Snapshot, np.ndarray]:
        """Snapshot of ``sentences`` and the Viterbi label index of every token."""
        snapshot = self.snapshot(sentences)
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
        sentences = list(sentences)
        if not sentences:
            return []
        self.check_input(sentences, allow_missing_columns=allow_missing_columns)
        snapshot, paths = self.predict(sentences)
        names = np.asarray(self.labels.names, dtype=object)[paths].tolist()
        bounds = snapshot.offsets.tolist()
        return [names[a:b] for a, b in zip(bounds, bounds[1:])]

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
        (DESIGN §6).
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
        """The ``meta.json`` document (see the module docstring)."""
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
        arrays = io.BytesIO()
        np.savez(arrays, **self.model.to_arrays())
        meta = json.dumps(self.to_meta(), ensure_ascii=False, allow_nan=False)
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
            archive.writestr(META_MEMBER, meta.encode("utf-8"))
            weights = arrays.getvalue()
            archive.writestr(WEIGHTS_MEMBER, weights, compress_type=_compression(weights))
            if self.extractor.uses_representations:
                reps = io.BytesIO()
                np.savez(reps, **self.extractor.representations.to_arrays())
                archive.writestr(REPRESENTATIONS_MEMBER, reps.getvalue())

    def save(self, path: str | PathLike) -> None:
        """Write the tagger file atomically: the target appears only when complete."""
        path = Path(path)
        # Also on Ctrl-C: atomic_write never leaves a half-written temporary file.
        with atomic_write(path, encoding=None) as fh:
            self._write(fh)
        logger.info("saved %s tagger to %s", self.learner, path)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> Tagger:
        """Inverse of :meth:`to_bytes`; :class:`TaggerFileError` if the data is not a valid tagger."""
        return _read(io.BytesIO(data), source)


#: Bytes of the weights that :func:`_compression` tries to compress.
_SAMPLE = 1 << 20


def _compression(data: bytes) -> int:
    """Deflate for weights that shrink by a tenth or more (sparse ones), else store them as they are.

    Dense float weights barely compress (a CoNLL-2000 CRF: 9.9 MB to 9.2 MB),
    and inflating them was a quarter of loading the tagger.  Judged from the
    first :data:`_SAMPLE` bytes.
    """
    sample = data[:_SAMPLE]
    return zipfile.ZIP_DEFLATED if len(zlib.compress(sample, 1)) < 0.9 * len(sample) else zipfile.ZIP_STORED


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
    _check_readable_tagger_path(path)
    with open(path, "rb") as fh:
        return _read(fh, str(path))


# ---------------------------------------------------------------------------
# reading, with every failure turned into TaggerFileError


def read_meta(path: str | PathLike) -> dict:
    """The ``meta.json`` of a tagger file, read within :func:`load_tagger`'s bounds; no weights.

    Raises
    ------
    FileNotFoundError, TaggerFileError
    """
    path = Path(path)
    _check_readable_tagger_path(path)
    fail = _failing(str(path))
    with open(path, "rb") as fh:
        archive, budget = _open_archive(fh, fail)
        with archive:
            return _read_meta(_member(archive, META_MEMBER, fail, budget, limits.meta_limit(budget.file_size)), fail)


def _check_readable_tagger_path(path: Path) -> None:
    """Refuse a missing file, and a project this process holds open.

    Closing a read of a file drops this process's SQLite locks on it
    (:func:`tagtool.store.dbfile.held_by_this_process`), so the project open
    in the window is refused before it is read.
    """
    from tagtool.store.dbfile import held_by_this_process

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    if held_by_this_process(path):
        raise TaggerFileError(f"{path}: a tagtool project open in this program, not a tagger file")


def _failing(source: str):
    def fail(message: str) -> TaggerFileError:
        return TaggerFileError(f"{source}: {message}")

    return fail


def _open_archive(stream, fail) -> tuple[zipfile.ZipFile, limits.Budget]:
    try:
        budget = limits.Budget(stream.seek(0, io.SEEK_END))
        stream.seek(0)
        return zipfile.ZipFile(stream), budget
    except (zipfile.BadZipFile, *_DAMAGED) as exc:
        raise fail(f"not a tagger file (not a zip archive, or truncated: {exc})") from None


def _read(stream, source: str) -> Tagger:
    fail = _failing(source)
    archive, budget = _open_archive(stream, fail)
    with archive:
        meta = _read_meta(_member(archive, META_MEMBER, fail, budget, limits.meta_limit(budget.file_size)), fail)
        sizes = _declared_sizes(meta, fail)
        arrays = _read_arrays(_member(archive, WEIGHTS_MEMBER, fail, budget), fail, budget, sizes)
        reps = None
        if REPRESENTATIONS_MEMBER in archive.namelist():
            reps = _read_representations(_member(archive, REPRESENTATIONS_MEMBER, fail, budget), fail, budget)
    return _assemble(meta, arrays, fail, reps)


def _declared_sizes(meta: dict, fail) -> tuple[int | None, int]:
    """The number of features and of labels ``meta.json`` implies, which bound the arrays' shapes."""
    model_labels = meta["model"].get("labels") if isinstance(meta["model"], dict) else None
    if not isinstance(model_labels, list) or not model_labels:
        raise fail(f"{META_MEMBER} is malformed (the model names no labels)")
    return limits.declared_n_features(meta["features"]), len(model_labels)


#: What the zip, compression and ``.npy`` header parsers raise on damaged
#: data besides ``zipfile.BadZipFile``: an encrypted member (RuntimeError),
#: an unknown compression method (NotImplementedError), a bad stream (zlib,
#: bz2 (OSError) and lzma errors), a header that is not a Python literal
#: (SyntaxError, tokenize.TokenError), absurd sizes (OverflowError, MemoryError).
_DAMAGED = (
    zlib.error, lzma.LZMAError, EOFError, OSError, ValueError, TypeError, KeyError, struct.error,
    RuntimeError, NotImplementedError, SyntaxError, tokenize.TokenError, OverflowError, MemoryError,
)


def _member(archive: zipfile.ZipFile, name: str, fail, budget, limit: int | None = None) -> bytes:
    """Member ``name``, read in bounded chunks (see :mod:`tagtool.tagger.limits`)."""
    if name not in archive.namelist():
        raise fail(f"not a tagger file: the member {name!r} is missing")
    try:
        return limits.read_member(archive, name, budget, fail, limit)
    except (zipfile.BadZipFile, *_DAMAGED) as exc:
        raise fail(f"damaged tagger file: cannot read {name!r} ({type(exc).__name__}: {exc})") from None


def _read_meta(raw: bytes, fail) -> dict:
    try:
        meta = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # undecodable bytes, bad JSON, a number too long to convert
        raise fail(f"{META_MEMBER} is not valid JSON ({exc})") from None
    except RecursionError:
        raise fail(f"{META_MEMBER} is not valid JSON (nested too deeply)") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise fail(f"not a tagger file: {META_MEMBER} does not name the format {FORMAT_NAME!r}")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise fail(f"{META_MEMBER} has no valid format_version ({version!r})")
    if version > FORMAT_VERSION:
        raise fail(
            f"written by a newer tagtool ({meta.get('tagtool_version', '?')}, tagger format {version}); "
            f"this tagtool {__version__} reads format {FORMAT_VERSION} — upgrade tagtool"
        )
    missing = [key for key in _META_KEYS if key not in meta]
    if missing:
        raise fail(f"{META_MEMBER} lacks {', '.join(missing)}")
    return meta


def _read_arrays(raw: bytes, fail, budget, sizes: tuple[int | None, int]) -> dict[str, np.ndarray]:
    """The model's arrays from the npz archive, each checked before it is read.

    The ``.npy`` members are parsed here rather than by ``np.load``, which
    hands back the raw bytes of a member that is no ``.npy`` file and
    allocates whatever shape a header announces before reading the data.
    """
    try:
        npz = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, *_DAMAGED) as exc:
        raise fail(f"{WEIGHTS_MEMBER} is damaged ({exc})") from None
    with npz:
        missing = [name for name in _ARRAY_NAMES if f"{name}.npy" not in npz.namelist()]
        if missing:
            raise fail(f"{WEIGHTS_MEMBER} lacks the arrays {', '.join(missing)}")
        return {name: _npz_array(npz, name, budget, fail, sizes) for name in _ARRAY_NAMES}


def _npz_array(npz: zipfile.ZipFile, name: str, budget, fail, sizes: tuple[int | None, int] | None) -> np.ndarray:
    try:
        info = limits.member_info(npz, f"{name}.npy", budget, fail)
        with npz.open(info) as fh:
            return _read_array(name, fh, info.file_size, fail, sizes)
    except (zipfile.BadZipFile, *_DAMAGED) as exc:
        raise fail(f"damaged tagger file: cannot read {name!r} ({type(exc).__name__}: {exc})") from None


def _read_representations(raw: bytes, fail, budget):
    """The word representations member: every ``.npy`` read as :func:`_read_array` does, then checked as a whole."""
    from tagtool.core.features import FeatureError
    from tagtool.core.features.wordreps import WordRepresentations

    try:
        npz = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, *_DAMAGED) as exc:
        raise fail(f"{REPRESENTATIONS_MEMBER} is damaged ({exc})") from None
    with npz:
        names = [n[: -len(".npy")] for n in npz.namelist() if n.endswith(".npy")]
        arrays = {name: _npz_array(npz, name, budget, fail, None) for name in names}
    try:
        return WordRepresentations.from_arrays(arrays)
    except FeatureError as exc:
        raise fail(f"{REPRESENTATIONS_MEMBER}: {exc}") from None


def _read_array(name: str, stream, size: int, fail, sizes: tuple[int | None, int] | None) -> np.ndarray:
    """One ``.npy`` file of ``size`` bytes: numbers only, the shape the meta implies, as many bytes as announced."""
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f".npy format version {version} is not supported")
    except (*_DAMAGED, RecursionError) as exc:
        raise fail(f"array {name!r} in {WEIGHTS_MEMBER} is damaged ({type(exc).__name__}: {exc})") from None
    if dtype.hasobject:
        # np.load would have to unpickle it: a pickle was slipped in.
        raise fail(f"array {name!r} holds Python objects (a pickle) and cannot be loaded safely")
    if dtype.kind not in "biuf":
        raise fail(f"array {name!r} has dtype {dtype}, expected numbers")
    count = math.prod(shape)
    data_size = size - stream.tell()
    if any(n < 0 for n in shape) or count * dtype.itemsize != data_size:
        raise fail(
            f"array {name!r} in {WEIGHTS_MEMBER} is damaged: its header announces shape {shape} "
            f"of {dtype}, but {data_size} bytes of data follow"
        )
    wrong = None if sizes is None else limits.expected_shape(name, shape, *sizes)
    if wrong:
        raise fail(wrong)
    # Only now, with the size backed by the member's bytes, is the memory reserved.
    flat = np.empty(count, dtype=dtype)
    limits.read_exactly(stream, memoryview(flat.view(np.uint8)), name, fail)
    return flat.reshape(shape, order="F" if fortran_order else "C")


def _assemble(meta: dict, arrays: dict[str, np.ndarray], fail, reps=None) -> Tagger:
    # Local imports of the error types keep the failure modes listed in one place.
    from tagtool.core.features import FeatureError
    from tagtool.core.views import ViewSplitError
    from tagtool.errors import LabelError

    try:
        labels = LabelSet(meta["labels"])
        extractor = _extractor(meta["features"], reps, fail)
        if not all(isinstance(c, str) for c in extractor.columns_):
            # from_dict takes the names as they are; tagging looks them up.
            raise fail(f"{META_MEMBER}: the feature columns must be names, got {list(extractor.columns_)!r:.100}")
        view_split = None if meta["view_split"] is None else ViewSplit.from_dict(meta["view_split"])
        model_meta = dict(meta["model"])
        if tuple(model_meta.get("labels", ())) != tuple(labels):
            raise fail("the model's labels differ from the tagger's")
        for name in ("weights", "feature_view"):
            if arrays[name].ndim < 1 or arrays[name].shape[0] != extractor.n_features_:
                raise fail(
                    f"array {name!r} has shape {arrays[name].shape}, but the feature extractor has "
                    f"{extractor.n_features_} features"
                )
        if not np.isin(arrays["feature_view"], (0, 1)).all():  # checked before the model casts to int8
            raise fail("array 'feature_view' does not give a view (0 or 1) for every feature")
        model = ChainModel.from_parts(model_meta, arrays)
        inputs = read_record(meta.get("input_columns"), extractor.columns_)
        return Tagger(
            labels, extractor, view_split, model, dict(meta.get("metrics") or {}), str(meta.get("created", "")), inputs
        )
    except TaggerFileError:
        raise
    except (FeatureError, ViewSplitError, LabelError, ModelMismatchError) as exc:
        raise fail(f"inconsistent tagger file: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise fail(f"{META_MEMBER} is malformed ({type(exc).__name__}: {exc})") from None



def _extractor(features: dict, reps, fail) -> FeatureExtractor:
    """The fitted extractor of ``meta.json``, with the file's word representations if its features read them."""
    from tagtool.core.features.wordreps import DIST_SETS

    params = features.get("params") if isinstance(features, dict) else None
    sets = str(params.get("feature_set", "")).split("+") if isinstance(params, dict) else []
    if reps is None and any(name in DIST_SETS for name in sets):
        raise fail(f"the features read word representations, but {REPRESENTATIONS_MEMBER} is missing")
    return FeatureExtractor.from_dict(features, reps)

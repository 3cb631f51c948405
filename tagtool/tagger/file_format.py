"""The tagger file: its members and format version, writing them, and reading them back within bounds.

A :class:`~tagtool.tagger.model.Tagger` is saved as one zip file (docs/design.md#tagger-file):

``meta.json``
    ``{"format": "tagtool-tagger", "format_version": 1, "tagtool_version",
    "created" (ISO 8601, UTC), "labels", "features" (the extractor's
    :meth:`~tagtool.core.features.FeatureExtractor.to_dict`: settings and
    vocabulary, its names and (absent from older files) its table, which loads
    without parsing names, see :mod:`tagtool.core.features.serialised`),
    "view_split" (``{"kind", "seed"}`` or null for single-view models), "learner" (``{"name", "params"}``), "model" (the
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
``gazetteers.json``
    Only when the features read dictionaries (the ``gaz`` set): plain JSON,
    :meth:`~tagtool.core.features.gazetteers.Gazetteers.to_json` (the
    entries of every entity type); ``meta.json`` names them by fingerprint.
``vectors.npz``
    Only when the features read the user's word vectors (the ``vec`` sets):
    the same arrays (:mod:`tagtool.services.user_vectors`), read the same way.

Every size a file announces is bounded before memory is reserved for it
(:mod:`tagtool.tagger.limits`): ``meta.json`` at most 256 MiB, all members
together at most 1100 times the file's size (no zip bombs), array shapes
those the meta implies, the feature window at most 64.

Both members sit in a zip archive written atomically (temporary file beside
the target, then ``os.replace``).  No pickle anywhere: a tagger file from a
stranger cannot run code.  Every way a file can be broken — not a zip,
truncated, a member missing, edited JSON, arrays of the wrong shape or type,
a pickle inside the npz, a newer format — raises :class:`TaggerFileError`
with a message that says what is wrong.  The arrays are read by
:mod:`tagtool.tagger.arrays`, the whole file by :mod:`tagtool.tagger.reading`.
"""

from __future__ import annotations

import io
import json
import lzma
import struct
import tokenize
import zipfile
import zlib

import numpy as np

from tagtool import __version__
from tagtool.errors import TagtoolError
from tagtool.tagger import limits

FORMAT_NAME = "tagtool-tagger"
#: Version of the tagger file this tagtool writes (and the newest it reads).
FORMAT_VERSION = 1
META_MEMBER = "meta.json"
WEIGHTS_MEMBER = "weights.npz"
#: Word representations (:mod:`tagtool.core.features.wordreps`), present when the features read them.
REPRESENTATIONS_MEMBER = "representations.npz"
#: Dictionaries (:mod:`tagtool.core.features.gazetteers`), present when the features read them.
GAZETTEERS_MEMBER = "gazetteers.json"
#: The user's word vectors (:mod:`tagtool.services.user_vectors`), present when the features read them.
VECTORS_MEMBER = "vectors.npz"
ARRAY_NAMES = ("weights", "trans", "start", "end", "feature_view")
_META_KEYS = ("labels", "features", "view_split", "learner", "model")


class TaggerFileError(TagtoolError):
    """A tagger file that cannot be read: not one, damaged, altered or too new."""


#: What the zip, compression and ``.npy`` header parsers raise on damaged
#: data besides ``zipfile.BadZipFile``: an encrypted member (RuntimeError),
#: an unknown compression method (NotImplementedError), a bad stream (zlib,
#: bz2 (OSError) and lzma errors), a header that is not a Python literal
#: (SyntaxError, tokenize.TokenError), absurd sizes (OverflowError, MemoryError).
DAMAGED = (
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    ValueError,
    TypeError,
    KeyError,
    struct.error,
    RuntimeError,
    NotImplementedError,
    SyntaxError,
    tokenize.TokenError,
    OverflowError,
    MemoryError,
)


def failing(source: str):
    def fail(message: str) -> TaggerFileError:
        return TaggerFileError(f"{source}: {message}")

    return fail


def write_archive(
    stream,
    meta: dict,
    arrays: dict,
    representations: dict | None = None,
    gazetteers: dict | None = None,
    vectors: dict | None = None,
) -> None:
    """Write a tagger file: ``meta.json``, the model's arrays and, if given, word representations, dictionaries
    and vectors."""
    weights = io.BytesIO()
    np.savez(weights, **arrays)
    text = json.dumps(meta, ensure_ascii=False, allow_nan=False)
    with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr(META_MEMBER, text.encode("utf-8"))
        data = weights.getvalue()
        archive.writestr(WEIGHTS_MEMBER, data, compress_type=_compression(data))
        for member, held in ((REPRESENTATIONS_MEMBER, representations), (VECTORS_MEMBER, vectors)):
            if held is not None:
                reps = io.BytesIO()
                np.savez(reps, **held)  # numbers only (to_arrays); read back with allow_pickle=False
                archive.writestr(member, reps.getvalue())
        if gazetteers is not None:
            archive.writestr(GAZETTEERS_MEMBER, json.dumps(gazetteers, ensure_ascii=False).encode("utf-8"))


#: Bytes of the weights that :func:`_compression` tries to compress.
_SAMPLE = 1 << 20


def _compression(data: bytes) -> int:
    """Deflate for weights that shrink by a tenth or more (sparse ones), else store them as they are.

    Dense float weights barely compress (benchmarks/results/design-measurements.md, "Smaller settings"),
    and inflating them was a quarter of loading the tagger.  Judged from the
    first :data:`_SAMPLE` bytes.
    """
    sample = data[:_SAMPLE]
    return zipfile.ZIP_DEFLATED if len(zlib.compress(sample, 1)) < 0.9 * len(sample) else zipfile.ZIP_STORED


def open_archive(stream, fail) -> tuple[zipfile.ZipFile, limits.Budget]:
    try:
        budget = limits.Budget(stream.seek(0, io.SEEK_END))
        stream.seek(0)
        return zipfile.ZipFile(stream), budget
    except (zipfile.BadZipFile, *DAMAGED) as exc:
        raise fail(f"not a tagger file (not a zip archive, or truncated: {exc})") from None


def declared_sizes(meta: dict, fail) -> tuple[int | None, int]:
    """The number of features and of labels ``meta.json`` implies, which bound the arrays' shapes."""
    model_labels = meta["model"].get("labels") if isinstance(meta["model"], dict) else None
    if not isinstance(model_labels, list) or not model_labels:
        raise fail(f"{META_MEMBER} is malformed (the model names no labels)")
    return limits.declared_n_features(meta["features"]), len(model_labels)


def read_member(archive: zipfile.ZipFile, name: str, fail, budget, limit: int | None = None) -> bytes:
    """Member ``name``, read in bounded chunks (see :mod:`tagtool.tagger.limits`)."""
    if name not in archive.namelist():
        raise fail(f"not a tagger file: the member {name!r} is missing")
    try:
        return limits.read_member(archive, name, budget, fail, limit)
    except (zipfile.BadZipFile, *DAMAGED) as exc:
        raise fail(f"damaged tagger file: cannot read {name!r} ({type(exc).__name__}: {exc})") from None


def parse_meta(raw: bytes, fail) -> dict:
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

"""Upper limits of a tagger file, checked before anything is allocated.

A tagger file is read from a stranger as readily as from oneself, so every
size it announces is checked against what the file can really hold before
memory is reserved for it:

* ``meta.json`` holds at most :func:`meta_limit` bytes once decompressed:
  :data:`META_EXPANSION` (200) times the tagger file's size plus 1 MiB, and
  never over :data:`MAX_META_BYTES` (64 MiB).  ``json.loads`` builds objects
  many times the size of their text (``[[],[],...`` some 20 times), so a
  small deflated ``meta.json`` of repeated text must not be parsed; a real
  tagger's ``meta.json`` is at most about twice its file's size (its
  vocabulary; the weights are the bulk of the file), and a million
  features take some 20 MB.
* All members read from one file together hold at most
  :data:`MAX_EXPANSION` times the file's own size (plus 1 MiB).  Deflate,
  the compression tagtool writes, never expands beyond 1032:1, so a real
  file always fits; a 6 KB zip bomb announcing 4 GB (for instance a
  compressed ``.npy`` inside the compressed ``weights.npz``) is refused
  before it is inflated.  Members are read in chunks of :data:`CHUNK_BYTES`
  and the count is checked as they come, whatever their headers declare.
* Only stored and deflated members are read: bzip2 and LZMA streams can
  inflate a single 4 KB read into gigabytes inside :mod:`zipfile`.
* Every array's ``.npy`` header is checked before its data is read: its
  byte size must equal what the member holds, and its shape must be the one
  ``meta.json`` implies (``weights`` is features × labels, ``trans`` views ×
  labels × labels ...), where the number of features is the vocabulary's
  length or ``n_hash``.  So ``n_hash``, the vocabulary and the label count
  are bounded by the bytes of real weights that back them.
* The feature ``window`` is at most
  :data:`~tagtool.core.features.settings.MAX_WINDOW` (checked by the
  feature extractor, for training too).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable

#: Largest decompressed ``meta.json`` read (bytes), whatever the file's size.
MAX_META_BYTES = 64 * 2**20
#: Largest ratio of the decompressed ``meta.json`` to the tagger file's size.
META_EXPANSION = 200
#: Largest ratio of the decompressed members to the tagger file's size.
MAX_EXPANSION = 1100
#: Decompressed bytes always allowed, whatever the file's size.
_SLACK_BYTES = 2**20
#: Bytes read from a zip member at a time.
CHUNK_BYTES = 2**20
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflate"}

Fail = Callable[[str], Exception]


class Budget:
    """Decompressed bytes one tagger file may still produce.

    Parameters
    ----------
    file_size : int
        Size of the tagger file (its bytes on disk, or of the blob).
    """

    def __init__(self, file_size: int):
        self.file_size = file_size
        self.left = MAX_EXPANSION * file_size + _SLACK_BYTES

    def take(self, n: int, what: str, fail: Fail) -> None:
        """Charge ``n`` bytes of ``what``; the error of ``fail`` when they do not fit."""
        if n > self.left:
            raise fail(
                f"{what} declares more data than a tagger file of {self.file_size} bytes can "
                f"(over {MAX_EXPANSION}:1 expanded): refused as a zip bomb"
            )
        self.left -= n


def meta_limit(file_size: int) -> int:
    """Most decompressed bytes of ``meta.json`` a tagger file of ``file_size`` bytes may hold."""
    return min(MAX_META_BYTES, META_EXPANSION * file_size + _SLACK_BYTES)


def member_info(
    archive: zipfile.ZipFile, name: str, budget: Budget, fail: Fail, limit: int | None = None
) -> zipfile.ZipInfo:
    """The entry of member ``name``, its declared size checked against ``limit`` and ``budget``."""
    info = archive.getinfo(name)
    if info.compress_type not in _METHODS:
        raise fail(
            f"damaged tagger file: {name!r} uses compression method {info.compress_type}; "
            f"tagger files use {' or '.join(_METHODS.values())}"
        )
    if limit is not None and info.file_size > limit:
        raise fail(f"{name!r} declares {info.file_size} bytes, more than the {limit} a tagger file may hold")
    budget.take(info.file_size, repr(name), fail)
    return info


def read_member(archive: zipfile.ZipFile, name: str, budget: Budget, fail: Fail, limit: int | None = None) -> bytes:
    """The bytes of member ``name``, read in chunks and never more than it declared."""
    info = member_info(archive, name, budget, fail, limit)
    chunks, size = [], 0
    with archive.open(info) as fh:
        while chunk := fh.read(CHUNK_BYTES):
            chunks.append(chunk)
            size += len(chunk)
            if size > info.file_size:  # zipfile stops at the declared size; kept in case it does not
                raise fail(f"damaged tagger file: {name!r} holds more than the {info.file_size} bytes it declares")
    return b"".join(chunks)  # one copy (a growing buffer copied the weights several times)


def read_exactly(fh, buffer: memoryview, name: str, fail: Fail) -> None:
    """Fill ``buffer`` from ``fh`` in chunks; the stream must end right after it."""
    done = 0
    while done < len(buffer):
        n = fh.readinto(buffer[done : done + CHUNK_BYTES])
        if not n:
            raise fail(f"array {name!r} is damaged: its data ends after {done} of {len(buffer)} bytes")
        done += n
    if fh.read(1):
        raise fail(f"array {name!r} is damaged: data follows its end")


def declared_n_features(features: object) -> int | None:
    """The number of feature columns ``meta.json``'s ``features`` describes (None if it cannot say).

    The vocabulary's length, ``n_hash`` when hashing, the sum of the parts
    of a stacked set.  A malformed description gives None and is left to
    the feature extractor's own checks.
    """
    if not isinstance(features, dict) or not isinstance(features.get("params"), dict):
        return None
    parts = features.get("parts")
    if isinstance(parts, list):
        counts = [declared_n_features(p) for p in parts]
        return None if None in counts else sum(counts)
    if features["params"].get("hashing") is True:
        n_hash = features["params"].get("n_hash")
        return n_hash if isinstance(n_hash, int) and not isinstance(n_hash, bool) else None
    vocabulary = features.get("vocabulary")
    return len(vocabulary) if isinstance(vocabulary, list) else None


def expected_shape(name: str, shape: tuple, n_features: int | None, n_labels: int) -> str | None:
    """What is wrong with an array's declared ``shape`` given the meta's sizes (None: nothing)."""
    views = shape[0] if shape and name in ("trans", "start", "end") else 1
    expected = {
        "weights": (n_features, n_labels),
        "feature_view": (n_features,),
        "trans": (views, n_labels, n_labels),
        "start": (views, n_labels),
        "end": (views, n_labels),
    }[name]
    if views not in (1, 2):
        return f"array {name!r} has shape {shape}: expected 1 or 2 views"
    if n_features is None:
        expected = expected[1:] if name == "weights" else ()
        shape = shape[1:] if name == "weights" else ()
    if tuple(shape) != expected:
        if name in ("weights", "feature_view") and shape and n_features is not None and shape[0] != n_features:
            return f"array {name!r} has shape {shape}, but the feature extractor has {n_features} features"
        return f"array {name!r} has shape {shape}, expected {expected} (from the labels in meta.json)"
    return None

"""Hostile tagger files: valid seeds, then their zip, ``meta.json`` or ``weights.npz`` altered.

Shared by ``tests/fuzz/test_fuzz_tagger.py`` and ``benchmarks/reliability.py``.
The seeds are small taggers with random weights (the file format needs no
learner): one view with a vocabulary, two views, and a hashing extractor.
Mutations (:func:`tagger_file`):

* bytes: bit flips, truncation, inserted or deleted bytes, random bytes;
* archive: a member removed, duplicated, renamed or replaced, an extra
  member, another compression method, the encryption flag or an unknown
  compression method patched into the headers;
* ``meta.json``: any value replaced by one of another type, a key
  deleted, labels reordered or duplicated, the vocabulary cut, a feature
  ``window`` or ``n_hash`` in the millions or billions, invalid UTF-8 or JSON;
* ``weights.npz``: an array with the wrong shape or dtype (strings,
  complex, datetimes, records, pickled objects), NaN or infinity, view
  numbers other than 0 and 1, an array missing or extra, a damaged
  ``.npy`` header.
"""

from __future__ import annotations

import functools
import io
import json
import struct
import warnings
import zipfile

import numpy as np
from hypothesis import strategies as st

from tests.fuzz.inputs import DATA, json_tree_mutation, json_values, mutation

META, WEIGHTS = "meta.json", "weights.npz"
ARRAYS = ("weights", "trans", "start", "end", "feature_view")


@functools.lru_cache(maxsize=1)
def seed_files() -> tuple[bytes, ...]:
    """Bytes of three valid tagger files (built once per process)."""
    from tagtool.core.corpus import Corpus
    from tagtool.core.features import FeatureExtractor
    from tagtool.core.views import ViewSplit
    from tagtool.learn.chain import ChainModel
    from tagtool.store.formats import read_corpus
    from tagtool.tagger.model import Tagger

    full = read_corpus(DATA / "conll2000_train_head.txt")
    corpus = Corpus.from_sentences(full.sentences[:8])
    rng = np.random.default_rng(0)
    seeds = []
    for n_views, extractor in (
        (1, FeatureExtractor(min_count=2)),
        (2, FeatureExtractor(min_count=2)),
        (1, FeatureExtractor(hashing=True, n_hash=256)),
    ):
        extractor.fit(corpus)
        split = ViewSplit("random", 3) if n_views == 2 else None
        views = split.assign(extractor) if split else np.zeros(extractor.n_features_, np.int8)
        model = ChainModel.zeros(
            corpus.labels, extractor.n_features_, views, n_views, learner="toy", params={"max_iter": 2}
        )
        for array in (model.weights, model.trans, model.start, model.end):
            array[:] = rng.normal(size=array.shape)
        data = Tagger(corpus.labels, extractor, split, model, metrics={"f1": 0.5}, created="2024-01-01").to_bytes()
        seeds.append(rezip(unzip(data)))  # fixed zip time stamps: the same seeds in every run
    return tuple(seeds)


# ---------------------------------------------------------------------------
# zip archives


def unzip(data: bytes) -> list[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info.filename, archive.read(info)) for info in archive.infolist()]


def rezip(members: list[tuple[str, bytes]], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Duplicate name": wanted here
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, content in members:
                # A fixed time stamp: the same draws must give the same bytes.
                info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
                info.compress_type = compression
                archive.writestr(info, content)
    return buffer.getvalue()


def _patch_headers(data: bytes, offset: int, value: bytes) -> bytes:
    """Overwrite a field at ``offset`` in every local and central header."""
    out = bytearray(data)
    for signature, field_at in ((b"PK\x03\x04", offset), (b"PK\x01\x02", offset + 2)):
        at = out.find(signature)
        while at >= 0:
            out[at + field_at : at + field_at + len(value)] = value
            at = out.find(signature, at + 4)
    return bytes(out)


@st.composite
def archive_mutation(draw, data: bytes) -> bytes:
    members = unzip(data)
    op = draw(
        st.sampled_from(
            ["remove", "duplicate", "rename", "replace", "extra", "compression", "encrypted", "method", "empty"]
        )
    )
    i = draw(st.integers(0, len(members) - 1))
    name, content = members[i]
    if op == "remove":
        del members[i]
    elif op == "duplicate":
        other = draw(st.sampled_from([content, b"", b"{}", draw(st.binary(max_size=64))]))
        members.insert(draw(st.integers(0, len(members))), (name, other))
    elif op == "rename":
        members[i] = (draw(st.sampled_from(["META.JSON", "meta.json/", "weights", "../meta.json", " "])), content)
    elif op == "replace":
        members[i] = (name, draw(st.binary(max_size=200)))
    elif op == "extra":
        members.append((draw(st.text(min_size=1, max_size=10)), draw(st.binary(max_size=50))))
    elif op == "empty":
        members[i] = (name, b"")
    elif op == "compression":
        return rezip(members, draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])))
    elif op == "encrypted":  # general purpose flag, bit 0
        return _patch_headers(data, 6, struct.pack("<H", 1))
    elif op == "method":  # compression method: implode, reserved, AES
        return _patch_headers(data, 8, struct.pack("<H", draw(st.sampled_from([6, 7, 11, 99, 0xFFFF]))))
    return rezip(members)


# ---------------------------------------------------------------------------
# meta.json


def _member(members: list[tuple[str, bytes]], name: str) -> bytes:
    return next(content for n, content in members if n == name)


def _with_member(members, name: str, content: bytes) -> list[tuple[str, bytes]]:
    return [(n, content if n == name else c) for n, c in members]


@st.composite
def meta_mutation(draw, data: bytes) -> bytes:
    members = unzip(data)
    meta = json.loads(_member(members, META))
    op = draw(st.sampled_from(["tree", "tree", "tree", "labels", "vocabulary", "version", "bytes", "sizes"]))
    # An earlier mutation may have removed what an operation edits: then a tree mutation.
    if op == "labels" and isinstance(meta.get("labels"), list) and meta["labels"]:
        labels = list(meta["labels"])
        change = draw(st.sampled_from(["shuffle", "duplicate", "drop", "both"]))
        if change == "duplicate":
            labels.append(labels[0])
        elif change == "drop":
            labels.pop()
        else:
            labels = draw(st.permutations(labels))
        meta["labels"] = labels
        if change == "both" and isinstance(meta.get("model"), dict):
            meta["model"]["labels"] = labels
    elif op == "vocabulary":
        vocabulary = meta["features"]["vocabulary"]
        if isinstance(vocabulary, list) and vocabulary:
            cut = draw(st.integers(0, len(vocabulary)))
            meta["features"]["vocabulary"] = vocabulary[:cut] + vocabulary[: draw(st.integers(0, 2))]
        else:
            meta["features"]["vocabulary"] = draw(json_values())
    elif op == "version":
        meta[draw(st.sampled_from(["format_version", "format"]))] = draw(json_values())
    elif op == "sizes" and isinstance(meta.get("features"), dict) and isinstance(meta["features"].get("params"), dict):
        # Sizes that would allocate gigabytes if believed: refused unless backed by the arrays.
        key = draw(st.sampled_from(["window", "n_hash"]))
        meta["features"]["params"][key] = draw(st.sampled_from([10**9, 2**31, 2**28, 65, 64, -1]))
    elif op != "bytes":
        meta = draw(json_tree_mutation(meta))
    if op == "bytes":
        content = draw(mutation(_member(members, META)))
    else:
        content = json.dumps(meta, allow_nan=True).encode()
    return rezip(_with_member(members, META, content))


# ---------------------------------------------------------------------------
# weights.npz


def _odd_array(draw, array: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):  # casts of NaN and overflows are the point
        return _odd_array_unchecked(draw, array)


def _odd_array_unchecked(draw, array: np.ndarray) -> np.ndarray:
    # An earlier mutation may have left strings or records: start from numbers.
    base = np.array(array, dtype=np.float64) if array.dtype.kind in "biuf" else np.zeros(array.shape)
    op = draw(st.sampled_from(["shape", "transpose", "dtype", "nan", "scalar", "empty", "views", "huge"]))
    if op == "shape":
        return np.zeros(draw(st.lists(st.integers(0, 4), max_size=4)))
    if op == "transpose":
        return base.T.copy() if base.ndim > 1 else np.atleast_1d(base)[None, :]
    if op == "dtype":
        kind = draw(st.sampled_from(["U3", "S3", "c16", "M8[s]", "?", "f2", "u8", "i1", "V4", "record", "O"]))
        if kind == "record":
            return np.zeros(base.shape, dtype=[("a", "i4"), ("b", "f8")])
        if kind == "O":
            return np.array([{"x": 1}] * max(base.size, 1), dtype=object)
        return np.zeros(base.shape, dtype=kind)
    if op == "scalar":
        return np.array(draw(st.sampled_from([0, 1.5, np.nan])))
    if op == "empty":
        return np.atleast_1d(base)[:0]
    if op == "huge":
        return np.full(base.shape, 1e300)  # finite, overflows in sums
    if base.size:
        special = [np.nan, np.inf, -np.inf, 1e308] if op == "nan" else [2, -1, 127, 255, 0.5]
        base.flat[draw(st.integers(0, base.size - 1))] = draw(st.sampled_from(special))
    if op == "views":
        return base.astype(draw(st.sampled_from([np.int8, np.uint8, np.int64, np.float64])))
    return base


@st.composite
def weights_mutation(draw, data: bytes) -> bytes:
    members = unzip(data)
    # allow_pickle: an earlier mutation may have pickled an array (our own data)
    with np.load(io.BytesIO(_member(members, WEIGHTS)), allow_pickle=True) as npz:
        arrays = {name: npz[name] for name in npz.files}
    op = draw(st.sampled_from(["array", "array", "array", "remove", "extra", "header"]))
    name = draw(st.sampled_from(ARRAYS))
    if op == "array":
        arrays[name] = _odd_array(draw, arrays[name])
    elif op == "remove":
        del arrays[name]
    elif op == "extra":
        arrays[draw(st.sampled_from(["extra", "weights_", "x" * 200]))] = np.zeros(3)
    if op == "header":  # a damaged .npy header inside a valid npz
        inner = unzip(_npz_bytes(arrays))
        at = draw(st.integers(0, 127))
        npy = [
            (n, c[:at] + bytes([c[at] ^ 0xFF]) + c[at + 1 :] if n == f"{name}.npy" and len(c) > at else c)
            for n, c in inner
        ]
        content = rezip(npy, zipfile.ZIP_STORED)
    else:
        content = _npz_bytes(arrays)
    return rezip(_with_member(members, WEIGHTS, content))


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)  # object arrays are pickled: what the loader must refuse
    return buffer.getvalue()


# ---------------------------------------------------------------------------
# what the loader is fed


def _intact(data: bytes) -> bool:
    """Whether the structured mutations can take ``data`` apart."""
    try:
        members = dict(unzip(data))
        meta = json.loads(members[META])
        if not (isinstance(meta, dict) and isinstance(meta.get("features"), dict) and "vocabulary" in meta["features"]):
            return False
        with np.load(io.BytesIO(members[WEIGHTS]), allow_pickle=True) as npz:
            # np.load gives the raw bytes of a member that is no .npy file
            return all(isinstance(npz[name], np.ndarray) for name in npz.files) and set(ARRAYS) <= set(npz.files)
    except Exception:  # noqa: BLE001 — anything broken: bytes mutations only
        return False


@st.composite
def tagger_file(draw) -> bytes:
    """A tagger file with one or two mutations, or random bytes."""
    kind = draw(st.sampled_from(["meta", "meta", "weights", "weights", "archive", "bytes", "random"]))
    if kind == "random":
        return draw(st.binary(max_size=400))
    data = draw(st.sampled_from(seed_files()))
    structured = {"meta": meta_mutation, "weights": weights_mutation, "archive": archive_mutation}.get(kind)
    for _ in range(draw(st.integers(1, 2))):
        data = draw(structured(data) if structured is not None and _intact(data) else mutation(data))
    return data

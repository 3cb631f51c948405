"""The tagger-file loader on hostile files: a tagger that tags, or TaggerFileError.

Valid taggers with their zip, ``meta.json`` or ``weights.npz`` altered
(:mod:`tests.fuzz.tagger_inputs`), and random bytes, through
``load_tagger`` and ``Tagger.from_bytes`` (the project's stored models).
An accepted file must give a tagger that tags, scores and compares views.
The regression tests below are files the fuzzers found.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import given

from tagtool.tagger.file_format import TaggerFileError
from tagtool.tagger.model import load_tagger
from tests.fuzz.checks import try_load_tagger, try_tagger_bytes
from tests.fuzz.ci import FUZZ, warnings_as_errors
from tests.fuzz.tagger_inputs import META, WEIGHTS, _patch_headers, rezip, seed_files, tagger_file, unzip


@FUZZ
@given(data=tagger_file())
def test_load_tagger_gives_a_working_tagger_or_tagger_file_error(data, folder):
    path = folder / "model.tagger"
    path.write_bytes(data)
    with warnings_as_errors():
        try_load_tagger(path)
        try_tagger_bytes(data)


# ---------------------------------------------------------------------------
# what the fuzzers found


def _seed() -> bytes:
    return seed_files()[0]


def _with(name: str, content: bytes, data: bytes | None = None) -> bytes:
    return rezip([(n, content if n == name else c) for n, c in unzip(data or _seed())])


def _npz(**changes) -> bytes:
    with np.load(io.BytesIO(dict(unzip(_seed()))[WEIGHTS])) as npz:
        arrays = {name: npz[name] for name in npz.files}
    arrays.update(changes)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _npy_member(name: str, content: bytes) -> bytes:
    """The weights npz with one ``.npy`` member's bytes replaced."""
    inner = [(n, content if n == f"{name}.npy" else c) for n, c in unzip(_npz())]
    return _with(WEIGHTS, rezip(inner, zipfile.ZIP_STORED))


def _meta(edit) -> bytes:
    meta = json.loads(dict(unzip(_seed()))[META])
    edit(meta)
    return _with(META, json.dumps(meta).encode())


def _npy_header(header: str) -> bytes:
    padded = header.encode("latin-1") + b" " * ((64 - (len(header) + 11) % 64) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(padded)) + padded


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # zipfile raises RuntimeError for an encrypted member, NotImplementedError for an unknown method
        (lambda: _patch_headers(_seed(), 6, struct.pack("<H", 1)), "damaged tagger file.*encrypted"),
        (lambda: _patch_headers(_seed(), 8, struct.pack("<H", 6)), "damaged tagger file.*compression method"),
        # np.load hands back the raw bytes of a member that is not a .npy file
        (lambda: _npy_member("trans", b"just bytes"), "array 'trans' in weights.npz is damaged"),
        # numpy's header parser raised tokenize.TokenError
        (
            lambda: _npy_member("start", _npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,")),
            "array 'start' in weights.npz is damaged",
        ),
        # a header announcing far more data than follows (np.load allocated it first)
        (
            lambda: _npy_member(
                "end", _npy_header("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }")
            ),
            "announces shape",
        ),
        # NaN views were cast to int8 (with a RuntimeWarning) before they were checked
        (lambda: _with(WEIGHTS, _npz(feature_view=np.full(len(_npz_views()), np.nan))), "feature_view"),
        # column names that are JSON objects crashed the first tagging, not the load
        (lambda: _meta(lambda m: m["features"].update(columns_=[{"a": 1}])), "feature columns must be names"),
        (lambda: _with(META, b"[" * 100_000), "nested too deeply"),
    ],
    ids=[
        "encrypted",
        "compression-method",
        "npy-not-npy",
        "npy-header-syntax",
        "npy-huge-shape",
        "nan-views",
        "dict-columns",
        "deep-json",
    ],
)
def test_files_the_fuzzers_found_raise_tagger_file_error(folder, make, message):
    path = folder / "found.tagger"
    path.write_bytes(make())
    with warnings_as_errors(), pytest.raises(TaggerFileError, match=message):
        load_tagger(path)


def _npz_views() -> np.ndarray:
    with np.load(io.BytesIO(dict(unzip(_seed()))[WEIGHTS])) as npz:
        return npz["feature_view"]

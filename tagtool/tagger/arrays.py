"""The arrays of a tagger file, read without ``np.load``: numbers only, the shapes the meta implies, bounded.

Every ``.npy`` member's header is parsed and checked (no object dtype, so
no pickle; the shape :mod:`tagtool.tagger.limits` expects; as many bytes as
announced) before memory is reserved for its data.
"""

from __future__ import annotations

import io
import math
import zipfile

import numpy as np

from tagtool.tagger import limits
from tagtool.tagger.file_format import ARRAY_NAMES, DAMAGED, REPRESENTATIONS_MEMBER, WEIGHTS_MEMBER


def read_arrays(raw: bytes, fail, budget, sizes: tuple[int | None, int]) -> dict[str, np.ndarray]:
    """The model's arrays from the npz archive, each checked before it is read.

    The ``.npy`` members are parsed here rather than by ``np.load``, which
    hands back the raw bytes of a member that is no ``.npy`` file and
    allocates whatever shape a header announces before reading the data.
    """
    try:
        npz = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, *DAMAGED) as exc:
        raise fail(f"{WEIGHTS_MEMBER} is damaged ({exc})") from None
    with npz:
        missing = [name for name in ARRAY_NAMES if f"{name}.npy" not in npz.namelist()]
        if missing:
            raise fail(f"{WEIGHTS_MEMBER} lacks the arrays {', '.join(missing)}")
        return {name: _npz_array(npz, name, budget, fail, sizes) for name in ARRAY_NAMES}


def _npz_array(npz: zipfile.ZipFile, name: str, budget, fail, sizes: tuple[int | None, int] | None) -> np.ndarray:
    try:
        info = limits.member_info(npz, f"{name}.npy", budget, fail)
        with npz.open(info) as fh:
            return _read_array(name, fh, info.file_size, fail, sizes)
    except (zipfile.BadZipFile, *DAMAGED) as exc:
        raise fail(f"damaged tagger file: cannot read {name!r} ({type(exc).__name__}: {exc})") from None


def read_representations(raw: bytes, fail, budget, member: str = REPRESENTATIONS_MEMBER):
    """The word representations member: every ``.npy`` read as :func:`_read_array` does, then checked as a whole."""
    from tagtool.core.features import FeatureError
    from tagtool.core.features.wordreps import WordRepresentations

    try:
        npz = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, *DAMAGED) as exc:
        raise fail(f"{member} is damaged ({exc})") from None
    with npz:
        names = [n[: -len(".npy")] for n in npz.namelist() if n.endswith(".npy")]
        arrays = {name: _npz_array(npz, name, budget, fail, None) for name in names}
    try:
        return WordRepresentations.from_arrays(arrays)
    except FeatureError as exc:
        raise fail(f"{member}: {exc}") from None


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
    except (*DAMAGED, RecursionError) as exc:
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

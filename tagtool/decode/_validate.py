"""Argument checks shared by the public decoders.

Each check converts its argument to the exact array type the kernels are
compiled for (C-contiguous float64, bool or int64; masks read-only), so numba compiles one
specialisation per kernel, and raises :class:`DecoderInputError` naming the
argument with the expected and the actual shape or value.
"""

from __future__ import annotations

import operator

import numpy as np

from tagtool.decode._jit import _njit
from tagtool.decode.errors import DecoderInputError

_REAL_KINDS = "biuf"
_SCORE_NAMES = ("emit", "trans", "start", "end")

# All-True masks for ``allowed=None``, one block per label count, sliced to T
# rows: allocating a fresh mask costs a third of decoding a short sentence.
# Sharing them is safe because no kernel writes to its mask.
_ALL_ALLOWED: dict[int, np.ndarray] = {}
_CACHED_ROWS = 1024


@_njit
def _all_finite(values):
    for x in values:
        if not np.isfinite(x):
            return False
    return True


@_njit
def _all_in_range(values, stop):
    for x in values:
        if x < 0 or x >= stop:
            return False
    return True


@_njit
def _first_invalid(emit, trans, start, end, allowed):
    """0 if all scores are finite and every mask row allows a label, else a code.

    Codes 1-4 name the first non-finite argument (emit, trans, start, end),
    5 an empty mask row.  One compiled pass replaces five numpy reductions,
    which matters because a short sentence decodes in about a microsecond.
    """
    if not _all_finite(emit.ravel()):
        return 1
    if not _all_finite(trans.ravel()):
        return 2
    if not _all_finite(start):
        return 3
    if not _all_finite(end):
        return 4
    n_tokens, n_labels = allowed.shape
    for t in range(n_tokens):
        row_ok = False
        for b in range(n_labels):
            row_ok |= allowed[t, b]
        if not row_ok:
            return 5
    return 0


def _real_array(name: str, value) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype.kind not in _REAL_KINDS:
        raise DecoderInputError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    return arr


def _require_shape(name: str, arr: np.ndarray, shape: tuple[int, ...], why: str) -> None:
    if arr.shape != shape:
        raise DecoderInputError(f"{name}: expected shape {shape} ({why}), got {arr.shape}")


def _scores(name: str, value, shape: tuple[int, ...]) -> np.ndarray:
    arr = _real_array(name, value)
    _require_shape(name, arr, shape, "L from emit")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _require_finite(name: str, arr: np.ndarray) -> None:
    if not np.isfinite(arr).all():
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise DecoderInputError(f"{name}: non-finite value {arr[where]} at index {where}")


def _emissions(emit, allow_empty: bool) -> np.ndarray:
    arr = _real_array("emit", emit)
    if arr.ndim != 2:
        raise DecoderInputError(f"emit: expected shape (T, L), got {arr.shape}")
    if arr.shape[0] == 0 and not allow_empty:
        raise DecoderInputError(f"emit: expected at least one token (T >= 1), got shape {arr.shape}")
    if arr.shape[1] == 0:
        raise DecoderInputError(f"emit: expected at least one label (L >= 1), got shape {arr.shape}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _read_only(mask: np.ndarray) -> np.ndarray:
    """``mask``, or a read-only view of it (no copy; the caller's array stays writable).

    Numba compiles a kernel once per argument type, and a read-only array is
    a type of its own: the training kernels take their masks from the
    read-only :class:`~tagtool.core.snapshot.Snapshot`, so every mask a
    decoder passes is read-only too, and one compilation serves both.
    """
    if not mask.flags.writeable:
        return mask
    view = mask.view()
    view.flags.writeable = False
    return view


def _all_allowed(shape: tuple[int, int]) -> np.ndarray:
    n_tokens, n_labels = shape
    if n_tokens > _CACHED_ROWS:
        return _read_only(np.ones(shape, dtype=np.bool_))
    block = _ALL_ALLOWED.get(n_labels)
    if block is None:
        block = _ALL_ALLOWED.setdefault(n_labels, _read_only(np.ones((_CACHED_ROWS, n_labels), dtype=np.bool_)))
    return block[:n_tokens]


def _mask(allowed, shape: tuple[int, int]) -> np.ndarray:
    if allowed is None:
        return _all_allowed(shape)
    arr = np.asarray(allowed)
    if arr.dtype.kind != "b":
        if arr.dtype.kind not in _REAL_KINDS or arr.size and not np.isin(arr, (0, 1)).all():
            raise DecoderInputError(f"allowed: expected a boolean mask, got dtype {arr.dtype}")
    _require_shape("allowed", arr, shape, "T, L of emit")
    return _read_only(np.ascontiguousarray(arr, dtype=np.bool_))


def _raise_invalid(code: int, arrays: tuple[np.ndarray, ...], allowed: np.ndarray) -> None:
    if code <= len(_SCORE_NAMES):
        _require_finite(_SCORE_NAMES[code - 1], arrays[code - 1])
    row = int(np.argmin(allowed.any(axis=1)))
    raise DecoderInputError(f"allowed: row {row} allows no label (every token needs one)")


def chain(emit, trans, start, end, allowed, *, allow_empty: bool = False):
    """Checked and converted ``(emit, trans, start, end, allowed)``.

    ``emit`` becomes float64 ``(T, L)`` with ``T >= 1`` (or ``T = 0`` if
    ``allow_empty``, for an empty batch) and ``L >= 1``; ``trans (L, L)``,
    ``start (L,)`` and ``end (L,)`` float64; ``allowed`` a bool ``(T, L)``
    mask (all True when None).  All C-contiguous, finite, and every mask row
    allows a label.
    """
    emit = _emissions(emit, allow_empty)
    n_labels = emit.shape[1]
    trans = _scores("trans", trans, (n_labels, n_labels))
    start = _scores("start", start, (n_labels,))
    end = _scores("end", end, (n_labels,))
    allowed = _mask(allowed, emit.shape)
    code = _first_invalid(emit, trans, start, end, allowed)
    if code:
        _raise_invalid(code, (emit, trans, start, end), allowed)
    return emit, trans, start, end, allowed


def offsets(value, n_tokens: int) -> np.ndarray:
    """Sentence boundaries: int64, from 0 to ``n_tokens``, strictly increasing."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu" or arr.ndim != 1 or arr.shape[0] == 0:
        raise DecoderInputError(
            f"offsets: expected a 1-D integer array of shape (n_sent + 1,), got dtype {arr.dtype} and shape {arr.shape}"
        )
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr[0] != 0 or arr[-1] != n_tokens:
        raise DecoderInputError(
            f"offsets: expected to run from 0 to {n_tokens} (rows of emit), got {arr[0]} .. {arr[-1]}"
        )
    lengths = np.diff(arr)
    if (lengths < 1).any():
        i = int(np.argmax(lengths < 1))
        raise DecoderInputError(
            f"offsets: sentence {i} has length {lengths[i]} (offsets[{i}:{i + 2}] = "
            f"{arr[i : i + 2].tolist()}); every sentence needs T >= 1"
        )
    return arr


def target(value, n_tokens: int, n_labels: int) -> np.ndarray:
    """A label sequence as int64 ``(T,)`` with entries in ``[0, L)``."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "iu":
        raise DecoderInputError(f"target: expected integer labels, got dtype {arr.dtype}")
    _require_shape("target", arr, (n_tokens,), "T of emit")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if not _all_in_range(arr, n_labels):
        raise DecoderInputError(
            f"target: expected labels in [0, {n_labels}), got values from {arr.min()} to {arr.max()}"
        )
    return arr


def token_weights(value, n_tokens: int) -> np.ndarray:
    """A scalar or per-token loss weight as finite float64 ``(T,)``."""
    arr = _real_array("loss_weight", value)
    if arr.ndim == 0:
        arr = np.full(n_tokens, arr, dtype=np.float64)
    _require_shape("loss_weight", arr, (n_tokens,), "a scalar or one weight per token")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if not _all_finite(arr):
        _require_finite("loss_weight", arr)
    return arr


def list_size(k) -> int:
    """``k >= 1`` as a Python int."""
    try:
        k = operator.index(k)
    except TypeError:
        raise DecoderInputError(f"k: expected an integer, got {type(k).__name__}") from None
    if k < 1:
        raise DecoderInputError(f"k: expected k >= 1, got {k}")
    return k

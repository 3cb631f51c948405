"""A fitted :class:`~tagtool.core.features.FeatureExtractor` as a JSON-compatible dictionary, and back.

The tagger file keeps it in ``meta.json`` (no pickle): the settings, the
fitted columns and the vocabulary, the list of feature names in column
order (None when hashing); a stacked set keeps one dictionary per part.
Reading rebuilds the frozen vocabulary from the names
(:func:`set_vocabulary_from_names`), over the whole list at once.

Newer files' dictionaries also hold the vocabulary as it is kept in
memory, ``"table": {"bases", "columns"}``: the base-feature names (padding
left out), one text of lines, and, base64 of little-endian int32, each column's key
``slot * (len(bases) + 2) + base`` in the table.  Loading from it parses no
name (a tagger's vocabulary loads in about half the time); the names stay,
and stay the authority: the table is used only when the names it spells are
exactly the names stored, else (a file edited, or one written before it)
the vocabulary is rebuilt from the names as ever, with their checks.  Older
tagtool versions ignore the key.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from tagtool.core.features.encoding import _BaseTable
from tagtool.core.features.gazetteers import GAZ_SETS
from tagtool.core.features.templates import BOS, EOS, FeatureError, parse_feature_names
from tagtool.core.features.wordreps import DIST_SETS, VEC_SETS

#: Version of the dictionary written by :func:`to_dict`.
FORMAT_VERSION = 1


def to_dict(extractor) -> dict:
    """Settings, fitted columns and the vocabulary of a fitted ``extractor`` (module docstring)."""
    params = extractor.get_params()
    params["columns"] = None if extractor.columns is None else list(extractor.columns)
    if extractor._is_stacked:
        return {
            "format_version": FORMAT_VERSION, "params": params, "columns_": list(extractor.columns_),
            "vocabulary": None, "parts": [p.to_dict() for p in extractor._parts],
        }  # fmt: skip
    data = {
        "format_version": FORMAT_VERSION,
        "params": params,
        "columns_": list(extractor.columns_),
        "vocabulary": None if extractor.hashing else [str(n) for n in extractor.feature_names_],
    }
    if not extractor.hashing and (table := _table_dict(extractor)) is not None:
        data["table"] = table
    if extractor.feature_set in DIST_SETS:
        data["representations"] = extractor.representations.fingerprint
    if extractor.feature_set in GAZ_SETS:
        data["gazetteers"] = extractor.gazetteers.fingerprint
    if extractor.feature_set in VEC_SETS:
        data["vectors"] = extractor.vectors.fingerprint
    return data


def from_dict(cls, data: Mapping, representations=None, gazetteers=None, vectors=None):
    """The fitted extractor (of class ``cls``) that :func:`to_dict` wrote as ``data``.

    ``representations`` (``gazetteers``) are required when a set reads them,
    and must be the ones it was fitted with (same fingerprint).
    """
    try:
        version = data["format_version"]
        params = dict(data["params"])
        columns = tuple(data["columns_"])
        vocabulary = data["vocabulary"]
    except (KeyError, TypeError) as exc:
        raise FeatureError(f"not a serialised feature extractor: missing {exc}") from None
    if version != FORMAT_VERSION:
        raise FeatureError(f"feature extractor format {version!r} is not supported (only {FORMAT_VERSION})")
    unknown = set(params) - set(cls().get_params())
    if unknown:
        raise FeatureError(f"unknown feature extractor parameters: {', '.join(sorted(unknown))}")
    extractor = cls(**params, representations=representations, gazetteers=gazetteers, vectors=vectors)
    extractor._checked_feature_set()
    if extractor._is_stacked:
        return _from_parts(cls, extractor, data.get("parts"))
    if extractor.feature_set in DIST_SETS and data.get("representations") != representations.fingerprint:
        raise FeatureError(
            f"the {extractor.feature_set!r} features were fitted with other word representations "
            f"({data.get('representations')!r}, given {representations.fingerprint!r})"
        )
    if extractor.feature_set in GAZ_SETS and data.get("gazetteers") != gazetteers.fingerprint:
        raise FeatureError(
            f"the {extractor.feature_set!r} features were fitted with other dictionaries "
            f"({data.get('gazetteers')!r}, given {gazetteers.fingerprint!r})"
        )
    if extractor.feature_set in VEC_SETS and data.get("vectors") != vectors.fingerprint:
        raise FeatureError(
            f"the {extractor.feature_set!r} features were fitted with other word vectors "
            f"({data.get('vectors')!r}, given {vectors.fingerprint!r})"
        )
    extractor.columns_ = columns
    if extractor.hashing:
        extractor._set_hashed()
    elif vocabulary is None:
        raise FeatureError("a vocabulary is required unless hashing is on")
    elif not _set_vocabulary_from_table(extractor, data.get("table"), vocabulary):
        set_vocabulary_from_names(extractor, list(map(str, vocabulary)))
    return extractor


def _from_parts(cls, extractor, parts: object):
    """The stacked extractor of :func:`from_dict`: every part rebuilt, sets in the stated order."""
    if not isinstance(parts, list) or len(parts) != len(extractor._set_names):
        raise FeatureError(f"the stacked feature set {extractor.feature_set!r} needs one serialised part per set")
    rebuilt = [cls.from_dict(p, extractor.representations, extractor.gazetteers, extractor.vectors) for p in parts]
    if [p.feature_set for p in rebuilt] != extractor._set_names:
        raise FeatureError(f"the serialised parts do not match the feature set {extractor.feature_set!r}")
    extractor._set_parts(rebuilt)
    return extractor


def set_vocabulary_from_names(extractor, names: Sequence[str]) -> None:
    """The frozen vocabulary of :func:`from_dict`: column ``j`` is ``names[j]``.

    Loading a tagger runs this over its whole vocabulary, so it works on
    lists at once (:func:`parse_feature_names`) rather than name by name.
    """
    if len(set(names)) != len(names):
        duplicates = [n for n, c in Counter(names).items() if c > 1]
        raise FeatureError(f"feature {duplicates[0]!r} appears twice in the vocabulary")
    bases, offsets = parse_feature_names(names)
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1)
    outside = np.flatnonzero(np.abs(offsets) > extractor.window)
    if len(outside):
        raise FeatureError(f"feature {names[outside[0]]!r} lies outside the window ±{extractor.window}")
    distinct = dict.fromkeys(bases)
    distinct.pop(BOS, None)  # the padding comes first in every table
    distinct.pop(EOS, None)
    table = _BaseTable(extractor._named_set(), distinct)
    ids = np.fromiter(map(table.index.__getitem__, bases), dtype=np.int64, count=len(bases))
    extractor._set_state(table, offsets + extractor.window, ids, names)


def _table_dict(extractor) -> dict | None:
    """The ``"table"`` of :func:`to_dict` (module docstring); None if a key overflows int32 or a base has a newline."""
    lookup, bases = extractor._lookup, extractor._table.names[2:]
    keys = np.flatnonzero(lookup >= 0)
    text = "\n".join(bases)
    if len(keys) and keys[-1] >= 2**31 or text.count("\n") != max(len(bases) - 1, 0):
        return None
    by_column = np.empty(len(keys), dtype="<i4")
    by_column[lookup[keys]] = keys
    return {"bases": text, "columns": base64.b64encode(by_column.tobytes()).decode("ascii")}


def _set_vocabulary_from_table(extractor, table: object, names: object) -> bool:
    """The frozen vocabulary from a ``"table"`` that spells exactly ``names``; False (nothing set) otherwise."""
    if not (
        isinstance(table, dict)
        and isinstance(names, list)
        and isinstance(table.get("bases"), str)
        and isinstance(table.get("columns"), str)
    ):
        return False
    try:
        keys = np.frombuffer(base64.b64decode(table["columns"], validate=True), dtype="<i4").astype(np.int64)
        bases = _BaseTable(extractor._named_set(), table["bases"].split("\n") if table["bases"] else [])
    except (ValueError, FeatureError):  # binascii.Error is a ValueError; FeatureError: not a base of the set
        return False
    n_bases = len(bases)
    if (
        len(bases.index) != n_bases
        or len(keys) != len(names)
        or len(keys)
        and not 0 <= keys.min() <= keys.max() < extractor._n_slots * n_bases
        or len(keys)
        and np.bincount(keys).max() > 1
    ):  # a column twice
        return False
    slots, ids = np.divmod(keys, n_bases)
    if not _spells(bases.names, slots - extractor.window, ids, names):
        return False
    extractor._set_state(bases, slots, ids, names)
    return True


def _spells(base_names: list[str], offsets: np.ndarray, ids: np.ndarray, names: list) -> bool:
    """Whether ``names[j]`` is the name of base ``ids[j]`` at ``offsets[j]``, for every column ``j``.

    The name :func:`~tagtool.core.features.templates.feature_name` gives,
    checked one group of columns with the same prefix at a time.  The
    columns shown with the prefix ``p`` (``"-1:"``; none at offset 0 and for
    the padding next to a sentence) are named ``p + base``: joined by
    newlines, their names must read ``p + ("\\n" + p).join(bases)``.  With no
    newline inside a name, equal texts mean equal names one by one.
    """
    try:
        stored = "\n".join(names)
    except TypeError:  # a name that is no string
        return False
    if stored.count("\n") != len(names) - 1:
        return False
    bare = (offsets == 0) | ((ids < 2) & (np.abs(offsets) == 1))
    shown = np.where(bare, 0, offsets)
    by_column = np.array(names, dtype=object)
    bases = np.array(base_names, dtype=object)[ids]
    for offset in np.unique(shown).tolist():
        group = np.flatnonzero(shown == offset)
        prefix = "" if offset == 0 else f"{offset:+d}:"
        if "\n".join(by_column[group].tolist()) != prefix + ("\n" + prefix).join(bases[group].tolist()):
            return False
    return True

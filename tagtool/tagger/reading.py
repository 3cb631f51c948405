"""Reading a tagger file back: the path checked, the members read and checked, the parts assembled.

Every failure becomes a :class:`~tagtool.tagger.file_format.TaggerFileError`
naming the file; :func:`read_meta` reads only ``meta.json``.
"""

from __future__ import annotations

import json
from os import PathLike
from pathlib import Path

import numpy as np

from tagtool.core.features import FeatureExtractor
from tagtool.core.labels import LabelSet
from tagtool.core.views import ViewSplit
from tagtool.learn.chain import ChainModel, ModelMismatchError
from tagtool.tagger import limits
from tagtool.tagger.arrays import read_arrays, read_representations
from tagtool.tagger.file_format import (
    GAZETTEERS_MEMBER,
    META_MEMBER,
    REPRESENTATIONS_MEMBER,
    VECTORS_MEMBER,
    WEIGHTS_MEMBER,
    TaggerFileError,
    declared_sizes,
    failing,
    open_archive,
    parse_meta,
    read_member,
)
from tagtool.tagger.inputs import read_record


def read_meta(path: str | PathLike) -> dict:
    """The ``meta.json`` of a tagger file, read within :func:`load_tagger`'s bounds; no weights.

    Raises
    ------
    FileNotFoundError, TaggerFileError
    """
    path = Path(path)
    check_readable_path(path)
    fail = failing(str(path))
    with open(path, "rb") as fh:
        archive, budget = open_archive(fh, fail)
        with archive:
            return parse_meta(
                read_member(archive, META_MEMBER, fail, budget, limits.meta_limit(budget.file_size)), fail
            )


def check_readable_path(path: Path) -> None:
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


def read_tagger(stream, source: str, make):
    """The tagger in ``stream``, built by ``make`` (the :class:`~tagtool.tagger.model.Tagger` class)."""
    fail = failing(source)
    archive, budget = open_archive(stream, fail)
    with archive:
        meta = parse_meta(read_member(archive, META_MEMBER, fail, budget, limits.meta_limit(budget.file_size)), fail)
        sizes = declared_sizes(meta, fail)
        arrays = read_arrays(read_member(archive, WEIGHTS_MEMBER, fail, budget), fail, budget, sizes)
        reps, vectors = (
            read_representations(read_member(archive, member, fail, budget), fail, budget, member)
            if member in archive.namelist()
            else None
            for member in (REPRESENTATIONS_MEMBER, VECTORS_MEMBER)
        )
        gaz = None
        if GAZETTEERS_MEMBER in archive.namelist():
            gaz = _gazetteers(read_member(archive, GAZETTEERS_MEMBER, fail, budget), fail)
    return _assemble(meta, arrays, fail, make, reps, gaz, vectors)


def _gazetteers(raw: bytes, fail):
    """The dictionaries of ``gazetteers.json``: plain JSON, checked by :meth:`Gazetteers.from_json`."""
    from tagtool.core.features import FeatureError
    from tagtool.core.features.gazetteers import Gazetteers

    try:
        return Gazetteers.from_json(json.loads(raw.decode("utf-8")))
    except (ValueError, RecursionError) as exc:  # FeatureError is a ValueError
        reason = exc if isinstance(exc, FeatureError) else f"not valid JSON ({type(exc).__name__})"
        raise fail(f"{GAZETTEERS_MEMBER}: {reason}") from None


def _assemble(meta: dict, arrays: dict[str, np.ndarray], fail, make, reps=None, gaz=None, vectors=None):
    # Local imports of the error types keep the failure modes listed in one place.
    from tagtool.core.features import FeatureError
    from tagtool.core.views import ViewSplitError
    from tagtool.errors import LabelError

    try:
        labels = LabelSet(meta["labels"])
        extractor = _extractor(meta["features"], reps, fail, gaz, vectors)
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
        return make(
            labels, extractor, view_split, model, dict(meta.get("metrics") or {}), str(meta.get("created", "")), inputs
        )
    except TaggerFileError:
        raise
    except (FeatureError, ViewSplitError, LabelError, ModelMismatchError) as exc:
        raise fail(f"inconsistent tagger file: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise fail(f"{META_MEMBER} is malformed ({type(exc).__name__}: {exc})") from None


def _extractor(features: dict, reps, fail, gaz=None, vectors=None) -> FeatureExtractor:
    """The fitted extractor of ``meta.json``, with the file's word representations, dictionaries and vectors if its
    features read them."""
    from tagtool.core.features.gazetteers import GAZ_SETS
    from tagtool.core.features.wordreps import DIST_SETS, VEC_SETS

    params = features.get("params") if isinstance(features, dict) else None
    sets = str(params.get("feature_set", "")).split("+") if isinstance(params, dict) else []
    if reps is None and any(name in DIST_SETS for name in sets):
        raise fail(f"the features read word representations, but {REPRESENTATIONS_MEMBER} is missing")
    if gaz is None and any(name in GAZ_SETS for name in sets):
        raise fail(f"the features read dictionaries, but {GAZETTEERS_MEMBER} is missing")
    if vectors is None and any(name in VEC_SETS for name in sets):
        raise fail(f"the features read word vectors, but {VECTORS_MEMBER} is missing")
    return FeatureExtractor.from_dict(features, reps, gaz, vectors)

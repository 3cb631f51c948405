"""``KEY=VALUE`` training settings: the CLI's ``--set``, the app's settings form, any caller holding strings.

:func:`parse_settings` splits such pairs into learner parameters and
feature, view and decoding settings, each value typed by the default of
the parameter it sets (:func:`parse_value`).
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field

from tagtool.core.features import FeatureExtractor
from tagtool.learn import Learner
from tagtool.learn.chain import DECODE_DEFAULTS
from tagtool.services.training_setup import DEFAULT_VIEW_KIND, TrainingSetupError, feature_settings

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NONE = {"none", "null"}
#: Feature settings that take a list: a comma-separated value.
_LIST_SETTINGS = {"columns"}


@dataclass
class Settings:
    """Parsed ``KEY=VALUE`` settings: learner parameters, feature, view and decoding settings."""

    params: dict
    features: dict
    views: dict
    decode: dict = field(default_factory=dict)


def _parse_bool(key: str, text: str) -> bool:
    low = text.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise TrainingSetupError(f"{key}: expected true or false, got {text!r}")


def _parse_untyped(text: str):
    """A value whose default gives no type (None): none, a number, a boolean or a string."""
    low = text.lower()
    if low in _NONE:
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if low in ("true", "false"):
        return low == "true"
    return text


def parse_value(key: str, text: str, default):
    """``text`` converted to the type of ``default`` (the parameter's default value)."""
    name = key.rpartition(".")[2]
    if name in _LIST_SETTINGS and key.startswith("features."):
        return None if text.lower() in _NONE else [part for part in text.split(",") if part]
    if isinstance(default, bool):
        return _parse_bool(key, text)
    if default is not None and text.lower() in _NONE:
        raise TrainingSetupError(f"{key} cannot be none")
    try:
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError:
        raise TrainingSetupError(f"{key}: expected a {type(default).__name__}, got {text!r}") from None
    if isinstance(default, str):
        return text
    return _parse_untyped(text)


def _defaults(cls) -> dict:
    sig = inspect.signature(cls.__init__)
    return {n: p.default for n, p in sig.parameters.items() if n != "self"}


def parse_settings(learner_cls: type[Learner], pairs: Iterable[str]) -> Settings:
    """Split and type ``KEY=VALUE`` strings.

    ``features.NAME=V`` sets a :class:`FeatureExtractor` argument,
    ``views.kind=V`` / ``views.seed=N`` the view split,
    ``decode.bio_constraint=false`` the decoding, and ``NAME=V`` (or
    ``learner.NAME=V``) a learner parameter.  Each value takes the type of
    the parameter's default (bool: true/false/yes/no/on/off/1/0; none/null
    for parameters whose default is None; ``features.columns`` is a
    comma-separated list).

    Raises
    ------
    TrainingSetupError
        A malformed pair, an unknown key, or a value of the wrong type.
    """
    known = {
        "features": {
            **{k: v for k, v in _defaults(FeatureExtractor).items() if k != "representations"},
            **feature_settings(learner_cls),
        },
        "views": {"kind": DEFAULT_VIEW_KIND, "seed": 0},
        "decode": dict(DECODE_DEFAULTS),
        "learner": learner_cls.param_defaults(),
    }
    out = {"learner": {}, "features": {}, "views": {}, "decode": {}}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise TrainingSetupError(f"--set expects KEY=VALUE, got {pair!r}")
        group, dot, name = key.partition(".")
        if not dot or group not in known:
            group, name = "learner", key
        if name not in known[group]:
            choices = ", ".join(sorted(known[group])) or "none"
            what = f"{learner_cls.name} parameter" if group == "learner" else f"{group} setting"
            raise TrainingSetupError(f"unknown {what} {name!r} (known: {choices})")
        out[group][name] = parse_value(key, text.strip(), known[group][name])
    return Settings(out["learner"], out["features"], out["views"], out["decode"])

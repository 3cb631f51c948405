"""``KEY=VALUE`` training settings: the CLI's ``--set``, the app's settings form, any caller holding strings.

:func:`parse_settings` splits such pairs into learner parameters and
feature, view and decoding settings, each value parsed and checked by the
table that declares it (:mod:`tagtool.core.params`): the learner's
``params``, :data:`~tagtool.core.features.settings.FEATURE_PARAMS`,
:data:`~tagtool.core.views.VIEW_PARAMS` and
:data:`~tagtool.learn.chain.DECODE_PARAMS`.  Nothing is read from data, so
a bad value stops a run before anything else starts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tagtool.core.features.settings import FEATURE_PARAMS
from tagtool.core.params import ParamTable, SettingError
from tagtool.core.views import VIEW_PARAMS
from tagtool.learn import Learner, find_learner
from tagtool.learn.chain import DECODE_PARAMS

#: The tables of ``--set GROUP.NAME=VALUE`` besides the learner's own parameters (``NAME=VALUE``).
SHARED_TABLES: dict[str, ParamTable] = {"features": FEATURE_PARAMS, "views": VIEW_PARAMS, "decode": DECODE_PARAMS}
GROUPS = tuple(SHARED_TABLES)


@dataclass
class Settings:
    """Parsed ``KEY=VALUE`` settings: learner parameters, feature, view and decoding settings."""

    params: dict
    features: dict
    views: dict
    decode: dict = field(default_factory=dict)


def setting_tables(learner_cls: type[Learner]) -> dict[str, ParamTable]:
    """The tables ``--set`` reads, by group: ``learner`` (the class's ``params``) and the shared ones."""
    return {"learner": learner_cls.params, **SHARED_TABLES}


def _split(pair: str) -> tuple[str, str, str]:
    """``(group, name, text)`` of ``KEY=VALUE``; a key without a known group prefix is a learner parameter."""
    key, sep, text = pair.partition("=")
    key = key.strip()
    if not sep or not key:
        raise SettingError(f"--set expects KEY=VALUE, got {pair!r}")
    group, dot, name = key.partition(".")
    if group == "learner" and dot:
        return "learner", name, text
    if not dot or group not in GROUPS:
        return "learner", key, text
    return group, name, text


def parse_settings(learner_cls: type[Learner], pairs: Iterable[str]) -> Settings:
    """Split, type and check ``KEY=VALUE`` strings.

    ``features.NAME=V`` sets a :class:`~tagtool.core.features.FeatureExtractor`
    argument, ``views.kind=V`` / ``views.random_state=N`` the view split,
    ``decode.bio_constraint=false`` the decoding, and ``NAME=V`` (or
    ``learner.NAME=V``) a learner parameter.  Values are read by the
    setting's declared type (bool: true/false/yes/no/on/off/1/0; ``none``
    where the setting is optional; a list comma-separated) and checked
    against its range or choices.  An old name is read as the current one,
    with a logged deprecation warning.

    Raises
    ------
    SettingError
        A malformed pair, an unknown name, or a value the table refuses:
        one line naming the setting and what it takes.
    """
    tables = setting_tables(learner_cls)
    out: dict[str, dict] = {"learner": {}, "features": {}, "views": {}, "decode": {}}
    for pair in pairs:
        group, name, text = _split(pair)
        prefix = "" if group == "learner" else f"{group}."
        name, value = tables[group].parse(name, text, prefix)
        out[group][name] = value
    return Settings(out["learner"], out["features"], out["views"], out["decode"])


def current_names(learner: str, params: Mapping) -> dict:
    """``params`` of learner ``learner`` under current names (old ones mapped, unknown ones dropped, both logged).

    For settings stored before a rename (a project's models, its chosen
    settings); unchanged for a learner that is not offered.
    """
    cls = find_learner(learner)
    return dict(params) if cls is None else cls.params.rename(params)

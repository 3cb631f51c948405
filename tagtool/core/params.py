"""Declared settings: one :class:`ParamTable` per configurable thing, and everything read from it.

A :class:`Param` states a setting's name, type (``None`` allowed only when
``optional``), range or choices, default, a line of help and the old names
it is still read under.  Each learner class holds its table as the class
attribute ``params`` (in the spirit of scikit-learn's
``_parameter_constraints``), as do the feature extractor
(``FeatureExtractor.params``), the view split (:data:`tagtool.core.views.VIEW_PARAMS`)
and decoding (:data:`tagtool.learn.chain.DECODE_PARAMS`).  Parsing of
``KEY=VALUE`` text and of stored dicts, validation before any data are read,
the app's settings form, the ``--help`` epilogs and ``tagtool settings`` are
all generated from these tables, so a setting's type or choices are declared
once.

An old name (``epochs`` for ``max_iter``) is mapped to the current one with a
logged deprecation warning, so tagger files and projects written before a
rename keep loading.
"""

from __future__ import annotations

import logging
import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from tagtool.errors import TagtoolError

logger = logging.getLogger(__name__)

#: One vocabulary across the learners.  The parameter counting passes over the data (epochs, iterations,
#: the outer loop of an algorithm): the app caps it for a quick retrain after an edit and estimates a
#: run's cost from it; a learner without it does not iterate (the HMM).
MAX_ITER = "max_iter"
#: The parameter seeding a learner's (or the view split's) random choices, which ``--seed`` sets.
RANDOM_STATE = "random_state"

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null")
_TYPE_NAMES = {int: "int", float: "float", bool: "bool", str: "str", list: "list"}


class SettingError(TagtoolError, ValueError):
    """A setting that does not exist or a value its table does not allow; the message is one line naming it."""


def _number_text(value: float) -> str:
    if value == math.inf:
        return "inf"
    if value == -math.inf:
        return "-inf"
    if isinstance(value, int) and abs(value) >= 2**16 and value & (value - 1) == 0:
        return f"2**{value.bit_length() - 1}"
    return repr(value)


@dataclass(frozen=True)
class Param:
    """One setting: what it takes, its default and a line of help.

    Parameters
    ----------
    name : str
        The name in ``--set NAME=VALUE``, the constructor and stored settings.
    type : {int, float, bool, str, list}
        The value's type; ``list`` is a list of strings (comma-separated in text).
        An int is accepted where a float is declared; a float must be finite.
    default : object
        The value when the setting is not given (None only when ``optional``).
    help : str
        One line: what the setting means (its unit, the paper's symbol).
    low, high : float, optional
        Inclusive bounds of a number; ``low_open``/``high_open`` exclude them.
    choices : tuple, optional
        The values allowed; with ``joined`` a value may join several distinct
        choices with ``+`` (the feature extractor's stacked sets).
    repeatable : tuple, optional
        The choices a joined value may name twice (a second copy of a
        stacked set, for the second view of a two-view learner).
    optional : bool
        None is allowed; ``none_means`` says what it stands for.
    aliases : tuple of str
        Old names still read (with a deprecation warning).
    """

    name: str
    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    joined: bool = False
    repeatable: tuple = ()
    optional: bool = False
    none_means: str = ""
    aliases: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.default is None and not self.optional:
            raise ValueError(f"{self.name}: a default of None needs optional=True")

    # -- what it takes, in words ----------------------------------------

    @property
    def type_text(self) -> str:
        """``int``, ``float or none`` … as the listing and the errors say it."""
        text = _TYPE_NAMES.get(self.type, self.type.__name__)
        if self.joined:
            text += " (A+B joins sets)"
        return f"{text} or none" if self.optional else text

    @property
    def range_text(self) -> str:
        """``[1, inf)``, ``one of a, b`` or "" when any value of the type goes."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        if self.low is None and self.high is None:
            return ""
        low = -math.inf if self.low is None else self.low
        high = math.inf if self.high is None else self.high
        left = "(" if self.low_open or low == -math.inf else "["
        right = ")" if self.high_open or high == math.inf else "]"
        return f"{left}{_number_text(low)}, {_number_text(high)}{right}"

    @property
    def expected(self) -> str:
        """What an error says was expected: type, range or choices, and none when optional."""
        if self.choices:
            what = "one of " + ", ".join(str(c) for c in self.choices)
            if self.joined:
                twice = f"; {', '.join(self.repeatable)} at most twice" if self.repeatable else ""
                what += f" (or several joined by +{twice})"
        else:
            what = {
                int: "an int",
                float: "a number",
                bool: "true or false",
                str: "a text",
                list: "a comma-separated list",
            }.get(self.type, self.type.__name__)
            if self.range_text:
                what += " in " + self.range_text
        return what + " or none" if self.optional else what

    # -- reading and checking -------------------------------------------

    def _error(self, key: str | None, got: object) -> SettingError:
        return SettingError(f"{key or self.name}: expected {self.expected}, got {got!r}")

    def parse(self, text: str, key: str | None = None) -> Any:
        """``text`` (a ``--set`` value, a form's entry) as a checked value of this setting."""
        text = text.strip()
        low = text.lower()
        if low in _NONE and self.type is not str:
            if not self.optional:
                raise self._error(key, text)
            return None
        if self.type is bool:
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise self._error(key, text)
        if self.type is list:
            return self.check([part.strip() for part in text.split(",") if part.strip()], key)
        if self.type is str:
            if low in _NONE and self.optional:
                return None
            return self.check(text, key)
        try:
            return self.check(self.type(text), key)
        except (ValueError, SettingError):
            raise self._error(key, text) from None  # the text as given, not as converted

    def check(self, value: Any, key: str | None = None) -> Any:
        """``value`` if this setting takes it (an int given for a float becomes a float), else :class:`SettingError`."""
        if value is None:
            if self.optional:
                return None
            raise self._error(key, value)
        if not self._type_ok(value):
            raise self._error(key, value)
        if self.type is float:
            value = float(value)
        if self.type is int:
            value = int(value)  # a numpy integer (a seed drawn by numpy) as a Python int
        if self.type is list:
            value = [str(v) for v in value]
        if self.choices and not self.choice_ok(value):
            raise self._error(key, value)
        if self.type in (int, float) and not self._in_range(value):
            raise self._error(key, value)
        return value

    def _type_ok(self, value: Any) -> bool:
        if self.type is bool:
            return isinstance(value, bool)
        if self.type is int:
            # numbers.Integral takes numpy's integers too (not numpy's bool, which is no number)
            return isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if self.type is float:
            return isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value)
        if self.type is list:
            return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
        return isinstance(value, self.type)

    def choice_ok(self, value: Any) -> bool:
        """True if ``value`` is one of the choices (joined: distinct choices, the repeatable at most twice)."""
        if not self.joined:
            return value in self.choices
        parts = str(value).split("+")
        most = {part: 2 if part in self.repeatable else 1 for part in parts}
        return all(part in self.choices and parts.count(part) <= most[part] for part in parts)

    def _in_range(self, value: float) -> bool:
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            return False
        return True


def format_value(value: Any) -> str:
    """A value as ``--set`` takes it: ``none``, ``true``, ``a,b`` for a list."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    if isinstance(value, int) and abs(value) >= 2**16:
        return _number_text(value)
    return str(value)


class ParamTable:
    """The declared settings of one configurable thing, by name; old names map to current ones.

    Parameters
    ----------
    *params : Param
    owner : str
        What the settings belong to, for messages (``crf``, ``features``).
    """

    def __init__(self, *params: Param, owner: str = ""):
        self.owner = owner
        self._params: dict[str, Param] = {}
        self._aliases: dict[str, str] = {}
        for param in params:
            if param.name in self._params:
                raise ValueError(f"{owner}: {param.name} declared twice")
            self._params[param.name] = param
        for param in params:
            for old in param.aliases:
                if old in self._params or old in self._aliases:
                    raise ValueError(f"{owner}: alias {old} of {param.name} is already a name")
                self._aliases[old] = param.name

    def extend(self, *params: Param, owner: str | None = None, **changes: Mapping) -> ParamTable:
        """A new table: these params, ``changes`` (``name={"default": 30}``) applied, ``params`` added or replacing."""
        mine = [replace(p, **changes[p.name]) if p.name in changes else p for p in self._params.values()]
        new = {p.name: p for p in params}
        merged = [new.pop(p.name, p) for p in mine] + list(new.values())
        return ParamTable(*merged, owner=self.owner if owner is None else owner)

    def __iter__(self) -> Iterator[Param]:
        return iter(self._params.values())

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, name: object) -> bool:
        return name in self._params

    def __getitem__(self, name: str) -> Param:
        return self._params[name]

    def names(self) -> list[str]:
        return list(self._params)

    @property
    def aliases(self) -> dict[str, str]:
        """Old name -> current name."""
        return dict(self._aliases)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self}

    def _key(self, name: str, prefix: str) -> str:
        """How an error names the setting: ``features.window``, or ``svm: C`` for a learner's (no prefix)."""
        if prefix or not self.owner:
            return f"{prefix}{name}"
        return f"{self.owner}: {name}"

    def canonical(self, name: str, prefix: str = "") -> str:
        """The current name of ``name``: itself, or the name an old one maps to (logged as deprecated).

        Raises
        ------
        SettingError
            A name neither declared nor an old name, listing the known ones.
        """
        if name in self._params:
            return name
        if name in self._aliases:
            new = self._aliases[name]
            logger.warning("%s%s is deprecated: it is now called %s%s", prefix, name, prefix, new)
            return new
        known = ", ".join(self._params) or "none"
        what = f"{self.owner} setting" if self.owner else "setting"
        raise SettingError(f"unknown {what} {prefix + name!r} (known: {known})")

    def parse(self, name: str, text: str, prefix: str = "") -> tuple[str, Any]:
        """``(current name, checked value)`` of ``NAME=text`` (``--set``, a form's entry)."""
        name = self.canonical(name.strip(), prefix)
        return name, self._params[name].parse(text, self._key(name, prefix))

    def check(self, values: Mapping, prefix: str = "") -> dict:
        """``values`` (stored settings, keyword arguments) under current names, each checked.

        Old names are mapped (with a warning); a value given under both an old
        and a current name is an error.
        """
        out: dict = {}
        for name, value in values.items():
            new = self.canonical(name, prefix)
            if new in out:
                raise SettingError(f"{prefix}{new} is given twice (also under an old name)")
            out[new] = self._params[new].check(value, self._key(new, prefix))
        return out

    def rename(self, values: Mapping, prefix: str = "") -> dict:
        """``values`` under current names, unchecked (old names mapped; unknown ones dropped with a warning)."""
        out: dict = {}
        for name, value in values.items():
            try:
                out[self.canonical(name, prefix)] = value
            except SettingError as exc:
                logger.warning("%s: ignored", exc)
        return out

    def rows(self, defaults: Mapping | None = None) -> list[tuple[str, str, str, str, str]]:
        """``(name, type, default, range or choices, help)`` of every setting, ``defaults`` overriding."""
        rows = []
        for p in self:
            default = (defaults or {}).get(p.name, p.default)
            help_text = p.help + (f" (none: {p.none_means})" if p.none_means else "")
            if p.aliases:
                help_text += f" [old name: {', '.join(p.aliases)}]"
            rows.append((p.name, p.type_text, format_value(default), p.range_text, help_text))
        return rows

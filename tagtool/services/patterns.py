"""Patterns files in the shape Prodigy and spaCy users know, and matching them in sentences.

A patterns file is JSON Lines, one pattern an object (blank lines skipped):

* a *phrase*: ``{"label": "ORG", "pattern": "Acme Corp"}`` — the text is
  tokenised as a dictionary entry is and matched under the dictionary case
  rule (:mod:`tagtool.core.features.gazetteers`: exact, or whatever the case
  when written all in lower case; a sentence's first token also with its
  first letter lower-cased);
* a *token pattern*: ``{"label": "ORG", "pattern": [{"lower": "acme"},
  {"lower": "corp"}]}`` — one object a token, as spaCy's ``Matcher`` reads
  them (Prodigy's ``--patterns``).  Keys are read whatever their case
  (``LOWER`` or ``lower``).

Supported token attributes (:data:`TEXT_ATTRIBUTES`, :data:`FLAG_ATTRIBUTES`):
``orth`` / ``text`` (the token exactly), ``lower``, ``shape`` (spaCy's
shape: ``X``/``x``/``d`` for upper, lower, digit, other characters as they
are, runs longer than four cut to four), ``length``; the flags ``is_alpha``,
``is_digit``, ``is_lower``, ``is_upper``, ``is_title``, ``is_punct``,
``like_num``; ``op`` one of ``?`` (optional), ``*`` (any number), ``+`` (one
or more), ``!`` (a token that does not match), ``1``.  A text attribute may
also be ``{"IN": [...]}`` or ``{"NOT_IN": [...]}``.  An empty object ``{}``
is any token.  Anything else (``pos``, ``lemma``, ``ent_type``, ``regex``
…: attributes a model would have to predict) is refused with the file and
line.  An optional ``"id"`` is kept and otherwise ignored.

References
----------
.. [1] Explosion. Prodigy, "Patterns files" (https://prodi.gy/docs/api-loaders#patterns);
   spaCy, "Rule-based matching", token attributes and operators
   (https://spacy.io/usage/rule-based-matching).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tagtool.core.tokenize import get_tokenizer
from tagtool.errors import TagtoolError


class KnowledgeFileError(TagtoolError, ValueError):
    """A dictionary or patterns file that cannot be read; the message names the file and line."""


def spacy_shape(token: str) -> str:
    """spaCy's ``shape_``: ``X``/``x``/``d`` for upper, lower, digit characters, runs cut at four."""
    out: list[str] = []
    for c in token:
        s = "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c
        if len(out) >= 4 and out[-1] == out[-2] == out[-3] == out[-4] == s:
            continue
        out.append(s)
    return "".join(out)


def _like_num(token: str) -> bool:
    digits = token.replace(",", "").replace(".", "", 1).lstrip("+-")
    return digits.isdigit() or (token.count("/") == 1 and token.replace("/", "").isdigit())


def _is_punct(token: str) -> bool:
    return bool(token) and all(unicodedata.category(c)[0] == "P" for c in token)


#: Attributes compared with a string (or ``{"IN": [...]}``): the token's value of each.
TEXT_ATTRIBUTES: dict[str, Callable[[str], str]] = {
    "orth": str,
    "text": str,
    "lower": str.lower,
    "shape": spacy_shape,
}
#: Attributes compared with true or false.
FLAG_ATTRIBUTES: dict[str, Callable[[str], bool]] = {
    "is_alpha": str.isalpha,
    "is_digit": str.isdigit,
    "is_lower": lambda t: t.islower(),
    "is_upper": lambda t: t.isupper(),
    "is_title": str.istitle,
    "is_punct": _is_punct,
    "like_num": _like_num,
}
OPERATORS = ("?", "*", "+", "!", "1")

#: A token test: ``(attribute, kind, value)``, kind ``"="``, ``"in"``, ``"not_in"`` or ``"flag"``.
Test = tuple[str, str, object]


@dataclass(frozen=True)
class TokenSpec:
    """One element of a token pattern: its tests (all must hold) and its operator."""

    tests: tuple[Test, ...]
    op: str = "1"

    def matches(self, token: str) -> bool:
        for attribute, kind, value in self.tests:
            if attribute == "length":
                if len(token) != value:
                    return False
                continue
            if kind == "flag":
                if FLAG_ATTRIBUTES[attribute](token) != value:
                    return False
                continue
            got = TEXT_ATTRIBUTES[attribute](token)
            ok = got == value if kind == "=" else (got in value) == (kind == "in")  # type: ignore[operator]
            if not ok:
                return False
        return True


@dataclass(frozen=True)
class Pattern:
    """One line of a patterns file: a phrase (its tokens) or a token pattern."""

    label: str
    line: int
    phrase: tuple[str, ...] = ()
    tokens: tuple[TokenSpec, ...] = ()
    id: str = ""

    def ends(self, tokens: Sequence[str], start: int) -> set[int]:
        """The ends of the token pattern's matches starting at ``start`` (none for an empty match)."""
        specs, n = self.tokens, len(tokens)
        if all(spec.op == "1" for spec in specs):  # the common case: one token per element, no search
            end = start + len(specs)
            fits = end <= n and all(spec.matches(tokens[start + k]) for k, spec in enumerate(specs))
            return {end} if fits else set()

        @cache
        def reach(i: int, pos: int) -> frozenset[int]:
            if i == len(specs):
                return frozenset((pos,))
            spec = specs[i]
            out: set[int] = set()
            if spec.op in ("?", "*"):
                out |= reach(i + 1, pos)
            if pos < n and spec.matches(tokens[pos]) != (spec.op == "!"):
                out |= reach(i + 1, pos + 1)
                if spec.op in ("*", "+"):
                    out |= reach(i, pos + 1)
            return frozenset(out)

        return {end for end in reach(0, start) if end > start}


#: Attributes a token pattern can be indexed by: its first token's exact value under them.
_INDEXED = {"orth": "orth", "text": "orth", "lower": "lower"}


def first_values(pattern: Pattern) -> tuple[str, frozenset[str]] | None:
    """``("orth" | "lower", values)`` that the first token of every match must have, if the pattern says so."""
    spec = pattern.tokens[0] if pattern.tokens else None
    if spec is None or spec.op not in ("1", "+"):
        return None
    for attribute, kind, value in spec.tests:
        if attribute in _INDEXED and kind in ("=", "in"):
            values = frozenset([str(value)]) if kind == "=" else frozenset(map(str, value))  # type: ignore[call-overload]
            return _INDEXED[attribute], values
    return None


class TokenPatternIndex:
    """Token patterns by the value their first token must have, so a sentence tries only those that can start.

    Items are ``(pattern, tag)``: :meth:`matches` gives back the tag of each match.
    """

    def __init__(self, items: Sequence[tuple[Pattern, object]]):
        self.by_value: dict[str, dict[str, list]] = {"orth": {}, "lower": {}}
        self.anywhere: list = []
        for pattern, tag in items:
            first = first_values(pattern)
            if first is None:
                self.anywhere.append((pattern, tag))
            else:
                for value in first[1]:
                    self.by_value[first[0]].setdefault(value, []).append((pattern, tag))

    def __bool__(self) -> bool:
        return bool(self.anywhere or self.by_value["orth"] or self.by_value["lower"])

    def matches(self, tokens: Sequence[str]) -> list[tuple[int, int, object]]:
        """Every ``(start, end, tag)`` where a pattern matches ``tokens``."""
        orth, lower = self.by_value["orth"], self.by_value["lower"]
        found = []
        for start, token in enumerate(tokens):
            items = [*orth.get(token, ()), *lower.get(token.lower(), ()), *self.anywhere] if lower else None
            if items is None:
                items = [*orth.get(token, ()), *self.anywhere]
            for pattern, tag in items:
                found += [(start, end, tag) for end in pattern.ends(tokens, start)]
        return found


@dataclass(frozen=True)
class Patterns:
    """A patterns file: its name, its patterns and its text (as the project stores it)."""

    name: str
    patterns: tuple[Pattern, ...]
    text: str = ""

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(sorted({p.label for p in self.patterns}))

    def __len__(self) -> int:
        return len(self.patterns)


def decode_text(raw: bytes, source: str) -> str:
    """UTF-8 text (a byte-order mark dropped); :class:`KnowledgeFileError` naming ``source:line`` otherwise."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise KnowledgeFileError(f"{source}:{line}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def read_file_text(path: str | Path) -> str:
    """The UTF-8 text of ``path`` (errors name the file and line)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise KnowledgeFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return decode_text(raw, str(path))


def tokenise_phrase(text: str, tokenizer: str = "default") -> tuple[str, ...]:
    """The tokens of a dictionary entry or phrase pattern, by the named tokenizer's rules."""
    return tuple(text[a:b] for a, b in get_tokenizer(tokenizer)(text))


def _token_spec(spec: object, where: str) -> TokenSpec:
    if not isinstance(spec, dict):
        raise KnowledgeFileError(f"{where}: a token pattern is a list of objects, got {spec!r:.60}")
    tests: list[Test] = []
    op = "1"
    for key, value in spec.items():
        attribute = str(key).lower()
        if attribute == "op":
            if value not in OPERATORS:
                raise KnowledgeFileError(f"{where}: op {value!r} is not one of {', '.join(OPERATORS)}")
            op = value
        elif attribute in FLAG_ATTRIBUTES:
            if not isinstance(value, bool):
                raise KnowledgeFileError(f"{where}: {key} takes true or false, got {value!r:.60}")
            tests.append((attribute, "flag", value))
        elif attribute == "length":
            if not isinstance(value, int) or isinstance(value, bool):
                raise KnowledgeFileError(f"{where}: length takes a whole number, got {value!r:.60}")
            tests.append((attribute, "=", value))
        elif attribute in TEXT_ATTRIBUTES:
            tests.append(_text_test(attribute, key, value, where))
        else:
            supported = ", ".join([*TEXT_ATTRIBUTES, "length", *FLAG_ATTRIBUTES, "op"])
            raise KnowledgeFileError(f"{where}: the token attribute {key!r} is not supported (supported: {supported})")
    return TokenSpec(tuple(tests), op)


def _text_test(attribute: str, key: str, value: object, where: str) -> Test:
    if isinstance(value, str):
        return (attribute, "=", value)
    if isinstance(value, dict) and len(value) == 1:
        ((kind, values),) = value.items()
        if (
            str(kind).upper() in ("IN", "NOT_IN")
            and isinstance(values, list)
            and all(isinstance(v, str) for v in values)
        ):
            return (attribute, str(kind).lower(), frozenset(values))
    raise KnowledgeFileError(f'{where}: {key} takes a string or {{"IN": [strings]}}, got {value!r:.60}')


def _pattern(record: object, line: int, source: str, tokenizer: str) -> Pattern:
    where = f"{source}:{line}"
    if not isinstance(record, dict):
        raise KnowledgeFileError(f'{where}: a pattern is a JSON object with "label" and "pattern"')
    unknown = set(record) - {"label", "pattern", "id"}
    if unknown:
        raise KnowledgeFileError(
            f"{where}: unknown key(s) {', '.join(sorted(map(repr, unknown)))} (label, pattern, id)"
        )
    label, pattern = record.get("label"), record.get("pattern")
    if not isinstance(label, str) or not label.strip() or any(c.isspace() for c in label) or label == "O":
        raise KnowledgeFileError(f'{where}: "label" must be an entity type (a word other than O), got {label!r:.60}')
    id_ = str(record.get("id", ""))
    if isinstance(pattern, str):
        phrase = tokenise_phrase(pattern, tokenizer)
        if not phrase:
            raise KnowledgeFileError(f"{where}: the phrase pattern is empty")
        return Pattern(label, line, phrase=phrase, id=id_)
    if isinstance(pattern, list) and pattern:
        specs = tuple(_token_spec(spec, where) for spec in pattern)
        if all(spec.op in ("?", "*") for spec in specs):
            raise KnowledgeFileError(f"{where}: the token pattern can match no token at all")
        return Pattern(label, line, tokens=specs, id=id_)
    raise KnowledgeFileError(f'{where}: "pattern" must be a phrase (a string) or a list of token objects')


def parse_patterns(text: str, name: str, tokenizer: str = "default") -> Patterns:
    """The :class:`Patterns` of a patterns file's ``text`` (errors name ``name:line``)."""
    patterns = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise KnowledgeFileError(f"{name}:{number}: not a JSON object ({exc})") from None
        patterns.append(_pattern(record, number, name, tokenizer))
    if not patterns:
        raise KnowledgeFileError(f"{name}: no pattern in the file")
    return Patterns(name, tuple(patterns), text)


def read_patterns(path: str | Path, tokenizer: str = "default") -> Patterns:
    """Read a patterns file (JSON Lines, module docstring); its name is the file's name.

    Raises
    ------
    KnowledgeFileError
        The file cannot be read, is not UTF-8, or a line is not a supported
        pattern (the message names the file and line).
    """
    path = Path(path)
    patterns = parse_patterns(read_file_text(path), str(path), tokenizer)
    return Patterns(path.name, patterns.patterns, patterns.text)

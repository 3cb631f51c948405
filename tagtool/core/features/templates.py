"""Feature families and named feature sets: templates, word predicates, names.

The base features of one token (word shape, Greek letters, surface flags,
affixes, letter n-grams, extra columns), the :class:`Template` groups, the
``"default"`` and ``"crfsuite"`` :class:`FeatureSet` s, and the naming of
features seen at an offset.  See :mod:`tagtool.core.features` for the
feature sets and the token / surface groups.
"""

from __future__ import annotations

import operator
import re
import unicodedata
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tagtool.errors import TagtoolError

GROUP_TOKEN = 0
GROUP_SURFACE = 1
GROUP_NAMES = ("token", "surface")

BOS = "BOS"
EOS = "EOS"


class FeatureError(TagtoolError, ValueError):
    """Bad extractor settings, or a serialised extractor that cannot be read."""


# --------------------------------------------------------------------------
# Word-level predicates
# --------------------------------------------------------------------------

GREEK_LETTER_NAMES = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
    "omicron pi rho sigma tau upsilon phi chi psi omega".split()
)

# Runs of a word split at case changes: "TNFalpha" -> TN, Falpha;
# "NF-kappaB" -> NF, kappa, B; "IL2Ralpha" -> IL, Ralpha.
_LETTER_RUNS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,:/]\d+)*|[.,]\d+)%?")
_LENGTH_BUCKETS = ((1, "1"), (2, "2"), (3, "3"), (4, "4"), (6, "5-6"), (9, "7-9"))


def word_shape(word: str) -> str:
    """``X`` for upper-case letters, ``x`` other letters, ``d`` digits, else the character.

    ``"IL-2"`` → ``"XX-d"``, ``"U.S."`` → ``"X.X."``, ``"ÉCOLE"`` → ``"XXXXX"``.
    """
    return "".join("X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c for c in word)


def short_shape(word: str) -> str:
    """:func:`word_shape` with runs of one character collapsed: ``"Xxxx"`` → ``"Xx"``."""
    shape = word_shape(word)
    return "".join(c for i, c in enumerate(shape) if i == 0 or c != shape[i - 1])


def _is_greek_char(c: str) -> bool:
    return "\u0370" <= c <= "\u03ff" or "\u1f00" <= c <= "\u1fff"


def _is_greek_run(run: str) -> bool:
    low = run.lower()
    if run.isupper():
        # All-caps short names (PI3K, MU, XI) are mostly abbreviations.
        return len(low) >= 4 and low in GREEK_LETTER_NAMES
    if low in GREEK_LETTER_NAMES:
        return True
    # A capital glued before a name ("IL2Ralpha"); only long names, so that
    # "Meta" is not read as M + eta.
    return run[0].isupper() and len(run) > 4 and low[1:] in GREEK_LETTER_NAMES


def has_greek(word: str) -> bool:
    """True if ``word`` contains a Greek character or a Greek letter name as a word part.

    Letter names count as a run of letters delimited by non-letters or case
    changes (``alpha-catenin``, ``NF-kappaB``, ``TNFalpha``), never as a bare
    substring (``alphabet``, ``Meta`` are not Greek), as in gene-mention
    feature sets (Hakenberg et al. 2005, cited by Brefeld et al. 2005 §6).
    """
    if any(_is_greek_char(c) for c in word):
        return True
    return any(_is_greek_run(m.group()) for m in _LETTER_RUNS.finditer(word))


def length_bucket(n: int) -> str:
    """Bucket of a token length: ``1``, ``2``, ``3``, ``4``, ``5-6``, ``7-9``, ``10+`` (``0`` if empty)."""
    if n == 0:
        return "0"
    for upper, name in _LENGTH_BUCKETS:
        if n <= upper:
            return name
    return "10+"


def surface_flags(word: str) -> list[str]:
    """Capitalisation, digit, punctuation and Greek indicators of a word (the true ones)."""
    categories = [unicodedata.category(c) for c in word]
    is_punct = [cat[0] in "PS" for cat in categories]  # symbols ($, %, +) count as punctuation
    has_digit = any(c.isdigit() for c in word)
    has_alpha = any(c.isalpha() for c in word)
    has_lower = any(c.islower() for c in word)
    tests = (
        ("init_cap", word[:1].isupper()),
        ("all_caps", word.isupper()),
        ("mixed_caps", has_lower and any(c.isupper() for c in word[1:])),
        ("has_digit", has_digit),
        ("all_digits", word.isdigit()),
        ("digit_and_alpha", has_digit and has_alpha),
        ("digit_and_punct", has_digit and any(is_punct)),
        ("number", _NUMBER.fullmatch(word) is not None),
        ("is_punct", bool(word) and all(is_punct)),
        ("has_punct", any(is_punct)),
        ("has_hyphen", "Pd" in categories),
        ("has_period", "." in word),
        ("greek", has_greek(word)),
    )
    return [name for name, true in tests if true]


# --------------------------------------------------------------------------
# Templates and feature sets
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """A family of base features sharing a name prefix.

    Attributes
    ----------
    tag : str
        The name up to the first ``=`` (``"lw"`` for ``lw=the``), or the whole
        name of a flag (``"init_cap"``).
    group : int
        :data:`GROUP_TOKEN` or :data:`GROUP_SURFACE`.
    context : bool
        True if the window copies it to the neighbours; False if it is a
        feature of the current token only (``bias``, ``word[-3:]`` of the
        crfsuite template).
    """

    tag: str
    group: int
    context: bool = True


_DEFAULT_TOKEN_TAGS = ("w", "lw", "p1", "p2", "p3", "p4", "s1", "s2", "s3", "s4", "g2", "g3", "g4")
_DEFAULT_SURFACE_TAGS = (
    "shape", "sshape", "init_cap", "all_caps", "mixed_caps", "has_digit", "all_digits",
    "digit_and_alpha", "digit_and_punct", "number", "is_punct", "has_punct", "has_hyphen",
    "has_period", "greek", "len", BOS, EOS,
)  # fmt: skip
_COLUMN_TEMPLATE = Template("col:", GROUP_SURFACE)


def default_word_features(word: str) -> list[str]:
    """Base features of a word in the ``"default"`` set (see the module docstring)."""
    lw = word.lower()
    n = min(4, len(word))
    feats = [f"w={word}", f"lw={lw}"]
    feats += [f"p{i}={word[:i]}" for i in range(1, n + 1)]
    feats += [f"s{i}={word[-i:]}" for i in range(1, n + 1)]
    marked = f"<{lw}>"
    for g in (2, 3, 4):
        feats += [f"g{g}={marked[i : i + g]}" for i in range(len(marked) - g + 1)]
    feats += [f"shape={word_shape(word)}", f"sshape={short_shape(word)}"]
    feats += surface_flags(word)
    feats.append(f"len={length_bucket(len(word))}")
    return list(dict.fromkeys(feats))  # an n-gram may repeat ("banana")


def default_column_features(column: str, value: str | None) -> list[str]:
    """``col:<column>=<value>`` and its first two characters, like CRFsuite's ``postag[:2]``."""
    if value is None:
        return []
    return [f"col:{column}={value}", f"col:{column}[:2]={value[:2]}"]


def crfsuite_word_features(word: str) -> list[str]:
    """Word part of the sklearn-crfsuite tutorial's ``word2features`` for the current token.

    Booleans appear only when true: CRFsuite gives a false one the value 0,
    which contributes nothing.  Names are the attributes python-crfsuite
    makes of the tutorial's dict (``{"k": "v"}`` → ``k=v``, ``{"k": True}``
    → ``k``).

    References
    ----------
    .. [1] M. Korobov. sklearn-crfsuite tutorial, ``word2features``
       (https://sklearn-crfsuite.readthedocs.io/en/latest/tutorial.html).
    """
    feats = ["bias", f"word.lower()={word.lower()}", f"word[-3:]={word[-3:]}", f"word[-2:]={word[-2:]}"]
    for test, true in (
        ("word.isupper()", word.isupper()),
        ("word.istitle()", word.istitle()),
        ("word.isdigit()", word.isdigit()),
    ):
        if true:
            feats.append(test)
    return feats


_LAST3, _LAST2 = operator.itemgetter(slice(-3, None)), operator.itemgetter(slice(-2, None))


def crfsuite_word_columns(words: Sequence[str]) -> list[tuple[str, Sequence | None]]:
    """:func:`crfsuite_word_features` of many words at once, template by template.

    One ``(name, values)`` per template, in the order of the names of
    :func:`crfsuite_word_features`: ``values`` holds every word's value
    (the feature is ``name=value``), or its truth (the feature is ``name``
    when true), or is None (``name`` for every word).  Each is computed by
    one C-level ``map`` over the words, which is what makes tagging's
    frozen encoding fast (:meth:`tagtool.core.features.encoding._BaseTable.encode`).
    """

    def truth(test):
        return np.fromiter(map(test, words), dtype=bool, count=len(words))

    return [
        ("bias", None),
        ("word.lower()", list(map(str.lower, words))),
        ("word[-3:]", list(map(_LAST3, words))),
        ("word[-2:]", list(map(_LAST2, words))),
        ("word.isupper()", truth(str.isupper)),
        ("word.istitle()", truth(str.istitle)),
        ("word.isdigit()", truth(str.isdigit)),
    ]


def crfsuite_column_features(column: str, value: str | None) -> list[str]:
    """``postag=<value>`` and ``postag[:2]=<value[:2]>`` of the POS column."""
    if value is None:
        return []
    return [f"postag={value}", f"postag[:2]={value[:2]}"]


@dataclass(frozen=True)
class FeatureSet:
    """A named family of templates and the functions that produce its base features.

    Attributes
    ----------
    name : str
    templates : mapping of str to Template
        By tag.
    word_features : callable(str) -> list of str
        Base features of a word, each name once.
    column_features : callable(str, str or None) -> list of str
        Base features of one extra-column value (``None``: column absent).
    column_policy : {"all", "pos"}
        ``"all"``: every extra column (or the extractor's ``columns``);
        ``"pos"``: one POS column (the extractor's ``pos_column``).
    fixed_window : int or None
        The only window the set allows, if any.
    sentence_features : callable(sequence of str) -> list of tuple of str, or None
        Base features that depend on the whole sentence (dictionary matches,
        :mod:`tagtool.core.features.gazetteers`): given a sentence's tokens,
        the names of every token's, added to its word features.
    """

    name: str
    templates: Mapping[str, Template]
    word_features: Callable[[str], list[str]]
    column_features: Callable[[str, str | None], list[str]]
    column_policy: str
    fixed_window: int | None = None
    sentence_features: Callable[[Sequence[str]], list[tuple[str, ...]]] | None = None

    def template_of(self, base_name: str) -> Template:
        """The template a base-feature name belongs to; :class:`FeatureError` if none."""
        tag = base_name.partition("=")[0]
        template = self.templates.get(tag)
        if template is None and self.column_policy == "all" and tag.startswith(_COLUMN_TEMPLATE.tag):
            template = _COLUMN_TEMPLATE
        if template is None:
            raise FeatureError(f"{base_name!r} is not a feature of the {self.name!r} feature set")
        return template


def _templates(*templates: Template) -> Mapping[str, Template]:
    return MappingProxyType({t.tag: t for t in templates})


DEFAULT_FEATURE_SET = FeatureSet(
    name="default",
    templates=_templates(
        *(Template(t, GROUP_TOKEN) for t in _DEFAULT_TOKEN_TAGS),
        *(Template(t, GROUP_SURFACE) for t in _DEFAULT_SURFACE_TAGS),
    ),
    word_features=default_word_features,
    column_features=default_column_features,
    column_policy="all",
)

CRFSUITE_FEATURE_SET = FeatureSet(
    name="crfsuite",
    templates=_templates(
        Template("bias", GROUP_SURFACE, context=False),
        Template("word.lower()", GROUP_TOKEN),
        Template("word[-3:]", GROUP_TOKEN, context=False),
        Template("word[-2:]", GROUP_TOKEN, context=False),
        Template("word.isupper()", GROUP_SURFACE),
        Template("word.istitle()", GROUP_SURFACE),
        Template("word.isdigit()", GROUP_SURFACE, context=False),
        Template("postag", GROUP_SURFACE),
        Template("postag[:2]", GROUP_SURFACE),
        Template(BOS, GROUP_SURFACE),
        Template(EOS, GROUP_SURFACE),
    ),
    word_features=crfsuite_word_features,
    column_features=crfsuite_column_features,
    column_policy="pos",
    fixed_window=1,
)

#: Word-feature functions that also come template by template (``word → [(name, values)]``), for tagging.
WORD_COLUMNS: Mapping[Callable, Callable] = MappingProxyType({crfsuite_word_features: crfsuite_word_columns})

FEATURE_SETS: Mapping[str, FeatureSet] = MappingProxyType(
    {fs.name: fs for fs in (DEFAULT_FEATURE_SET, CRFSUITE_FEATURE_SET)}
)


# --------------------------------------------------------------------------
# Feature names with offsets
# --------------------------------------------------------------------------

_OFFSET_PREFIX = re.compile(r"([+-]\d+):")


def feature_name(base: str, offset: int) -> str:
    """Name of base feature ``base`` seen at ``offset``: ``-1:lw=the``; padding ``BOS``, ``-2:BOS``."""
    if offset == 0 or (base in (BOS, EOS) and abs(offset) == 1):
        return base
    return f"{offset:+d}:{base}"


def parse_feature_name(name: str) -> tuple[str, int]:
    """Inverse of :func:`feature_name`: ``(base, offset)``."""
    match = _OFFSET_PREFIX.match(name)
    base, offset = (name[match.end() :], int(match.group(1))) if match else (name, 0)
    if offset == 0 and base in (BOS, EOS):
        offset = -1 if base == BOS else 1
    return base, offset


_OFFSET = re.compile(r"[+-]\d+")


def parse_feature_names(names: Sequence[str]) -> tuple[list[str], list[int]]:
    """:func:`parse_feature_name` of every name: ``(bases, offsets)``, the same results.

    A tagger's vocabulary holds tens of thousands of names but only a few
    distinct offset prefixes, so each prefix is parsed once and the names
    are split with list comprehensions instead of one regex match each.
    """
    heads = [n.partition(":")[0] if n[:1] in "+-" and ":" in n else "" for n in names]
    offset_of = {h: int(h) if _OFFSET.fullmatch(h) else 0 for h in dict.fromkeys(heads)}
    offset_of[""] = 0
    offsets = list(map(offset_of.__getitem__, heads))
    bases = [
        n[len(h) + 1 :] if o or (h and offset_of[h] == 0 and _OFFSET.fullmatch(h)) else n
        for n, h, o in zip(names, heads, offsets)
    ]
    padding = {BOS: -1, EOS: 1}
    offsets = [padding.get(b, 0) if o == 0 else o for b, o in zip(bases, offsets)]
    return bases, offsets


def stable_hash(text: str) -> int:
    """CRC-32 of the UTF-8 bytes: the same in every process (unlike :func:`hash`)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))

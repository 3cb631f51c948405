"""Token features: templates, the named feature sets and the extractor (DESIGN §3).

A token's features are sparse binary indicators with string names.  Every
*base feature* (``lw=the``, ``shape=Xxx``, ``col:col1=NN``) is a function of
one token alone; the *window* adds the base features of the neighbours at
offsets ``-k … +k``, named with the offset (``-1:lw=the``, ``+2:shape=d``).
Where a neighbour lies outside the sentence, a padding indicator takes its
place: ``BOS`` / ``EOS`` when the neighbour at offset −1 / +1 is missing and
``-2:BOS``, ``+3:EOS`` … for the farther offsets.

Two named feature sets are offered:

``"default"``
    The rich set: word, lower case, prefixes and suffixes 1–4, letter
    2/3/4-grams, word shape, capitalisation, digits, punctuation, Greek
    letters, length, every extra input column — all of them also for the
    neighbours of a ±``window`` context.
``"crfsuite"``
    The template of the sklearn-crfsuite tutorial, exactly, with the
    attribute names python-crfsuite gives it (``word.lower()=the``,
    ``-1:postag=DT``, ``word.istitle()``, ``bias``, ``BOS``), so that our
    learners can be compared with CRFsuite on the same input.

Letter n-grams are taken from the *lower-cased* word wrapped in the boundary
markers ``<`` and ``>`` (as fastText does): ``Word`` gives ``g2=<w``,
``g2=wo`` … ``g2=d>``, ``g3=<wo`` … and ``g4=ord>``.  Case is left to the
surface templates so that the n-grams generalise over it.  A token's
boundary markers may collide with a literal ``<`` or ``>`` inside a word;
that costs nothing for indicators.

Each template belongs to one of two groups, which the ``"token-surface"``
view split of :mod:`tagtool.core.views` uses (Brefeld et al. 2005, §6:
"the token itself together with letter 2, 3 and 4-grams" versus "surface
clues like capitalization, inclusion of Greek symbols, numbers"):

* group 0, *token*: ``w``, ``lw``, prefixes ``p1``–``p4``, suffixes
  ``s1``–``s4``, letter n-grams ``g2``–``g4`` (and in ``"crfsuite"``:
  ``word.lower()``, ``word[-3:]``, ``word[-2:]``);
* group 1, *surface*: shape, short shape, capitalisation, digits,
  punctuation, Greek, length, extra columns, ``BOS`` / ``EOS`` (and in
  ``"crfsuite"``: ``bias``, the ``is…()`` tests and the POS features).

Extra columns and padding count as surface clues: they say nothing about
the identity of the word.

References
----------
.. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6 (the views).
.. [2] M. Korobov. sklearn-crfsuite tutorial, ``word2features``
   (https://sklearn-crfsuite.readthedocs.io/en/latest/tutorial.html).
"""

from __future__ import annotations

import logging
import re
import time
import unicodedata
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import scipy.sparse

from tagtool.errors import TagtoolError

logger = logging.getLogger(__name__)

GROUP_TOKEN = 0
GROUP_SURFACE = 1
GROUP_NAMES = ("token", "surface")

BOS = "BOS"
EOS = "EOS"

#: Version of the dictionary written by :meth:`FeatureExtractor.to_dict`.
FORMAT_VERSION = 1


class FeatureError(TagtoolError, ValueError):
    """Bad extractor settings, or a serialised extractor that cannot be read."""


class NotFittedError(FeatureError, AttributeError):
    """A method that needs a fitted extractor was called before :meth:`~FeatureExtractor.fit`."""


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
    return "".join(
        "X" if c.isupper() else "x" if c.isalpha() else "d" if c.isdigit() else c for c in word
    )


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
        feats += [f"g{g}={marked[i:i + g]}" for i in range(len(marked) - g + 1)]
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
    """

    name: str
    templates: Mapping[str, Template]
    word_features: Callable[[str], list[str]]
    column_features: Callable[[str, str | None], list[str]]
    column_policy: str
    fixed_window: int | None = None

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
    base, offset = (name[match.end():], int(match.group(1))) if match else (name, 0)
    if offset == 0 and base in (BOS, EOS):
        offset = -1 if base == BOS else 1
    return base, offset


def stable_hash(text: str) -> int:
    """CRC-32 of the UTF-8 bytes: the same in every process (unlike :func:`hash`)."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------
# Vectorised CSR helpers
# --------------------------------------------------------------------------


def _index_dtype(bound: int) -> type:
    # int32 where it fits: the arrays are large, and on some machines the
    # first touch of fresh memory costs more than the arithmetic.
    return np.int32 if bound < 2**31 else np.int64


def concat_ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` without a loop."""
    counts = np.asarray(counts, dtype=np.int64)
    starts = np.asarray(starts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    dtype = _index_dtype(max(total, int(starts.max()) + int(counts.max())))
    shift = (starts - (np.cumsum(counts) - counts)).astype(dtype)
    return np.arange(total, dtype=dtype) + np.repeat(shift, counts)


def _assemble(
    pieces: list[tuple[np.ndarray, np.ndarray]], n_rows: int, dtype: type
) -> tuple[np.ndarray, np.ndarray]:
    """Merge row-aligned CSR pieces: row ``t`` holds piece 0's entries of ``t``, then piece 1's …

    Each piece is ``(counts[n_rows], values)`` with the values in row order.
    """
    counts = np.stack([c for c, _ in pieces]) if pieces else np.zeros((0, n_rows), np.int64)
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=indptr[1:])
    starts = indptr[:-1] + (np.cumsum(counts, axis=0) - counts)
    out = np.empty(int(indptr[-1]), dtype=dtype)
    for p, (piece_counts, values) in enumerate(pieces):
        out[concat_ranges(starts[p], piece_counts)] = values
    return indptr, out


@dataclass
class _Csr:
    indptr: np.ndarray
    ids: np.ndarray

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.indptr)

    def keep(self, mask: np.ndarray) -> _Csr:
        """Entries where ``mask[ids]``, rows kept."""
        keep = mask[self.ids]
        if keep.all():
            return self
        cs = np.concatenate(([0], np.cumsum(keep)))
        return _Csr(cs[self.indptr], self.ids[keep])


# --------------------------------------------------------------------------
# Base-feature table and encoding of a batch of sentences
# --------------------------------------------------------------------------


class _BaseTable:
    """Base-feature names → ids (padding first), with the template of each."""

    def __init__(self, feature_set: FeatureSet, names: Iterable[str] = ()):
        self.feature_set = feature_set
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.context: list[bool] = []
        self.group: list[int] = []
        for name in (BOS, EOS, *names):
            self.add(name)

    def __len__(self) -> int:
        return len(self.names)

    def add(self, name: str) -> int:
        template = self.feature_set.template_of(name)
        self.index[name] = len(self.names)
        self.names.append(name)
        self.context.append(template.context)
        self.group.append(template.group)
        return self.index[name]

    def subset(self, ids: np.ndarray) -> tuple[_BaseTable, np.ndarray]:
        """A table of the bases ``ids`` (padding always kept first), and the old → new id map."""
        ids = np.union1d(ids, [0, 1]).astype(np.int64)
        new = object.__new__(_BaseTable)
        new.feature_set = self.feature_set
        new.names = [self.names[i] for i in ids.tolist()]
        new.index = {name: i for i, name in enumerate(new.names)}
        new.context = [self.context[i] for i in ids.tolist()]
        new.group = [self.group[i] for i in ids.tolist()]
        mapping = np.full(len(self), -1, dtype=np.int64)
        mapping[ids] = np.arange(len(ids))
        return new, mapping

    def encode(self, units: Sequence, features: Callable, grow: bool) -> _Csr:
        """Base ids of every unit (a word or a column value); unknown names are added or skipped."""
        index = self.index
        indptr = [0]
        ids: list[int] = []
        for unit in units:
            for name in features(unit):
                b = index.get(name)
                if b is None:
                    if not grow:
                        continue  # the vocabulary is frozen: unknown features are dropped
                    b = self.add(name)
                ids.append(b)
            indptr.append(len(ids))
        return _Csr(np.asarray(indptr, dtype=np.int64), np.asarray(ids, dtype=_index_dtype(len(self))))


@dataclass
class _Source:
    """One per-token input (the word, or an extra column) as units and their base ids."""

    units: np.ndarray  # unit id of every token
    full: _Csr  # base ids of every unit
    context: _Csr  # those allowed at the neighbours


def _unit_ids(values: Sequence) -> tuple[np.ndarray, list]:
    index: dict = {}
    ids = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values))
    return ids, list(index)


def _as_tokens_and_columns(sentence) -> tuple[Sequence[str], Mapping[str, Sequence[str]]]:
    tokens = getattr(sentence, "tokens", None)
    if tokens is not None:
        return tokens, sentence.columns
    if isinstance(sentence, str) or not all(isinstance(t, str) for t in sentence):
        raise TypeError(f"expected a Sentence or a sequence of token strings, got {sentence!r:.80}")
    return tuple(sentence), {}


def _flatten(sentences: Iterable, columns: Sequence[str]) -> tuple[np.ndarray, list[str], dict[str, list]]:
    lengths: list[int] = []
    words: list[str] = []
    values: dict[str, list] = {c: [] for c in columns}
    for sentence in sentences:
        tokens, cols = _as_tokens_and_columns(sentence)
        if not tokens:
            raise FeatureError("a sentence needs at least one token")
        lengths.append(len(tokens))
        words.extend(tokens)
        for c in columns:
            column = cols.get(c)
            values[c].extend(column if column is not None else (None,) * len(tokens))
    return np.asarray(lengths, dtype=np.int64), words, values


def _encode_batch(
    sentences: Iterable, feature_set: FeatureSet, columns: Sequence[str], table: _BaseTable, grow: bool
) -> tuple[np.ndarray, list[_Source]]:
    """Sentence lengths and the per-token base ids of every source.

    The base features of a token depend only on its word (or column value),
    so they are computed once per distinct string.
    """
    lengths, words, values = _flatten(sentences, columns)
    encoded = [(words, feature_set.word_features)]
    for c in columns:
        encoded.append((values[c], lambda v, c=c: feature_set.column_features(c, v)))
    units_and_csr = []
    for tokens, features in encoded:
        units, uniques = _unit_ids(tokens)
        units_and_csr.append((units, table.encode(uniques, features, grow)))
    context = np.asarray(table.context, dtype=bool)
    sources = [_Source(units, csr, csr.keep(context)) for units, csr in units_and_csr]
    return lengths, sources


def _window_codes(
    lengths: np.ndarray, sources: list[_Source], window: int, n_bases: int, pad_ids: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """Per token, the codes ``slot * n_bases + base`` of its windowed features (CSR).

    ``slot = offset + window``; slot-major codes make the columns of a fitted
    vocabulary run offset by offset.
    """
    dtype = _index_dtype((2 * window + 1) * n_bases)
    n = int(lengths.sum())
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    position = np.arange(n, dtype=np.int64) - starts
    length_of = np.repeat(lengths, lengths)
    pieces = []
    for slot, offset in enumerate(range(-window, window + 1)):
        inside = (position + offset >= 0) & (position + offset < length_of)
        tokens = np.flatnonzero(inside)
        for source in sources:
            csr = source.full if offset == 0 else source.context
            units = source.units[tokens + offset]
            sub_counts = csr.lengths[units]
            counts = np.zeros(n, dtype=np.int64)
            counts[tokens] = sub_counts
            values = csr.ids[concat_ranges(csr.indptr[units], sub_counts)].astype(dtype) + dtype(slot * n_bases)
            pieces.append((counts, values))
        if offset != 0:
            pad = pad_ids[0] if offset < 0 else pad_ids[1]
            outside = (~inside).astype(np.int64)
            pieces.append((outside, np.full(int(outside.sum()), slot * n_bases + pad, dtype=dtype)))
    return _assemble(pieces, n, dtype)


def _drop_unknown(indptr: np.ndarray, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Remove the entries with column −1 and shrink the rows accordingly."""
    dropped = np.flatnonzero(columns < 0)
    if len(dropped) == 0:
        return indptr, columns.astype(np.int32, copy=False)
    # Dropped entries are few: shift the row pointers by their per-row
    # counts instead of a cumulative sum over every entry.
    rows = np.searchsorted(indptr, dropped, side="right") - 1
    new_indptr = indptr.copy()
    new_indptr[1:] -= np.cumsum(np.bincount(rows, minlength=len(indptr) - 1))
    return new_indptr, columns[columns >= 0].astype(np.int32, copy=False)


# --------------------------------------------------------------------------
# The extractor
# --------------------------------------------------------------------------

_PARAM_NAMES = ("feature_set", "window", "min_count", "hashing", "n_hash", "pos_column", "columns")


class FeatureExtractor:
    """Turns sentences into CSR-like token × feature indicator arrays.

    scikit-learn style: ``__init__`` only stores the settings, :meth:`fit`
    learns the frozen vocabulary, :meth:`transform` maps any sentences into
    it (features not in the vocabulary are dropped).

    Parameters
    ----------
    feature_set : {"default", "crfsuite"}
        The named template set (see the module docstring).
    window : int, default 1
        Context ±``window`` tokens.  ``"crfsuite"`` allows only 1.
    min_count : int, default 2
        Keep the features seen at least this many times (token occurrences)
        in the data given to :meth:`fit`.  2 drops the features seen once
        (mostly identity, affixes and n-grams of words seen once), which
        cannot be learned from and would make the weight matrices ~60 %
        larger (CoNLL-2000, default set: 283k → 177k columns); use 1 to
        reproduce CRFsuite, whose ``feature.minfreq`` keeps everything.
        Ignored with ``hashing=True``.
    hashing : bool, default False
        Map a feature to a column by a stable hash of its name (CRC-32)
        instead of a vocabulary.  Token-group features go to the columns
        ``[0, n_hash/2)``, surface-group features to ``[n_hash/2, n_hash)``,
        so that the token/surface view split stays available.
    n_hash : int, default 2**18
        Number of hashed columns (even, at most 2**31).
    pos_column : str or None
        ``"crfsuite"`` only: the extra column holding POS tags; None takes
        the first extra column of the data given to :meth:`fit` (none there:
        no POS features).
    columns : sequence of str or None
        ``"default"`` only: the extra columns that become features; None
        takes every column seen in the data given to :meth:`fit`.

    Attributes
    ----------
    columns_ : tuple of str
        The extra columns the features read.
    n_features_ : int
        Number of columns (``n_hash`` when hashing).
    feature_names_ : ndarray of object (str), or None
        Name of every column, in column order (None when hashing).
    feature_group_ : ndarray of int8
        0 (token) or 1 (surface) for every column.

    Examples
    --------
    >>> fx = FeatureExtractor(min_count=1).fit([["The", "cat"]])
    >>> indptr, indices = fx.transform([["The", "dog"]])
    >>> names = fx.feature_names_[indices[indptr[1]:indptr[2]]]  # of "dog"
    >>> [n for n in names if ":" not in n]  # "w=dog" … were not seen in fit
    ['shape=xxx', 'sshape=x', 'len=3', 'EOS']
    >>> "-1:lw=the" in names
    True
    """

    def __init__(
        self,
        feature_set: str = "default",
        window: int = 1,
        min_count: int = 2,
        hashing: bool = False,
        n_hash: int = 2**18,
        pos_column: str | None = None,
        columns: Sequence[str] | None = None,
    ):
        self.feature_set = feature_set
        self.window = window
        self.min_count = min_count
        self.hashing = hashing
        self.n_hash = n_hash
        self.pos_column = pos_column
        self.columns = columns

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"FeatureExtractor({args})"

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments (scikit-learn convention)."""
        return {name: getattr(self, name) for name in _PARAM_NAMES}

    def set_params(self, **params) -> FeatureExtractor:
        """Change constructor arguments; a refit is needed afterwards."""
        for name, value in params.items():
            if name not in _PARAM_NAMES:
                raise FeatureError(f"unknown parameter {name!r}; expected one of {', '.join(_PARAM_NAMES)}")
            setattr(self, name, value)
        return self

    # -- validation -------------------------------------------------------

    def _checked_feature_set(self) -> FeatureSet:
        fs = FEATURE_SETS.get(self.feature_set)
        if fs is None:
            choices = ", ".join(FEATURE_SETS)
            raise FeatureError(f"unknown feature set {self.feature_set!r}; choose one of {choices}")
        if not isinstance(self.window, int) or self.window < 0:
            raise FeatureError(f"window must be an int >= 0, got {self.window!r}")
        if fs.fixed_window is not None and self.window != fs.fixed_window:
            raise FeatureError(f"the {fs.name!r} feature set has a fixed window of {fs.fixed_window}")
        if not isinstance(self.min_count, int) or self.min_count < 1:
            raise FeatureError(f"min_count must be an int >= 1, got {self.min_count!r}")
        n_hash = self.n_hash
        if self.hashing and (not isinstance(n_hash, int) or not 2 <= n_hash <= 2**31 or n_hash % 2):
            raise FeatureError(f"n_hash must be an even int in [2, 2**31], got {self.n_hash!r}")
        return fs

    def _resolve_columns(self, fs: FeatureSet, sentences: Sequence) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for sentence in sentences:
            for name in _as_tokens_and_columns(sentence)[1]:
                seen.setdefault(name, None)
        if fs.column_policy == "pos":
            if self.pos_column is not None:
                return (self.pos_column,)
            return tuple(seen)[:1]
        return tuple(seen) if self.columns is None else tuple(self.columns)

    def _check_fitted(self) -> None:
        if not hasattr(self, "n_features_"):
            raise NotFittedError("this FeatureExtractor is not fitted yet; call fit() first")

    # -- fitting ----------------------------------------------------------

    @property
    def _n_slots(self) -> int:
        return 2 * self.window + 1

    def fit(self, sentences: Iterable) -> FeatureExtractor:
        """Learn the vocabulary of ``sentences`` (Sentence objects or token lists)."""
        self._fit(sentences)
        return self

    def fit_transform(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`fit` then :meth:`transform` of the same sentences, in one pass."""
        return self._fit(sentences)

    def _fit(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        tic = time.perf_counter()
        fs = self._checked_feature_set()
        sentences = list(sentences)
        if not sentences:
            raise FeatureError("cannot fit a feature extractor on no sentences")
        columns = self._resolve_columns(fs, sentences)
        table = _BaseTable(fs)
        lengths, sources = _encode_batch(sentences, fs, columns, table, grow=True)
        indptr, codes = _window_codes(lengths, sources, self.window, len(table), (0, 1))
        self.columns_ = columns
        if self.hashing:
            self._set_hashed()
            result = indptr, self._hashed_columns(indptr, codes, table)
        else:
            lookup = self._set_vocabulary(codes, table)
            result = _drop_unknown(indptr, lookup[codes])
        logger.info(
            "fitted %s features on %d tokens (%d base features) in %.2f s",
            self.n_features_, len(indptr) - 1, len(table), time.perf_counter() - tic,
        )  # fmt: skip
        return result

    def _set_vocabulary(self, codes: np.ndarray, table: _BaseTable) -> np.ndarray:
        """Keep the codes seen ``min_count`` times; return the code → column lookup of the fit data."""
        n_bases = len(table)
        counts = np.bincount(codes, minlength=self._n_slots * n_bases)
        kept = np.flatnonzero(counts >= self.min_count)
        slots, bases = np.divmod(kept, n_bases)
        pruned, new_id = table.subset(np.unique(bases))
        self._set_state(pruned, slots, new_id[bases])
        lookup = np.full(len(counts), -1, dtype=np.int32)
        lookup[kept] = np.arange(len(kept))
        return lookup

    def _set_vocabulary_from_names(self, names: Sequence[str]) -> None:
        """The frozen vocabulary of :meth:`from_dict`: column ``j`` is ``names[j]``."""
        duplicates = [n for n, c in Counter(names).items() if c > 1]
        if duplicates:
            raise FeatureError(f"feature {duplicates[0]!r} appears twice in the vocabulary")
        parsed = [parse_feature_name(n) for n in names]
        outside = [n for n, (_, offset) in zip(names, parsed) if abs(offset) > self.window]
        if outside:
            raise FeatureError(f"feature {outside[0]!r} lies outside the window ±{self.window}")
        fs = FEATURE_SETS[self.feature_set]
        table = _BaseTable(fs, dict.fromkeys(b for b, _ in parsed if b not in (BOS, EOS)))
        slots = np.array([offset + self.window for _, offset in parsed], dtype=np.int64)
        bases = np.array([table.index[b] for b, _ in parsed], dtype=np.int64)
        self._set_state(table, slots, bases, names)

    def _set_state(
        self, table: _BaseTable, slots: np.ndarray, bases: np.ndarray, names: Sequence[str] | None = None
    ) -> None:
        """Frozen vocabulary: column ``j`` is base ``bases[j]`` of ``table`` at window slot ``slots[j]``."""
        n_bases = len(table)
        self._table = table
        self._lookup = np.full(self._n_slots * n_bases, -1, dtype=np.int32)
        self._lookup[slots * n_bases + bases] = np.arange(len(bases))
        if names is None:
            offsets = (slots - self.window).tolist()
            names = [feature_name(table.names[b], o) for b, o in zip(bases.tolist(), offsets)]
        self.n_features_ = len(names)
        self.feature_names_ = np.array(list(names), dtype=object)
        self.feature_group_ = np.asarray(table.group, dtype=np.int8)[bases]

    def _set_hashed(self) -> None:
        self._table = None
        self._lookup = None
        self.n_features_ = self.n_hash
        self.feature_names_ = None
        self.feature_group_ = np.repeat(np.array([GROUP_TOKEN, GROUP_SURFACE], dtype=np.int8), self.n_hash // 2)

    # -- transforming -----------------------------------------------------

    def transform(self, sentences: Iterable) -> tuple[np.ndarray, np.ndarray]:
        """Feature columns of every token of ``sentences``, concatenated.

        Returns
        -------
        indptr : int64 array, shape (n_tokens + 1,)
            Token ``t`` has the columns ``indices[indptr[t]:indptr[t + 1]]``.
        indices : int32 array, shape (nnz,)
            Distinct columns within each token.

        Notes
        -----
        The extractor is not modified, so several threads may transform at
        once.  Base features are computed once per distinct word of the
        call; nothing is cached between calls.
        """
        self._check_fitted()
        fs = FEATURE_SETS[self.feature_set]
        if self.hashing:
            table = _BaseTable(fs)  # local: hashing keeps no vocabulary
            lengths, sources = _encode_batch(sentences, fs, self.columns_, table, grow=True)
            indptr, codes = _window_codes(lengths, sources, self.window, len(table), (0, 1))
            return indptr, self._hashed_columns(indptr, codes, table)
        table = self._table
        lengths, sources = _encode_batch(sentences, fs, self.columns_, table, grow=False)
        indptr, codes = _window_codes(
            lengths, sources, self.window, len(table), (table.index[BOS], table.index[EOS])
        )
        return _drop_unknown(indptr, self._lookup[codes])

    def _hashed_columns(self, indptr: np.ndarray, codes: np.ndarray, table: _BaseTable) -> np.ndarray:
        """Hash every distinct code's name once; rows keep distinct, sorted columns.

        Two features of a token may hash to the same column; they are merged
        so that every learner can rely on distinct indices within a token.
        """
        n_bases = len(table)
        present = np.flatnonzero(np.bincount(codes, minlength=self._n_slots * n_bases))
        half = self.n_hash // 2
        lookup = np.zeros(self._n_slots * n_bases, dtype=np.int32)
        for code in present.tolist():
            slot, base = divmod(code, n_bases)
            name = feature_name(table.names[base], slot - self.window)
            lookup[code] = table.group[base] * half + stable_hash(name) % half
        # scipy sorts and merges within each row in C, without a global sort.
        n_rows = len(indptr) - 1
        matrix = scipy.sparse.csr_array(
            (np.ones(len(codes), dtype=np.int8), lookup[codes], indptr),
            shape=(n_rows, self.n_hash),
        )
        matrix.sum_duplicates()
        indptr[:] = matrix.indptr
        return matrix.indices.astype(np.int32, copy=False)

    # -- serialisation ----------------------------------------------------

    def to_dict(self) -> dict:
        """JSON-compatible description: settings, fitted columns and the vocabulary.

        The vocabulary is the list of feature names in column order (None
        when hashing).  No pickle: the exported tagger stores this in
        ``meta.json``.
        """
        self._check_fitted()
        params = self.get_params()
        params["columns"] = None if self.columns is None else list(self.columns)
        return {
            "format_version": FORMAT_VERSION,
            "params": params,
            "columns_": list(self.columns_),
            "vocabulary": None if self.hashing else [str(n) for n in self.feature_names_],
        }

    @classmethod
    def from_dict(cls, data: Mapping) -> FeatureExtractor:
        """Rebuild a fitted extractor written by :meth:`to_dict`."""
        try:
            version = data["format_version"]
            params = dict(data["params"])
            columns = tuple(data["columns_"])
            vocabulary = data["vocabulary"]
        except (KeyError, TypeError) as exc:
            raise FeatureError(f"not a serialised feature extractor: missing {exc}") from None
        if version != FORMAT_VERSION:
            raise FeatureError(f"feature extractor format {version!r} is not supported (only {FORMAT_VERSION})")
        unknown = set(params) - set(_PARAM_NAMES)
        if unknown:
            raise FeatureError(f"unknown feature extractor parameters: {', '.join(sorted(unknown))}")
        extractor = cls(**params)
        extractor._checked_feature_set()
        extractor.columns_ = columns
        if extractor.hashing:
            extractor._set_hashed()
        elif vocabulary is None:
            raise FeatureError("a vocabulary is required unless hashing is on")
        else:
            extractor._set_vocabulary_from_names([str(n) for n in vocabulary])
        return extractor

"""Token features: templates, the named feature sets and the extractor (docs/design.md#features).

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
    letters, length, every extra input column (not the annotation layers:
    :mod:`tagtool.core.features.columns`) — all of them also for the
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

# The code lives in four modules: ``templates`` (feature families, named
# feature sets, feature names), ``columns`` (which extra columns are
# features), ``encoding`` (vectorised encoding of a batch
# into windowed codes) and ``extractor`` (:class:`FeatureExtractor`).  Every
# name the single module ``tagtool.core.features`` had is re-exported here,
# private helpers included, so that imports from it keep working.

from tagtool.core.features.columns import (
    ANNOTATION_COLUMNS,
    annotation_column_warnings,
    check_named_columns,
    input_columns,
)
from tagtool.core.features.encoding import (
    _as_tokens_and_columns,
    _assemble,
    _BaseTable,
    _Csr,
    _drop_unknown,
    _encode_batch,
    _flatten,
    _index_dtype,
    _Source,
    _unit_ids,
    _window_codes,
    concat_ranges,
)
from tagtool.core.features.extractor import (
    FeatureExtractor,
    NotFittedError,
    logger,
)
from tagtool.core.features.serialised import FORMAT_VERSION
from tagtool.core.features.settings import _PARAM_NAMES
from tagtool.core.features.templates import (
    _COLUMN_TEMPLATE,
    _DEFAULT_SURFACE_TAGS,
    _DEFAULT_TOKEN_TAGS,
    _LENGTH_BUCKETS,
    _LETTER_RUNS,
    _NUMBER,
    _OFFSET_PREFIX,
    BOS,
    CRFSUITE_FEATURE_SET,
    DEFAULT_FEATURE_SET,
    EOS,
    FEATURE_SETS,
    GREEK_LETTER_NAMES,
    GROUP_NAMES,
    GROUP_SURFACE,
    GROUP_TOKEN,
    FeatureError,
    FeatureSet,
    Template,
    _is_greek_char,
    _is_greek_run,
    _templates,
    crfsuite_column_features,
    crfsuite_word_features,
    default_column_features,
    default_word_features,
    feature_name,
    has_greek,
    length_bucket,
    parse_feature_name,
    short_shape,
    stable_hash,
    surface_flags,
    word_shape,
)

__all__ = [
    "ANNOTATION_COLUMNS",
    "annotation_column_warnings",
    "check_named_columns",
    "input_columns",
    "GROUP_TOKEN",
    "GROUP_SURFACE",
    "GROUP_NAMES",
    "BOS",
    "EOS",
    "FeatureError",
    "GREEK_LETTER_NAMES",
    "word_shape",
    "short_shape",
    "has_greek",
    "length_bucket",
    "surface_flags",
    "Template",
    "default_word_features",
    "default_column_features",
    "crfsuite_word_features",
    "crfsuite_column_features",
    "FeatureSet",
    "DEFAULT_FEATURE_SET",
    "CRFSUITE_FEATURE_SET",
    "FEATURE_SETS",
    "feature_name",
    "parse_feature_name",
    "stable_hash",
    "concat_ranges",
    "logger",
    "FORMAT_VERSION",
    "NotFittedError",
    "FeatureExtractor",
    # Private helpers, re-exported for the tests and for imports of the
    # former single module.
    "_LETTER_RUNS",
    "_NUMBER",
    "_LENGTH_BUCKETS",
    "_is_greek_char",
    "_is_greek_run",
    "_DEFAULT_TOKEN_TAGS",
    "_DEFAULT_SURFACE_TAGS",
    "_COLUMN_TEMPLATE",
    "_templates",
    "_OFFSET_PREFIX",
    "_index_dtype",
    "_assemble",
    "_Csr",
    "_BaseTable",
    "_Source",
    "_unit_ids",
    "_as_tokens_and_columns",
    "_flatten",
    "_encode_batch",
    "_window_codes",
    "_drop_unknown",
    "_PARAM_NAMES",
]

# doctest.testmod(tagtool.core.features) skips objects defined in submodules.
__test__ = {"FeatureExtractor": FeatureExtractor}

"""The feature extractor's settings: the table of ``--set features.NAME=VALUE`` and its bounds.

:data:`FEATURE_PARAMS` is :attr:`FeatureExtractor.params
<tagtool.core.features.extractor.FeatureExtractor.params>`, the table the
CLI, the app and the tagger file check the extractor's constructor arguments
against; :data:`MAX_WINDOW` bounds the context window.
"""

from __future__ import annotations

from tagtool.core.features.gazetteers import GAZ_SETS
from tagtool.core.features.templates import FEATURE_SETS
from tagtool.core.features.wordreps import DIST_SETS, VEC_SETS
from tagtool.core.params import Param, ParamTable

#: Largest context window (±tokens).  The vocabulary lookup grows with
#: ``2 * window + 1``, so a tagger file announcing ``window = 10**9`` must be
#: refused before it is built; no feature set gains from context that wide.
MAX_WINDOW = 64

#: Every feature-set name: the fixed template sets, those read from word representations, vectors and dictionaries.
_KNOWN_SETS = (*FEATURE_SETS, *DIST_SETS, *VEC_SETS, *GAZ_SETS)
#: The sets read from data the project brings (representations, vectors, dictionaries), which a stack may
#: name twice: the second copy is the second view's (:mod:`tagtool.core.views`, ``feature-sets``).
EXTRA_SETS = (*DIST_SETS, *VEC_SETS, *GAZ_SETS)

#: The feature extractor's settings (``--set features.NAME=VALUE``; a learner's ``default_features``
#: come first): the constructor's arguments except the word representations, which are data.
FEATURE_PARAMS = ParamTable(
    Param(
        "feature_set",
        str,
        "default",
        "the template set; sets joined by + are stacked (one view each; a second dist, vec or gaz: "
        "a copy for the second view)",
        choices=_KNOWN_SETS,
        joined=True,
        repeatable=EXTRA_SETS,
    ),
    Param("window", int, 1, "context of +-window tokens (crfsuite: fixed at 1)", low=0, high=MAX_WINDOW),
    Param("min_count", int, 2, "keep the features seen at least this many times (1: keep all, as CRFsuite)", low=1),
    Param("hashing", bool, False, "map features to columns by a hash of their name instead of a vocabulary"),
    Param("n_hash", int, 2**18, "number of hashed columns (even)", low=2, high=2**31),
    Param(
        "pos_column",
        str,
        None,
        "crfsuite only: the extra column holding part of speech",
        optional=True,
        none_means="the first input column",
    ),
    Param(
        "columns",
        list,
        None,
        "default set only: the extra columns that become features",
        optional=True,
        none_means="every input column, no annotation layer",
    ),
    owner="features",
)
_PARAM_NAMES = tuple(FEATURE_PARAMS.names())

"""Splits of the feature columns into two views for co-training (docs/design.md#view-splits).

Brefeld et al. (2005, §6) compare three ways of dividing the token features
between the two views of their multi-view learners:

``"token-surface"``
    "the token itself together with letter 2, 3 and 4-grams" versus
    "surface clues like capitalization, inclusion of Greek symbols,
    numbers": view 0 holds the token-group templates, view 1 the surface
    group (see :mod:`tagtool.core.features` for the membership).
``"random"``
    Every feature falls into a view by a fair coin.  The coin is a hash of
    the feature's *name* and the seed, so a feature keeps its view when the
    vocabulary grows or is re-ordered.
``"odd-even"``
    "view 1 contains all odd, view 2 all even features": counting columns
    from 1 as the paper does, column ``j`` (0-based) goes to view ``j % 2``.
    Columns run offset by offset, each in first-seen order of the base
    features, so each view gets about half of every large template.

The paper found the random and odd-even splits better than the
token-surface one.  A fourth split comes from co-training for named
entities (Collins & Singer 1999, §2):

``"spelling-context"``
    View 0 holds the features of the token itself (offset 0: the word, its
    affixes, case, POS, the bias), view 1 those of its neighbours (offsets
    ≠ 0, BOS/EOS).  Unlike token/surface, *both* views can tell entity
    types apart — "Madrid" by its spelling, "en ___" by its context — which
    is what co-training needs when the labels are types rather than
    boundaries.

``"feature-sets"``
    For a stacked feature set of two template sets
    (``features.feature_set=crfsuite+default``): each set is one view; word
    representations stacked on them (``crfsuite+default+dist``) join the
    first set's view, and so do dictionary features (``+gaz``); a set
    named twice (``crfsuite+default+gaz+gaz``) gives its second copy to the
    second view, so that both views see it.  The
    views are then two complete, differently built taggers of the same
    tokens — redundant, as co-training assumes (Blum & Mitchell 1998), where
    the other splits leave each view half a feature set.  Evidence only one
    view sees is evidence the co-training pulls against: the peer view's
    targets on the unlabeled sentences ignore it (why two-view learners get
    dictionary features in both views,
    :func:`tagtool.services.training_setup.with_gazetteers`).

``"lexical-distributional"``
    For a stack with word-representation features
    (``features.feature_set=crfsuite+dist``): view 1 holds the ``dist`` /
    ``dist-dims`` columns (what unlabeled text says about a word: its
    cluster at several granularities, of the word and its neighbours),
    view 0 everything else (what the word and its neighbours look like).
    Two views that see a token through different evidence, as co-training
    wants, with neither left a fragment of one template set.

References
----------
.. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6 and Fig. 3.
.. [2] M. Collins, Y. Singer. Unsupervised models for named entity
   classification. EMNLP/VLC 1999, §2 (spelling and contextual rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tagtool.core.features import GROUP_SURFACE, GROUP_TOKEN, stable_hash
from tagtool.core.features.stacking import COPY_MARK
from tagtool.core.features.templates import parse_feature_name
from tagtool.core.params import Param, ParamTable
from tagtool.errors import TagtoolError

#: The view settings of two-view learners (``--set views.NAME=VALUE``, the ``views`` of a project or
#: experiment); the tagger file stores the split itself (:meth:`ViewSplit.to_dict`).
VIEW_PARAMS = ParamTable(
    Param(
        "kind",
        str,
        None,
        "how the two views of a two-view learner divide the feature columns "
        "(feature-sets: one view per set of a stack)",
        choices=("token-surface", "random", "odd-even", "spelling-context", "feature-sets", "lexical-distributional"),
        optional=True,
        none_means="feature-sets for a stack of two sets, lexical-distributional for one set "
        "plus word representations, else random",
    ),
    Param("random_state", int, 0, "seed of the random split (the command line's default: --seed)", aliases=("seed",)),
    owner="views",
)
VIEW_SPLIT_KINDS = VIEW_PARAMS["kind"].choices

#: The stacked sets that come from word representations or the user's word vectors, and dictionaries.
_DISTRIBUTIONAL_SETS = ("dist", "dist-dims", "vec", "vec-dims")
_EXTRA_SETS = (*_DISTRIBUTIONAL_SETS, "gaz")
#: Name prefixes of their columns, and of the columns of their second copies (``gaz#2/``: the second view's).
_DISTRIBUTIONAL_PREFIXES = tuple(f"{s}{mark}/" for s in _DISTRIBUTIONAL_SETS for mark in ("", COPY_MARK))
_EXTRA_PREFIXES = tuple(f"{s}{mark}/" for s in _EXTRA_SETS for mark in ("", COPY_MARK))
_COPY_PREFIXES = tuple(f"{s}{COPY_MARK}/" for s in _EXTRA_SETS)

_MASK64 = (1 << 64) - 1


class ViewSplitError(TagtoolError, ValueError):
    """A view split that cannot be made (unknown kind, a view left empty …)."""


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """Bijective 64-bit mixer (Steele et al. 2014): every input bit affects every output bit.

    CRC-32 alone is linear, so its low bit would flip together for whole
    classes of names when the seed changes; the mixer decorrelates seeds.
    """
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _coin_keys(n_features: int, names: Sequence[str] | None, seed: int) -> np.ndarray:
    """A 64-bit pseudo-random key per feature, a function of (name, seed) only."""
    if names is None:
        # Hashed columns have no names; their index is just as stable.
        base = np.arange(n_features, dtype=np.uint64)
    else:
        base = np.fromiter((stable_hash(n) for n in names), dtype=np.uint64, count=n_features)
    salt = np.uint64(int(_splitmix64(np.array([seed & _MASK64], dtype=np.uint64))[0]))
    return _splitmix64(base ^ salt)


@dataclass(frozen=True)
class ViewSplit:
    """How to divide the feature columns into view 0 and view 1.

    Parameters
    ----------
    kind : {"token-surface", "random", "odd-even", "spelling-context", "feature-sets", "lexical-distributional"}
    seed : int, default 0
        Seed of the ``"random"`` split (ignored by the others).

    Examples
    --------
    >>> ViewSplit("odd-even").views(5)
    array([0, 1, 0, 1, 0], dtype=int8)
    """

    kind: str = "random"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in VIEW_SPLIT_KINDS:
            choices = ", ".join(VIEW_SPLIT_KINDS)
            raise ViewSplitError(f"unknown view split {self.kind!r}; choose one of {choices}")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool):
            raise ViewSplitError(f"the seed must be an int, got {self.seed!r}")

    def assign(self, extractor) -> np.ndarray:
        """View of every column of a fitted :class:`~tagtool.core.features.FeatureExtractor`."""
        return self.views(
            extractor.n_features_,
            extractor.feature_group_,
            extractor.feature_names_,
            getattr(extractor, "feature_family_", None),
        )

    def views(
        self,
        n_features: int,
        groups: np.ndarray | None = None,
        names: Sequence[str] | None = None,
        families: np.ndarray | None = None,
    ) -> np.ndarray:
        """``int8[n_features]`` in {0, 1}; both views non-empty.

        Parameters
        ----------
        n_features : int
        groups : int array, optional
            Template group of every column (needed by ``"token-surface"``).
        names : sequence of str, optional
            Feature names (``"random"`` hashes them; without names it
            hashes the column indices).
        families : int array, optional
            Feature set of every column of a stacked extractor (needed by
            ``"feature-sets"``).

        Raises
        ------
        ViewSplitError
            Fewer than two features, or a token-surface split with one
            group empty.
        """
        if n_features < 2:
            raise ViewSplitError(f"two views need at least two features, got {n_features}")
        if self.kind == "odd-even":
            return (np.arange(n_features) % 2).astype(np.int8)
        if self.kind == "token-surface":
            return self._token_surface(n_features, groups)
        if self.kind == "spelling-context":
            return self._spelling_context(n_features, names, families)
        if self.kind == "feature-sets":
            return self._feature_sets(n_features, families, names)
        if self.kind == "lexical-distributional":
            return self._lexical_distributional(n_features, names)
        return self._random(n_features, names)

    def _lexical_distributional(self, n_features: int, names: Sequence[str] | None) -> np.ndarray:
        if names is None or len(names) != n_features:
            raise ViewSplitError("the lexical-distributional split needs feature names; hashed features have none")
        views = np.fromiter(
            (str(n).startswith(_DISTRIBUTIONAL_PREFIXES) for n in names), dtype=np.int8, count=n_features
        )
        if not views.any() or views.all():
            raise ViewSplitError(
                "the lexical-distributional split needs word-representation features stacked on others "
                "(e.g. features.feature_set=crfsuite+dist)"
            )
        return views

    def _feature_sets(
        self, n_features: int, families: np.ndarray | None, names: Sequence[str] | None = None
    ) -> np.ndarray:
        families = None if families is None else np.asarray(families)
        if families is not None and names is not None and len(names) == n_features and families.max(initial=0) > 1:
            # Two template sets plus word representations (crfsuite+default+dist):
            # the representations join the first set's view, the smaller of the two;
            # a second copy of a set (crfsuite+default+gaz+gaz) joins the second view.
            extra = np.fromiter((str(n).startswith(_EXTRA_PREFIXES) for n in names), dtype=bool, count=n_features)
            copy = np.fromiter((str(n).startswith(_COPY_PREFIXES) for n in names), dtype=bool, count=n_features)
            families = np.where(copy, 1, np.where(extra, 0, families))
        if families is None or len(families) != n_features or set(np.unique(families).tolist()) != {0, 1}:
            raise ViewSplitError(
                "the feature-sets split needs a stack of exactly two feature sets "
                "(e.g. features.feature_set=crfsuite+default)"
            )
        return families.astype(np.int8)

    def _spelling_context(
        self, n_features: int, names: Sequence[str] | None, families: np.ndarray | None = None
    ) -> np.ndarray:
        if names is None or len(names) != n_features:
            raise ViewSplitError("the spelling-context split needs feature names (offsets); hashed features have none")
        if families is not None and np.any(families):
            names = [n.split("/", 1)[1] for n in names]  # stacked: "<set>/<feature>"
        views = np.fromiter((parse_feature_name(n)[1] != 0 for n in names), dtype=np.int8, count=n_features)
        if views.min() == views.max():
            what = "context" if views[0] == 0 else "spelling"
            raise ViewSplitError(f"the spelling-context split leaves the {what} view empty (window 0?)")
        return views

    def _token_surface(self, n_features: int, groups: np.ndarray | None) -> np.ndarray:
        if groups is None or len(groups) != n_features:
            raise ViewSplitError("the token-surface split needs the template group of every feature")
        groups = np.asarray(groups)
        for group, what in ((GROUP_TOKEN, "token"), (GROUP_SURFACE, "surface")):
            if not np.any(groups == group):
                raise ViewSplitError(f"the token-surface split leaves the {what} view empty: no {what} features")
        return (groups == GROUP_SURFACE).astype(np.int8)

    def _random(self, n_features: int, names: Sequence[str] | None) -> np.ndarray:
        if names is not None and len(names) != n_features:
            raise ViewSplitError(f"{len(names)} feature names for {n_features} features")
        keys = _coin_keys(n_features, names, self.seed)
        views = (keys >> np.uint64(63)).astype(np.int8)
        if views.min() == views.max():
            # Only when the coins all agree (probability 2**(1 - n)): move the
            # feature with the smallest key, still a function of names and seed.
            views[int(np.argmin(keys))] ^= 1
        return views

    def to_dict(self) -> dict:
        """JSON-compatible form, for the exported tagger's ``meta.json``."""
        return {"kind": self.kind, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Mapping) -> ViewSplit:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(kind=data["kind"], seed=data.get("seed", 0))
        except (KeyError, TypeError, AttributeError):
            raise ViewSplitError(f"not a serialised view split: {data!r:.100}") from None

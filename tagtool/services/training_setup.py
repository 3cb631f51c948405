"""What a training run is set up with: its feature settings, extractor, view split and learner seed.

Shared by every path that trains: :func:`tagtool.services.pipeline.train_tagger`
(the app, ``tagtool train``), ``tagtool simulate`` and ``tagtool experiment``.

* **Features.**  A learner's :attr:`~tagtool.learn.base.Learner.default_features`
  overridden by the caller's (:func:`feature_settings`), an extractor made
  from them (:func:`make_extractor`), and the word representations its
  ``dist`` sets read (:func:`attach_representations`,
  :func:`with_representations`).
* **Views.**  Two-view learners (``learner.two_view``) get one view per
  feature set when their features stack two sets (the default of
  ``mv-perceptron`` and ``cosvm``: ``crfsuite+default``, two complete
  taggers built differently — benchmarks/results/conll2002_multiview.md),
  otherwise ``ViewSplit("random", seed)`` — the split Brefeld et al. (2005,
  §6) found better than token/surface, and the one their 2006 experiments
  redraw per repetition.  Single-view learners get no split (every
  feature in view 0) unless one is given (:func:`view_split_for`).
* **Seed.**  The learner's ``random_state`` (where its table has one) set
  to the run's seed unless given (:func:`seeded_learner`).

Which extra columns are features (:mod:`tagtool.core.features.columns`):
every input column by default (a column file's ``col1`` …), never an
annotation layer (the CoNLL-U fields: LEMMA, UPOS, XPOS, FEATS, HEAD,
DEPREL, DEPS, MISC) unless named in ``features.columns`` /
``features.pos_column`` — then :func:`feature_column_warnings` says why.

References
----------
.. [1] U. Brefeld, C. Büscher, T. Scheffer. Multi-view discriminative
   sequential learning. ECML 2005, §6 (views).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from tagtool.core.corpus import Sentence
from tagtool.core.features import FeatureExtractor, annotation_column_warnings, check_named_columns
from tagtool.core.features.columns import input_columns
from tagtool.core.features.gazetteers import GAZ_SETS, Gazetteers
from tagtool.core.features.settings import FEATURE_PARAMS
from tagtool.core.features.wordreps import DIST_SETS, VEC_SETS, WordRepresentations
from tagtool.core.params import RANDOM_STATE
from tagtool.core.views import VIEW_PARAMS, ViewSplit
from tagtool.errors import TagtoolError
from tagtool.learn import Learner
from tagtool.learn.progress import ProgressCallback, StopCallback

#: View split kind given to two-view learners by default.
DEFAULT_VIEW_KIND = "random"


class TrainingSetupError(TagtoolError, ValueError):
    """Training cannot start: no data, no labels, or contradictory settings."""


def feature_settings(learner: Learner | type[Learner], overrides: Mapping | None = None) -> dict:
    """The learner's default feature settings with ``overrides`` on top."""
    settings = dict(getattr(learner, "default_features", None) or {})
    settings.update(overrides or {})
    return settings


def feature_column_warnings(features: Mapping | None) -> list[str]:
    """Warnings for the columns named in feature settings that are gold annotation layers.

    A column is only a feature when it is an input or named
    (:mod:`tagtool.core.features.columns`), so the named ones are all that
    can leak an answer.
    """
    features = features or {}
    named = [*(features.get("columns") or ()), *([features["pos_column"]] if features.get("pos_column") else [])]
    return annotation_column_warnings(named)


def check_feature_columns(sentences: Iterable[Sentence], features: Mapping | None) -> None:
    """Raise :class:`~tagtool.core.features.FeatureError` if ``features`` name a column ``sentences`` lack.

    The extractor checks the same when it is fitted; this lets a caller
    check before anything else starts (the CLI, before its progress bar).
    """
    features = features or {}
    seen = tuple(dict.fromkeys(c for s in sentences for c in s.columns))
    if features.get("columns"):
        check_named_columns(list(features["columns"]), seen)
    if features.get("pos_column"):
        check_named_columns([features["pos_column"]], seen, "pos_column")


def attach_representations(
    extractor: FeatureExtractor,
    sentences: list[Sentence],
    representations: WordRepresentations | None = None,
    text: Iterable | None = None,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> None:
    """Give an unfitted extractor whose sets read word representations (``dist``) the ones to read.

    The given ``representations``, else ones learned now from the text of
    every sentence (labeled or not) and the extra raw ``text``
    (:func:`tagtool.services.represent.learn_representations`).
    """
    if not extractor.uses_representations or extractor.representations is not None:
        return
    if representations is None:
        from tagtool.services.represent import learn_representations

        representations = learn_representations([*sentences, *(text or ())], progress=progress, should_stop=should_stop)
    extractor.representations = representations
    for part in getattr(extractor, "_parts", None) or ():
        part.representations = representations


def attach_vectors(extractor: FeatureExtractor, vectors: WordRepresentations | None) -> None:
    """Give an unfitted extractor (and its parts) the user's word vectors its ``vec`` sets read."""
    if vectors is None or not extractor.uses_vectors or extractor.vectors is not None:
        return
    extractor.vectors = vectors
    for part in getattr(extractor, "_parts", None) or ():
        part.vectors = vectors


def vectors_record(vectors: WordRepresentations) -> dict:
    """What a model says of the word vectors it read (its ``info["vectors"]``): file, format, words, fingerprint."""
    keep = ("file", "format", "dim", "words", "from_subwords")
    return {**{k: vectors.info[k] for k in keep if k in vectors.info}, "fingerprint": vectors.fingerprint}


def with_vectors(
    learner: Learner | type[Learner], features: Mapping | None = None, sentences: Iterable | None = None
) -> dict:
    """Feature settings that add the ``vec`` sets of the default rule to the learner's (or the given) feature set.

    As :func:`with_representations`, for the word vectors a user brought; a
    set that already reads them is kept.  The rule
    (:func:`tagtool.services.user_vectors.vector_sets`) was measured in
    benchmarks/results/user_vectors.md.
    """
    from tagtool.services.user_vectors import vector_sets

    settings = feature_settings(learner, features)
    sets = str(settings.get("feature_set", "default")).split("+")
    if not any(name in VEC_SETS for name in sets):
        settings["feature_set"] = "+".join([*sets, *vector_sets(sentences)])
    return settings


def attach_gazetteers(extractor: FeatureExtractor, gazetteers: Gazetteers | None) -> None:
    """Give an unfitted extractor whose sets read dictionaries (``gaz``) the ones to read.

    Raises
    ------
    TrainingSetupError
        The features read dictionaries and none are given.
    """
    if not extractor.uses_gazetteers or extractor.gazetteers is not None:
        return
    if gazetteers is None:
        raise TrainingSetupError(
            "the gaz feature set needs dictionaries: train --gazetteer TYPE=FILE, or add them to the project "
            "(tagtool dictionary PROJECT TYPE FILE)"
        )
    extractor.gazetteers = gazetteers
    for part in getattr(extractor, "_parts", None) or ():
        part.gazetteers = gazetteers


def with_gazetteers(learner: Learner | type[Learner], features: Mapping | None = None) -> dict:
    """Feature settings that add the ``gaz`` set to the learner's (or the given) feature set.

    What training uses once dictionaries are given (``train --gazetteer``,
    a project's stored dictionaries): ``default`` → ``default+gaz``; for a
    two-view learner on a stack of two template sets, one copy per view
    (``crfsuite+default`` → ``crfsuite+default+gaz+gaz``,
    :mod:`tagtool.core.views`, ``feature-sets``): with the dictionary in
    one view only, co-training pulls that view towards the other's
    dictionary-blind targets.  A set that already reads dictionaries is
    kept (benchmarks/results/dictionaries.md and knowledge.md measure the rule).
    """
    settings = feature_settings(learner, features)
    sets = str(settings.get("feature_set", "default")).split("+")
    if not any(name in GAZ_SETS for name in sets):
        copies = 2 if getattr(learner, "two_view", False) and template_set_count(sets) == 2 else 1
        settings["feature_set"] = "+".join([*sets, *GAZ_SETS * copies])
    return settings


def template_set_count(sets: list[str]) -> int:
    """How many of ``sets`` are template sets (not read from representations, vectors or dictionaries)."""
    return sum(name not in DIST_SETS + VEC_SETS + GAZ_SETS for name in sets)


def representation_sets(sentences: Iterable | None = None) -> tuple[str, ...]:
    """The word-representation feature sets for this text: ``dist``, and ``dist-dims`` unless it has input columns.

    The vector dimensions (``dist-dims``) stand in for word classes.  Where
    the input already carries them — an extra column such as CoNLL-2000's
    part of speech, a feature by default — they repeat it with noise and
    lower the score.  On plain tokens they add what the clusters alone do
    not (benchmarks/results/design-measurements.md, "Word representations").
    """
    names: dict[str, None] = {}
    for sentence in sentences or ():
        names.update(dict.fromkeys(getattr(sentence, "columns", {}) or {}))
    return ("dist",) if input_columns(tuple(names)) else ("dist", "dist-dims")


def with_representations(
    learner: Learner | type[Learner], features: Mapping | None = None, sentences: Iterable | None = None
) -> dict:
    """Feature settings that add the word-representation sets to the learner's (or the given) feature set.

    What the app trains with once the project's word representations are
    in use: :func:`representation_sets` of the training ``sentences`` are
    added — ``crfsuite+default`` → ``crfsuite+default+dist+dist-dims`` on
    plain tokens, ``crfsuite+default+dist`` where the input has a column
    such as part of speech.  A set that already reads representations is
    kept.
    """
    settings = feature_settings(learner, features)
    sets = str(settings.get("feature_set", "default")).split("+")
    if not any(name in DIST_SETS for name in sets):
        settings["feature_set"] = "+".join([*sets, *representation_sets(sentences)])
    return settings


def make_extractor(learner: Learner | type[Learner], features: Mapping | FeatureExtractor | None) -> FeatureExtractor:
    """An (unfitted unless given fitted) extractor for ``learner``; its settings checked by their table.

    Raises
    ------
    SettingError
        An unknown feature setting or a value its table refuses.
    """
    if isinstance(features, FeatureExtractor):
        return features
    settings = FEATURE_PARAMS.check(feature_settings(learner, features), "features.")
    try:
        return FeatureExtractor(**settings)
    except TypeError as exc:
        raise TrainingSetupError(f"bad feature setting: {exc}") from None


def default_view_kind(extractor: FeatureExtractor | None = None) -> str:
    """The default split of a fitted extractor's columns into two views.

    ``"feature-sets"`` for a stack of two template sets (one view each; word
    representations and dictionaries on top join the first), ``"lexical-distributional"``
    for one template set plus word representations, else
    :data:`DEFAULT_VIEW_KIND`.
    """
    families = getattr(extractor, "feature_family_", None)
    if families is None or not len(families):
        return DEFAULT_VIEW_KIND
    n_sets = int(np.max(families)) + 1
    sets = str(extractor.feature_set).split("+")
    n_dist = sum(name in DIST_SETS + VEC_SETS for name in sets)
    n_templates = n_sets - n_dist - sum(name in GAZ_SETS for name in sets)
    if n_templates == 2:
        return "feature-sets"
    if n_templates == 1 and n_dist:
        return "lexical-distributional"
    return DEFAULT_VIEW_KIND


def view_split_for(
    learner: Learner | type[Learner],
    views: ViewSplit | Mapping | None,
    seed: int = 0,
    extractor: FeatureExtractor | None = None,
) -> ViewSplit | None:
    """The view split to use: given, or the default of two-view learners, or None.

    Without a ``kind`` the split follows the fitted ``extractor``
    (:func:`default_view_kind`): a stack of two feature sets gives each set
    a view, anything else is split at random.  ``views`` are checked by
    :data:`~tagtool.core.views.VIEW_PARAMS` (``seed`` is read as ``random_state``).
    """
    if isinstance(views, ViewSplit):
        return views
    if views is None and not learner.two_view:
        return None
    given = VIEW_PARAMS.check(dict(views or {}), "views.")
    kind = given.get("kind") or default_view_kind(extractor)
    return ViewSplit(kind, given.get("random_state", seed))


def feature_views(extractor: FeatureExtractor, view_split: ViewSplit | None) -> np.ndarray:
    """``int8[n_features]``: the split applied, or all zeros without one."""
    if view_split is None:
        return np.zeros(extractor.n_features_, dtype=np.int8)
    return view_split.assign(extractor)


def seeded_learner(learner_cls: type[Learner], params: Mapping, seed: int) -> Learner:
    """A ``learner_cls`` with ``params``, its ``random_state`` set to ``seed`` unless given (old names read).

    Raises
    ------
    ValueError
        A parameter the learner rejects (:meth:`~tagtool.learn.base.Learner.set_params`).
    """
    params = learner_cls.params.check(params)
    if RANDOM_STATE in learner_cls.params:
        params.setdefault(RANDOM_STATE, seed)
    return learner_cls().set_params(**params)

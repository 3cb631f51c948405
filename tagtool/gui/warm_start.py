"""Where a run of the model loop starts from: the model in use (a warm start) or afresh.

:class:`~tagtool.gui.model_loop.ModelLoop` asks these before each run, without Qt:

* :func:`can_warm_start`: the model in use was made by the same learner with
  the same settings, labels and word representations, so a run may continue
  from it;
* :func:`retrain_overrides` and :func:`capped_retrain`: a warm-started retrain
  after an edit is capped at a few passes over the data, so suggestions follow
  the annotator within about a second;
* :func:`cold_features`: a cold start's feature settings, with the sets of the
  word representations in use.
"""

from __future__ import annotations

import json

from tagtool.core.params import MAX_ITER
from tagtool.learn import find_learner


def same_params(a: dict, b: dict) -> bool:
    """Whether two learners' settings are the same (compared as sorted JSON; a value JSON cannot hold, as its text)."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def retrain_overrides(pass_name: str | None, params: dict, passes: int) -> dict:
    """Settings that cap a warm-started retrain at ``passes`` passes over the data.

    The learner's pass-counting parameter (``max_iter`` where its table has it) is
    lowered to ``passes`` when it is larger; nothing changes for
    ``passes <= 0`` or a learner without one (the HMM counts, it does not
    iterate).
    """
    value = params.get(pass_name) if pass_name is not None and passes > 0 else None
    if isinstance(value, int) and not isinstance(value, bool) and value > passes:
        return {pass_name: passes}
    return {}


def capped_retrain(learner_name: str, params: dict, passes: int) -> dict:
    """:func:`retrain_overrides` for learner ``learner_name``, whose table may name a pass parameter.

    An unknown learner name (no class) caps nothing: it fails in the run itself.
    """
    pass_name = MAX_ITER if MAX_ITER in getattr(find_learner(learner_name), "params", ()) else None
    return retrain_overrides(pass_name, params, passes)


def _key(thing):
    """What identifies word representations, vectors or dictionaries: their fingerprint, else the object."""
    return getattr(thing, "fingerprint", thing)


def same_knowledge(extractor, vectors=None, gazetteers=None) -> bool:
    """Whether ``extractor`` reads these word vectors and dictionaries (or reads none when none are given)."""
    return _key(getattr(extractor, "vectors", None)) == _key(vectors) and _key(
        getattr(extractor, "gazetteers", None)
    ) == _key(gazetteers)


def can_warm_start(
    result, learner_name: str, params: dict, labels, reps=None, vectors=None, gazetteers=None, features=None
) -> bool:
    """Whether a run of ``learner_name`` with ``params`` may continue from ``result`` (the model in use).

    New (or no longer used) word representations, vectors or dictionaries change the features: a cold start.
    So does a cold start's feature set (``features``, from :func:`cold_features`; None: the learner's
    defaults) that is not the model's — a model stored by an earlier version whose rule gave other
    sets (one dictionary copy where two-view learners now get one per view) is not continued.
    """
    old = getattr(result.tagger.extractor, "representations", None) if result is not None else None
    return (
        result is not None
        and result.learner == learner_name
        and same_params(dict(result.params), params)
        and tuple(result.tagger.labels) == tuple(labels)
        and getattr(old, "fingerprint", None) == getattr(reps, "fingerprint", None)
        and same_knowledge(result.tagger.extractor, vectors, gazetteers)
        and str(result.tagger.extractor.feature_set) == cold_feature_set(learner_name, features)
    )


def cold_feature_set(learner_name: str, features: dict | None) -> str:
    """The feature set a cold start of ``learner_name`` fits: ``features``' or the learner's default."""
    from tagtool.learn import get_learner
    from tagtool.services import training_setup

    settings = features if features is not None else training_setup.feature_settings(get_learner(learner_name))
    return str(settings.get("feature_set", "default"))


def cold_features(learner_name: str, reps, sentences, vectors=None, gazetteers=None) -> dict | None:
    """The learner's feature settings plus the sets of the word representations, vectors and dictionaries in use.

    None (the learner's defaults) when there are none.
    """
    if reps is None and vectors is None and gazetteers is None:
        return None
    from tagtool.learn import get_learner
    from tagtool.services import training_setup

    learner = get_learner(learner_name)
    features = training_setup.feature_settings(learner)
    if reps is not None:
        features = training_setup.with_representations(learner, features, sentences)
    if vectors is not None:
        features = training_setup.with_vectors(learner, features, sentences)
    if gazetteers is not None:
        features = training_setup.with_gazetteers(learner, features)
    return features

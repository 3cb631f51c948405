"""The one training entry point the GUI, the CLI and the experiments call.

:func:`train_tagger` turns a corpus (any mixture of fully, partially and not
labeled sentences, DESIGN §2) and a learner into a :class:`~tagtool.tagger.model.Tagger`:

1. **Features.**  A :class:`~tagtool.core.features.FeatureExtractor` is
   fitted on the *text* of every sentence given — labeled, partially
   labeled and unlabeled alike.  Fitting reads no labels, so an
   unsupervised vocabulary is legitimate, and it keeps one feature space
   for a whole annotation session: a later warm start reuses the tagger's
   extractor as it is.  Settings are the learner's
   :attr:`~tagtool.learn.base.Learner.default_features` overridden by the
   caller's.
2. **Views.**  Two-view learners (``learner.two_view``) get one view per
   feature set when their features stack two sets (the default of
   ``mv-perceptron`` and ``cosvm``: ``crfsuite+default``, two complete
   taggers built differently — benchmarks/results/conll2002_multiview.md),
   otherwise ``ViewSplit("random", seed)`` — the split Brefeld et al. (2005,
   §6) found better than token/surface, and the one their 2006 experiments
   redraw per repetition.  Single-view learners get no split (every
   feature in view 0) unless one is given.
3. **Snapshot and fit.**  :func:`~tagtool.core.snapshot.build_snapshot`
   freezes the arrays; :meth:`~tagtool.learn.base.Learner.fit` trains with
   the caller's ``progress`` and ``should_stop``.
4. **Decoding.**  BIO label sets decode with the scheme constraint unless
   the annotations look like IOB1 (:func:`~tagtool.learn.chain.scheme_decoding`)
   or the caller's ``decode`` settings say otherwise (stored in the tagger file).
5. **Input columns.**  The tagger records the extra columns its features
   read, and the expected loss when a file to tag lacks one, measured on a
   sample of the training sentences (:mod:`tagtool.tagger.inputs`).

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

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureExtractor, annotation_column_warnings, check_named_columns
from tagtool.core.features.columns import input_columns
from tagtool.core.features.wordreps import DIST_SETS, WordRepresentations
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.errors import Cancelled, TagtoolError
from tagtool.learn import Learner, make_learner
from tagtool.learn.chain import DECODE_DEFAULTS, ChainModel, check_decode_settings
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.tagger.model import Tagger
from tagtool.tagger.inputs import measure_column_loss, record_for

logger = logging.getLogger(__name__)

#: View split kind given to two-view learners by default.
DEFAULT_VIEW_KIND = "random"


class TrainingSetupError(TagtoolError, ValueError):
    """Training cannot start: no data, no labels, or contradictory settings."""


@dataclass(frozen=True)
class Prepared:
    """Everything :func:`train_tagger` hands to the learner."""

    snapshot: Snapshot
    labels: LabelSet
    extractor: FeatureExtractor
    view_split: ViewSplit | None
    warm_model: ChainModel | None
    notes: tuple[str, ...] = ()


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

        representations = learn_representations(
            [*sentences, *(text or ())], progress=progress, should_stop=should_stop
        )
    extractor.representations = representations
    for part in getattr(extractor, "_parts", None) or ():
        part.representations = representations


def representation_sets(sentences: Iterable | None = None) -> tuple[str, ...]:
    """The word-representation feature sets for this text: ``dist``, and ``dist-dims`` unless it has input columns.

    The vector dimensions (``dist-dims``) stand in for word classes.  Where
    the input already carries them — an extra column such as CoNLL-2000's
    part of speech, a feature by default — they repeat it with noise: −1.7
    to −3.3 chunk F1 for ``crf``, ``svm`` and the perceptrons on CoNLL-2000
    at 20 and 100 labeled sentences.  On plain tokens they add what the
    clusters alone do not: entity F1 +9.0 / +10.6 for ``crf`` and +6.4 /
    +5.8 for ``svm`` on NCBI disease at 20 / 100 labeled sentences, UD EWT
    part of speech +6.7 / +2.9 for ``crf``, against +0.9 / +2.3 and
    +1.6 / +1.1 with ``dist`` alone (benchmarks/results/robustness.md).
    """
    names: dict[str, None] = {}
    for sentence in sentences or ():
        names.update(dict.fromkeys(getattr(sentence, "columns", {}) or {}))
    return ("dist",) if input_columns(tuple(names)) else ("dist", "dist-dims")


def with_representations(learner: Learner | type[Learner], features: Mapping | None = None,
                         sentences: Iterable | None = None) -> dict:
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
    """An (unfitted unless given fitted) extractor for ``learner``."""
    if isinstance(features, FeatureExtractor):
        return features
    try:
        return FeatureExtractor(**feature_settings(learner, features))
    except TypeError as exc:
        raise TrainingSetupError(f"bad feature setting: {exc}") from None


def default_view_kind(extractor: FeatureExtractor | None = None) -> str:
    """The default split of a fitted extractor's columns into two views.

    ``"feature-sets"`` for a stack of two template sets (one view each; word
    representations on top join the first), ``"lexical-distributional"``
    for one template set plus word representations, else
    :data:`DEFAULT_VIEW_KIND`.
    """
    families = getattr(extractor, "feature_family_", None)
    if families is None or not len(families):
        return DEFAULT_VIEW_KIND
    n_sets = int(np.max(families)) + 1
    n_dist = sum(name in DIST_SETS for name in str(extractor.feature_set).split("+"))
    if n_sets - n_dist == 2:
        return "feature-sets"
    if n_sets - n_dist == 1 and n_dist:
        return "lexical-distributional"
    return DEFAULT_VIEW_KIND


def view_split_for(
    learner: Learner | type[Learner], views: ViewSplit | Mapping | None, seed: int = 0,
    extractor: FeatureExtractor | None = None,
) -> ViewSplit | None:
    """The view split to use: given, or the default of two-view learners, or None.

    Without a ``kind`` the split follows the fitted ``extractor``
    (:func:`default_view_kind`): a stack of two feature sets gives each set
    a view, anything else is split at random.
    """
    if isinstance(views, ViewSplit):
        return views
    if views is None and not learner.two_view:
        return None
    spec = {"kind": default_view_kind(extractor), "seed": seed, **dict(views or {})}
    unknown = set(spec) - {"kind", "seed"}
    if unknown:
        raise TrainingSetupError(f"unknown view setting(s): {', '.join(sorted(unknown))} (known: kind, seed)")
    return ViewSplit(spec["kind"], spec["seed"])


def feature_views(extractor: FeatureExtractor, view_split: ViewSplit | None) -> np.ndarray:
    """``int8[n_features]``: the split applied, or all zeros without one."""
    if view_split is None:
        return np.zeros(extractor.n_features_, dtype=np.int8)
    return view_split.assign(extractor)


def _sentences(corpus: Corpus | Iterable[Sentence] | None, strip: bool) -> list[Sentence]:
    if corpus is None:
        return []
    return [s.unlabeled() if strip else s for s in corpus]


def _labels(corpus: Corpus | Iterable[Sentence]) -> LabelSet:
    if isinstance(corpus, Corpus):
        return corpus.labels
    names = {n for s in corpus for a in s.annotations for n in a}
    return LabelSet.from_observed(names) if names else LabelSet.empty()


def _warm_parts(warm_start, labels: LabelSet, notes: list[str]):
    """``(labels, extractor, feature_view, view_split, model)`` taken from a warm-start tagger."""
    if not isinstance(warm_start, Tagger):
        raise TrainingSetupError("warm_start must be a Tagger (it carries the feature space to reuse)")
    merged = warm_start.labels.union(labels)
    model = warm_start.model
    if merged != warm_start.labels:
        new = [n for n in merged if n not in warm_start.labels]
        notes.append(f"warm start ignored: new label(s) {', '.join(new)} not in the previous model")
        model = None
    return merged, warm_start.extractor, warm_start.model.feature_view, warm_start.view_split, model


def prepare(
    corpus: Corpus | Iterable[Sentence],
    learner: Learner,
    *,
    features: Mapping | FeatureExtractor | None = None,
    views: ViewSplit | Mapping | None = None,
    unlabeled: Corpus | Iterable[Sentence] | None = None,
    warm_start: Tagger | None = None,
    seed: int = 0,
    representations: WordRepresentations | None = None,
    text: Iterable | None = None,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
) -> Prepared:
    """Fit the features, split the views and build the training snapshot (steps 1–2 of the module doc).

    ``representations`` / ``text``: see :func:`attach_representations`
    (used only when the feature sets read word representations).
    """
    sentences = _sentences(corpus, strip=False) + _sentences(unlabeled, strip=True)
    if not sentences:
        raise TrainingSetupError("no sentences to train on")
    labels = _labels(corpus)
    notes: list[str] = []
    if warm_start is not None:
        if features is not None or views is not None:
            raise TrainingSetupError("a warm start keeps the previous tagger's features and views; give neither")
        labels, extractor, feature_view, view_split, warm_model = _warm_parts(warm_start, labels, notes)
    else:
        extractor = make_extractor(learner, features)
        if not hasattr(extractor, "n_features_"):
            attach_representations(extractor, sentences, representations, text, progress, should_stop)
            extractor.fit(sentences)
        view_split = view_split_for(learner, views, seed, extractor)
        feature_view = feature_views(extractor, view_split)
        warm_model = None
    if len(labels) == 0:
        raise TrainingSetupError("the training data has no labels: nothing to learn")
    snapshot = build_snapshot(sentences, labels, extractor, feature_view, should_stop=should_stop)
    return Prepared(snapshot, labels, extractor, view_split, warm_model, tuple(notes))


def train_tagger(
    corpus: Corpus | Iterable[Sentence],
    learner: Learner | str,
    *,
    features: Mapping | FeatureExtractor | None = None,
    views: ViewSplit | Mapping | None = None,
    unlabeled: Corpus | Iterable[Sentence] | None = None,
    warm_start: Tagger | None = None,
    progress: ProgressCallback | None = None,
    should_stop: StopCallback | None = None,
    seed: int = 0,
    representations: WordRepresentations | None = None,
    text: Iterable | None = None,
    decode: Mapping | None = None,
    on_snapshot: Callable[[Snapshot], None] | None = None,
) -> Tagger:
    """Train ``learner`` on ``corpus`` (plus ``unlabeled`` text) and return a tagger.

    Parameters
    ----------
    corpus : Corpus or iterable of Sentence
        Training sentences with their annotations: full labels, candidate
        sets and unlabeled tokens are used as such (DESIGN §2); the label
        set is the corpus's.
    learner : Learner or str
        A configured learner, or a registry name (default parameters).
    features : dict or FeatureExtractor, optional
        :class:`FeatureExtractor` keyword arguments over the learner's
        ``default_features``; or an extractor, used as it is if fitted.
    views : ViewSplit or dict, optional
        ``{"kind": ..., "seed": ...}``; default ``ViewSplit("random", seed)``
        for two-view learners and none for the others.
    unlabeled : Corpus or iterable of Sentence, optional
        More text; its annotations, if any, are dropped.
    warm_start : Tagger, optional
        A previous tagger: its extractor, views and model are reused (the
        new data is mapped into its feature space; features it never saw
        are dropped).  Not with ``features``/``views``.  A label the old
        tagger lacks makes it a cold start, noted in the model's info.
    progress : callable(fraction, message), optional
    should_stop : callable() -> bool, optional
        Polled by the learner; True raises
        :class:`~tagtool.errors.Cancelled`.
    seed : int
        Seed of the default random view split.
    representations : WordRepresentations, optional
        For feature sets that read word representations (``dist``,
        ``dist-dims``): the ones to read; by default they are learned from
        the text of ``corpus`` and ``unlabeled`` plus ``text``.
    text : iterable of token lists or raw lines, optional
        More text for learning the representations only (``train --text``).
    decode : dict, optional
        Decoding settings over the model's defaults
        (:data:`~tagtool.learn.chain.DECODE_DEFAULTS`), e.g.
        ``{"bio_constraint": False}`` for the unconstrained Viterbi path.
        Not taken from ``warm_start``: each training applies the default
        rule unless given.
    on_snapshot : callable(Snapshot), optional
        Receives the training snapshot (the sentences of ``corpus``, then of
        ``unlabeled``) before the fit: the app scores a big project's
        sentences from it instead of extracting their features again.

    Returns
    -------
    Tagger
        Its ``input_columns`` name the extra columns the features read and
        the accuracy on (a sample of) ``corpus`` without each of them.
    """
    if isinstance(learner, str):
        learner = make_learner(learner)
    decode = check_decode_settings(decode or {})  # before, not after, a long training
    if progress is not None:
        progress(0.0, "extracting features")
    prepared = prepare(
        corpus, learner, features=features, views=views, unlabeled=unlabeled, warm_start=warm_start, seed=seed,
        representations=representations, text=text, progress=progress, should_stop=should_stop,
    )  # fmt: skip
    if should_stop is not None and should_stop():
        raise Cancelled("training cancelled")
    if on_snapshot is not None:
        on_snapshot(prepared.snapshot)
    logger.info(
        "training %s on %d sentences (%d tokens, %d features)",
        learner.name, prepared.snapshot.n_sentences, prepared.snapshot.n_tokens, prepared.snapshot.n_features,
    )
    model = learner.fit(prepared.snapshot, warm_start=prepared.warm_model, progress=progress, should_stop=should_stop)
    model.info.setdefault("notes", []).extend(prepared.notes)
    model.set_decode(decode)
    tagger = Tagger(prepared.labels, prepared.extractor, prepared.view_split, model)
    if prepared.extractor.columns_:
        if progress is not None:
            progress(1.0, "measuring the loss without the input columns")
        loss = measure_column_loss(tagger, list(corpus))
        tagger.input_columns = record_for(prepared.extractor.columns_, loss)
    return tagger


# ---------------------------------------------------------------------------
# KEY=VALUE settings (the CLI's --set, and any caller holding strings)

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_NONE = {"none", "null"}
#: Feature settings that take a list: a comma-separated value.
_LIST_SETTINGS = {"columns"}


@dataclass
class Settings:
    """Parsed ``KEY=VALUE`` settings: learner parameters, feature, view and decoding settings."""

    params: dict
    features: dict
    views: dict
    decode: dict = field(default_factory=dict)


def _parse_bool(key: str, text: str) -> bool:
    low = text.lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise TrainingSetupError(f"{key}: expected true or false, got {text!r}")


def _parse_untyped(text: str):
    """A value whose default gives no type (None): none, a number, a boolean or a string."""
    low = text.lower()
    if low in _NONE:
        return None
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    if low in ("true", "false"):
        return low == "true"
    return text


def parse_value(key: str, text: str, default):
    """``text`` converted to the type of ``default`` (the parameter's default value)."""
    name = key.rpartition(".")[2]
    if name in _LIST_SETTINGS and key.startswith("features."):
        return None if text.lower() in _NONE else [part for part in text.split(",") if part]
    if isinstance(default, bool):
        return _parse_bool(key, text)
    if default is not None and text.lower() in _NONE:
        raise TrainingSetupError(f"{key} cannot be none")
    try:
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
    except ValueError:
        raise TrainingSetupError(f"{key}: expected a {type(default).__name__}, got {text!r}") from None
    if isinstance(default, str):
        return text
    return _parse_untyped(text)


def _defaults(cls) -> dict:
    import inspect

    sig = inspect.signature(cls.__init__)
    return {n: p.default for n, p in sig.parameters.items() if n != "self"}


def parse_settings(learner_cls: type[Learner], pairs: Iterable[str]) -> Settings:
    """Split and type ``KEY=VALUE`` strings.

    ``features.NAME=V`` sets a :class:`FeatureExtractor` argument,
    ``views.kind=V`` / ``views.seed=N`` the view split,
    ``decode.bio_constraint=false`` the decoding, and ``NAME=V`` (or
    ``learner.NAME=V``) a learner parameter.  Each value takes the type of
    the parameter's default (bool: true/false/yes/no/on/off/1/0; none/null
    for parameters whose default is None; ``features.columns`` is a
    comma-separated list).

    Raises
    ------
    TrainingSetupError
        A malformed pair, an unknown key, or a value of the wrong type.
    """
    known = {
        "features": {
            **{k: v for k, v in _defaults(FeatureExtractor).items() if k != "representations"},
            **feature_settings(learner_cls),
        },
        "views": {"kind": DEFAULT_VIEW_KIND, "seed": 0},
        "decode": dict(DECODE_DEFAULTS),
        "learner": learner_cls.param_defaults(),
    }
    out = {"learner": {}, "features": {}, "views": {}, "decode": {}}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise TrainingSetupError(f"--set expects KEY=VALUE, got {pair!r}")
        group, dot, name = key.partition(".")
        if not dot or group not in known:
            group, name = "learner", key
        if name not in known[group]:
            choices = ", ".join(sorted(known[group])) or "none"
            what = f"{learner_cls.name} parameter" if group == "learner" else f"{group} setting"
            raise TrainingSetupError(f"unknown {what} {name!r} (known: {choices})")
        out[group][name] = parse_value(key, text.strip(), known[group][name])
    return Settings(out["learner"], out["features"], out["views"], out["decode"])

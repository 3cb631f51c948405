"""The one training entry point the GUI, the CLI and the experiments call.

:func:`train` turns a corpus (any mixture of fully, partially and not
labeled sentences, docs/design.md#allowed-sets) and a learner into a :class:`~tagtool.tagger.model.Tagger`
and the snapshot it was trained on (:class:`Trained`); :func:`train_tagger`
gives the tagger alone:

1. **Features.**  A :class:`~tagtool.core.features.FeatureExtractor` is
   fitted on the *text* of every sentence given — labeled, partially
   labeled and unlabeled alike.  Fitting reads no labels, so an
   unsupervised vocabulary is legitimate, and it keeps one feature space
   for a whole annotation session: a later warm start reuses the tagger's
   extractor as it is.  Settings are the learner's
   :attr:`~tagtool.learn.base.Learner.default_features` overridden by the
   caller's (:mod:`tagtool.services.training_setup`).
2. **Views.**  Two-view learners get one view per stacked feature set, or a
   random split (:func:`~tagtool.services.training_setup.view_split_for`).
3. **Snapshot and fit.**  :func:`~tagtool.core.snapshot.build_snapshot`
   freezes the arrays, once per training: the learner trains on them, and
   the caller gets them with the tagger (:attr:`Trained.snapshot`) — the
   app scores a retrained model's guidance from its rows instead of
   extracting the features again
   (:func:`tagtool.services.chunked_guidance.training_rows`).
   :meth:`~tagtool.learn.base.Learner.fit` trains with the caller's
   ``progress`` and ``should_stop``.
4. **Decoding.**  BIO label sets decode with the scheme constraint unless
   the annotations look like IOB1 (:func:`~tagtool.learn.chain.scheme_decoding`)
   or the caller's ``decode`` settings say otherwise (stored in the tagger file).
5. **Input columns.**  The tagger records the extra columns its features
   read, and the expected loss when a file to tag lacks one, measured on a
   sample of the training sentences (:mod:`tagtool.tagger.inputs`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tagtool import collector
from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.features.gazetteers import Gazetteers
from tagtool.core.features.wordreps import WordRepresentations
from tagtool.core.labels import LabelSet
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import VIEW_PARAMS, ViewSplit
from tagtool.errors import Cancelled
from tagtool.learn import Learner, make_learner
from tagtool.learn.chain import ChainModel, check_decode_settings
from tagtool.learn.progress import ProgressCallback, StopCallback
from tagtool.services.training_setup import (
    TrainingSetupError,
    attach_gazetteers,
    attach_representations,
    attach_vectors,
    feature_views,
    make_extractor,
    vectors_record,
    view_split_for,
)
from tagtool.tagger.inputs import measure_column_loss, record_for
from tagtool.tagger.model import Tagger

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Prepared:
    """Everything :func:`train` hands to the learner."""

    snapshot: Snapshot
    labels: LabelSet
    extractor: FeatureExtractor
    view_split: ViewSplit | None
    warm_model: ChainModel | None
    notes: tuple[str, ...] = ()


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
    gazetteers: Gazetteers | None = None,
    vectors: WordRepresentations | None = None,
) -> Prepared:
    """Fit the features, split the views and build the training snapshot (steps 1–2 of the module doc).

    ``representations`` / ``text``: see
    :func:`~tagtool.services.training_setup.attach_representations` (used only when the feature sets read word
    representations); ``gazetteers``: the dictionaries of the ``gaz`` set
    (:func:`~tagtool.services.training_setup.attach_gazetteers`); ``vectors``: the user's word vectors the ``vec``
    sets read.
    """
    sentences = _sentences(corpus, strip=False) + _sentences(unlabeled, strip=True)
    if not sentences:
        raise TrainingSetupError("no sentences to train on")
    labels = _labels(corpus)
    notes: list[str] = []
    fitted = None  # the features of a cold fit, reused by the snapshot
    if warm_start is not None:
        if features is not None or views is not None:
            raise TrainingSetupError("a warm start keeps the previous tagger's features and views; give neither")
        labels, extractor, feature_view, view_split, warm_model = _warm_parts(warm_start, labels, notes)
    else:
        extractor = make_extractor(learner, features)
        if not hasattr(extractor, "n_features_"):
            attach_representations(extractor, sentences, representations, text, progress, should_stop)
            attach_gazetteers(extractor, gazetteers)
            attach_vectors(extractor, vectors)
            with collector.paused():
                fitted = extractor.fit_transform(sentences)  # the snapshot's features too: one extraction
        view_split = view_split_for(learner, views, seed, extractor)
        feature_view = feature_views(extractor, view_split)
        warm_model = None
    if len(labels) == 0:
        raise TrainingSetupError("the training data has no labels: nothing to learn")
    with collector.paused():  # the extraction's lists would set off full collections (tagtool.collector)
        snapshot = build_snapshot(sentences, labels, extractor, feature_view, should_stop=should_stop, features=fitted)
    return Prepared(snapshot, labels, extractor, view_split, warm_model, tuple(notes))


@dataclass(frozen=True)
class Trained:
    """A fitted tagger and the immutable snapshot it was trained on (:func:`train`).

    The snapshot is built once per training; a caller that needs the
    training sentences' features again (the app's guidance of a retrained
    model) slices it rather than extracting them a second time.
    """

    tagger: Tagger
    snapshot: Snapshot


def train(
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
    gazetteers: Gazetteers | None = None,
    vectors: WordRepresentations | None = None,
) -> Trained:
    """Train ``learner`` on ``corpus`` (plus ``unlabeled`` text): the tagger and its training snapshot.

    Parameters
    ----------
    corpus : Corpus or iterable of Sentence
        Training sentences with their annotations: full labels, candidate
        sets and unlabeled tokens are used as such (docs/design.md#allowed-sets); the label
        set is the corpus's.
    learner : Learner or str
        A configured learner, or a registry name (default parameters).
    features : dict or FeatureExtractor, optional
        :class:`FeatureExtractor` keyword arguments over the learner's
        ``default_features``; or an extractor, used as it is if fitted.
    views : ViewSplit or dict, optional
        ``{"kind": ..., "random_state": ...}`` (:data:`~tagtool.core.views.VIEW_PARAMS`);
        default ``ViewSplit("random", seed)`` for two-view learners and
        none for the others.
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
    gazetteers : Gazetteers, optional
        The dictionaries the ``gaz`` feature set reads
        (:func:`tagtool.services.dictionaries.gazetteers_of`); required when
        the features include it.
    vectors : WordRepresentations, optional
        The user's word vectors (:func:`tagtool.services.user_vectors.load_user_vectors`)
        for the ``vec`` feature sets; the model's ``info["vectors"]`` names them.

    Returns
    -------
    Trained
        The tagger — its ``input_columns`` name the extra columns the
        features read and the accuracy on (a sample of) ``corpus`` without
        each of them — and the snapshot it was trained on (the sentences of
        ``corpus``, then of ``unlabeled``).
    """
    if isinstance(learner, str):
        learner = make_learner(learner)
    decode = check_decode_settings(decode or {})  # before, not after, a long training
    learner.check_params()
    if isinstance(views, Mapping):
        VIEW_PARAMS.check(views, "views.")
    if progress is not None:
        progress(0.0, "extracting features")
    prepared = prepare(
        corpus, learner, features=features, views=views, unlabeled=unlabeled, warm_start=warm_start, seed=seed,
        representations=representations, text=text, progress=progress, should_stop=should_stop,
        gazetteers=gazetteers, vectors=vectors,
    )  # fmt: skip
    if should_stop is not None and should_stop():
        raise Cancelled("training cancelled")
    logger.info(
        "training %s on %d sentences (%d tokens, %d features)",
        learner.name,
        prepared.snapshot.n_sentences,
        prepared.snapshot.n_tokens,
        prepared.snapshot.n_features,
    )
    model = learner.fit(prepared.snapshot, warm_start=prepared.warm_model, progress=progress, should_stop=should_stop)
    model.extras.clear()  # a tagger holds what its file holds; the fit's by-products could double its memory
    model.info.setdefault("notes", []).extend(prepared.notes)
    if prepared.extractor.vectors is not None and prepared.extractor.uses_vectors:
        model.info["vectors"] = vectors_record(prepared.extractor.vectors)
    model.set_decode(decode)
    tagger = Tagger(prepared.labels, prepared.extractor, prepared.view_split, model)
    if prepared.extractor.columns_:
        if progress is not None:
            progress(1.0, "measuring the loss without the input columns")
        with collector.paused():  # it extracts the features of a sample again
            loss = measure_column_loss(tagger, list(corpus))
        tagger.input_columns = record_for(prepared.extractor.columns_, loss)
    return Trained(tagger, prepared.snapshot)


def train_tagger(corpus: Corpus | Iterable[Sentence], learner: Learner | str, **options) -> Tagger:
    """The tagger of :func:`train` (same arguments), without its training snapshot."""
    return train(corpus, learner, **options).tagger

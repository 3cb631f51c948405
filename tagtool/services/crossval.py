"""Cross-validation that predicts a tagger's scores on new text.

The app shows a k-fold cross-validated span F1 after each training run.  A
tagger is used on text it has never seen, from other documents, so each
fold is built that way (``protocol="new-text"``, the default):

* **Whole stretches of documents are held out** (``folds="blocks"``): the
  fully labeled sentences, in document order, are cut into ``k``
  contiguous blocks.  Sentences of one document share names, topics and
  phrasing; folds drawn sentence by sentence at random put neighbours of
  every held-out sentence into the training data, which overstates the
  score on new text (benchmarks/results/design-measurements.md, "Cross-validation").
* The held-out sentences are **removed** from the fold's training data —
  labels *and* text — so a semi-supervised learner does not fit the very
  text it is scored on as unlabeled sentences.
* The **features are refitted** on the fold's training text with the
  tagger's settings, view split and seed (the vocabulary and its
  ``min_count`` cut never see the held-out words).

``protocol="transductive"`` with ``folds="random"`` is what the app did
before: held-out text kept unlabeled in every fold, one extractor fitted on
all text, random folds; kept so the benchmark can measure the difference.

With ``questions`` on, each held-out token also gets the fold model's
question and whether its label is wrong
(:class:`tagtool.services.question_threshold.HeldOut`): the data the
project's question threshold and cold-start rule are computed from, with
no second cross-validation.

Predictions of all folds are pooled and scored with conlleval rules
(:func:`tagtool.core.metrics.evaluate`).  The **standard error** is the
bootstrap over the held-out sentences (Efron & Tibshirani 1993, §6.2):
sentences resampled with replacement, span counts summed, F1 recomputed,
:data:`BOOTSTRAP` times; their standard deviation.  It is the sampling
error of the estimate from this many held-out sentences; it leaves out the
variation between training sets and any shift between the project's text
and the text tagged later.  Each fold trains on (k − 1)/k of the labeled
sentences, so the estimate leans pessimistic for the tagger trained on all.

Each fold also tags its held-out sentences **without each extra input
column** its features read (a POS column).  That is the tagger's expected
loss when a file to tag lacks the column, measured on sentences it did not
train on: measured on its own training sentences (what
:func:`tagtool.tagger.inputs.measure_column_loss` does), a small project's
chunker seems to lose nothing without POS, and then tags badly a test
file whose POS column it cannot read.

References
----------
.. [1] B. Efron, R. J. Tibshirani. An Introduction to the Bootstrap.
   Chapman & Hall 1993, §6.2 (bootstrap standard error).
.. [2] E. F. Tjong Kim Sang, S. Buchholz. Introduction to the CoNLL-2000
   shared task: chunking. CoNLL 2000 (conlleval span rules).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from seqeval.metrics.sequence_labeling import get_entities

from tagtool.core.corpus import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import evaluate
from tagtool.learn.progress import ProgressCallback, StopCallback

PROTOCOLS = ("new-text", "transductive")
FOLDINGS = ("blocks", "random")
#: Bootstrap resamples of the held-out sentences for the standard error.
BOOTSTRAP = 500
#: Key of the loss without every extra column at once (as in :mod:`tagtool.tagger.inputs`).
ALL_COLUMNS = "*"
#: Folds of the app's cross-validation after each training run (and of ``tagtool simulate --cv-folds``): with 5,
#: unlike 3, the CV F1 of every learner stays within about one SE of the F1 on held-out text
#: (benchmarks/results/cv_honesty.md).
DEFAULT_FOLDS = 5

#: ``train(corpus, progress, should_stop) -> Tagger``: fits one fold.
FoldTrainer = Callable[[Corpus, ProgressCallback | None, StopCallback | None], object]


def plan_folds(sentences: Sequence[Sentence], k: int, folds: str = "blocks", seed: int = 0) -> list[list[int]] | str:
    """Indices of the fully labeled sentences each fold holds out; a reason string if there cannot be 2 folds.

    ``"blocks"``: ``k`` contiguous blocks in document order (sizes differ by
    at most one); ``"random"``: a seeded permutation dealt round-robin.
    """
    if folds not in FOLDINGS:
        raise ValueError(f"folds must be one of {', '.join(FOLDINGS)}")
    full = [i for i, s in enumerate(sentences) if s.status == "full"]
    k = min(int(k), len(full))
    if k < 2:
        return f"needs 2 fully labeled sentences, has {len(full)}"
    if folds == "blocks":
        return [[int(i) for i in block] for block in np.array_split(full, k)]
    order = np.random.default_rng(seed).permutation(full)
    return [sorted(int(i) for i in order[f::k]) for f in range(k)]


def fold_training(sentences: Sequence[Sentence], held: Sequence[int], protocol: str) -> list[Sentence]:
    """The fold's training sentences: held-out ones removed (new text) or kept unlabeled (transductive)."""
    held_set = set(held)
    if protocol == "transductive":
        return [s.unlabeled() if i in held_set else s for i, s in enumerate(sentences)]
    return [s for i, s in enumerate(sentences) if i not in held_set]


def fold_trainer(
    learner_name: str, params: Mapping, tagger, protocol: str = "new-text", seed: int = 0, decode: Mapping | None = None
) -> FoldTrainer:
    """A :data:`FoldTrainer` for the settings of ``tagger`` (its learner's ``params``, features and views).

    ``"new-text"`` refits an extractor of the same settings on each fold's
    text; ``"transductive"`` reuses ``tagger``'s fitted extractor.
    ``decode``: the fold models' decoding settings (default: the scheme's).
    """
    from tagtool.learn import make_learner
    from tagtool.services.pipeline import train_tagger

    features = tagger.extractor if protocol == "transductive" else tagger.extractor.get_params()

    def train(corpus: Corpus, progress: ProgressCallback | None, should_stop: StopCallback | None):
        # The project's word representations are reused, not relearned per fold: they read no
        # labels, and learning them takes longer than a fold's fit.
        return train_tagger(
            corpus,
            make_learner(learner_name, **dict(params)),
            features=features,
            views=tagger.view_split,
            progress=progress,
            should_stop=should_stop,
            seed=seed,
            representations=tagger.extractor.representations,
            vectors=tagger.extractor.vectors,  # the user's vectors and dictionaries too: they read no labels
            gazetteers=tagger.extractor.gazetteers,
            decode=decode,
        )

    return train


def sentence_counts(gold: Sequence[Sequence[str]], pred: Sequence[Sequence[str]], spans: bool) -> np.ndarray:
    """``int[n, 3]``: per sentence (correct, predicted, gold) spans — or (correct, tokens, tokens).

    Summed over sentences they give the pooled conlleval counts: a chunk
    never crosses a sentence boundary.
    """
    rows = []
    for g, p in zip(gold, pred):
        if spans:
            gs, ps = set(get_entities(list(g))), set(get_entities(list(p)))
            rows.append((len(gs & ps), len(ps), len(gs)))
        else:
            rows.append((sum(a == b for a, b in zip(g, p)), len(g), len(g)))
    return np.asarray(rows, dtype=np.int64).reshape(-1, 3)


def f1_from_counts(counts: np.ndarray) -> np.ndarray:
    """F1 of (correct, predicted, gold) counts along the last axis; 0 where there is nothing to score."""
    tp, n_pred, n_gold = (counts[..., j].astype(float) for j in range(3))
    total = n_pred + n_gold
    return np.divide(2 * tp, total, out=np.zeros_like(tp), where=total > 0)


def bootstrap_se(counts: np.ndarray, resamples: int = BOOTSTRAP, seed: int = 0) -> float:
    """Bootstrap standard error of the pooled F1 of per-sentence ``counts`` (module docstring)."""
    n = len(counts)
    if n < 2:
        return 0.0
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    return float(np.std(f1_from_counts(counts[idx].sum(axis=1)), ddof=1))


def _without(sentences: Sequence[Sentence], columns: Sequence[str]) -> list[Sentence]:
    drop = set(columns)
    return [replace(s, columns={k: v for k, v in s.columns.items() if k not in drop}) for s in sentences]


def _column_sets(columns: Sequence[str]) -> dict[str, list[str]]:
    sets = {c: [c] for c in columns}
    if len(columns) > 1:
        sets[ALL_COLUMNS] = list(columns)
    return sets


@dataclass
class Pooled:
    """Gold and predicted labels of every held-out sentence, with and without each input column."""

    gold: list = field(default_factory=list)
    pred: list = field(default_factory=list)
    without: dict = field(default_factory=dict)
    #: With questions: each fold's :class:`~tagtool.services.question_threshold.HeldOut` (None: not asked).
    questions: list | None = None

    def add(self, tagger, held: Sequence[Sentence]) -> None:
        """Tag one fold's held-out sentences (as they are, then without each required column)."""
        self.gold.extend([next(iter(a)) for a in s.annotations] for s in held)
        # The project's own sentences: some may lack a column others have (imported later).
        predicted = tagger.tag(held, allow_missing_columns=True)
        self.pred.extend(predicted)
        if self.questions is not None:
            from tagtool.services.question_threshold import held_out

            self.questions.append(held_out(tagger, held, predicted))
        for key, drop in _column_sets(tagger.input_columns["required"]).items():
            self.without.setdefault(key, []).extend(tagger.tag(_without(held, drop), allow_missing_columns=True))


def cross_validate(
    sentences: Sequence[Sentence],
    labels: LabelSet,
    train: FoldTrainer,
    k: int,
    *,
    protocol: str = "new-text",
    folds: str = "blocks",
    seed: int = 0,
    progress: Callable[[int, int], ProgressCallback | None] | None = None,
    should_stop: StopCallback | None = None,
    questions: bool = False,
) -> dict:
    """k-fold cross-validation of the training procedure ``train``; see the module docstring.

    Parameters
    ----------
    sentences : sequence of Sentence
        The project's sentences in document order (any status); only the
        fully labeled ones are held out.
    labels : LabelSet
    train : FoldTrainer
        Fits one fold (:func:`fold_trainer`).
    k : int
        Folds (at most the number of fully labeled sentences).
    protocol : {"new-text", "transductive"}
    folds : {"blocks", "random"}
    seed : int
        Of the random folds and the bootstrap.
    progress : callable(fold, k) -> progress callback, optional
        Gives each fold its progress callback.
    should_stop : callable, optional
    questions : bool
        Also return ``held_out``: the held-out tokens' questions and errors
        (:class:`~tagtool.services.question_threshold.HeldOut`; not JSON).

    Returns
    -------
    dict
        ``cv_folds``, ``cv_sentences``, ``cv_tokens``, ``cv_protocol``,
        ``token_accuracy``, ``f1`` and their bootstrap SEs ``token_accuracy_se``,
        ``f1_se`` (fractions); ``cv_without`` — per input column (and
        ``"*"`` for all of them), the held-out ``token_accuracy`` and
        ``f1`` without it — when the features read any; or ``{"cv": reason}``.
    """
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}")
    plan = plan_folds(sentences, k, folds, seed)
    if isinstance(plan, str):
        return {"cv": plan}
    pooled = Pooled(questions=[] if questions else None)
    for fold, held in enumerate(plan):
        corpus = Corpus.from_sentences(fold_training(sentences, held, protocol), labels=labels)
        tagger = train(corpus, progress(fold, len(plan)) if progress is not None else None, should_stop)
        pooled.add(tagger, [sentences[i] for i in held])
    out = {**summarise(pooled, labels, seed), "cv_folds": len(plan), "cv_protocol": f"{protocol}, {folds}"}
    if pooled.questions is not None:
        from tagtool.services.question_threshold import HeldOut

        out["held_out"] = HeldOut.join(pooled.questions)
    return out


def summarise(pooled: Pooled, labels: LabelSet, seed: int = 0) -> dict:
    """Scores and bootstrap SEs of pooled fold predictions (see :func:`cross_validate`)."""
    scores = evaluate(pooled.gold, pooled.pred, labels)
    spans = sentence_counts(pooled.gold, pooled.pred, labels.is_span_scheme)
    tokens = sentence_counts(pooled.gold, pooled.pred, False)
    out = {
        "cv_sentences": len(pooled.gold),
        "cv_tokens": int(tokens[:, 2].sum()),
        "token_accuracy": round(scores.token_accuracy, 4),
        "f1": round(scores.f1, 4),
        "token_accuracy_se": round(bootstrap_se(tokens, seed=seed), 4),
        "f1_se": round(bootstrap_se(spans, seed=seed), 4),
    }
    if pooled.without:
        out["cv_without"] = {}
        for key, pred in pooled.without.items():
            missing = evaluate(pooled.gold, pred, labels)
            out["cv_without"][key] = {"token_accuracy": round(missing.token_accuracy, 4), "f1": round(missing.f1, 4)}
    return out


def column_check(metrics: Mapping) -> dict | None:
    """A tagger's ``input_columns["check"]`` from CV metrics: the expected loss on held-out sentences."""
    without = metrics.get("cv_without")
    if not without:
        return None
    return {
        "sentences": int(metrics["cv_sentences"]),
        "tokens": int(metrics["cv_tokens"]),
        "accuracy": float(metrics["token_accuracy"]),
        "accuracy_without": {key: float(v["token_accuracy"]) for key, v in without.items()},
        "held_out": True,
    }

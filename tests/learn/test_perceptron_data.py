"""Synthetic sequence data for the perceptron tests (arrays built directly, no feature extraction)."""

from pathlib import Path

import numpy as np

from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"


def markov_labels(rng, n_tokens, n_labels, stay=0.6):
    """A label sequence that keeps its label with probability ``stay``."""
    labels = [int(rng.integers(n_labels))]
    for _ in range(n_tokens - 1):
        labels.append(labels[-1] if rng.random() < stay else int(rng.integers(n_labels)))
    return labels


def make_snapshot(token_features, labels, lengths, n_labels, feature_view, allowed=None):
    """Snapshot of the given per-token feature lists; full labels unless ``allowed`` is given."""
    if allowed is None:
        allowed = np.eye(n_labels, dtype=bool)[np.asarray(labels)]
    return Snapshot(
        labels=tuple(f"L{j}" for j in range(n_labels)),
        offsets=np.concatenate(([0], np.cumsum(lengths))),
        feat_indptr=np.concatenate(([0], np.cumsum([len(f) for f in token_features]))),
        feat_indices=np.concatenate([np.asarray(f, dtype=np.int64) for f in token_features]),
        allowed=allowed,
        feature_view=np.asarray(feature_view, dtype=np.int8),
        sentence_ids=np.arange(len(lengths)),
    )


def word_data(seed, n_sentences, n_labels=3, n_words=30, n_noise=10, label_noise=0.0, min_len=3, max_len=8):
    """Sentences of "words": word ``w`` has label ``w % n_labels``; each token also has a noise feature.

    Feature columns: words ``0 .. n_words-1``, noise ``n_words .. n_words+n_noise-1``.
    With ``label_noise`` a share of the tokens gets a random label (not separable).
    """
    rng = np.random.default_rng(seed)
    feats, labels, lengths = [], [], []
    for _ in range(n_sentences):
        n = int(rng.integers(min_len, max_len + 1))
        ys = markov_labels(rng, n, n_labels)
        for y in ys:
            word = y + n_labels * int(rng.integers(n_words // n_labels))
            feats.append([word, n_words + int(rng.integers(n_noise))])
            labels.append(int(rng.integers(n_labels)) if rng.random() < label_noise else y)
        lengths.append(n)
    view = np.arange(n_words + n_noise) % 2
    return make_snapshot(feats, labels, lengths, n_labels, view)


def two_view_data(seed, n_sentences, n_labels=3, n_words=60, n_noise=20):
    """Two conditionally independent views that each determine the label, plus noise.

    View 0 owns the even columns, view 1 the odd ones: token of label ``y``
    has a view-0 "word" ``a`` with ``a % n_labels == y``, an independent
    view-1 "word" ``b`` with ``b % n_labels == y``, and one noise feature
    in each view.
    """
    rng = np.random.default_rng(seed)
    per_label = n_words // n_labels
    feats, labels, lengths = [], [], []
    for _ in range(n_sentences):
        n = int(rng.integers(4, 10))
        for y in markov_labels(rng, n, n_labels):
            a = y + n_labels * int(rng.integers(per_label))
            b = y + n_labels * int(rng.integers(per_label))
            noise0, noise1 = rng.integers(n_noise, size=2)
            feats.append([2 * a, 2 * b + 1, 2 * (n_words + noise0), 2 * (n_words + noise1) + 1])
            labels.append(y)
        lengths.append(n)
    view = np.arange(2 * (n_words + n_noise)) % 2
    return make_snapshot(feats, labels, lengths, n_labels, view)


def unlabel(snapshot, sentences):
    """A copy of ``snapshot`` whose ``sentences`` carry no labels."""
    allowed = snapshot.allowed.copy()
    for i in sentences:
        allowed[snapshot.sentence_slice(i)] = True
    return Snapshot(
        snapshot.labels,
        snapshot.offsets,
        snapshot.feat_indptr,
        snapshot.feat_indices,
        allowed,
        snapshot.feature_view,
        snapshot.sentence_ids,
    )


def token_accuracy(model, snapshot):
    return float(np.mean(model.predict(snapshot) == np.argmax(snapshot.allowed, axis=1)))


def conll2000_head_split(split="odd-even"):
    """``tests/data/conll2000_train_head.txt``: 70 training, 30 test sentences (default features)."""
    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    sentences = list(corpus)
    fx = FeatureExtractor(min_count=1).fit(sentences[:70])
    snap = build_snapshot(sentences, corpus.labels, fx, ViewSplit(split))
    return snap.subset(np.arange(70)), snap.subset(np.arange(70, len(sentences)))

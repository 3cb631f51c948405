"""The ``crf`` and ``entropy-crf`` learners: fitting, partial labels, entropy, warm start, cancel."""

import time
from pathlib import Path

import numpy as np
import pytest

from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.decode import entropy_and_gradient
from tagtool.errors import Cancelled
from tagtool.learn import NothingToLearnError, available_learners, make_learner
from tagtool.learn.crf import CRF, EntropyCRF
from tagtool.learn.crf_objective import CRFObjective, pack
from tagtool.learn.lbfgs import lbfgs
from tagtool.learn.progress import TrainingMonitor
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"


def word_tagging(rng, n_sentences, n_words=60, n_labels=3, length=(4, 10), kinds="full", candidates=2):
    """Sentences of word ids whose label is ``word % n_labels`` (separable by the word feature).

    Returns ``(snapshot, gold)``; ``kinds`` is ``"full"``, ``"partial"``
    (each token gets ``candidates`` labels including its own) or ``"none"``.
    """
    lengths = rng.integers(length[0], length[1] + 1, n_sentences)
    words = rng.integers(0, n_words, lengths.sum())
    gold = words % n_labels
    n_tokens = len(words)
    if kinds == "full":
        allowed = np.eye(n_labels, dtype=bool)[gold]
    elif kinds == "partial":
        allowed = np.eye(n_labels, dtype=bool)[gold]
        for _ in range(candidates - 1):
            allowed[np.arange(n_tokens), rng.integers(0, n_labels, n_tokens)] = True
    else:
        allowed = np.ones((n_tokens, n_labels), dtype=bool)
    # features: the word, and a bias shared by all tokens
    indices = np.stack([words, np.full(n_tokens, n_words)], axis=1).ravel()
    snapshot = Snapshot(
        labels=tuple(f"L{j}" for j in range(n_labels)),
        offsets=np.concatenate(([0], np.cumsum(lengths))),
        feat_indptr=np.arange(0, 2 * n_tokens + 1, 2),
        feat_indices=indices,
        allowed=allowed,
        feature_view=np.zeros(n_words + 1, dtype=np.int8),
        sentence_ids=np.arange(n_sentences),
    )
    return snapshot, gold


def concat(*snapshots):
    """One snapshot of several with the same feature space."""
    first = snapshots[0]
    token_shift = np.cumsum([0] + [s.n_tokens for s in snapshots[:-1]])
    entry_shift = np.cumsum([0] + [len(s.feat_indices) for s in snapshots[:-1]])
    return Snapshot(
        labels=first.labels,
        offsets=np.concatenate([[0]] + [s.offsets[1:] + k for s, k in zip(snapshots, token_shift)]),
        feat_indptr=np.concatenate([[0]] + [s.feat_indptr[1:] + k for s, k in zip(snapshots, entry_shift)]),
        feat_indices=np.concatenate([s.feat_indices for s in snapshots]),
        allowed=np.concatenate([s.allowed for s in snapshots]),
        feature_view=first.feature_view,
        sentence_ids=np.arange(sum(s.n_sentences for s in snapshots)),
    )


def accuracy(model, snapshot, gold):
    return float(np.mean(model.predict(snapshot) == gold))


def unlabeled_entropy(model, snapshot):
    emit, trans, start, end = model.chain_scores(snapshot)
    return sum(
        entropy_and_gradient(emit[snapshot.sentence_slice(i)], trans, start, end).entropy
        for i in range(snapshot.n_sentences)
    )


def test_registry_offers_both_with_sklearn_style_params():
    learners = available_learners()
    assert learners["crf"] is CRF and learners["entropy-crf"] is EntropyCRF
    assert CRF().get_params() == {"c2": 1.0, "max_iter": 100, "tol": 1e-7, "n_jobs": None}
    learner = make_learner("entropy-crf", gamma=0.5, supervised_max_iter=3)
    assert learner.gamma == 0.5 and learner.supervised_max_iter == 3
    assert CRF.uses == {"full", "partial"} and EntropyCRF.uses == {"full", "partial", "none"}


def test_crf_separates_a_separable_problem():
    rng = np.random.default_rng(0)
    train, _ = word_tagging(rng, 60)
    test, gold = word_tagging(rng, 30)
    model = CRF(c2=0.01).fit(train)
    assert accuracy(model, test, gold) == 1.0
    assert model.probabilistic and model.n_views == 1 and model.learner == "crf"
    marginals = model.score_tokens(test)
    np.testing.assert_allclose(marginals.sum(axis=1), 1.0)
    assert marginals.max(axis=1).mean() > 0.9
    info = model.info["optimiser"]
    assert 0 < info["iterations"] <= 100 and np.isfinite(info["objective"])


def test_fit_reaches_a_stationary_point_of_the_objective():
    rng = np.random.default_rng(1)
    train, _ = word_tagging(rng, 30)
    model = CRF(c2=0.5, max_iter=500, tol=1e-14).fit(train)
    _, grad = CRFObjective(train, c2=0.5)(pack(model))
    assert np.abs(grad).max() < 1e-3


def test_crf_leaves_unlabeled_sentences_out_and_says_so():
    rng = np.random.default_rng(2)
    labeled, _ = word_tagging(rng, 10)
    unlabeled, _ = word_tagging(rng, 5, kinds="none")
    model = CRF(max_iter=5).fit(concat(labeled, unlabeled))
    assert any("unlabeled" in note and "5" in note for note in model.info["notes"])


def test_partial_labels_help():
    rng = np.random.default_rng(3)
    full, _ = word_tagging(rng, 4, length=(3, 5))
    partial, _ = word_tagging(rng, 80, kinds="partial")
    test, gold = word_tagging(rng, 40)
    only_full = accuracy(CRF(c2=0.1).fit(full), test, gold)
    with_partial = accuracy(CRF(c2=0.1).fit(concat(full, partial)), test, gold)
    assert with_partial > only_full + 0.2
    assert with_partial > 0.9


def test_entropy_term_lowers_the_unlabeled_entropy():
    rng = np.random.default_rng(4)
    labeled, _ = word_tagging(rng, 8, length=(3, 6))
    unlabeled, _ = word_tagging(rng, 40, kinds="none")
    data = concat(labeled, unlabeled)
    supervised = EntropyCRF(guard=False, gamma=0.0, c2=0.1).fit(data)
    entropic = EntropyCRF(guard=False, gamma=1.0, c2=0.1, balance=None).fit(data)
    assert unlabeled_entropy(entropic, unlabeled) < 0.5 * unlabeled_entropy(supervised, unlabeled)
    assert entropic.info["optimiser"]["supervised"]["iterations"] > 0
    assert entropic.info["optimiser"]["entropy"]["unlabeled_entropy"] == pytest.approx(
        unlabeled_entropy(entropic, unlabeled), rel=1e-8
    )


def test_balance_caps_the_unlabeled_tokens_that_count_per_labeled_token():
    rng = np.random.default_rng(8)
    labeled, _ = word_tagging(rng, 5, length=(4, 4))  # 20 labeled tokens
    unlabeled, _ = word_tagging(rng, 50, length=(4, 4), kinds="none")  # 200 unlabeled
    data = concat(labeled, unlabeled)
    assert EntropyCRF(gamma=0.5).effective_gamma(data) == pytest.approx(0.5 * 0.1 * 20 / 200)
    assert EntropyCRF(gamma=0.5, balance=1.0).effective_gamma(data) == pytest.approx(0.5 * 20 / 200)
    assert EntropyCRF(gamma=0.5, balance=5.0).effective_gamma(data) == pytest.approx(0.5 * 5 * 20 / 200)
    assert EntropyCRF(gamma=0.5, balance=20.0).effective_gamma(data) == pytest.approx(0.5), "never above gamma"
    assert EntropyCRF(gamma=0.5, balance=None).effective_gamma(data) == 0.5
    assert EntropyCRF(gamma=0.5).effective_gamma(labeled) == 0.5, "no unlabeled tokens"
    model = EntropyCRF(gamma=0.5, c2=0.1, max_iter=5, supervised_max_iter=5, balance=1.0).fit(data)
    assert model.info["optimiser"]["entropy"]["gamma"] == pytest.approx(0.05)
    with pytest.raises(ValueError, match="balance"):
        EntropyCRF(balance=0.0).fit(data)


def test_few_labeled_sentences_among_many_unlabeled_do_not_collapse():
    """5 labeled + 95 unlabeled CoNLL-2000 sentences: the default balance keeps entropy-crf near the
    supervised CRF; the paper's fixed gamma (balance=None) lets the unlabeled entropy swamp the labels."""
    from tagtool.services.training_setup import feature_views, make_extractor

    gold = read_corpus(DATA / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    sentences = gold.sentences
    extractor = make_extractor(EntropyCRF, {"feature_set": "crfsuite"}).fit(sentences)
    train = [s if i < 5 else s.unlabeled() for i, s in enumerate(sentences)]
    snapshot = build_snapshot(train, gold.labels, extractor, feature_views(extractor, None))
    truth = build_snapshot(sentences, gold.labels, extractor, feature_views(extractor, None)).allowed.argmax(axis=1)
    tested = np.arange(5, len(sentences))
    rows = np.concatenate([np.arange(snapshot.offsets[i], snapshot.offsets[i + 1]) for i in tested])

    def accuracy(model):
        return float((model.predict(snapshot)[rows] == truth[rows]).mean())

    crf = accuracy(CRF().fit(snapshot))
    balanced = accuracy(EntropyCRF(guard=False, max_iter=50).fit(snapshot))
    fixed = accuracy(EntropyCRF(guard=False, max_iter=50, balance=None).fit(snapshot))
    assert balanced > crf - 0.02
    assert fixed < balanced - 0.1, (crf, balanced, fixed)


def test_entropy_crf_with_gamma_zero_and_no_expectation_term_is_the_supervised_crf():
    rng = np.random.default_rng(5)
    labeled, _ = word_tagging(rng, 10)
    unlabeled, _ = word_tagging(rng, 10, kinds="none")
    crf = CRF(c2=0.3, tol=1e-12, max_iter=300).fit(labeled)
    ecrf = EntropyCRF(gamma=0.0, er_weight=0.0, c2=0.3, tol=1e-12, max_iter=300).fit(concat(labeled, unlabeled))
    np.testing.assert_allclose(pack(ecrf), pack(crf), atol=1e-3)


def test_entropy_crf_needs_some_labels():
    rng = np.random.default_rng(6)
    unlabeled, _ = word_tagging(rng, 5, kinds="none")
    with pytest.raises(NothingToLearnError):
        EntropyCRF().fit(unlabeled)


def test_warm_start_continues_from_the_previous_model():
    rng = np.random.default_rng(7)
    train, _ = word_tagging(rng, 40)
    converged = CRF(c2=0.2, max_iter=200, tol=1e-12).fit(train)
    before = pack(converged).copy()
    objective = CRFObjective(train, c2=0.2)
    warm = CRF(c2=0.2, max_iter=1).fit(train, warm_start=converged)
    cold = CRF(c2=0.2, max_iter=1).fit(train)
    np.testing.assert_array_equal(pack(converged), before)  # the previous model is not modified
    assert objective.value(pack(warm)) <= objective.value(before) + 1e-9
    assert objective.value(pack(warm)) < objective.value(pack(cold)) - 1.0
    ewarm = EntropyCRF(c2=0.2, max_iter=1).fit(train, warm_start=EntropyCRF(c2=0.2).fit(train))
    assert "supervised" not in ewarm.info["optimiser"]


@pytest.mark.parametrize("learner", [CRF(max_iter=10_000, tol=0.0), EntropyCRF(max_iter=10_000, tol=0.0)])
def test_cancel_takes_effect_within_a_second(learner):
    rng = np.random.default_rng(8)
    labeled, _ = word_tagging(rng, 1000, n_words=3000, n_labels=8, length=(10, 40))
    unlabeled, _ = word_tagging(rng, 1000, n_words=3000, n_labels=8, length=(10, 40), kinds="none")
    data = concat(labeled, unlabeled)  # ~50k tokens: far from converged after 0.3 s
    deadline = time.monotonic() + 0.3
    stop_requested = []

    def should_stop():
        if time.monotonic() >= deadline:
            stop_requested.append(time.monotonic())
            return True
        return False

    with pytest.raises(Cancelled):
        learner.fit(data, should_stop=should_stop)
    assert stop_requested and time.monotonic() - stop_requested[0] < 1.0


def test_progress_is_reported_per_iteration():
    rng = np.random.default_rng(9)
    train, _ = word_tagging(rng, 20)
    reports = []
    EntropyCRF(max_iter=3, supervised_max_iter=3).fit(
        concat(train, word_tagging(rng, 5, kinds="none")[0]), progress=lambda f, m: reports.append((f, m))
    )
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("supervised" in m for _, m in reports) and any("entropy" in m for _, m in reports)


def test_crf_beats_hmm_level_on_a_conll2000_slice():
    corpus = read_corpus(DATA / "conll2000_train_head.txt")
    sentences = list(corpus)
    fx = FeatureExtractor("crfsuite", min_count=1).fit(sentences[:70])
    train = build_snapshot(sentences[:70], corpus.labels, fx, ViewSplit("random"))
    test = build_snapshot(sentences[70:], corpus.labels, fx, ViewSplit("random"))
    gold = test.allowed.argmax(axis=1)
    model = CRF(c2=0.1).fit(train)
    assert accuracy(model, test, gold) > 0.85


class Quadratic:
    """``f(x) = ½ xᵀAx − bᵀx`` with the interface :func:`lbfgs` expects."""

    def __init__(self, rng, n=30):
        m = rng.normal(size=(n, n))
        self.a = m @ m.T + 0.1 * np.eye(n)
        self.b = rng.normal(size=n)
        self.n_evaluations = 0

    def __call__(self, x, out=None):
        self.n_evaluations += 1
        grad = self.a @ x - self.b
        if out is not None:
            out[...] = grad
        return 0.5 * x @ self.a @ x - self.b @ x, grad if out is None else out


def test_lbfgs_reaches_the_minimum_of_a_quadratic():
    quadratic = Quadratic(np.random.default_rng(10))
    x, summary = lbfgs(quadratic, np.zeros(30), 500, 0.0, TrainingMonitor())
    np.testing.assert_allclose(x, np.linalg.solve(quadratic.a, quadratic.b), rtol=1e-5, atol=1e-6)
    assert summary["evaluations"] == quadratic.n_evaluations
    assert summary["iterations"] < 500

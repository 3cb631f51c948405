"""The balance and the collapse guard shared by the semi-supervised learners (tagtool.learn.unlabeled)."""

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from test_svm import two_view_data, with_allowed

from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.learn.cosvm import CoSVM
from tagtool.learn.crf import CRF, EntropyCRF
from tagtool.learn.crf_objective import pack
from tagtool.learn.perceptron import MultiViewPerceptron
from tagtool.learn.progress import TrainingMonitor
from tagtool.learn.unlabeled import (
    DRIFT_TOLERANCE,
    FIT_TOLERANCE,
    balanced_weight,
    check_unlabeled,
    choose_model,
    supervised_part,
    token_counts,
)
from tagtool.services.training_setup import feature_views, make_extractor, view_split_for
from tagtool.store.formats import read_corpus

DATA = Path(__file__).resolve().parents[1] / "data"


def tiny_snapshot(n_labeled_sentences: int, n_unlabeled_sentences: int, length: int = 4, n_labels: int = 3):
    """Sentences of one feature each; the labeled ones cycle through the labels."""
    n = n_labeled_sentences + n_unlabeled_sentences
    n_tokens = n * length
    gold = np.arange(n_tokens) % n_labels
    allowed = np.ones((n_tokens, n_labels), dtype=bool)
    labeled_tokens = n_labeled_sentences * length
    allowed[:labeled_tokens] = np.eye(n_labels, dtype=bool)[gold[:labeled_tokens]]
    return Snapshot(
        labels=tuple(f"L{k}" for k in range(n_labels)),
        offsets=np.arange(0, n_tokens + 1, length),
        feat_indptr=np.arange(n_tokens + 1),
        feat_indices=np.zeros(n_tokens, dtype=np.int32),
        allowed=allowed,
        feature_view=np.zeros(1, dtype=np.int8),
        sentence_ids=np.arange(n),
    ), gold


def test_balance_counts_at_most_balance_unlabeled_tokens_per_labeled_one():
    snap, _ = tiny_snapshot(2, 20)  # 8 labeled tokens, 80 unlabeled
    assert token_counts(snap) == (8, 80)
    assert balanced_weight(0.5, snap, 1.0) == pytest.approx(0.05)
    assert balanced_weight(0.5, snap, 5.0) == pytest.approx(0.25)
    assert balanced_weight(0.5, snap, 100.0) == 0.5, "never above the weight asked for"
    assert balanced_weight(0.5, snap, None) == 0.5
    assert balanced_weight(0.5, supervised_part(snap), 1.0) == 0.5, "nothing unlabeled"
    with pytest.raises(ValueError, match="balance"):
        balanced_weight(0.5, snap, 0.0)


def test_guard_fires_on_drift_towards_one_label():
    snap, gold = tiny_snapshot(5, 10)
    supervised = gold.copy()
    collapsed = gold.copy()
    collapsed[20:] = 1  # every unlabeled token L1; the labeled ones still right
    check = check_unlabeled(snap, supervised, collapsed)
    assert check.fired and check.favoured == "L1" and len(check.reasons) == 1
    assert "drift" in check.reasons[0] and "L1" in check.reasons[0]
    assert check.other_semi == 0.0 and check.other_supervised == pytest.approx(2 / 3, abs=0.02)
    assert check.fit_semi == check.fit_supervised == 1.0
    assert check.labeled_tokens == 20 and check.unlabeled_tokens == 40
    json.dumps(check.to_info())


def test_guard_fires_when_the_labeled_tokens_are_lost():
    snap, gold = tiny_snapshot(5, 10)
    worse = gold.copy()
    worse[:4] = (gold[:4] + 1) % 3  # 4 of 20 labeled tokens wrong: 20 % > FIT_TOLERANCE
    check = check_unlabeled(snap, gold, worse)
    assert check.fired and check.fit_semi == pytest.approx(0.8) and "labeled tokens" in check.reasons[0]


def test_guard_is_silent_on_a_healthy_model():
    snap, gold = tiny_snapshot(5, 10)
    supervised = gold.copy()
    supervised[20:] = np.random.default_rng(0).integers(3, size=40)  # a weak supervised model
    assert not check_unlabeled(snap, supervised, gold).fired, "a better model is no drift"
    # within the tolerances: 1 of 100 labeled tokens lost; 10 % of the unlabeled tokens moved to one label
    assert FIT_TOLERANCE > 1 / 100 and DRIFT_TOLERANCE > 0.15
    big, gold_big = tiny_snapshot(50, 10, length=2)
    nudged = gold_big.copy()
    nudged[0] = (nudged[0] + 1) % 3
    assert not check_unlabeled(big, gold_big, nudged).fired
    fewer = gold.copy()
    fewer[np.flatnonzero(gold[20:] != 1)[:4] + 20] = 1
    check = check_unlabeled(snap, gold, fewer)
    assert not check.fired and check.other_semi < check.other_supervised


def test_nothing_to_compare_without_unlabeled_or_labeled_tokens():
    snap, gold = tiny_snapshot(3, 0)
    assert check_unlabeled(snap, gold, gold) is None
    unl, gold = tiny_snapshot(0, 3)
    assert check_unlabeled(unl, gold, gold) is None


def conll_start(path: Path, n_labeled: int, feature_set: str, learner_cls):
    """The first ``n_labeled`` sentences of a tests/data slice labeled, the others unlabeled."""
    gold = read_corpus(path)
    sentences = gold.sentences
    extractor = make_extractor(learner_cls, {"feature_set": feature_set}).fit(sentences)
    train = [s if i < n_labeled else s.unlabeled() for i, s in enumerate(sentences)]
    views = feature_views(extractor, view_split_for(learner_cls, None, 0, extractor))
    snapshot = build_snapshot(train, gold.labels, extractor, views)
    truth = build_snapshot(sentences, gold.labels, extractor, views).allowed.argmax(axis=1)
    return snapshot, truth


def test_guard_backs_off_when_entropy_swamps_five_labeled_sentences(caplog):
    """5 labeled + 95 unlabeled CoNLL-2000 sentences with the paper's fixed γ: the entropy term collapses
    the CRF, the guard returns the supervised start (the CRF on the labeled sentences) and says so."""
    snapshot, truth = conll_start(DATA / "conll2000_train_head.txt", 5, "crfsuite", EntropyCRF)
    learner = EntropyCRF(max_iter=50, balance=None)
    with caplog.at_level(logging.WARNING, logger="tagtool.learn.unlabeled"):
        model = learner.fit(snapshot)
    assert model.guard_fired is True and model.unlabeled_weight_used == 0.0
    assert model.info["unlabeled"]["weight"] == 0.1 and model.info["unlabeled"]["check"]["fired"]
    assert any("collapse guard" in note for note in model.info["notes"])
    assert "unlabeled sentences ignored" in caplog.text
    collapsed = model.extras["alternative"]
    rows = snapshot.allowed.sum(axis=1) > 1
    assert (
        np.mean(model.predict(snapshot)[rows] == truth[rows])
        > np.mean(collapsed.predict(snapshot)[rows] == truth[rows]) + 0.1
    )
    crf = CRF(max_iter=100).fit(supervised_part(snapshot))
    np.testing.assert_allclose(pack(model), pack(crf), atol=1e-6)
    json.dumps(model.info)


def test_guard_stays_silent_when_entropy_is_balanced():
    snapshot, _ = conll_start(DATA / "conll2000_train_head.txt", 5, "crfsuite", EntropyCRF)
    learner = EntropyCRF(max_iter=50)
    model = learner.fit(snapshot)
    assert model.guard_fired is False and model.unlabeled_weight_used == pytest.approx(
        balanced_weight(0.1, snapshot, 0.1)
    )
    assert model.extras["alternative"] is not None and model is not model.extras["alternative"]


def test_cosvm_guard_backs_off_from_all_o_on_ner():
    """The collapse guard at work: cosvm's views agree on O for everything (CoNLL-2002, 5 labeled sentences, C_u
    = 0.05 unbalanced); the guard returns the supervised twin, svm on the labeled sentences, in two views
    whose sum is exactly the twin."""
    snapshot, _ = conll_start(DATA / "conll2002_esp_train_head.txt", 5, "default", CoSVM)
    learner = CoSVM(balance=None, max_iter=6, cu_ramp_iter=3)
    model = learner.fit(snapshot)
    unlabeled = snapshot.allowed.sum(axis=1) > 1
    o = snapshot.labels.index("O")
    assert np.mean(model.extras["alternative"].predict(snapshot)[unlabeled] == o) > 0.99, "the case collapses"
    assert model.guard_fired is True
    alone = learner.twin().fit(supervised_part(snapshot))
    np.testing.assert_array_equal(model.weights, alone.weights)
    np.testing.assert_allclose(model.trans.sum(0), alone.trans[0])
    np.testing.assert_array_equal(model.predict(snapshot), alone.predict(snapshot))
    assert model.n_views == 2 and model.learner == "cosvm"
    kept = np.flatnonzero(snapshot.sentence_status() != 0)
    assert {i for _, i, *_ in model.extras["support"]} <= set(kept.tolist()), "support in the full snapshot's numbering"


class _TwinOfCoSVM:
    """fit(): cosvm's supervised twin (svm with its settings) as the two-view model the guard returns."""

    def fit(self, data):
        from tagtool.learn.structsvm.coviews import split_views

        return split_views(CoSVM(max_iter=3, cu_ramp_iter=1, cu_max=0.5).twin().fit(data))


@pytest.mark.parametrize(
    "make, supervised",
    [
        (
            lambda guard: MultiViewPerceptron(guard=guard, max_iter=5),
            lambda: MultiViewPerceptron(guard=False, max_iter=5),
        ),
        (lambda guard: CoSVM(guard=guard, max_iter=3, cu_ramp_iter=1, cu_max=0.5), _TwinOfCoSVM),
    ],
)
def test_guarded_fit_is_the_choice_between_both_fits(make, supervised):
    """guard=True returns exactly what choose_model picks between the unguarded fit and the supervised
    solution on the labeled sentences (mv-perceptron itself, svm for cosvm), and keeps the other one in
    the model's extras."""
    data, _ = two_view_data(24, seed=5, noise=0.1, vocab=10)
    allowed = data.allowed.copy()
    allowed[data.offsets[8] :] = True
    data = with_allowed(data, allowed)
    learner = make(True)
    model = learner.fit(data)
    semi, sup = make(False).fit(data), supervised().fit(supervised_part(data))
    expected, other = choose_model(data, semi, sup, learner="x", weight=1.0, weight_used=1.0)
    np.testing.assert_array_equal(model.weights, expected.weights)
    np.testing.assert_array_equal(model.extras["alternative"].weights, other.weights)
    assert model.info["unlabeled"]["check"] == expected.info["unlabeled"]["check"]


def test_guarded_fit_reports_monotone_progress_to_one():
    data, _ = two_view_data(30, seed=6, noise=0.1, vocab=10)
    allowed = data.allowed.copy()
    allowed[data.offsets[10] :] = True
    seen = []
    CoSVM(max_iter=3).fit(with_allowed(data, allowed), progress=lambda f, m: seen.append((f, m)))
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) >= 2
    assert any("/3" in m for _, m in seen), "passes are counted against a known total"


def test_progress_span_maps_into_its_part():
    seen = []
    monitor = TrainingMonitor(lambda f, m: seen.append(f), min_interval=0.0)
    span = monitor.span(0.25, 0.75).span(0.5, 1.0)
    span.report(0.5, "half of the second half of the middle")
    span.report(2.0)
    assert seen == [pytest.approx(0.625), pytest.approx(0.75)] and span.fraction == 1.0


def test_learners_without_unlabeled_sentences_record_no_comparison():
    data, _ = two_view_data(6, seed=1)
    model = MultiViewPerceptron(max_iter=2).fit(data)
    assert model.guard_fired is None and model.unlabeled_weight_used == 0.5
    from tagtool.learn.svm import HMSVM

    assert HMSVM(max_iter=1).fit(data).unlabeled_weight_used is None


def test_entropy_crf_tolerates_less_drift_than_co_training():
    """Entropy minimisation should sharpen, not shift label proportions: 10 % fewer other labels is a drift for it."""
    from tagtool.learn.unlabeled import ENTROPY_DRIFT_TOLERANCE

    snap, gold = tiny_snapshot(5, 10)
    fewer = gold.copy()
    fewer[np.flatnonzero(gold[20:] != 1)[:4] + 20] = 1  # 4 of 27 unlabeled tokens moved to L1: 15 % fewer others
    assert not check_unlabeled(snap, gold, fewer).fired
    assert check_unlabeled(snap, gold, fewer, drift_tolerance=ENTROPY_DRIFT_TOLERANCE).fired
    assert EntropyCRF.guard_drift_tolerance == ENTROPY_DRIFT_TOLERANCE
    assert MultiViewPerceptron.guard_drift_tolerance == DRIFT_TOLERANCE
    assert ENTROPY_DRIFT_TOLERANCE < CoSVM.guard_drift_tolerance < DRIFT_TOLERANCE


def test_cosvm_backs_off_when_it_loses_any_labeled_token():
    """cosvm's fit tolerance is 0: one labeled token of 100 that the twin reproduces and co-training does not
    fires its guard; the shared 2 % tolerance lets it pass."""
    snap, gold = tiny_snapshot(25, 10)
    worse = gold.copy()
    worse[0] = (gold[0] + 1) % 3
    assert not check_unlabeled(snap, gold, gold).fired
    assert check_unlabeled(snap, gold, worse, fit_tolerance=CoSVM.guard_fit_tolerance).fired
    assert not check_unlabeled(snap, gold, worse, fit_tolerance=0.02).fired
    chosen, _ = choose_model(
        snap,
        _Fixed(worse),
        _Fixed(gold),
        learner="cosvm",
        weight=1.0,
        weight_used=1.0,
        fit_tolerance=CoSVM.guard_fit_tolerance,
    )
    assert chosen.guard_fired is True and "labeled tokens" in chosen.info["unlabeled"]["check"]["reasons"][0]


class _Fixed:
    """A stand-in model whose predictions are given (``choose_model`` only predicts and records)."""

    def __init__(self, predictions):
        self.predictions, self.info, self.extras = predictions, {}, {}

    def predict(self, snapshot):
        return self.predictions

    @property
    def guard_fired(self):
        return (self.info.get("unlabeled") or {}).get("guard_fired")

"""``cosvm``: co-trained structural SVM (Brefeld & Scheffer 2006, Alg. 1)."""

import numpy as np
import pytest
from test_svm import phi, two_view_data, with_allowed

from tagtool.errors import Cancelled
from tagtool.learn import available_learners
from tagtool.learn.cosvm import CoSVM
from tagtool.learn.structsvm.coviews import gated_target, token_margins
from tagtool.learn.structsvm.layout import Layout
from tagtool.learn.svm import HMSVM


def semi_supervised(seed, n_labeled, n_unlabeled=56, vocab=10):
    data, _ = two_view_data(n_labeled + n_unlabeled, seed=seed, noise=0.1, vocab=vocab)
    allowed = data.allowed.copy()
    allowed[data.offsets[n_labeled] :] = True
    return with_allowed(data, allowed)


def test_registered():
    assert available_learners()["cosvm"] is CoSVM
    assert CoSVM.two_view and CoSVM.uses == frozenset({"full", "partial", "none"})
    params = CoSVM().get_params()
    assert params["C"] == 1.0 and params["r_max"] == 10


def test_unlabeled_sentences_beat_the_supervised_svm():
    """Co-training (guard off) beats svm on two-view data; at the defaults the guard may return the twin,
    so cosvm is never below it.  (The guard backs off on 2 of these 3 toy draws: co-training gives up a
    labeled token the twin fits, and cosvm's fit tolerance is 0, chosen on benchmarks/robustness.py.)"""
    supervised, semi, guarded = [], [], []
    for seed in range(3):
        data = semi_supervised(100 + seed, n_labeled=8)
        test, gold = two_view_data(100, seed=200 + seed, noise=0.1, vocab=10)
        labeled = data.subset(np.arange(8))
        supervised.append(np.mean(HMSVM(qp_solver="smo").fit(labeled).predict(test) == gold))
        semi.append(np.mean(CoSVM(qp_solver="smo", guard=False).fit(data).predict(test) == gold))
        guarded.append(np.mean(CoSVM(qp_solver="smo").fit(data).predict(test) == gold))
    assert np.mean(semi) > np.mean(supervised) + 0.02, (semi, supervised)
    assert all(g >= s for g, s in zip(guarded, supervised)), (guarded, supervised)


@pytest.mark.parametrize("kw", [{}, {"norm": 2, "rescaling": "slack", "loss": "hamming"}, {"loss": "zero-one"}])
def test_each_view_is_the_sum_of_its_alpha_delta_phi(kw):
    data = semi_supervised(3, n_labeled=4, n_unlabeled=8)
    learner = CoSVM(guard=False, max_iter=3, cu_ramp_iter=1, cu_max=0.5, qp_solver="smo", **kw)
    model = learner.fit(data)
    layout = Layout(data.n_features, data.n_labels, 2)
    w = np.zeros(layout.size)  # no warm start: w_0 = 0
    status = data.sentence_status()
    used_unlabeled = False
    for view, i, target, ybar, alpha in model.extras["support"]:
        lo = int(data.offsets[i])
        used_unlabeled |= status[i] == 0
        w += alpha * (phi(data, lo, target, layout, view, view) - phi(data, lo, ybar, layout, view, view))
    assert used_unlabeled
    np.testing.assert_allclose(layout.from_model(model), w, atol=1e-9)
    # both views learned, each with its own transitions
    emit_views = [np.abs(model.weights[data.feature_view == v]).sum() for v in (0, 1)]
    assert min(emit_views) > 0 and not np.allclose(model.trans[0], model.trans[1])


def test_unlabeled_box_is_min_gamma_cu_c():
    data = semi_supervised(5, n_labeled=6, n_unlabeled=10)
    learner = CoSVM(guard=False, balance=None, max_iter=2, cu_ramp_iter=0, cu_max=0.2, C=2.0, qp_solver="smo")
    model = learner.fit(data)
    status = data.sentence_status()
    totals = {}
    for view, i, _, _, alpha in model.extras["support"]:
        totals[(view, i)] = totals.get((view, i), 0.0) + alpha
    assert any(status[i] == 0 for _, i in totals)
    for (_, i), total in totals.items():
        bound = 2.0 if status[i] == 2 else 0.2 * 2.0
        assert total <= bound * (1 + 1e-9)


def test_joint_prediction_adds_the_views():
    data = semi_supervised(2, n_labeled=6, n_unlabeled=6)
    model = CoSVM(max_iter=3).fit(data)
    y0, y1 = model.disagreement(data)
    assert model.n_views == 2 and y0.shape == y1.shape == (data.n_tokens,)
    emit, trans, _, _ = model.chain_scores(data)
    e0, t0, _, _ = model.chain_scores(data, view=0)
    e1, t1, _, _ = model.chain_scores(data, view=1)
    np.testing.assert_allclose(emit, e0 + e1)
    np.testing.assert_allclose(trans, t0 + t1)


def test_partial_sentences_are_used():
    data, gold = two_view_data(30, seed=8, vocab=20)
    allowed = data.allowed.copy()
    for i in range(3, 30):  # keep the labels of every other token
        rows = np.arange(data.offsets[i], data.offsets[i + 1])
        allowed[rows[::2]] = True
    mixed = with_allowed(data, allowed)
    assert set(mixed.sentence_status().tolist()) == {1, 2}
    test, test_gold = two_view_data(60, seed=9, vocab=20)
    only_full = np.mean(CoSVM().fit(mixed.subset(np.arange(3))).predict(test) == test_gold)
    model = CoSVM().fit(mixed)
    assert not model.info["notes"]
    assert np.mean(model.predict(test) == test_gold) > only_full + 0.1


@pytest.mark.parametrize("loss", ["hamming", "zero-one"])
def test_both_losses_learn(loss):
    data = semi_supervised(4, n_labeled=10, n_unlabeled=10)
    test, gold = two_view_data(60, seed=40, noise=0.1, vocab=10)
    assert np.mean(CoSVM(loss=loss).fit(data).predict(test) == gold) > 0.7


def test_warm_start_offsets_the_previous_weights():
    data = semi_supervised(6, n_labeled=8, n_unlabeled=10)
    first = CoSVM(max_iter=4).fit(data.subset(np.arange(6)))
    learner = CoSVM(max_iter=4)
    second = learner.fit(data, warm_start=first)
    assert not second.guard_fired
    layout = Layout(data.n_features, 3, 2)
    w = layout.from_model(first)  # each view: w = w_0 + Σ α δΦ with w_0 the previous weights
    for view, i, target, ybar, alpha in second.extras["support"]:
        lo = int(data.offsets[i])
        w += alpha * (phi(data, lo, target, layout, view, view) - phi(data, lo, ybar, layout, view, view))
    np.testing.assert_allclose(layout.from_model(second), w, atol=1e-9)
    assert second.info["warm_start"]
    labeled = data.subset(np.arange(8))
    assert np.mean(second.predict(labeled) == labeled.allowed.argmax(1)) == 1.0
    svm_model = HMSVM(max_iter=2).fit(labeled)
    third = CoSVM(max_iter=2).fit(data, warm_start=svm_model)  # another learner: ignored, said so
    assert any("warm start" in note for note in third.info["notes"])


def test_cancel_takes_effect_at_the_next_check():
    """should_stop is polled at least once per sentence (and per Alg. 1 repetition); the first True stops
    the fit, in the supervised twin's run or in co-training (no clock: see test_svm.py)."""
    data = semi_supervised(7, n_labeled=20, n_unlabeled=300)
    for stop_at in (5, 400):
        polls = []

        def stop(polls=polls, stop_at=stop_at):
            polls.append(1)
            return len(polls) >= stop_at

        with pytest.raises(Cancelled):
            CoSVM(max_iter=1000, epsilon=1e-9).fit(data, should_stop=stop)
        assert len(polls) == stop_at


def test_bad_parameters_are_named():
    data = semi_supervised(1, n_labeled=2, n_unlabeled=2)
    for kw in ({"r_max": 0}, {"cu_max": -1.0}, {"loss": "l2"}, {"peer_margin": -0.5}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            CoSVM(**kw).fit(data)


# ---------------------------------------------------------------------------
# confidence-gated peer targets (peer_margin)


def trained_views(seed=11):
    data = semi_supervised(seed, n_labeled=6, n_unlabeled=6)
    model = CoSVM(max_iter=3, qp_solver="smo").fit(data)
    return data, model


def decoder_of(model, data, i, view):
    from tagtool.learn.structsvm.search import Decoder

    emit, trans, start, end = model.chain_scores(data.subset([i]), view=view)
    return Decoder(emit, trans, start, end, np.ones(emit.shape, dtype=bool))


def test_smallest_token_margin_is_the_sentence_margin():
    data, model = trained_views()
    for i in range(data.n_sentences):
        for view in (0, 1):
            dec = decoder_of(model, data, i, view)
            pred, gamma = dec.margin_gap()
            assert token_margins(dec, pred).min() == pytest.approx(gamma, abs=1e-9)


def test_gated_target_keeps_confident_peer_tokens_and_the_own_argmax_elsewhere():
    data, model = trained_views()
    learner = CoSVM(peer_margin=1.0)
    for i in range(data.n_sentences):
        own, peer = decoder_of(model, data, i, 0), decoder_of(model, data, i, 1)
        peer_pred, _ = peer.margin_gap()
        margins = token_margins(peer, peer_pred)
        target, gap, passed = gated_target(own, peer_pred, margins, None, learner.peer_margin)
        np.testing.assert_array_equal(passed, margins >= 1.0)
        np.testing.assert_array_equal(target[passed], peer_pred[passed])
        assert gap == (margins[passed].min() if passed.any() else 0.0)
        # no other labeling of the free tokens scores higher in the own view
        mask = np.ones(own.emit.shape, dtype=bool)
        mask[passed] = False
        mask[passed, peer_pred[passed]] = True
        assert own.score(target) == pytest.approx(own.score(own.best(mask)))


def test_gate_nobody_passes_is_no_unlabeled_influence():
    data = semi_supervised(12, n_labeled=6, n_unlabeled=12)
    gated = CoSVM(max_iter=4, cu_max=0.5, peer_margin=1e9, qp_solver="smo").fit(data)
    silent = CoSVM(max_iter=4, cu_max=0.0, qp_solver="smo").fit(data)
    np.testing.assert_allclose(gated.weights, silent.weights, atol=1e-12)
    np.testing.assert_allclose(gated.trans, silent.trans, atol=1e-12)


def test_gated_cosvm_learns_from_partial_and_unlabeled_sentences():
    # co-training on 20 sentences is sensitive to rounding (one of five draws lands near 0.7 in either
    # implementation of the working sets), hence the median over draws
    accuracies = []
    for seed in range(14, 19):
        data = semi_supervised(seed, n_labeled=10, n_unlabeled=10)
        full = semi_supervised(seed, n_labeled=20, n_unlabeled=0).allowed
        allowed = data.allowed.copy()
        every_other = slice(int(data.offsets[10]), int(data.offsets[15]), 2)
        allowed[every_other] = full[every_other]  # sentences 10..14 partial, 15..19 unlabeled
        mixed = with_allowed(data, allowed)
        assert set(mixed.sentence_status().tolist()) == {0, 1, 2}
        test, test_gold = two_view_data(60, seed=41, noise=0.1, vocab=10)
        model = CoSVM(peer_margin=0.5, cu_max=0.2, qp_solver="smo").fit(mixed)
        accuracies.append(np.mean(model.predict(test) == test_gold))
    assert np.median(accuracies) > 0.85, accuracies
    with pytest.raises(ValueError, match="peer_margin"):
        CoSVM(peer_margin=0.5, loss="zero-one").fit(mixed)

"""The single-view hidden Markov perceptron: separable data, partial labels, warm start, cancel."""

import time

import numpy as np
import pytest
from test_perceptron_data import conll2000_head_split, make_snapshot, token_accuracy, unlabel, word_data

from tagtool.core.annotation import sentence_weight
from tagtool.errors import Cancelled
from tagtool.learn import get_learner
from tagtool.learn.hmm import HMM
from tagtool.learn.perceptron import MultiViewPerceptron, Perceptron, sentence_weights


def test_registry_and_parameters():
    assert get_learner("perceptron") is Perceptron
    assert get_learner("mv-perceptron") is MultiViewPerceptron
    assert Perceptron().get_params() == {"max_iter": 10, "averaged": True, "shuffle": True, "random_state": 0}
    assert Perceptron.uses == {"full", "partial"}
    with pytest.raises(ValueError, match="max_iter"):
        Perceptron(max_iter=-1).fit(word_data(0, 5))


def test_separable_data_is_learned_perfectly():
    train = word_data(0, 60)
    model = Perceptron(max_iter=30, averaged=False).fit(train)
    assert token_accuracy(model, train) == 1.0
    assert model.info["updates"][-1] == 0  # converged: the last epoch made no mistake
    assert model.info["epochs_run"] < 30
    assert token_accuracy(model, word_data(1, 60)) > 0.95  # same words, new sentences
    # the average still carries the early mistakes' weights, but is (nearly) as good
    averaged = Perceptron(max_iter=30, averaged=True).fit(train)
    assert averaged.info["updates"] == model.info["updates"]
    assert token_accuracy(averaged, train) > 0.98


def test_transitions_are_learned_when_the_token_features_are_ambiguous():
    """Label = position parity; the only token feature is shared by all tokens."""
    lengths = [4, 5, 6, 3] * 5
    labels = [t % 2 for n in lengths for t in range(n)]
    feats = [[0]] * len(labels)
    snap = make_snapshot(feats, labels, lengths, 2, [0])
    model = Perceptron(max_iter=20).fit(snap)
    assert token_accuracy(model, snap) == 1.0
    assert model.start[0, 0] > model.start[0, 1]
    assert model.trans[0, 0, 1] > model.trans[0, 0, 0] and model.trans[0, 1, 0] > model.trans[0, 1, 1]


def candidate_sets(snapshot, sentences, seed):
    """``snapshot`` with the tokens of ``sentences`` narrowed to {gold, one random other label}."""
    rng = np.random.default_rng(seed)
    allowed = snapshot.allowed.copy()
    for i in sentences:
        for t in range(snapshot.offsets[i], snapshot.offsets[i + 1]):
            gold = int(np.argmax(allowed[t]))
            other = (gold + 1 + int(rng.integers(snapshot.n_labels - 1))) % snapshot.n_labels
            allowed[t, other] = True
    snap = unlabel(snapshot, [])
    return type(snap)(
        snap.labels, snap.offsets, snap.feat_indptr, snap.feat_indices, allowed, snap.feature_view, snap.sentence_ids
    )


def test_partial_labels_teach_more_than_leaving_them_out():
    gains = []
    for seed in range(4):
        data = word_data(seed, 104, n_labels=4, n_words=60)
        full, partial = np.arange(4), np.arange(4, 104)
        mixed = candidate_sets(data, partial, seed)
        test = word_data(100 + seed, 60, n_labels=4, n_words=60)
        with_partial = Perceptron(max_iter=15, random_state=seed).fit(mixed)
        without = Perceptron(max_iter=15, random_state=seed).fit(data.subset(full))
        assert with_partial.info["sentences"]["partial"] == 100
        gains.append(token_accuracy(with_partial, test) - token_accuracy(without, test))
    assert np.mean(gains) > 0.2, gains


def test_unlabeled_sentences_are_left_out_with_a_note():
    data = unlabel(word_data(0, 10), [7, 8, 9])
    model = Perceptron(max_iter=2).fit(data)
    assert any("3 left out" in note and "unlabeled" in note for note in model.info["notes"])


def test_averaging_is_the_mean_of_the_weights_after_every_step():
    """Without shuffling, averaging = mean over steps of the unaveraged runs' weights."""
    data = word_data(3, 7, label_noise=0.3)
    snapshots = []
    for epochs in range(1, 3):
        for n in range(1, data.n_sentences + 1):
            # the weights after visiting the first n sentences of epoch `epochs`
            order_prefix = Perceptron(max_iter=epochs - 1, averaged=False, shuffle=False).fit(data)
            step = Perceptron(max_iter=1, averaged=False, shuffle=False).fit(
                data.subset(np.arange(n)), warm_start=order_prefix
            )
            snapshots.append(step)
    averaged = Perceptron(max_iter=2, averaged=True, shuffle=False).fit(data)
    assert averaged.info["epochs_run"] == 2
    for name in ("weights", "trans", "start", "end"):
        mean = np.mean([getattr(m, name) for m in snapshots], axis=0)
        np.testing.assert_allclose(getattr(averaged, name), mean, atol=1e-12)


def test_warm_start_continues_the_run():
    data = word_data(5, 40, label_noise=0.2)  # not separable: every epoch updates
    ten = Perceptron(max_iter=10, averaged=False).fit(data)
    five = Perceptron(max_iter=5, averaged=False).fit(data)
    more = Perceptron(max_iter=5, averaged=False).fit(data, warm_start=five)
    assert more.info["epochs_done"] == 10
    assert more.info["updates"] == ten.info["updates"][5:]
    for name in ("weights", "trans", "start", "end"):
        np.testing.assert_array_equal(getattr(more, name), getattr(ten, name))
    assert not np.array_equal(five.weights, ten.weights)
    same = Perceptron(max_iter=0).fit(data, warm_start=five)
    np.testing.assert_array_equal(same.weights, five.weights)
    np.testing.assert_array_equal(same.trans, five.trans)


def test_warm_start_does_not_modify_the_given_model():
    data = word_data(6, 30, label_noise=0.2)
    first = Perceptron(max_iter=2).fit(data)
    before = first.weights.copy()
    Perceptron(max_iter=2).fit(data, warm_start=first)
    np.testing.assert_array_equal(first.weights, before)


@pytest.mark.parametrize("learner", [Perceptron(max_iter=1000), MultiViewPerceptron(max_iter=1000)])
def test_cancel_takes_effect_promptly(learner):
    data = word_data(7, 3000, label_noise=0.3)
    learner.set_params(max_iter=1).fit(data.subset(np.arange(10)))  # compile outside the clock
    learner.set_params(max_iter=1000)
    started = time.perf_counter()
    deadline = started + 0.2
    with pytest.raises(Cancelled):
        learner.fit(data, should_stop=lambda: time.perf_counter() > deadline)
    assert time.perf_counter() - deadline < 0.5


def test_progress_is_reported_up_to_one():
    seen = []
    Perceptron(max_iter=3).fit(word_data(8, 20, label_noise=0.3), progress=lambda f, m: seen.append(f))
    assert seen[-1] == 1.0 and seen == sorted(seen)


def test_sentence_weights_match_the_annotation_rule():
    data = candidate_sets(word_data(9, 12), [3, 4], 0)
    data = unlabel(data, [5, 6])
    for c_u in (0.0, 0.3, 1.0):
        eta = sentence_weights(data, c_u)
        expected = [sentence_weight(data.allowed[data.sentence_slice(i)], c_u) for i in range(data.n_sentences)]
        np.testing.assert_allclose(eta, expected)
    assert eta[0] == 1.0


def test_beats_hmm_on_conll2000_slice():
    train, test = conll2000_head_split()
    hmm = token_accuracy(HMM().fit(train), test)
    perceptron = token_accuracy(Perceptron().fit(train), test)
    assert perceptron > hmm + 0.02, (perceptron, hmm)

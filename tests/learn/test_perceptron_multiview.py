"""The multi-view hidden Markov perceptron (Brefeld et al. 2005, Table 1; docs/design.md#multi-view-perceptron)."""

import numpy as np
import pytest
from test_perceptron_data import DATA, conll2000_head_split, token_accuracy, two_view_data, unlabel, word_data

from tagtool.core.annotation import sentence_weight
from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.decode import max_marginals, viterbi
from tagtool.learn.hmm import HMM
from tagtool.learn.perceptron import MultiViewPerceptron, Perceptron
from tagtool.learn.perceptron_run import confidence_threshold
from tagtool.store.formats import read_corpus


def reference_epochs(snapshot, epochs, c_u):
    """Table 1 written out plainly: per sentence decode both views, then update each towards its peer."""
    n_labels, views = snapshot.n_labels, snapshot.feature_view
    weights = np.zeros((snapshot.n_features, n_labels))
    trans, start, end = np.zeros((2, n_labels, n_labels)), np.zeros((2, n_labels)), np.zeros((2, n_labels))
    for _ in range(epochs):
        for i in range(snapshot.n_sentences):
            rows = snapshot.sentence_slice(i)
            feats = [snapshot.token_features(t) for t in range(rows.start, rows.stop)]
            emit = [np.array([weights[f[views[f] == v]].sum(axis=0) for f in feats]) for v in (0, 1)]
            own = [viterbi(emit[v], trans[v], start[v], end[v])[0] for v in (0, 1)]
            peer = [
                viterbi(emit[1 - v], trans[1 - v], start[1 - v], end[1 - v], snapshot.allowed[rows])[0] for v in (0, 1)
            ]
            eta = sentence_weight(snapshot.allowed[rows], c_u)
            for v in (0, 1):
                if np.array_equal(own[v], peer[v]):
                    continue
                for y, sign in ((peer[v], eta), (own[v], -eta)):
                    for f, label in zip(feats, y):
                        weights[f[views[f] == v], label] += sign
                    for a, b in zip(y, y[1:]):
                        trans[v, a, b] += sign
                    start[v, y[0]] += sign
                    end[v, y[-1]] += sign
    return weights, trans, start, end


def test_registry_parameters_and_kinds():
    learner = MultiViewPerceptron()
    assert learner.two_view and learner.uses == {"full", "partial", "none"}
    assert set(learner.get_params()) == {
        "max_iter",
        "averaged",
        "shuffle",
        "random_state",
        "c_u",
        "labeled_first",
        "peer_share",
        "peer_balance",
        "balance",
        "guard",
    }
    with pytest.raises(ValueError, match="c_u"):
        MultiViewPerceptron(c_u=1.5).fit(two_view_data(0, 5))
    with pytest.raises(ValueError, match="peer_share"):
        MultiViewPerceptron(peer_share=-0.1).fit(two_view_data(0, 5))


def test_epochs_match_the_plain_algorithm_of_table_1():
    # 4 labels and candidate pairs keep every η dyadic (info = 1 - log 2 / log 4 = 1/2), so the
    # sums are exact whatever their order and near-ties cannot break differently
    data = two_view_data(0, 12, n_labels=4)
    data = unlabel(data, range(4, 12))
    allowed = data.allowed.copy()
    rows = data.sentence_slice(3)
    allowed[rows, :] = False
    allowed[rows, :2] = True  # sentence 3: every token has the candidates {L0, L1}
    data = type(data)(
        data.labels, data.offsets, data.feat_indptr, data.feat_indices, allowed, data.feature_view, data.sentence_ids
    )
    assert list(data.sentence_status()) == [2, 2, 2, 1] + [0] * 8
    model = MultiViewPerceptron(guard=False, max_iter=5, averaged=False, shuffle=False, c_u=0.25).fit(data)
    expected = reference_epochs(data, model.info["epochs_run"], 0.25)
    assert sum(model.info["updates"]) > 0
    for name, array in zip(("weights", "trans", "start", "end"), expected):
        np.testing.assert_allclose(getattr(model, name), array, atol=1e-12, err_msg=name)


def test_unlabeled_sentences_beat_the_supervised_perceptron():
    """Two views that each suffice: co-training spreads the few labeled words' evidence."""
    gaps = []
    for seed in range(5):
        data = two_view_data(seed, 203)
        labeled, unlabeled = np.arange(3), np.arange(3, 203)
        test = two_view_data(1000 + seed, 100)
        supervised = Perceptron(max_iter=30, random_state=seed).fit(data.subset(labeled))
        multi_view = MultiViewPerceptron(guard=False, max_iter=30, random_state=seed).fit(unlabel(data, unlabeled))
        assert multi_view.info["sentences"]["none"] == 200
        gaps.append(token_accuracy(multi_view, test) - token_accuracy(supervised, test))
    assert np.mean(gaps) > 0.25, gaps
    assert min(gaps) > 0, gaps


def test_disagreement_gives_both_views_predictions():
    data = two_view_data(2, 30)
    model = MultiViewPerceptron(max_iter=2).fit(unlabel(data, range(5, 30)))
    y0, y1 = model.disagreement(data)
    np.testing.assert_array_equal(y0, model.predict(data, view=0))
    np.testing.assert_array_equal(y1, model.predict(data, view=1))
    assert y0.shape == y1.shape == (data.n_tokens,)


def test_labeled_first_visits_the_labeled_sentences_first():
    data = unlabel(word_data(3, 20, label_noise=0.2), range(0, 20, 2))
    interleaved = MultiViewPerceptron(guard=False, max_iter=3, averaged=False).fit(data)
    ordered = MultiViewPerceptron(guard=False, max_iter=3, averaged=False, labeled_first=True).fit(data)
    assert not np.array_equal(interleaved.weights, ordered.weights)
    # with c_u = 0 the unlabeled sentences cannot move the weights: only the labeled order matters
    a = MultiViewPerceptron(guard=False, max_iter=3, averaged=False, labeled_first=True, c_u=0.0, shuffle=False).fit(
        data
    )
    b = MultiViewPerceptron(guard=False, max_iter=3, averaged=False, c_u=0.0, shuffle=False).fit(
        data.subset(range(1, 20, 2))
    )
    np.testing.assert_allclose(a.weights, b.weights)


def test_warm_start_continues_the_run():
    data = unlabel(two_view_data(4, 40), range(10, 40))
    ten = MultiViewPerceptron(guard=False, max_iter=10, averaged=False).fit(data)
    five = MultiViewPerceptron(guard=False, max_iter=5, averaged=False).fit(data)
    more = MultiViewPerceptron(guard=False, max_iter=5, averaged=False).fit(data, warm_start=five)
    assert more.info["epochs_done"] == ten.info["epochs_done"]
    np.testing.assert_allclose(more.weights, ten.weights)
    np.testing.assert_allclose(more.trans, ten.trans)


def test_beats_hmm_on_conll2000_slice():
    train, test = conll2000_head_split()
    hmm = token_accuracy(HMM().fit(train), test)
    multi_view = token_accuracy(MultiViewPerceptron().fit(train), test)
    assert multi_view > hmm + 0.02, (multi_view, hmm)


# ---------------------------------------------------------------------------
# confidence-gated peer targets (peer_share, peer_balance)


def token_gaps(emit, trans, start, end, allowed, path):
    mm = max_marginals(emit, trans, start, end, allowed)
    rows = np.arange(len(path))
    own = mm[rows, path].copy()
    mm[rows, path] = -np.inf
    other = mm.max(axis=1)
    return np.where(np.isfinite(other), own - other, np.inf)


def gated_reference_epoch(snapshot, weights, trans, start, end, c_u, share, balance):
    """One unshuffled, unaveraged epoch with gated peer targets, written out plainly.

    The thresholds come from the weights before the epoch (one chunk); a free
    token keeps the peer's label when the peer's max-marginal gap reaches the
    threshold, and the view's target is its own constrained argmax.
    """
    views, n_labels = snapshot.feature_view, snapshot.n_labels
    full = snapshot.sentence_status() == 2

    def scores(i, v):
        rows = snapshot.sentence_slice(i)
        feats = [snapshot.token_features(t) for t in range(rows.start, rows.stop)]
        emit = np.array([weights[f[views[f] == v]].sum(axis=0) for f in feats])
        return emit, snapshot.allowed[rows]

    margins = {0: [], 1: []}
    for i in np.flatnonzero(~full):
        for v in (0, 1):
            emit, allowed = scores(i, v)
            path = viterbi(emit, trans[v], start[v], end[v], allowed)[0]
            free = allowed.sum(axis=1) > 1
            margins[v] += list(zip(token_gaps(emit, trans[v], start[v], end[v], allowed, path)[free], path[free]))
    thresholds = np.empty((2, n_labels))
    for v in (0, 1):
        gaps = np.array([g for g, _ in margins[v]])
        labels = np.array([b for _, b in margins[v]])
        for b in range(n_labels):
            thresholds[v, b] = confidence_threshold(gaps[labels == b] if balance else gaps, share)
    for i in range(snapshot.n_sentences):
        rows = snapshot.sentence_slice(i)
        feats = [snapshot.token_features(t) for t in range(rows.start, rows.stop)]
        emit, own, targets = [], [], []
        for v in (0, 1):
            e, allowed = scores(i, v)
            emit.append(e)
            own.append(viterbi(e, trans[v], start[v], end[v])[0])
        for v in (0, 1):
            peer = 1 - v
            if full[i]:
                targets.append(np.argmax(allowed, axis=1))
                continue
            guess = viterbi(emit[peer], trans[peer], start[peer], end[peer], allowed)[0]
            gaps = token_gaps(emit[peer], trans[peer], start[peer], end[peer], allowed, guess)
            passed = gaps >= thresholds[peer, guess]
            mask = allowed & (~passed[:, None] | (np.arange(n_labels) == guess[:, None]))
            targets.append(viterbi(emit[v], trans[v], start[v], end[v], mask)[0])
        eta = sentence_weight(allowed, c_u)
        for v in (0, 1):
            if np.array_equal(own[v], targets[v]):
                continue
            for y, sign in ((targets[v], eta), (own[v], -eta)):
                for f, label in zip(feats, y):
                    weights[f[views[f] == v], label] += sign
                for a, b in zip(y, y[1:]):
                    trans[v, a, b] += sign
                start[v, y[0]] += sign
                end[v, y[-1]] += sign


def test_confidence_threshold_keeps_the_given_share():
    margins = np.array([0.5, 3.0, 1.0, 2.0, np.inf])
    assert confidence_threshold(margins, 0.4) == 3.0  # inf and 3.0 pass
    assert confidence_threshold(margins, 0.5) == 2.0  # ceil(2.5) = 3 tokens
    assert confidence_threshold(margins, 0.0) == np.inf
    assert confidence_threshold(margins, 1.0) == -np.inf
    assert confidence_threshold(np.zeros(0), 0.5) == np.inf


@pytest.mark.parametrize("balance", [False, True])
def test_gated_epochs_match_the_plain_rule(balance):
    data = unlabel(two_view_data(5, 14, n_labels=4), range(4, 14))
    epochs, c_u, share = 3, 0.5, 0.4
    model = MultiViewPerceptron(
        guard=False, max_iter=epochs, averaged=False, shuffle=False, c_u=c_u, peer_share=share, peer_balance=balance
    ).fit(data)
    assert model.info["epochs_run"] == epochs
    n_labels = data.n_labels
    arrays = [
        np.zeros((data.n_features, n_labels)),
        np.zeros((2, n_labels, n_labels)),
        np.zeros((2, n_labels)),
        np.zeros((2, n_labels)),
    ]
    for _ in range(epochs):
        gated_reference_epoch(data, *arrays, c_u, share, balance)
    for name, array in zip(("weights", "trans", "start", "end"), arrays):
        np.testing.assert_allclose(getattr(model, name), array, atol=1e-9, err_msg=name)


def test_nothing_passed_on_is_no_unlabeled_update():
    data = unlabel(two_view_data(6, 30), range(4, 30))
    gated = MultiViewPerceptron(max_iter=4, c_u=1.0, peer_share=0.0).fit(data)
    silent = MultiViewPerceptron(max_iter=4, c_u=0.0).fit(data)
    np.testing.assert_allclose(gated.weights, silent.weights)
    np.testing.assert_allclose(gated.trans, silent.trans)
    everything = MultiViewPerceptron(max_iter=4, c_u=1.0, peer_share=1.0).fit(data)
    plain = MultiViewPerceptron(max_iter=4, c_u=1.0).fit(data)
    np.testing.assert_array_equal(everything.weights, plain.weights)


def test_gating_stops_the_drift_to_the_majority_label():
    """CoNLL-2002 head, 10 labeled + 90 unlabeled: ungated co-training drifts towards "O", gating much less."""
    corpus = read_corpus(DATA / "conll2002_esp_train_head.txt")
    sentences = list(corpus)
    snap = build_snapshot(
        sentences, corpus.labels, FeatureExtractor(feature_set="crfsuite").fit(sentences), ViewSplit("token-surface")
    )
    data = unlabel(snap, range(10, snap.n_sentences))
    rest = slice(int(snap.offsets[10]), None)
    gold = np.argmax(snap.allowed, axis=1)[rest]
    o = list(corpus.labels.names).index("O")
    for seed in range(2):
        shares, accuracy = [], []
        for share in (1.0, 0.2):
            pred = (
                MultiViewPerceptron(guard=False, random_state=seed, c_u=1.0, peer_share=share)
                .fit(data)
                .predict(snap)[rest]
            )
            shares.append(np.mean(pred == o))
            accuracy.append(np.mean(pred == gold))
        assert shares[0] > np.mean(gold == o) + 0.1, shares  # the drift
        assert shares[1] < shares[0] - 0.01 and accuracy[1] > accuracy[0], (shares, accuracy)

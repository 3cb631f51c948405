"""``svm`` (HMSVM) and the shared structural-SVM machinery of ``tagtool.learn.structsvm``."""

import itertools

import numpy as np
import pytest

from tagtool.core.snapshot import Snapshot
from tagtool.errors import Cancelled
from tagtool.learn import available_learners
from tagtool.learn._emission import sentence_emission
from tagtool.learn.qp import kkt_residuals, solve_qp
from tagtool.learn.structsvm import _joint_kernels as kernels
from tagtool.learn.structsvm.layout import Layout
from tagtool.learn.structsvm.search import Decoder, hamming, most_violating, violation
from tagtool.learn.structsvm.subqp import SVMSettings, solve_subproblem, subproblem
from tagtool.learn.structsvm.trainer import ViewTrainer, WorkingSet, cu_schedule
from tagtool.learn.svm import HMSVM

LABELS = ("O", "A", "B")


def two_view_data(n_sent, seed, n_tokens=8, vocab=30, n_labels=3, noise=0.0, n_words=None):
    """Sentences whose tokens carry one word feature per view, drawn from a label's own vocabulary.

    Feature ``v·L·vocab + y·vocab + j`` is word ``j`` of label ``y`` in view
    ``v``: each view alone determines the label (with probability ``1 −
    noise``), and ``vocab`` words per label make a few labeled sentences see
    only part of each view's words — the co-training setting.  Labels follow
    a sticky Markov chain.
    """
    rng = np.random.default_rng(seed)
    labels, indices = [], []
    for _ in range(n_sent):
        y = [int(rng.integers(n_labels))]
        for _ in range(n_tokens - 1):
            y.append(y[-1] if rng.random() < 0.5 else int(rng.integers(n_labels)))
        for t in range(n_tokens):
            feats = []
            for v in (0, 1):
                lab = y[t] if rng.random() >= noise else int(rng.integers(n_labels))
                feats.append(v * n_labels * vocab + lab * vocab + int(rng.integers(vocab)))
            indices.append(feats)
        labels.append(y)
    n_features = 2 * n_labels * vocab
    gold = np.array([label for y in labels for label in y], dtype=np.int64)
    allowed = np.zeros((len(gold), n_labels), dtype=bool)
    allowed[np.arange(len(gold)), gold] = True
    feature_view = np.repeat([0, 1], n_labels * vocab).astype(np.int8)
    return Snapshot(
        labels=LABELS[:n_labels],
        offsets=np.arange(0, n_tokens * n_sent + 1, n_tokens),
        feat_indptr=np.arange(0, 2 * len(gold) + 1, 2),
        feat_indices=np.array(indices, dtype=np.int32).ravel(),
        allowed=allowed,
        feature_view=feature_view[:n_features],
        sentence_ids=np.arange(n_sent),
    ), gold


def with_allowed(snapshot, allowed):
    return Snapshot(
        snapshot.labels,
        snapshot.offsets,
        snapshot.feat_indptr,
        snapshot.feat_indices,
        allowed,
        snapshot.feature_view,
        snapshot.sentence_ids,
    )


def phi(snapshot, lo, path, layout, view, block_view):
    """Dense joint feature vector Φ(x, y) straight from its definition (Altun et al. 2003)."""
    out = np.zeros(layout.size)
    L = layout.n_labels
    for t, y in enumerate(path):
        for k in snapshot.token_features(lo + t):
            if view < 0 or snapshot.feature_view[k] == view:
                out[k * L + y] += 1
    base = layout.block(block_view)
    for a, b in zip(path[:-1], path[1:]):
        out[base + a * L + b] += 1
    out[base + L * L + path[0]] += 1
    out[base + L * L + L + path[-1]] += 1
    return out


def test_registered():
    assert available_learners()["svm"] is HMSVM
    assert HMSVM().get_params()["C"] == 1.0


def token_kernel(snap, i, view):
    lo, hi = int(snap.offsets[i]), int(snap.offsets[i + 1])
    K = np.empty((hi - lo, hi - lo), dtype=np.int64)
    kernels.token_kernel(
        snap.feat_indptr,
        snap.feat_indices,
        snap.feature_view,
        view,
        lo,
        hi,
        np.zeros(snap.n_features, dtype=np.int64),
        K,
    )
    return K


def test_gram_from_paths_matches_dense_joint_features():
    """⟨δΦ(p), δΦ(q)⟩ from the token kernel equals the dot product of the dense vectors."""
    snap, gold = two_view_data(3, seed=1, n_labels=3)
    snap = with_duplicate_features(snap)
    layout = Layout(snap.n_features, snap.n_labels, 2)
    rng = np.random.default_rng(0)
    for view, block in ((-1, 0), (0, 0), (1, 1)):
        lo = int(snap.offsets[1])
        target = gold[snap.sentence_slice(1)]
        K = token_kernel(snap, 1, view)
        others = [rng.integers(3, size=8) for _ in range(4)] + [target.copy()]
        others[0][:4] = target[:4]  # differences in part of the sentence only
        dense = [phi(snap, lo, target, layout, view, block) - phi(snap, lo, o, layout, view, block) for o in others]
        for a, p in zip(dense, others):
            for b, q in zip(dense, others):
                assert kernels.gram_entry(K, target, p, q) == pytest.approx(a @ b, abs=1e-12)


def with_duplicate_features(snap):
    """The same data with every token's first feature listed twice (Φ counts it twice)."""
    indptr, indices = [0], []
    for t in range(snap.n_tokens):
        feats = list(snap.token_features(t))
        indices.extend([feats[0]] + feats)
        indptr.append(len(indices))
    return Snapshot(
        snap.labels,
        snap.offsets,
        np.array(indptr),
        np.array(indices, dtype=np.int32),
        snap.allowed,
        snap.feature_view,
        snap.sentence_ids,
    )


def test_update_from_paths_matches_dense_joint_features():
    """``apply_path`` + ``flush_weights`` move θ by a·δΦ, and the sentence's emission scores with it."""
    snap, gold = two_view_data(3, seed=2)
    snap = with_duplicate_features(snap)
    layout = Layout(snap.n_features, snap.n_labels, 2)
    rng = np.random.default_rng(1)
    for view, block in ((-1, 0), (1, 1)):
        theta = rng.normal(size=layout.size)
        i, lo, hi = 2, int(snap.offsets[2]), int(snap.offsets[3])
        target, path = gold[lo:hi], rng.integers(3, size=8)
        emit = np.empty((hi - lo, 3))
        W = layout.weights(theta)
        sentence_emission(snap.feat_indptr, snap.feat_indices, snap.feature_view, view, lo, hi, W, emit)
        expected = theta + 0.7 * (phi(snap, lo, target, layout, view, block) - phi(snap, lo, path, layout, view, block))
        delta = np.zeros_like(emit)
        kernels.apply_path(delta, *layout.chain(theta, block), emit, token_kernel(snap, i, view), target, path, 0.7)
        kernels.flush_weights(snap.feat_indptr, snap.feat_indices, snap.feature_view, view, lo, W, delta)
        np.testing.assert_allclose(theta, expected, atol=1e-12)
        assert not delta.any()
        fresh = np.empty_like(emit)
        sentence_emission(snap.feat_indptr, snap.feat_indices, snap.feature_view, view, lo, hi, W, fresh)
        np.testing.assert_allclose(emit, fresh, atol=1e-12)


def small_trainer(norm, rescaling, loss="hamming"):
    """A view trainer after a few sweeps over 6 sentences: real working sets with ≥ 2 outputs."""
    snap, gold = two_view_data(6, seed=3, noise=0.3)
    layout = Layout(snap.n_features, snap.n_labels, 1)
    theta = np.zeros(layout.size)
    trainer = ViewTrainer(snap, theta, layout, -1, 0, SVMSettings(1.0, norm, loss, rescaling, 1e-3, 10))
    for _ in range(3):
        for i in range(snap.n_sentences):
            trainer.optimise(i, gold[snap.sentence_slice(i)], 1.0)
    return trainer


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("rescaling", ["margin", "slack"])
def test_subqp_kkt_and_solvers_agree(norm, rescaling):
    trainer = small_trainer(norm, rescaling)
    sets = [ws for ws in trainer.sets.values() if len(ws) >= 2]
    assert sets, "expected working sets with several outputs"
    for ws in sets:
        margins = trainer.margins(ws) - ws.gram @ ws.alpha
        losses = np.array(ws.losses)
        for cost in (1.0, 0.05):
            P, q, G, h = subproblem(ws.gram, margins, losses, cost, norm, rescaling)
            sol = solve_qp(P, q, G, h)
            res = kkt_residuals(sol, P, q, G, h)
            assert max(res.values()) < 1e-6, res
            objective = lambda a: 0.5 * a @ P @ a + q @ a  # noqa: E731
            via_cvxopt = solve_subproblem(ws.gram, margins, losses, cost, norm, rescaling)
            via_smo = solve_subproblem(ws.gram, margins, losses, cost, norm, rescaling, solver="smo")
            for alpha in (via_cvxopt, via_smo):
                assert np.all(alpha >= 0) and np.all(G @ alpha <= h + 1e-9)
                assert objective(alpha) <= objective(sol.x) + 1e-7 * max(1.0, abs(objective(sol.x)))
        # right after the trainer re-solves a sentence, its α are the optimum of that sub-QP
        trainer.solve(ws, ws.cost)
        if len(ws) >= 2:
            margins = trainer.margins(ws) - ws.gram @ ws.alpha
            P, q, G, h = subproblem(ws.gram, margins, np.array(ws.losses), ws.cost, norm, rescaling)
            best = solve_qp(P, q, G, h).x
            gap = (0.5 * ws.alpha @ P @ ws.alpha + q @ ws.alpha) - (0.5 * best @ P @ best + q @ best)
            assert gap < 1e-6


def test_dual_of_r2_couples_all_outputs_of_a_sentence():
    gram = np.array([[2.0, 1.0], [1.0, 3.0]])
    P, _, G, _ = subproblem(gram, np.zeros(2), np.array([1.0, 4.0]), 2.0, norm=2, rescaling="slack")
    np.testing.assert_allclose(P - gram, np.array([[1, 0.5], [0.5, 0.25]]) / 2.0)
    assert G.shape == (2, 2)  # α ≥ 0 only, no box
    P, _, G, h = subproblem(gram, np.zeros(2), np.array([1.0, 4.0]), 2.0, norm=1, rescaling="slack")
    np.testing.assert_allclose(G[-1], [1.0, 0.25])  # Σ α/Δ ≤ C
    assert h[-1] == 2.0


@pytest.mark.parametrize("norm", [1, 2])
@pytest.mark.parametrize("rescaling", ["margin", "slack"])
def test_one_variable_closed_form_equals_cvxopt(norm, rescaling):
    rng = np.random.default_rng(5)
    for _ in range(20):
        gram = np.array([[rng.uniform(0.5, 5)]])
        margin, loss, cost = rng.normal(size=1) * 3, np.array([float(rng.integers(1, 6))]), rng.uniform(0.1, 2)
        P, q, G, h = subproblem(gram, margin, loss, cost, norm, rescaling)
        np.testing.assert_allclose(
            solve_subproblem(gram, margin, loss, cost, norm, rescaling), solve_qp(P, q, G, h).x, atol=1e-6
        )


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"loss": "zero-one"},
        {"rescaling": "slack"},
        {"norm": 2, "C": 10.0},
        {"norm": 2, "rescaling": "slack", "C": 10.0},
        {"qp_solver": "smo"},
    ],
)
def test_separable_data_is_learned_perfectly(kw):
    snap, gold = two_view_data(12, seed=7)
    model = HMSVM(**kw).fit(snap)
    np.testing.assert_array_equal(model.predict(snap), gold)
    assert model.n_views == 1 and model.learner == "svm"


@pytest.mark.parametrize("kw", [{}, {"norm": 2, "rescaling": "slack"}])
def test_primal_weights_are_the_sum_of_alpha_delta_phi(kw):
    snap, _ = two_view_data(8, seed=2, noise=0.2)
    learner = HMSVM(max_iter=4, **kw)
    model = learner.fit(snap)
    layout = Layout(snap.n_features, snap.n_labels, 1)
    w = np.zeros(layout.size)  # no warm start: w_0 = 0
    assert model.extras["support"]
    for i, target, ybar, alpha in model.extras["support"]:
        lo = int(snap.offsets[i])
        assert alpha > 0 and not np.array_equal(target, ybar)
        w += alpha * (phi(snap, lo, target, layout, -1, 0) - phi(snap, lo, ybar, layout, -1, 0))
    np.testing.assert_allclose(layout.from_model(model), w, atol=1e-9)


def test_generalises_on_two_view_data():
    train, _ = two_view_data(15, seed=11, noise=0.1)
    test, gold = two_view_data(60, seed=12, noise=0.1)
    for loss in ("hamming", "zero-one"):
        accuracy = np.mean(HMSVM(loss=loss).fit(train).predict(test) == gold)
        assert accuracy > 0.6, (loss, accuracy)  # chance: 1/3


def test_warm_start_offsets_the_previous_weights():
    snap, gold = two_view_data(12, seed=4, noise=0.1)
    first = HMSVM().fit(snap.subset(np.arange(8)))
    second = HMSVM().fit(snap, warm_start=first)
    layout = Layout(snap.n_features, snap.n_labels, 1)
    w = layout.from_model(first)  # w = w_0 + Σ α δΦ with w_0 the previous weights
    for i, target, ybar, alpha in second.extras["support"]:
        lo = int(snap.offsets[i])
        w += alpha * (phi(snap, lo, target, layout, -1, 0) - phi(snap, lo, ybar, layout, -1, 0))
    np.testing.assert_allclose(layout.from_model(second), w, atol=1e-9)
    assert second.info["warm_start"]
    assert np.mean(second.predict(snap) == gold) == 1.0
    cold = HMSVM().fit(snap)
    third = HMSVM().fit(snap, warm_start=second)  # constraints the offset meets stay inactive
    assert np.mean(third.predict(snap) == gold) == 1.0
    assert len(third.extras["support"]) < len(cold.extras["support"]) / 2
    assert third.info["support_vectors"] == len(third.extras["support"])


def test_partial_sentences_teach_labels_the_full_ones_lack():
    snap, gold = two_view_data(40, seed=9)
    full_ids = [i for i in range(20) if 2 not in gold[snap.sentence_slice(i)]][:8]
    partial_ids = np.array([i for i in range(20, 40) if 0 < np.sum(gold[snap.sentence_slice(i)] == 2) < 8])
    allowed = snap.allowed.copy()
    for i in partial_ids:  # keep only the tokens labeled B; the rest: no label
        rows = snap.sentence_slice(i)
        block = allowed[rows]
        block[gold[rows] != 2] = True
        allowed[rows] = block
    mixed = with_allowed(snap, allowed)
    test, test_gold = two_view_data(40, seed=10)
    only_full = HMSVM().fit(mixed.subset(full_ids))
    with_partial = HMSVM().fit(mixed.subset(np.concatenate([full_ids, partial_ids])))
    assert not with_partial.info["notes"]
    assert np.all(only_full.predict(test) != 2)
    b = test_gold == 2
    assert np.mean(with_partial.predict(test)[b] == 2) > 0.5


def test_unlabeled_sentences_are_left_out_with_a_note():
    snap, _ = two_view_data(6, seed=1)
    allowed = snap.allowed.copy()
    allowed[snap.sentence_slice(5)] = True
    model = HMSVM(max_iter=2).fit(with_allowed(snap, allowed))
    assert any("unlabeled" in note for note in model.info["notes"])


def test_cancel_takes_effect_at_the_next_check():
    """should_stop is polled at least once per sentence, and the first True stops the fit (no clock: a fast
    machine once converged before a 0.3 s timer fired)."""
    snap, _ = two_view_data(200, seed=5, noise=0.4)
    polls = []

    def stop_at_the_fifth_poll():
        polls.append(1)
        return len(polls) >= 5

    with pytest.raises(Cancelled):
        HMSVM(max_iter=1000, epsilon=1e-9).fit(snap, should_stop=stop_at_the_fifth_poll)
    assert len(polls) == 5


def test_bad_parameters_are_named():
    snap, _ = two_view_data(2, seed=1)
    for kw in ({"loss": "squared"}, {"rescaling": "both"}, {"norm": 3}, {"C": 0.0}, {"qp_solver": "x"}):
        with pytest.raises(ValueError, match=next(iter(kw))):
            HMSVM(**kw).fit(snap)


def test_cu_schedule_grows_exponentially_to_its_maximum():
    values = [cu_schedule(e, 0.5, 10) for e in range(12)]
    assert values[0] == pytest.approx(0.5e-3)
    assert all(b / a == pytest.approx(values[1] / values[0]) for a, b in zip(values[:9], values[1:10]))
    assert values[10] == values[11] == 0.5


@pytest.mark.parametrize("norm", [1, 2])
def test_slack_rescaled_search_is_exact(norm):
    """The (label, distance) Viterbi finds max_ȳ Δ^{1/r}(1 − f(y) + f(ȳ)) of all L^T outputs."""
    rng = np.random.default_rng(norm)
    for trial in range(120):
        n_tokens, n_labels = int(rng.integers(1, 6)), int(rng.integers(2, 4))
        emit = 2 * rng.normal(size=(n_tokens, n_labels))
        trans, start, end = rng.normal(size=(n_labels, n_labels)), rng.normal(size=n_labels), rng.normal(size=n_labels)
        dec = Decoder(emit, trans, start, end, np.ones((n_tokens, n_labels), dtype=bool))
        target = rng.integers(n_labels, size=n_tokens)
        weights = None if trial % 2 else (rng.random(n_tokens) < 0.6).astype(float)  # 0/1: gated tokens
        target_score = dec.score(target)
        brute = -np.inf
        for y in itertools.product(range(n_labels), repeat=n_tokens):
            loss_val = hamming(np.array(y), target, weights)
            if loss_val > 0:
                brute = max(brute, violation(loss_val, target_score - dec.score(np.array(y)), norm, "slack"))
        path, h = most_violating(dec, target, "hamming", norm, "slack", kbest=2, weights=weights)
        if brute == -np.inf:
            assert path is None
            continue
        assert h == pytest.approx(brute, abs=1e-9)
        assert violation(
            hamming(path, target, weights), target_score - dec.score(path), norm, "slack"
        ) == pytest.approx(h, abs=1e-9)


def test_working_sets_grow_past_their_capacity_and_stay_exact():
    """A working set created with room for one output grows; θ stays w_0 + Σ α δΦ and margins are θ·δΦ."""
    snap, gold = two_view_data(4, seed=8, noise=0.5, n_tokens=10)
    layout = Layout(snap.n_features, snap.n_labels, 1)
    theta = np.zeros(layout.size)
    trainer = ViewTrainer(snap, theta, layout, -1, 0, SVMSettings(1.0, 1, "hamming", "margin", 1e-6, 10, "smo"))
    target = gold[snap.sentence_slice(0)]
    ws = trainer.sets[0] = WorkingSet(0, target, 1.0, capacity=1)
    for _ in range(4):
        for i in range(snap.n_sentences):
            trainer.optimise(i, gold[snap.sentence_slice(i)], 1.0)
    ws = trainer.sets[0]
    assert len(ws) > 1
    trainer.finish()
    w = np.zeros(layout.size)
    for i, target, ybar, alpha in trainer.support():
        lo = int(snap.offsets[i])
        w += alpha * (phi(snap, lo, target, layout, -1, 0) - phi(snap, lo, ybar, layout, -1, 0))
    np.testing.assert_allclose(theta, w, atol=1e-9)
    dense = [theta @ (phi(snap, 0, ws.target, layout, -1, 0) - phi(snap, 0, p, layout, -1, 0)) for p in ws.paths]
    np.testing.assert_allclose(trainer.margins(ws), dense, atol=1e-9)

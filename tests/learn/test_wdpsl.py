"""WD-PSL (DESIGN §5.4): pieces, Eq. 22/23, the block-coordinate dual, recovery, contract."""

import time

import numpy as np
import pytest

from tagtool.core import LabelSet, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.learn import TrainingCancelled, get_learner
from tagtool.learn import _wdpsl_kernels as kern
from tagtool.learn.qp import kkt_residuals, solve_qp
from tagtool.learn.wdpsl import (
    WDPSL,
    _Dual,
    build_pieces,
    candidate_confidences,
    eq22,
    eq23,
    primal_objective,
)


def tiny_snapshot(allowed_rows, feats, n_features, lengths, labels=("A", "B", "C")):
    allowed = np.asarray(allowed_rows, dtype=bool)
    indptr = np.concatenate(([0], np.cumsum([len(f) for f in feats])))
    return Snapshot(
        labels=labels,
        offsets=np.concatenate(([0], np.cumsum(lengths))),
        feat_indptr=indptr,
        feat_indices=np.concatenate([np.asarray(f, dtype=np.int32) for f in feats]),
        allowed=allowed,
        feature_view=np.zeros(n_features, dtype=np.int8),
        sentence_ids=np.arange(len(lengths)),
    )


def synthetic(n_sent, seed, share=0.5, k=3, n_labels=4, length=6, noise=0.1):
    """Words determine labels (with a little noise); candidates as in the WD-PSL protocol."""
    rng = np.random.default_rng(seed)
    labels = LabelSet([f"L{j}" for j in range(n_labels)])
    words = [f"w{j}" for j in range(3 * n_labels)]
    gold_s, part_s = [], []
    for _ in range(n_sent):
        ws = list(rng.choice(words, size=length))
        ys = [labels[int(w[1:]) % n_labels] if rng.random() > noise else labels[int(rng.integers(n_labels))]
              for w in ws]
        anns = []
        for y in ys:
            if rng.random() < share:
                anns.append({y})
            else:
                others = [x for x in labels if x != y]
                anns.append({y, *rng.choice(others, size=k - 1, replace=False)})
        gold_s.append(Sentence(ws, [{y} for y in ys]))
        part_s.append(Sentence(ws, anns))
    return labels, gold_s, part_s


def snapshots(labels, gold_s, part_s, fx=None):
    fx = fx or FeatureExtractor(min_count=1, window=0).fit(part_s)
    snap = build_snapshot(part_s, labels, fx, ViewSplit("random"))
    return fx, snap, build_snapshot(gold_s, labels, fx, snap.feature_view)


# ----------------------------------------------------------------------
# pieces and the kernels


def test_pieces_leave_out_unlabeled_pairs_and_list_candidates():
    # sentence 1: full A, partial {A,B}, none, none; sentence 2: one token
    rows = [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1], [0, 1, 0]]
    snap = tiny_snapshot(rows, [[0], [1], [2], [0], [1]], 3, [4, 1])
    pc = build_pieces(snap)
    np.testing.assert_array_equal(pc.left, [0, 1])  # (2, 3) both unlabeled, no cross-sentence piece
    np.testing.assert_array_equal(pc.size, [2, 6])
    assert set(zip(pc.cand_a[:2], pc.cand_c[:2])) == {(0, 0), (0, 1)}
    assert set(zip(pc.cand_a[2:], pc.cand_c[2:])) == {(a, c) for a in (0, 1) for c in range(3)}


def test_shared_features_count():
    snap = tiny_snapshot([[1, 0, 0]] * 3, [[0, 1, 2], [1, 2, 3], [4]], 5, [3])
    pc = build_pieces(snap)
    np.testing.assert_array_equal(pc.n12, [2, 0])
    np.testing.assert_array_equal(pc.n1, [3, 3])


def test_most_violated_matches_brute_force():
    rng = np.random.default_rng(1)
    L = 3
    rows = [[1, 0, 0], [1, 1, 0], [0, 1, 1], [1, 1, 1], [0, 0, 1]]
    snap = tiny_snapshot(rows, [[0]] * 5, 1, [5], labels=("A", "B", "C"))
    pc = build_pieces(snap)
    emit, trans, bias = rng.normal(size=(5, L)), rng.normal(size=(L, L)), 0.3
    a_out, c_out, xi = np.zeros(pc.n_pieces, np.int64), np.zeros(pc.n_pieces, np.int64), np.zeros(pc.n_pieces)
    kern.most_violated(emit, trans, bias, pc.left, snap.allowed, pc.cand_ptr, pc.cand_a, pc.cand_c, a_out, c_out, xi)
    for i, t in enumerate(pc.left):
        energy = emit[t][:, None] + emit[t + 1][None, :] + trans + bias
        cand = snap.allowed[t][:, None] & snap.allowed[t + 1][None, :]
        total = energy[cand].sum()
        value = np.where(cand, 0.0, cand.sum()) + energy - total  # Eq. 13, 18 with Eq. 9
        assert (a_out[i], c_out[i]) == np.unravel_index(value.argmax(), value.shape)
        assert xi[i] == pytest.approx(max(value.max(), 0.0))


def test_eq22_by_hand():
    rows = [[1, 1, 0], [1, 0, 0], [1, 0, 0], [1, 0, 0]]
    snap = tiny_snapshot(rows, [[0]] * 4, 1, [2, 2])
    pc = build_pieces(snap)  # piece 0: candidates (A,A), (B,A); piece 1: one candidate
    conf = eq22(pc, np.array([1.0, 3.0, 5.0]))
    np.testing.assert_allclose(conf, [0.0, 1.0, 1.0])
    rows = [[1, 1, 1], [1, 0, 0]]
    pc = build_pieces(tiny_snapshot(rows, [[0]] * 2, 1, [2]))
    np.testing.assert_allclose(eq22(pc, np.array([2.0, -1.0, 0.5])), [1.0, 0.0, 0.5])  # (E − min)/(max − min)
    np.testing.assert_allclose(eq22(pc, np.array([2.0, 2.0, 2.0])), [1 / 3] * 3)  # tie: uniform


def test_eq23_by_hand():
    # three pieces, candidates of piece 0 = {A,B} x {A}; neighbours given by hand
    rows = [[1, 1, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 1], [0, 1, 0]]
    snap = tiny_snapshot(rows, [[0]] * 6, 1, [2, 2, 2])
    pc = build_pieces(snap)
    neighbours = np.array([[1, 2], [0, 2], [0, 1]])
    conf = eq23(snap, pc, neighbours)
    # piece 0 (A|B, A): neighbour 1 = (B, A) holds (B,A); neighbour 2 = (Σ, B) holds neither
    np.testing.assert_allclose(conf[:2], [0 / 2, 1 / 2])
    # piece 1 (B, A): neighbour 0 holds (B, A), neighbour 2 does not -> 1/2
    np.testing.assert_allclose(conf[2], 1 / 2)
    # piece 2 (Σ, B): none of its candidates occurs among the neighbours -> uniform fallback 1/3
    np.testing.assert_allclose(conf[3:], [1 / 3] * 3)


# ----------------------------------------------------------------------
# the restricted QP: blocks, KKT, dense comparison


def dense_restricted_qp(dual):
    """The whole restricted dual as one explicit QP over every working-set entry."""
    snap, pc = dual.snap, dual.pc
    nf, L = snap.n_features, snap.n_labels
    dim = nf * L + L * L + 1
    rows, r_all, blocks, order = [], [], [], []
    for i in range(pc.n_pieces):
        if not dual.members[i]:
            continue
        C1, C2, M, bb, r, ub, is_alpha = dual.block_vectors(i)
        t = pc.left[i]
        for k in range(len(r)):
            z = np.zeros(dim)
            for f in snap.token_features(t):
                z[f * L:(f + 1) * L] += C1[k]
            for f in snap.token_features(t + 1):
                z[f * L:(f + 1) * L] += C2[k]
            z[nf * L:nf * L + L * L] = M[k]
            z[-1] = bb[k]
            rows.append(z)
        blocks.append((len(r_all), r, ub, is_alpha))
        r_all.extend(r)
        order.extend(dual.members[i])
    Z = np.array(rows)
    m = len(r_all)
    G = [-np.eye(m)]
    h = [np.zeros(m)]
    for start, r, ub, is_alpha in blocks:
        row = np.zeros(m)
        row[start:start + len(r)] = is_alpha
        G.append(row[None])
        h.append([dual.c1n])
        for k in np.flatnonzero(~is_alpha):
            row = np.zeros(m)
            row[start + k] = 1.0
            G.append(row[None])
            h.append([ub[k]])
    return Z, Z @ Z.T, -np.array(r_all), np.vstack(G), np.concatenate(h), order


def small_dual(seed=0, bias=True, rounds=3):
    labels, gold_s, part_s = synthetic(4, seed, n_labels=3, length=4)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    pc = build_pieces(snap)
    learner = WDPSL(c1=20.0, c2=5.0, qp_tol=1e-9, max_passes=500, bias=bias)
    dual = _Dual(snap, pc, learner.c1, learner.c2, bias)
    dual.conf = np.random.default_rng(seed).uniform(0.1, 1.0, size=len(pc.cand_a))
    from tagtool.learn.progress import TrainingMonitor
    for _ in range(rounds):
        learner._add_violators(dual)
        learner._optimise_restricted(dual, TrainingMonitor())
    return learner, dual


@pytest.mark.parametrize("bias", [True, False])
def test_block_coordinate_reaches_the_dense_restricted_optimum(bias):
    learner, dual = small_dual(bias=bias)
    Z, K, q, G, h, order = dense_restricted_qp(dual)
    sol = solve_qp(K, q, G, h)
    res = kkt_residuals(sol, K, q, G, h)
    assert max(res.values()) < 1e-6, res
    omega = Z.T @ sol.x
    ours = np.concatenate([dual.W.ravel(), dual.T.ravel(), [dual.b]])
    np.testing.assert_allclose(ours, omega, atol=1e-4 * max(1.0, np.abs(omega).max()))
    assert dual.dual_objective() == pytest.approx(-sol.objective, rel=1e-5, abs=1e-7)
    # ω is kept explicitly as Σ λ z
    np.testing.assert_allclose(Z.T @ np.array(dual.lam)[order], ours, atol=1e-10)


def test_every_block_qp_satisfies_kkt_and_is_optimal_for_its_block():
    learner, dual = small_dual(rounds=1)
    checked = 0
    for i in range(dual.pc.n_pieces):
        if len(dual.members[i]) < 2:
            continue
        K, q, G, h, lam, grad, _, (ub, is_alpha) = dual.block_problem(i)
        sol = solve_qp(K, q, G, h)
        res = kkt_residuals(sol, K, q, G, h)
        assert max(res.values()) < 1e-6, res
        # at the converged restricted optimum the block's current multipliers solve its QP
        assert dual.kkt_violation(lam, grad, ub, is_alpha) < 1e-6
        # (the block optimum may not be unique: compare objective values)
        ours = 0.5 * lam @ K @ lam + q @ lam
        assert ours == pytest.approx(sol.objective, abs=1e-6 * max(1.0, abs(sol.objective)))
        checked += 1
    assert checked >= 3


def test_block_kkt_check_detects_a_non_optimal_point():
    learner, dual = small_dual(rounds=1)
    i = next(i for i in range(dual.pc.n_pieces) if len(dual.members[i]) >= 2)
    K, q, G, h, lam, grad, _, (ub, is_alpha) = dual.block_problem(i)
    # a point whose β sit at the top of their boxes and α at zero is not the block's optimum
    lam_bad = np.where(is_alpha, 0.0, ub)
    grad_bad = K @ lam_bad + q
    best = solve_qp(K, q, G, h)
    assert 0.5 * lam_bad @ K @ lam_bad + q @ lam_bad > best.objective + 1e-6
    assert dual.kkt_violation(lam_bad, grad_bad, ub, is_alpha) > 1e-3


def test_primal_objective_at_least_the_dual_and_gap_closes():
    learner = WDPSL(c1=20.0, c2=5.0, qp_tol=1e-6, epsilon=1e-3, max_rounds=40, max_passes=50)
    _, dual = small_dual(rounds=1)
    from tagtool.learn.progress import TrainingMonitor
    learner._cutting_plane(dual, TrainingMonitor(), 0)
    j = primal_objective(dual)[0]
    d = dual.dual_objective()
    assert j >= d - 1e-7
    assert j - d < 1e-2 * max(1.0, abs(j))


# ----------------------------------------------------------------------
# learning


def test_recovers_gold_from_candidates_and_generalises():
    labels, gold_s, part_s = synthetic(30, seed=3)
    fx, snap, gsnap = snapshots(labels, gold_s, part_s)
    model = WDPSL(max_alternations=3, max_passes=2).fit(snap)
    gold = gsnap.allowed.argmax(axis=1)
    partial = snap.allowed.sum(axis=1) > 1
    acc_train = np.mean(model.predict(snap, constrained=True)[partial] == gold[partial])
    assert acc_train > 0.75  # random candidate: 1/3
    labels, gold_t, part_t = synthetic(30, seed=4)
    _, _, tsnap = snapshots(labels, gold_t, part_t, fx)
    acc_test = np.mean(model.predict(tsnap) == tsnap.allowed.argmax(axis=1))
    assert acc_test > 0.75  # random label: 1/4; 10 % label noise
    assert model.learner == "wdpsl" and model.n_views == 1
    assert np.all(model.start == 0) and np.all(model.end == 0)
    j = model.info["objective"]
    assert len(j) == model.info["alternations"] >= 1


def test_confidences_are_distributions_over_allowed_sets():
    labels, gold_s, part_s = synthetic(15, seed=5)
    _, snap, gsnap = snapshots(labels, gold_s, part_s)
    model = WDPSL(max_alternations=2, max_passes=2).fit(snap)
    conf = WDPSL.candidate_confidences(model, snap)
    assert conf.shape == (snap.n_tokens, snap.n_labels)
    np.testing.assert_allclose(conf.sum(axis=1), 1.0)
    assert np.all(conf[~snap.allowed] == 0)
    full = snap.allowed.sum(axis=1) == 1
    np.testing.assert_array_equal(conf[full][snap.allowed[full]], 1.0)
    partial = ~full
    gold = gsnap.allowed.argmax(axis=1)
    assert np.mean(conf[partial].argmax(axis=1) == gold[partial]) > 0.6
    # computable from the saved arrays alone
    from tagtool.learn import ChainModel
    reloaded = ChainModel.from_parts(model.to_meta(), model.to_arrays())
    np.testing.assert_allclose(candidate_confidences(reloaded, snap), conf)


def test_confidences_by_hand_from_eq22():
    # one piece (A|B, A): E(A,A) = 1, E(B,A) = 3 -> P = (0, 1); token 0 gets B with 1
    rows = [[1, 1, 0], [1, 0, 0]]
    snap = tiny_snapshot(rows, [[0], [1]], 2, [2])
    from tagtool.learn import ChainModel
    model = ChainModel.zeros(snap.labels, 2, snap.feature_view)
    model.weights[0] = [1.0, 3.0, 0.0]
    conf = candidate_confidences(model, snap)
    np.testing.assert_allclose(conf, [[0, 1, 0], [1, 0, 0]])


def test_unlabeled_sentences_are_left_out_with_a_note():
    labels, gold_s, part_s = synthetic(5, seed=6)
    part_s = part_s + [s.unlabeled() for s in gold_s[:3]]
    _, snap, _ = snapshots(labels, gold_s + gold_s[:3], part_s)
    model = WDPSL(max_alternations=1, max_rounds=2).fit(snap)
    assert any("unlabeled" in note and "3 left out" in note for note in model.info["notes"])
    assert get_learner("wdpsl") is WDPSL


def test_warm_start_needs_fewer_rounds_and_agrees():
    labels, gold_s, part_s = synthetic(15, seed=7)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    learner = WDPSL(max_alternations=2, max_passes=2)
    cold = learner.fit(snap)
    warm = learner.fit(snap, warm_start=cold)
    assert warm.info["cutting_plane_rounds"] <= cold.info["cutting_plane_rounds"]
    agree = np.mean(warm.predict(snap) == cold.predict(snap))
    assert agree > 0.9


def test_cancel_within_a_second():
    labels, gold_s, part_s = synthetic(200, seed=8, length=10)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    requested = []

    def should_stop():
        if not requested and time.monotonic() - started > 0.5:
            requested.append(time.monotonic())
        return bool(requested)

    started = time.monotonic()
    with pytest.raises(TrainingCancelled):
        WDPSL(epsilon=1e-6, qp_tol=1e-9, max_passes=1000).fit(snap, should_stop=should_stop)
    assert time.monotonic() - requested[0] < 1.0

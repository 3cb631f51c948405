"""WD-PSL (docs/design.md#wd-psl): pieces, Eq. 22/23, the block-coordinate dual, recovery, contract."""

import numpy as np
import pytest

from tagtool.core import LabelSet, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import Snapshot, build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.errors import Cancelled
from tagtool.learn import get_learner
from tagtool.learn.piecewise import _block_kernels, _piece_kernels
from tagtool.learn.piecewise.dual import Dual as _Dual
from tagtool.learn.piecewise.dual import primal_objective
from tagtool.learn.piecewise.pieces import build_pieces, eq22, eq23
from tagtool.learn.qp import kkt_residuals, solve_qp
from tagtool.learn.wdpsl import WDPSL, candidate_confidences


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
        ys = [
            labels[int(w[1:]) % n_labels] if rng.random() > noise else labels[int(rng.integers(n_labels))] for w in ws
        ]
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
    _piece_kernels.most_violated(
        emit, trans, bias, pc.left, snap.allowed, pc.cand_ptr, pc.cand_a, pc.cand_c, a_out, c_out, xi
    )
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
        if not dual.entries(i):
            continue
        C1, C2, M, bb, r, ub, is_alpha = dual.block_vectors(i)
        t = pc.left[i]
        for k in range(len(r)):
            z = np.zeros(dim)
            for f in snap.token_features(t):
                z[f * L : (f + 1) * L] += C1[k]
            for f in snap.token_features(t + 1):
                z[f * L : (f + 1) * L] += C2[k]
            z[nf * L : nf * L + L * L] = M[k]
            z[-1] = bb[k]
            rows.append(z)
        blocks.append((len(r_all), r, ub, is_alpha))
        r_all.extend(r)
        order.append(dual.block_lam(i))
    Z = np.array(rows)
    m = len(r_all)
    G = [-np.eye(m)]
    h = [np.zeros(m)]
    for start, r, ub, is_alpha in blocks:
        row = np.zeros(m)
        row[start : start + len(r)] = is_alpha
        G.append(row[None])
        h.append([dual.c1n])
        for k in np.flatnonzero(~is_alpha):
            row = np.zeros(m)
            row[start + k] = 1.0
            G.append(row[None])
            h.append([ub[k]])
    return Z, Z @ Z.T, -np.array(r_all), np.vstack(G), np.concatenate(h), np.concatenate(order)


def small_dual(seed=0, bias=True, rounds=3, qp_solver="cvxopt", drop_after=0):
    labels, gold_s, part_s = synthetic(4, seed, n_labels=3, length=4)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    pc = build_pieces(snap)
    learner = WDPSL(c1=20.0, c2=5.0, qp_tol=1e-9, max_passes=500, bias=bias, qp_solver=qp_solver, drop_after=drop_after)
    dual = _Dual(snap, pc, learner.c1, learner.c2, bias)
    dual.conf = np.random.default_rng(seed).uniform(0.1, 1.0, size=len(pc.cand_a))
    from tagtool.learn.progress import TrainingMonitor

    for _ in range(rounds):
        learner._add_violators(dual)
        learner._optimise_restricted(dual, TrainingMonitor())
    return learner, dual


@pytest.mark.parametrize("qp_solver", ["cvxopt", "smo"])
@pytest.mark.parametrize("bias", [True, False])
def test_block_coordinate_reaches_the_dense_restricted_optimum(bias, qp_solver):
    learner, dual = small_dual(bias=bias, qp_solver=qp_solver)
    Z, K, q, G, h, lam = dense_restricted_qp(dual)
    sol = solve_qp(K, q, G, h)
    res = kkt_residuals(sol, K, q, G, h)
    assert max(res.values()) < 1e-6, res
    omega = Z.T @ sol.x
    ours = np.concatenate([dual.W.ravel(), dual.T.ravel(), [dual.b]])
    np.testing.assert_allclose(ours, omega, atol=1e-4 * max(1.0, np.abs(omega).max()))
    assert dual.dual_objective() == pytest.approx(-sol.objective, rel=1e-5, abs=1e-7)
    # ω is kept explicitly as Σ λ z
    np.testing.assert_allclose(Z.T @ lam, ours, atol=1e-10)


def test_every_block_qp_satisfies_kkt_and_is_optimal_for_its_block():
    learner, dual = small_dual(rounds=1)
    checked = 0
    for i in range(dual.pc.n_pieces):
        if len(dual.entries(i)) < 2:
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
    i = next(i for i in range(dual.pc.n_pieces) if len(dual.entries(i)) >= 2)
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
    model = WDPSL(max_iter=3, max_passes=2).fit(snap)
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
    model = WDPSL(max_iter=2, max_passes=2).fit(snap)
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
    model = WDPSL(max_iter=1, max_rounds=2).fit(snap)
    assert any("unlabeled" in note and "3 left out" in note for note in model.info["notes"])
    assert get_learner("wdpsl") is WDPSL


def test_warm_start_needs_fewer_rounds_and_agrees():
    labels, gold_s, part_s = synthetic(15, seed=7)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    learner = WDPSL(max_iter=2, max_passes=2)
    cold = learner.fit(snap)
    warm = learner.fit(snap, warm_start=cold)
    assert warm.info["cutting_plane_rounds"] <= cold.info["cutting_plane_rounds"]
    agree = np.mean(warm.predict(snap) == cold.predict(snap))
    assert agree > 0.9


def test_cancel_takes_effect_at_the_next_check():
    """The first True of should_stop stops the fit (counted polls, not a clock: a fast machine may finish
    before a timer fires)."""
    labels, gold_s, part_s = synthetic(200, seed=8, length=10)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    polls = []

    def should_stop():
        polls.append(1)
        return len(polls) >= 3

    with pytest.raises(Cancelled):
        WDPSL(epsilon=1e-6, qp_tol=1e-9, max_passes=1000).fit(snap, should_stop=should_stop)
    assert len(polls) == 3


# ----------------------------------------------------------------------
# the numba solver (qp_solver="smo") against the cvxopt reference


def copy_dual(dual):
    import copy

    out = copy.copy(dual)
    for name in ("W", "T", "bvec", "ws_n", "ws_a", "ws_c", "ws_lam", "ws_idle", "beta", "beta_in", "beta_idle", "conf"):
        setattr(out, name, getattr(dual, name).copy())
    return out


def omega(dual):
    return np.concatenate([dual.W.ravel(), dual.T.ravel(), [dual.b]])


@pytest.mark.parametrize("bias", [True, False])
def test_closed_form_block_equals_the_explicit_vectors(bias):
    _, dual = small_dual(bias=bias, rounds=2, qp_solver="smo")
    checked = 0
    for i in range(dual.pc.n_pieces):
        if not dual.entries(i):
            continue
        K, q, G, h, lam, grad, _, (ub, is_alpha) = dual.block_problem(i)
        K2, g2, lam2, r2, ub2, ia2, ea, ec, cj = dual.numba_block(i)
        np.testing.assert_allclose(K2, K, atol=1e-10)
        np.testing.assert_allclose(g2, grad, atol=1e-10)
        np.testing.assert_array_equal(lam2, lam)
        np.testing.assert_array_equal(ia2, is_alpha)
        np.testing.assert_allclose(ub2, ub)
        checked += 1
    assert checked >= 5


def random_block(rng, m, n_alpha, rank=None):
    rank = m if rank is None else rank
    Z = rng.normal(size=(m, rank))
    K = Z @ Z.T
    q = rng.normal(size=m) * 2.0
    is_alpha = np.zeros(m, dtype=bool)
    is_alpha[rng.permutation(m)[:n_alpha]] = True
    ub = np.where(is_alpha, 0.7, rng.uniform(0.05, 1.0, size=m))
    return K, q, is_alpha, ub, 0.7


def cvxopt_block(K, q, is_alpha, ub, c1n):
    m = len(q)
    beta = np.flatnonzero(~is_alpha)
    G = np.vstack([-np.eye(m), is_alpha[None, :].astype(np.float64), np.eye(m)[beta]])
    h = np.concatenate([np.zeros(m), [c1n], ub[beta]])
    return solve_qp(K, q, G, h), G, h


@pytest.mark.parametrize("seed", range(12))
def test_smo_block_solver_is_exact_against_cvxopt_and_kkt(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 8))
    K, q, is_alpha, ub, c1n = random_block(
        rng, m, int(rng.integers(0, m + 1)), rank=int(rng.integers(1, m + 1)) if seed % 3 == 0 else None
    )
    lam = np.zeros(m)
    g = q.copy()
    _block_kernels.solve_block(m, K, g, lam, ub, is_alpha, c1n, 1e-10, 100000)
    assert np.all(lam >= 0) and np.all(lam[~is_alpha] <= ub[~is_alpha]) and lam[is_alpha].sum() <= c1n * (1 + 1e-12)
    np.testing.assert_allclose(g, K @ lam + q, atol=1e-9)  # the incremental gradient stays exact
    assert _block_kernels.block_kkt(m, g, lam, ub, is_alpha, c1n) < 1e-9
    sol, G, h = cvxopt_block(K, q, is_alpha, ub, c1n)
    assert max(kkt_residuals(sol, K, q, G, h).values()) < 1e-6
    ours = 0.5 * lam @ K @ lam + q @ lam
    assert ours <= sol.objective + 1e-7 * max(1.0, abs(sol.objective))
    assert ours == pytest.approx(sol.objective, abs=1e-6 * max(1.0, abs(sol.objective)))
    if np.linalg.matrix_rank(K) == m:  # unique optimum
        np.testing.assert_allclose(lam, sol.x, atol=1e-5)


def test_smo_block_solver_agrees_with_svm_common_smo_on_alpha_blocks():
    from tagtool.learn.structsvm._dual_kernels import smo as _smo_kernel

    rng = np.random.default_rng(5)
    for _ in range(5):
        K, q, is_alpha, ub, c1n = random_block(rng, 5, 5)
        lam, g = np.zeros(5), q.copy()
        _block_kernels.solve_block(5, K, g, lam, ub, is_alpha, c1n, 1e-11, 100000)
        ref = np.zeros(5)
        _smo_kernel(K, q, np.ones(5), c1n, True, ref, 1e-11, 100000)
        np.testing.assert_allclose(lam, ref, atol=1e-7)


def test_block_kkt_flags_a_stalled_simplex():
    # α on the simplex face with unequal gradients: not optimal although the slack is (numerically) zero
    K = np.eye(2) * 100.0
    lam = np.array([0.7, 0.3])
    g = np.array([-0.5, -0.4])
    assert _block_kernels.block_kkt(2, g, lam, np.ones(2), np.ones(2, dtype=bool), 1.0) == pytest.approx(0.1)
    _block_kernels.solve_block(2, K, g, lam, np.ones(2), np.ones(2, dtype=bool), 1.0, 1e-10, 1000)
    assert _block_kernels.block_kkt(2, g, lam, np.ones(2), np.ones(2, dtype=bool), 1.0) < 1e-10
    assert lam.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("bias", [True, False])
def test_numba_pass_equals_the_cvxopt_pass(bias):
    _, dual = small_dual(bias=bias, rounds=2, qp_solver="smo")
    learner = WDPSL(epsilon=1e-3)
    learner._add_violators(dual)  # new entries: the blocks are off their optimum again
    a, b = copy_dual(dual), copy_dual(dual)
    changed_a = a.python_pass(1e-9)
    changed_b = b.numba_pass(1e-9)
    assert changed_a == changed_b > 0
    np.testing.assert_allclose(omega(b), omega(a), atol=1e-5 * max(1.0, np.abs(omega(a)).max()))
    assert b.dual_objective() == pytest.approx(a.dual_objective(), rel=1e-6, abs=1e-8)
    assert b.dual_objective() > dual.dual_objective()  # block-coordinate ascent


def test_dropping_idle_entries_keeps_omega_and_the_restricted_optimum():
    _, dual = small_dual(rounds=3, qp_solver="smo")
    before, n_before, obj = omega(dual), dual.n_entries(), dual.dual_objective()
    idle = int(
        np.sum(dual.ws_lam[np.arange(dual.ws_a.shape[1])[None] < dual.ws_n[:, None]] == 0)
        + np.sum(dual.beta[dual.beta_in] == 0)
    )
    assert idle > 0
    assert dual.drop_inactive(0) == idle
    assert dual.n_entries() == n_before - idle
    np.testing.assert_array_equal(omega(dual), before)
    assert dual.dual_objective() == obj
    Z, K, q, G, h, lam = dense_restricted_qp(dual)
    np.testing.assert_allclose(Z.T @ lam, before, atol=1e-10)
    assert dual.numba_pass(1e-9) == 0  # still the optimum of the smaller restricted QP


def test_rescale_boxes_clips_betas_and_keeps_omega_consistent():
    _, dual = small_dual(rounds=2, qp_solver="smo")
    dual.conf = dual.conf * 0.3
    dual.rescale_boxes()
    assert np.all(dual.beta <= dual.c2n * dual.conf + 1e-15)
    Z, K, q, G, h, lam = dense_restricted_qp(dual)
    np.testing.assert_allclose(Z.T @ lam, omega(dual), atol=1e-10)


def test_fit_with_smo_matches_fit_with_cvxopt():
    labels, gold_s, part_s = synthetic(3, seed=11, length=5)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    kw = dict(c1=10.0, c2=10.0, max_iter=2, qp_tol=1e-6, epsilon=1e-3, max_passes=50, max_rounds=30, drop_after=0)
    ref = WDPSL(qp_solver="cvxopt", **kw).fit(snap)
    fast = WDPSL(qp_solver="smo", **kw).fit(snap)
    np.testing.assert_allclose(fast.info["objective"], ref.info["objective"], rtol=1e-5)
    np.testing.assert_allclose(fast.weights, ref.weights, atol=1e-4 * max(1.0, np.abs(ref.weights).max()))
    np.testing.assert_array_equal(fast.predict(snap), ref.predict(snap))


@pytest.mark.parametrize("seed", range(4))
def test_sparse_top_k_matches_a_dense_ranking(seed):
    rng = np.random.default_rng(seed)
    n, k = 40, 5
    dense = np.where(rng.random((n, n)) < 0.15, rng.integers(1, 4, size=(n, n)) / 4.0, 0.0)
    import scipy.sparse

    sim = scipy.sparse.csr_matrix(dense)
    noise = 1e-9 * rng.random(sim.nnz)
    fill = rng.integers(n, size=(n, 3))  # short on purpose: exercises the in-order fallback
    out = np.full((n, k), -1, dtype=np.int64)
    _piece_kernels.top_k_rows(
        sim.indptr.astype(np.int64), sim.indices.astype(np.int64), sim.data, 0, n, k, noise, fill, out
    )
    noisy = sim.copy()
    noisy.data = noisy.data + noise
    ranked = noisy.toarray()
    for r in range(n):
        assert r not in out[r] and len(set(out[r])) == k
        scores = ranked[r].copy()
        scores[r] = -1
        positive = np.flatnonzero(scores > 0)
        expect = positive[np.argsort(-scores[positive], kind="stable")][:k]
        np.testing.assert_array_equal(out[r, : len(expect)], expect)
        assert np.all(scores[out[r, len(expect) :]] == 0)  # the rest: pieces of similarity 0


def test_unknown_qp_solver_is_refused():
    labels, gold_s, part_s = synthetic(3, seed=12)
    _, snap, _ = snapshots(labels, gold_s, part_s)
    with pytest.raises(ValueError, match="qp_solver"):
        WDPSL(qp_solver="gurobi").fit(snap)

"""The shared linear-chain model, the QP helper and the progress contract."""

import itertools

import numpy as np
import pytest

from tagtool.core import Corpus, LabelSet, Sentence
from tagtool.core.features import FeatureExtractor
from tagtool.core.snapshot import build_snapshot
from tagtool.core.views import ViewSplit
from tagtool.decode import viterbi
from tagtool.errors import Cancelled
from tagtool.learn import ChainModel, ModelMismatchError, TrainingMonitor
from tagtool.learn.chain import emission_scores
from tagtool.learn.qp import kkt_residuals, solve_qp

LABELS = LabelSet(["O", "B-PER", "I-PER"])


@pytest.fixture
def snapshot():
    sentences = [
        Sentence(["John", "Smith", "runs"], [{"B-PER"}, {"I-PER"}, {"O"}]),
        Sentence(["Mary", "sleeps"], [{"B-PER", "O"}, set()]),
        Sentence(["Bob"], [set()]),
    ]
    fx = FeatureExtractor(min_count=1).fit(sentences)
    return build_snapshot(Corpus.from_sentences(sentences, LABELS), LABELS, fx, ViewSplit("odd-even"))


def random_model(snapshot, n_views=2, seed=0):
    rng = np.random.default_rng(seed)
    model = ChainModel.zeros(LABELS.names, snapshot.n_features, snapshot.feature_view, n_views=n_views)
    for array in (model.weights, model.trans, model.start, model.end):
        array[...] = rng.normal(size=array.shape)
    return model


def test_emissions_sum_each_tokens_feature_weights(snapshot):
    model = random_model(snapshot)
    for view in (-1, 0, 1):
        emit = emission_scores(snapshot, model.weights, view)
        for t in range(snapshot.n_tokens):
            feats = snapshot.token_features(t)
            if view >= 0:
                feats = feats[snapshot.feature_view[feats] == view]
            np.testing.assert_allclose(emit[t], model.weights[feats].sum(axis=0))
    both = emission_scores(snapshot, model.weights, 0) + emission_scores(snapshot, model.weights, 1)
    np.testing.assert_allclose(both, emission_scores(snapshot, model.weights))


def test_joint_prediction_adds_the_views_and_respects_constraints(snapshot):
    model = random_model(snapshot)
    model.set_decode({"bio_constraint": False})
    emit = emission_scores(snapshot, model.weights)
    trans, start, end = model.trans.sum(0), model.start.sum(0), model.end.sum(0)
    for constrained in (False, True):
        paths = model.predict(snapshot, constrained=constrained)
        for i in range(snapshot.n_sentences):
            rows = snapshot.sentence_slice(i)
            allowed = snapshot.allowed[rows] if constrained else None
            np.testing.assert_array_equal(paths[rows], viterbi(emit[rows], trans, start, end, allowed)[0])
    constrained = model.predict(snapshot, constrained=True)
    assert snapshot.allowed[np.arange(snapshot.n_tokens), constrained].all()
    assert list(constrained[:3]) == [1, 2, 0]  # the fully labeled sentence decodes to its labels


def _best_valid_bio_path(emit, trans, start, end, allowed):
    """Brute force: the best path over ``allowed`` with no I-PER at the start or after O (LABELS' order)."""
    best, arg = -np.inf, None
    for path in itertools.product(range(len(LABELS)), repeat=len(emit)):
        if not all(allowed[t, y] for t, y in enumerate(path)) or path[0] == 2:
            continue
        if any(a == 0 and b == 2 for a, b in zip(path, path[1:])):
            continue
        score = start[path[0]] + end[path[-1]] + sum(emit[t, y] for t, y in enumerate(path))
        score += sum(trans[a, b] for a, b in zip(path, path[1:]))
        if score > best:
            best, arg = score, path
    return list(arg)


@pytest.mark.parametrize("seed", range(5))
def test_bio_constraint_decodes_the_best_valid_path_of_the_joint_and_of_each_view(snapshot, seed):
    model = random_model(snapshot, seed=seed)
    model.trans[:, 0, 2] += 5.0  # O -> I-PER: tempting
    assert model.bio_constraint  # the default
    for view in (None, 0, 1):
        emit = emission_scores(snapshot, model.weights, -1 if view is None else view)
        parts = [a.sum(0) if view is None else a[view] for a in (model.trans, model.start, model.end)]
        for constrained in (False, True):
            paths = model.predict(snapshot, constrained=constrained, view=view)
            for i in range(snapshot.n_sentences):
                rows = snapshot.sentence_slice(i)
                allowed = snapshot.allowed[rows] if constrained else np.ones_like(snapshot.allowed[rows])
                assert list(paths[rows]) == _best_valid_bio_path(emit[rows], *parts, allowed)


def test_views_and_disagreement(snapshot):
    model = random_model(snapshot)
    y0, y1 = model.disagreement(snapshot)
    np.testing.assert_array_equal(y0, model.predict(snapshot, view=0))
    np.testing.assert_array_equal(y1, model.predict(snapshot, view=1))
    with pytest.raises(Exception, match="one view"):
        random_model(snapshot, n_views=1).disagreement(snapshot)


def test_score_tokens_margins_and_marginals(snapshot):
    model = random_model(snapshot)
    margins = model.score_tokens(snapshot)
    assert np.allclose(margins.max(axis=1), 0.0)
    np.testing.assert_array_equal(margins.argmax(axis=1), model.predict(snapshot))
    model.probabilistic = True
    marginals = model.score_tokens(snapshot)
    np.testing.assert_allclose(marginals.sum(axis=1), 1.0)


def test_parts_round_trip_and_shape_checks(snapshot):
    model = random_model(snapshot)
    again = ChainModel.from_parts(model.to_meta(), model.to_arrays())
    np.testing.assert_array_equal(again.predict(snapshot), model.predict(snapshot))
    arrays = model.to_arrays()
    arrays["trans"] = arrays["trans"][:, :2]
    with pytest.raises(ModelMismatchError, match="trans"):
        ChainModel.from_parts(model.to_meta(), arrays)
    arrays = model.to_arrays()
    arrays["weights"] = arrays["weights"].copy()
    arrays["weights"][0, 0] = np.nan
    with pytest.raises(ModelMismatchError, match="non-finite"):
        ChainModel.from_parts(model.to_meta(), arrays)


def test_model_refuses_other_feature_space(snapshot):
    model = ChainModel.zeros(LABELS.names, snapshot.n_features + 1, np.zeros(snapshot.n_features + 1))
    with pytest.raises(ModelMismatchError, match="features"):
        model.predict(snapshot)


def test_qp_solution_satisfies_kkt():
    rng = np.random.default_rng(3)
    for n in (1, 3, 8):
        M = rng.normal(size=(n, n))
        P, q = M @ M.T, rng.normal(size=n)
        G = np.vstack([-np.eye(n), np.ones((1, n))])  # x >= 0, sum x <= 1
        h = np.concatenate([np.zeros(n), [1.0]])
        sol = solve_qp(P, q, G, h)
        res = kkt_residuals(sol, P, q, G, h)
        assert sol.status == "optimal"
        assert max(res.values()) < 1e-6, res


def test_monitor_reports_and_cancels():
    seen = []
    stop = {"now": False}
    monitor = TrainingMonitor(lambda f, m: seen.append((f, m)), lambda: stop["now"], min_interval=0)
    monitor.report(0.5, "half")
    assert seen == [(0.5, "half")]
    stop["now"] = True
    with pytest.raises(Cancelled):
        monitor.check()

"""The resampling protocol: pool, draws, label coverage, WD-PSL candidates, results."""

import pathlib

import numpy as np
import pytest

from tagtool.learn import available_learners
from tagtool.services.experiment.config import ExperimentConfig, ExperimentError, pair_settings
from tagtool.services.experiment.draws import candidate_mask, draw_split, gold_indices, label_presence, select_pool
from tagtool.services.experiment.results import standard_error
from tagtool.services.experiment.runner import run_experiment
from tagtool.store.formats import read_corpus

DATA = pathlib.Path(__file__).parent / "data" / "conll2002_esp_train_head.txt"


@pytest.fixture(scope="module")
def corpus():
    return read_corpus(DATA)


def test_settings_pair_up_element_wise():
    assert pair_settings([5, 10, 20], [25, 50, 100]) == [(5, 25), (10, 50), (20, 100)]
    assert pair_settings([5, 10], [7]) == [(5, 7), (10, 7)]
    assert pair_settings([5, 10], None) == [(5, 0), (10, 0)]
    with pytest.raises(ExperimentError, match="element-wise"):
        pair_settings([5, 10, 20], [25, 50])


def test_pool_is_the_first_sentences_in_the_length_range(corpus):
    pool = select_pool(corpus, 20, 10, 40)
    expected = [s for s in corpus if 10 <= len(s) <= 40][:20]
    assert pool == expected


def test_draws_are_disjoint_of_the_asked_sizes_and_cover_every_label(corpus):
    pool = select_pool(corpus, 100, 1, 1000)
    present = label_presence(gold_indices(pool, corpus.labels), len(corpus.labels))
    rng = np.random.default_rng(0)
    for _ in range(20):
        d = draw_split(rng, present, 10, 20, 30, max_redraws=1000)
        assert (len(d.labeled), len(d.unlabeled), len(d.holdout)) == (10, 20, 30)
        assert len(set(d.labeled) | set(d.unlabeled) | set(d.holdout)) == 60
        assert d.covered and present[d.labeled].any(axis=0)[present.any(axis=0)].all()


def test_impossible_coverage_is_reported_not_hidden(corpus):
    pool = select_pool(corpus, 100, 1, 1000)
    present = label_presence(gold_indices(pool, corpus.labels), len(corpus.labels))
    d = draw_split(np.random.default_rng(0), present, 1, 0, 10, max_redraws=50)
    assert not d.covered and len(d.labeled) == 1


@pytest.mark.parametrize(("share", "k"), [(0.5, 3), (0.0, 2), (1.0, 3), (0.3, 20)])
def test_candidate_sets_keep_gold_share_and_size(share, k):
    rng = np.random.default_rng(1)
    n_labels, gold = 9, rng.integers(0, 9, size=1000)
    allowed = candidate_mask(gold, n_labels, share, k, rng)
    assert allowed[np.arange(1000), gold].all()
    sizes = allowed.sum(axis=1)
    assert np.sum(sizes == 1) == round(share * 1000) or k == 1
    assert set(sizes[sizes > 1]) <= {min(k, n_labels)}
    if k < n_labels and share < 1:
        # the other candidates are spread over every label, not a fixed few
        others = allowed & ~np.eye(n_labels, dtype=bool)[gold]
        assert others.sum(axis=0).min() > 0


def test_standard_error():
    assert standard_error([1.0]) == 0.0
    assert standard_error([1.0, 3.0]) == pytest.approx(np.std([1, 3], ddof=1) / np.sqrt(2))


needs_hmm = pytest.mark.skipif("hmm" not in available_learners(), reason="hmm not available")


def _config(**kw):
    base = dict(
        learner="hmm",
        labeled=(5, 10),
        unlabeled=(5, 10),
        holdout=20,
        repeats=3,
        min_length=1,
        max_length=1000,
        pool=100,
        seed=0,
    )
    base.update(kw)
    return ExperimentConfig(**base)


@needs_hmm
def test_results_follow_the_json_schema_and_a_seed_reproduces_them(corpus):
    first = run_experiment(_config(), corpus).to_dict()
    assert first["learner"] == "hmm" and len(first["settings"]) == 2
    keys = {
        "labeled",
        "unlabeled",
        "repeats",
        "token_error_mean",
        "token_error_se",
        "f1_mean",
        "f1_se",
        "train_seconds_mean",
    }
    for setting, (n_l, n_u) in zip(first["settings"], [(5, 5), (10, 10)]):
        assert set(setting) == keys
        assert (setting["labeled"], setting["unlabeled"], setting["repeats"]) == (n_l, n_u, 3)
        assert 0 < setting["token_error_mean"] < 100 and 0 <= setting["f1_mean"] <= 100
    again = run_experiment(_config(), corpus).to_dict()
    other = run_experiment(_config(seed=1), corpus).to_dict()
    strip = lambda d: [{k: v for k, v in s.items() if k != "train_seconds_mean"} for s in d["settings"]]  # noqa: E731
    assert strip(first) == strip(again) and strip(first) != strip(other)


@pytest.mark.parametrize(
    "learner, params, n_unlabeled",
    [("perceptron", {"max_iter": 3}, 0), ("hmm", {}, 10)],  # hmm drops its unlabeled sentences
)
def test_reported_scores_match_an_independent_recomputation(corpus, learner, params, n_unlabeled):
    from tagtool.core import Corpus
    from tagtool.core.metrics import evaluate
    from tagtool.services.experiment.runner import Experiment
    from tagtool.services.pipeline import train_tagger

    if learner not in available_learners():
        pytest.skip(f"{learner} not available")
    config = _config(learner=learner, params=params, labeled=(10,), unlabeled=(n_unlabeled,), repeats=1)
    setting = run_experiment(config, corpus).settings[0]
    assert setting.repeats == 1

    # the same repeat, trained and scored outside the experiment: the public
    # training path (train_tagger, Tagger.tag) on the repeat's draw
    pool = select_pool(corpus, config.pool, config.min_length, config.max_length)
    draw, seed = Experiment(config, corpus).repeat_draw(10, n_unlabeled, 0)
    assert len(draw.labeled) == 10 and len(draw.holdout) == config.holdout
    labeled = Corpus.from_sentences([pool[i] for i in draw.labeled], labels=corpus.labels)
    params = {**params, "random_state": seed} if learner == "perceptron" else params
    tagger = train_tagger(labeled, _make_learner(learner, params), seed=seed)
    holdout = [pool[i] for i in draw.holdout]
    gold = [[next(iter(a)) for a in s.annotations] for s in holdout]
    scores = evaluate(gold, tagger.tag(holdout), corpus.labels)
    assert setting.token_error[0] == pytest.approx(100.0 * scores.token_error, abs=1e-9)
    assert setting.f1[0] == pytest.approx(scores.f1, abs=1e-9)
    # a real score, not a degenerate one
    assert 0 < scores.token_error < 1 and 0 < scores.f1 <= 1


def _make_learner(name, params):
    from tagtool.learn import make_learner

    return make_learner(name, **params)


@needs_hmm
def test_pool_features_and_test_file_modes_run(corpus):
    pooled = run_experiment(_config(fit_features="pool", repeats=2), corpus)
    assert pooled.settings[0].repeats == 2
    tested = run_experiment(_config(repeats=2), corpus, test=read_corpus(DATA))
    assert all(0 <= e < 100 for s in tested.settings for e in s.token_error)


@needs_hmm
def test_partial_protocol_and_notes(corpus):
    from tagtool.learn import NothingToLearnError

    # hmm learns from full sentences only: with candidates everywhere nothing is left, said clearly
    with pytest.raises(NothingToLearnError, match="hmm learns from full"):
        run_experiment(_config(partial_share=0.5, candidates=3, repeats=1), corpus)
    result = run_experiment(_config(repeats=1), corpus)
    assert any("cannot use unlabeled" in n for n in result.notes)


@pytest.mark.skipif("perceptron" not in available_learners(), reason="perceptron not available")
def test_partial_protocol_trains_a_learner_that_uses_candidates(corpus):
    kw = dict(learner="perceptron", params={"max_iter": 3}, labeled=(40,), unlabeled=(0,), repeats=2)
    full = run_experiment(_config(**kw), corpus).settings[0]
    partial = run_experiment(_config(partial_share=0.5, candidates=3, **kw), corpus).settings[0]
    # candidates carry less information than gold labels: not better on average (same draws)
    assert partial.repeats == 2 and np.mean(partial.token_error) >= np.mean(full.token_error) - 1.0


@needs_hmm
def test_pool_too_small_and_bad_protocol_settings(corpus):
    with pytest.raises(ExperimentError, match="exceed the pool"):
        run_experiment(_config(holdout=95), corpus)
    with pytest.raises(ExperimentError, match="candidates"):
        run_experiment(_config(partial_share=0.5), corpus)
    with pytest.raises(ExperimentError, match="partial-share"):
        run_experiment(_config(partial_share=1.5, candidates=3), corpus)


def test_draws_do_not_depend_on_u_or_the_learner(corpus):
    from tagtool.services.experiment.runner import Experiment

    exp = Experiment(_config(learner="hmm"), corpus)
    seen = {}
    original = exp._arrays

    def spy(draw, train_ids, seed):
        seen.setdefault(len(draw.unlabeled), []).append(
            (tuple(draw.labeled), tuple(draw.holdout), tuple(draw.unlabeled))
        )
        return original(draw, train_ids, seed)

    exp._arrays = spy
    exp.run_repeat(5, 0, 0)
    exp.run_repeat(5, 10, 0)
    (lab0, hold0, _), (lab10, hold10, unl10) = seen[0][0], seen[10][0]
    assert lab0 == lab10 and hold0 == hold10 and len(unl10) == 10

"""A learner keeps no fitted state: ``fit`` returns the model, diagnostics go into ``model.info``.

So one learner object can be fitted again and again (the app retrains the same object after every edit) and
gives what a fresh one gives; whatever a fit produced beside the weights lives in the model it returned.
"""

import json

import numpy as np
import pytest
from test_svm import two_view_data, with_allowed

from tagtool.learn import available_learners

LEARNERS = available_learners()

#: Small budgets, by parameter name, applied where a learner has the parameter (old and new names).
FAST = {
    "epochs": 3,
    "max_epochs": 2,
    "max_iter": 2,
    "cu_epochs": 1,
    "cu_ramp_iter": 1,
    "max_iterations": 20,
    "supervised_iterations": 20,
    "supervised_max_iter": 20,
    "max_alternations": 1,
    "max_rounds": 3,
    "max_passes": 1,
}


def make(name: str):
    cls = LEARNERS[name]
    return cls().set_params(**{k: v for k, v in FAST.items() if k in cls.param_names()})


def mixed(seed: int):
    """Two-view data with 8 fully labeled, 4 partially labeled and 8 unlabeled sentences."""
    data, _ = two_view_data(20, seed=seed, noise=0.1, vocab=10)
    allowed = data.allowed.copy()
    for i in range(8, 12):  # every other token free
        allowed[data.offsets[i] : data.offsets[i + 1] : 2] = True
    allowed[data.offsets[12] :] = True
    return with_allowed(data, allowed)


def same_model(a, b) -> None:
    for name in ("weights", "trans", "start", "end"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-9, atol=1e-12, err_msg=name)
    drop = {"train_seconds"}
    assert {k: v for k, v in a.info.items() if k not in drop} == {k: v for k, v in b.info.items() if k not in drop}


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_fit_adds_no_attribute_to_the_learner(name):
    learner = make(name)
    before = dict(vars(learner))
    model = learner.fit(mixed(1))
    assert vars(learner) == before, f"{name} changed its own attributes during fit"
    assert model.learner == name
    json.dumps(model.to_meta())  # the diagnostics in info are saved with the model; extras are not


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_a_learner_fitted_twice_gives_what_fresh_learners_give(name):
    first, second = mixed(1), mixed(2)
    learner = make(name)
    learner.fit(first)
    again = learner.fit(second)
    same_model(again, make(name).fit(second))
    same_model(learner.fit(first), make(name).fit(first))

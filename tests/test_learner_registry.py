"""One place for each fact about a learner: its class and its entry in ``tagtool.learn.REGISTRY``.

The command line, the queue strategies and the README follow the registry;
what a learner offers (its parameter table, two views, candidate
confidences) is read from its class.  A learner added to the registry shows
up in every derived list, and parameter values are checked when they are set.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

import tagtool
import tagtool.learn
from tagtool.cli.main import main
from tagtool.cli.parser import build_parser
from tagtool.core.params import Param, ParamTable
from tagtool.learn import (
    REGISTRY,
    InvalidParameterError,
    Learner,
    available_learners,
    find_learner,
    learner_names,
    make_learner,
)
from tagtool.learn.chain import ChainModel
from tagtool.services import strategies

PACKAGE = pathlib.Path(tagtool.__file__).parent
README = PACKAGE.parent / "README.md"
CONLL = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"
#: Files that stage scenes with a named learner (the README's screenshots), not a list of learners.
NAMED_ON_PURPOSE = {"gui/screenshots.py"}


class ExtraLearner(Learner):
    """A learner added to the registry by a test: two views, confidences, the common pass and seed names."""

    name = "extra"
    uses = frozenset({"full", "partial", "none"})
    two_view = True
    gives_confidences = True
    params = ParamTable(
        Param("max_iter", int, 4, "rounds", low=1, aliases=("rounds",)),
        Param("random_state", int, 0, "dice", aliases=("dice",)),
        Param("rate", float, 0.5, "a rate", low=0.0, low_open=True, high=1.0),
        owner="extra",
    )

    def __init__(self, max_iter: int = 4, random_state: int = 0, rate: float = 0.5):
        self.max_iter, self.random_state, self.rate = max_iter, random_state, rate

    @staticmethod
    def candidate_confidences(model, snapshot):
        return snapshot.allowed / snapshot.allowed.sum(axis=1, keepdims=True)

    def _fit(self, snapshot, warm_start, monitor):
        model = ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view, n_views=2)
        tokens = np.repeat(np.arange(snapshot.n_tokens), np.diff(snapshot.feat_indptr))
        np.add.at(model.weights, snapshot.feat_indices, snapshot.allowed[tokens].astype(float))
        return model


@pytest.fixture
def extra(monkeypatch):
    monkeypatch.setitem(REGISTRY, "extra", "tests.test_learner_registry:ExtraLearner")
    return "extra"


def _learner_help() -> str:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    train = sub.choices["train"]
    return next(a for a in train._actions if a.dest == "learner").help


# ---------------------------------------------------------------------------
# the registry and the learners' own metadata


def test_every_registered_learner_carries_consistent_metadata():
    learners = available_learners()
    assert tuple(learners) == tuple(REGISTRY), "every registered learner imports"
    for name, cls in learners.items():
        params = cls.param_names()
        assert cls.name == name and issubclass(cls, Learner)
        assert params == cls.params.names(), name
        assert cls.uses <= {"full", "partial", "none"} and cls.uses, name
        overrides = cls.candidate_confidences is not Learner.candidate_confidences
        assert cls.gives_confidences == overrides, f"{name}: gives_confidences and candidate_confidences agree"
        cls().check_params()  # the defaults are in range
    assert learner_names(gives_confidences=True) == ("wdpsl",)
    assert set(learner_names(two_view=True)) == {"cosvm", "mv-perceptron"}
    assert find_learner("no such learner") is None


def test_no_module_outside_the_learners_names_a_learner():
    """Branches such as ``== "wdpsl"`` and hand-kept lists of names read the classes instead."""
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("learn/") or relative in NAMED_ON_PURPOSE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in REGISTRY:
                named.append(f"{relative}:{node.lineno} {node.value!r}")
    assert not named, named


def test_readme_lists_every_learner():
    table = next(line for line in README.read_text(encoding="utf-8").splitlines() if line.startswith("| learners"))
    assert all(f"`{name}`" in table for name in REGISTRY), table


# ---------------------------------------------------------------------------
# derived lists follow a learner added to the registry


def test_cli_help_lists_every_registered_learner(extra):
    text = " ".join(_learner_help().split())
    assert all(name in text for name in REGISTRY), text
    assert "extra" in text


def test_strategies_and_lists_follow_an_added_learner(extra):
    assert "extra" in learner_names(two_view=True) and "extra" in learner_names(gives_confidences=True)
    confidence, disagreement = strategies.get("confidence"), strategies.get("disagreement")
    assert strategies.unavailable(confidence, "extra", two_view=True) is None
    assert "--learner extra" in strategies.unavailable(confidence, "crf", two_view=False)
    assert "extra" in strategies.unavailable(disagreement, "crf", two_view=False)
    assert "wdpsl" in strategies.unavailable(confidence, "crf", two_view=False)


def test_cli_trains_an_added_learner_with_its_seed_parameter(extra, tmp_path, capsys):
    from tagtool.tagger.model import load_tagger

    model = tmp_path / "m.tagger"
    code = main(
        ["train", str(CONLL), "--learner", "extra", "--seed", "7", "--set", "features.min_count=1", "-o", str(model)]
    )
    assert code == 0, capsys.readouterr().err
    assert load_tagger(model).model.params == {"max_iter": 4, "random_state": 7, "rate": 0.5}


def test_the_app_retrain_caps_the_pass_parameter_the_class_names(extra):
    from tagtool.gui.run_plan import _learner_passes

    assert _learner_passes(make_learner("extra", max_iter=9)) == ("max_iter", 9)
    assert _learner_passes(make_learner("extra", rounds=8)) == ("max_iter", 8), "an old name sets the new one"
    assert _learner_passes(make_learner("hmm")) is None
    assert _learner_passes(make_learner("cosvm")) == ("max_iter", 10), "not cu_ramp_iter"


# ---------------------------------------------------------------------------
# parameter values are checked when they are set


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("svm", {"C": -1.0}, "svm: C: expected a number in (0.0, inf), got -1.0"),
        ("cosvm", {"balance": 0.0}, "cosvm: balance: expected a number in (0.0, inf) or none, got 0.0"),
        ("perceptron", {"max_iter": -1}, "perceptron: max_iter: expected an int in [0, inf), got -1"),
        ("mv-perceptron", {"c_u": 2.0}, "mv-perceptron: c_u: expected a number in [0.0, 1.0], got 2.0"),
        ("crf", {"c2": -0.5}, "crf: c2: expected a number in [0.0, inf), got -0.5"),
        ("crf", {"max_iter": 0}, "crf: max_iter: expected an int in [1, inf), got 0"),
        ("crf", {"n_jobs": "two"}, "crf: n_jobs: expected an int in [1, inf) or none, got 'two'"),
        ("entropy-crf", {"gamma": -1.0}, "entropy-crf: gamma: expected a number in [0.0, inf), got -1.0"),
        ("hmm", {"smoothing": 0.0}, "hmm: smoothing: expected a number in (0.0, inf), got 0.0"),
        ("wdpsl", {"qp_solver": "gurobi"}, "wdpsl: qp_solver: expected one of smo, cvxopt, got 'gurobi'"),
        ("cosvm", {"peer_margin": 0.5, "loss": "zero-one"}, "cosvm: peer_margin needs loss='hamming'"),
    ],
)
def test_bad_values_are_refused_when_set(name, params, message):
    with pytest.raises(InvalidParameterError) as info:
        make_learner(name, **params)
    assert str(info.value).startswith(message)
    learner = make_learner(name)
    before = learner.get_params()
    with pytest.raises(InvalidParameterError):
        learner.set_params(**params)
    assert learner.get_params() == before, "a refused value leaves the learner as it was"


def test_unknown_parameter_is_an_invalid_parameter_error():
    with pytest.raises(InvalidParameterError, match="unknown perceptron setting 'colour'"):
        make_learner("perceptron", colour="red")


def test_cli_refuses_a_bad_value_before_reading_any_data(tmp_path, capsys, monkeypatch):
    """The data file does not exist: the parameter check comes first, in one line."""
    monkeypatch.chdir(tmp_path)
    code = main(["train", "missing.txt", "--learner", "svm", "--set", "C=-1", "-o", "m.tagger"])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and lines == ["tagtool: error: svm: C: expected a number in (0.0, inf), got '-1'"], err
    assert not (tmp_path / "m.tagger").exists()

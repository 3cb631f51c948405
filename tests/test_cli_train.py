"""The learning commands: train, tag, evaluate, experiment (a stable contract)."""

import json
import os
import pathlib
import signal
import time

import numpy as np
import pytest

import tagtool.learn
from tagtool.cli.main import main
from tagtool.core.params import Param, ParamTable
from tagtool.learn import Learner
from tagtool.learn.chain import ChainModel
from tagtool.store.formats import read_corpus
from tagtool.tagger.model import load_tagger

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"
ESP = DATA / "conll2002_esp_train_head.txt"


class TinyLearner(Learner):
    """Counts features per allowed label (fast; the CLI plumbing is what is tested)."""

    name = "tiny"
    uses = frozenset({"full", "partial"})
    params = ParamTable(
        Param("scale", float, 1.0, "weight of a count"),
        Param("passes", int, 1, "passes", low=1),
        Param("flag", bool, False, "a switch"),
        Param("random_state", int, 0, "a seed", aliases=("seed",)),
        owner="tiny",
    )

    def __init__(self, scale: float = 1.0, passes: int = 1, flag: bool = False, random_state: int = 0):
        self.scale, self.passes, self.flag, self.random_state = scale, passes, flag, random_state

    def _fit(self, snapshot, warm_start, monitor):
        model = warm_start or ChainModel.zeros(snapshot.labels, snapshot.n_features, snapshot.feature_view)
        tokens = np.repeat(np.arange(snapshot.n_tokens), np.diff(snapshot.feat_indptr))
        mass = snapshot.allowed / snapshot.allowed.sum(axis=1, keepdims=True)
        for p in range(self.passes):
            np.add.at(model.weights, snapshot.feat_indices, self.scale * mass[tokens])
            monitor.report((p + 1) / self.passes, "counting")
        return model


class SlowTwoViewLearner(TinyLearner):
    """Sends itself Ctrl-C, then keeps working until the cancel check stops it."""

    name = "slow"
    two_view = True

    def _fit(self, snapshot, warm_start, monitor):
        os.kill(os.getpid(), signal.SIGINT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            time.sleep(0.01)
            monitor.check()
        raise AssertionError("never cancelled")


@pytest.fixture(autouse=True)
def toy_learners(monkeypatch):
    real = tagtool.learn.available_learners
    monkeypatch.setattr(
        tagtool.learn, "available_learners", lambda: {**real(), "tiny": TinyLearner, "slow": SlowTwoViewLearner}
    )


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_train_tag_evaluate(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    code, out, err = run(
        capsys,
        "train",
        CONLL,
        "--learner",
        "tiny",
        "--set",
        "scale=2",
        "--set",
        "flag=yes",
        "--set",
        "features.min_count=1",
        "--set",
        "features.window=2",
        "--seed",
        5,
        "-o",
        model,
    )
    assert code == 0, err
    assert f"wrote {model}" in out
    tagger = load_tagger(model)
    assert tagger.model.params == {"scale": 2.0, "passes": 1, "flag": True, "random_state": 5}
    assert (tagger.extractor.min_count, tagger.extractor.window) == (1, 2)
    assert tagger.view_split is None

    code, out, err = run(capsys, "evaluate", model, CONLL, "--json")
    assert code == 0, err
    scores = json.loads(out)
    for key in ("token_accuracy", "token_error", "precision", "recall", "f1", "sentences", "tokens"):
        assert key in scores
    gold = read_corpus(CONLL)
    pred = tagger.tag(gold)
    flat_gold = [next(iter(a)) for s in gold for a in s.annotations]
    assert scores["scale"] == "percent"
    assert scores["token_accuracy"] == pytest.approx(100 * np.mean([p == g for p, g in zip(sum(pred, []), flat_gold)]))
    assert (scores["sentences"], scores["tokens"]) == (len(gold), gold.n_tokens)

    code, out, _ = run(capsys, "evaluate", model, CONLL)
    assert code == 0 and "token accuracy" in out and "F1" in out


@pytest.mark.parametrize("fmt", ["conll", "text", "jsonl"])
def test_tag_writes_each_format_atomically_or_to_stdout(tmp_path, capsys, fmt):
    model = tmp_path / "m.tagger"
    assert run(capsys, "train", CONLL, "--learner", "tiny", "-o", model)[0] == 0
    tagger = load_tagger(model)
    expected = tagger.tag(read_corpus(CONLL))
    output = tmp_path / f"out.{fmt}"
    code, out, err = run(capsys, "tag", model, CONLL, "-o", output, "--format", fmt, "--batch-size", 7)
    assert code == 0 and out == "" and "tagged 100 sentences" in err
    options = {"tagged": True} if fmt == "text" else {}
    back = read_corpus(output, fmt, **options)
    assert [[next(iter(a)) for a in s.annotations] for s in back] == expected
    assert [s.tokens for s in back] == [s.tokens for s in read_corpus(CONLL)]
    code, out, _ = run(capsys, "tag", model, CONLL, "--format", fmt)
    assert code == 0 and out == output.read_text(encoding="utf-8")


def test_tag_conll_keeps_input_columns_and_appends_the_prediction(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    run(capsys, "train", CONLL, "--learner", "tiny", "-o", model)
    code, out, _ = run(capsys, "tag", model, CONLL)
    first = out.splitlines()[0].split()
    assert code == 0 and first[:3] == CONLL.read_text().splitlines()[0].split() and len(first) == 4


def test_partial_and_missing_labels_in_data_are_used_as_such(tmp_path, capsys):
    lines = CONLL.read_text(encoding="utf-8").split("\n\n")
    partial = "\n".join(
        " ".join(line.split()[:2] + ["B-NP|I-NP" if i % 2 else line.split()[2]])
        for i, line in enumerate(lines[1].splitlines())
    )
    unlabeled = "\n".join(" ".join(line.split()[:2] + ["_"]) for line in lines[2].splitlines())
    data = tmp_path / "mixed.txt"
    data.write_text("\n\n".join([lines[0], partial, unlabeled]) + "\n\n", encoding="utf-8")
    model = tmp_path / "m.tagger"
    code, _, err = run(capsys, "train", data, "--learner", "tiny", "-o", model)
    assert code == 0
    assert load_tagger(model).model.info["sentences"] == {"full": 1, "partial": 1, "none": 1}
    assert "tiny cannot use unlabeled sentences: 1 left out" in err


def test_unlabeled_file_and_views_setting(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    code, _, err = run(
        capsys, "train", CONLL, "--learner", "tiny", "--unlabeled", ESP, "--set", "views.kind=odd-even", "-o", model
    )
    assert code == 0, err
    tagger = load_tagger(model)
    assert tagger.view_split.kind == "odd-even"
    assert tagger.model.info["sentences"]["none"] == 100
    assert "w=Melbourne" in set(tagger.extractor.feature_names_)  # unlabeled text is in the vocabulary


def test_warm_start_option(tmp_path, capsys):
    first, second = tmp_path / "a.tagger", tmp_path / "b.tagger"
    assert run(capsys, "train", CONLL, "--learner", "tiny", "-o", first)[0] == 0
    code, _, err = run(capsys, "train", CONLL, "--learner", "tiny", "--warm-start", first, "-o", second)
    assert code == 0, err
    np.testing.assert_allclose(load_tagger(second).model.weights, 2 * load_tagger(first).model.weights)


def test_ctrl_c_stops_training_cleanly_without_a_model_file(tmp_path, capsys):
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN where the test run itself was started in the background
    model = tmp_path / "m.tagger"
    started = time.monotonic()
    code, _, err = run(capsys, "train", CONLL, "--learner", "slow", "-o", model)
    assert code == 130 and time.monotonic() - started < 5
    assert "cancelled" in err and not model.exists() and list(tmp_path.iterdir()) == []
    assert signal.getsignal(signal.SIGINT) is before, "the handler the command found is back"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["train", CONLL, "--learner", "nope", "-o", "m"], "unknown learner 'nope'"),
        (["train", "missing.txt", "--learner", "tiny", "-o", "m"], "missing.txt"),
        (["tag", CONLL, CONLL], "not a tagger file"),
        (["evaluate", "missing.tagger", CONLL], "missing.tagger"),
        (
            ["experiment", "--learner", "tiny", "--data", ESP, "--labeled", "5,10", "--unlabeled", "1,2,3"],
            "element-wise",
        ),
    ],
)
def test_errors_are_one_line_and_exit_1(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    lines = [line for line in err.splitlines() if line.startswith("tagtool:")]
    assert code == 1 and len(lines) == 1 and message in lines[0], err


@pytest.mark.parametrize(
    ("setting", "message"),
    [("colour=red", "unknown tiny setting 'colour'"), ("passes=many", "tiny: passes: expected an int in [1, inf)")],
)
def test_a_bad_setting_is_a_usage_error(tmp_path, monkeypatch, capsys, setting, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "train", CONLL, "--learner", "tiny", "--set", setting, "-o", "m")
    lines = [line for line in err.splitlines() if line.startswith("tagtool:")]
    assert code == 2 and len(lines) == 1 and message in lines[0], err


def test_experiment_prints_a_table_and_writes_the_json_schema(tmp_path, capsys):
    out_json = tmp_path / "r.json"
    argv = [
        "experiment",
        "--learner",
        "tiny",
        "--data",
        ESP,
        "--labeled",
        "5,10",
        "--unlabeled",
        "5,10",
        "--holdout",
        20,
        "--repeats",
        2,
        "--min-length",
        1,
        "--max-length",
        100,
        "--pool",
        100,
        "--set",
        "passes=2",
        "--json",
        out_json,
    ]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    result = json.loads(out_json.read_text())
    assert set(result) == {"learner", "scale", "settings"} and result["learner"] == "tiny"
    assert result["scale"] == "percent"
    assert [(s["labeled"], s["unlabeled"], s["repeats"]) for s in result["settings"]] == [(5, 5, 2), (10, 10, 2)]
    for s in result["settings"]:
        assert set(s) == {
            "labeled",
            "unlabeled",
            "repeats",
            "token_error_mean",
            "token_error_se",
            "f1_mean",
            "f1_se",
            "train_seconds_mean",
        }
        assert f"{s['token_error_mean']:.2f} ± {s['token_error_se']:.2f}" in out
    assert "cannot use unlabeled" in out
    again = tmp_path / "again.json"
    assert run(capsys, *argv[:-1], again)[0] == 0
    same = json.loads(again.read_text())
    assert [s["token_error_mean"] for s in same["settings"]] == [s["token_error_mean"] for s in result["settings"]]


# ---------------------------------------------------------------------------
# feature columns: no gold field of a CoNLL-U file leaks into the features

UD = DATA / "ud_en_ewt_train_head.conllu"


def test_train_on_conllu_uses_no_gold_field_and_evaluates(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    code, _, err = run(capsys, "train", UD, "--learner", "tiny", "-o", model)
    assert code == 0, err
    assert "warning" not in err
    assert load_tagger(model).extractor.columns_ == ()
    code, out, err = run(capsys, "evaluate", model, UD)
    assert code == 0 and "token accuracy" in out and "warning" not in err


def test_train_warns_when_a_named_feature_column_is_a_gold_layer(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    code, _, err = run(capsys, "train", UD, "--learner", "tiny", "--set", "features.columns=xpos,feats", "-o", model)
    assert code == 0
    warnings = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 2 and "'xpos' is a gold annotation layer" in warnings[0] and "'feats'" in warnings[1]
    assert load_tagger(model).extractor.columns_ == ("xpos", "feats")


@pytest.mark.parametrize(
    "data, setting, known",
    [
        (UD, "features.columns=pos", "lemma, xpos, feats, head, deprel, deps, misc"),
        (UD, "features.columns=upos", "lemma, xpos, feats, head, deprel, deps, misc"),  # upos is the label here
        (CONLL, "features.pos_column=col2", "col1"),
    ],
)
def test_unknown_feature_column_is_an_error_listing_the_known_ones(tmp_path, capsys, data, setting, known):
    model = tmp_path / "m.tagger"
    args = ["--set", "features.feature_set=crfsuite"] if "pos_column" in setting else []
    code, _, err = run(capsys, "train", data, "--learner", "tiny", "--set", setting, *args, "-o", model)
    assert code == 1 and not model.exists()
    error = err.strip().splitlines()[-1]  # after the warning for upos, a CoNLL-U field
    assert error.startswith("tagtool: error: features.") and "unknown column(s)" in error
    assert f"(columns of the training data: {known};" in error and "training tiny" not in err  # before training


def test_train_help_says_how_extra_columns_become_features(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    out = capsys.readouterr().out
    assert "extra columns as features:" in out and "--set features.columns=xpos" in out
    assert "--allow-missing-columns" in out


def test_train_without_learner_uses_the_default_learner(tmp_path):
    """One default for the CLI and the app (tagtool.learn.DEFAULT_LEARNER; the app's is tested in tests/gui)."""
    out = tmp_path / "default.tagger"
    assert main(["train", str(CONLL), "-o", str(out)]) == 0
    assert load_tagger(out).learner == tagtool.learn.DEFAULT_LEARNER

"""``tagtool simulate --costs-from PROJECT``: the costs measured in an app session's action log."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from tagtool.cli.main import main
from tagtool.cli.simulating import COSTS_MIN_TOKENS
from tagtool.core import Corpus
from tagtool.services.annotation_costs import MIN_TOKENS
from tagtool.services.simulate.config import Costs
from tagtool.services.simulate.oracle import Oracle
from tagtool.store.actions import Action
from tagtool.store.formats import read_corpus, write_corpus
from tagtool.store.project import Project

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("costs")
    gold = read_corpus(DATA)
    paths = []
    for name, sentences in (("data.txt", gold.sentences[:60]), ("test.txt", gold.sentences[60:])):
        write_corpus(Corpus.from_sentences(sentences, labels=gold.labels), folder / name, format="conll")
        paths.append(str(folder / name))
    return folder, gold, paths


def _project(folder, gold, log) -> pathlib.Path:
    """A project whose action log holds ``log``: ``(kind, tokens, active seconds)`` per action."""
    path = folder / f"log{len(list(folder.glob('*.tagproj')))}.tagproj"
    corpus = Corpus.from_sentences([s.unlabeled() for s in gold.sentences[:5]], labels=gold.labels)
    with Project.create(path, corpus) as project:
        t = 1_700_000_000.0
        for kind, n, active in log:
            project.log_action(Action(kind, n, t, t + active, active), project.sentence_ids()[0])
            t += active
    return path


#: 2 s per full label; 1.2 s per candidate set (0.6); 0.1 s per accepted suggestion (0.05); 5 skips only.
MEASURED = [("full", 10, 20.0)] * 4 + [("candidate", 10, 12.0)] * 3 + [("accept", 15, 1.5)] * 2 + [("skip", 5, 3.0)]


def test_the_parser_states_the_threshold_it_uses():
    assert COSTS_MIN_TOKENS == MIN_TOKENS


def test_an_accepted_suggestion_has_its_own_cost():
    gold = np.array([0, 1, 2, 0])
    oracle = Oracle(gold, np.array([0, 4]), 3, Costs(full=1.0, partial=0.5, skip=0.1, accept=0.05))
    accepted = np.array([True, False, True, True])
    assert oracle.annotate(0, np.ones(4, bool), accepted=accepted) == pytest.approx(1 + 3 * 0.05)
    assert Costs().accepted == 0.1 and Costs(skip=0.3).accepted == 0.3
    assert Costs().to_dict() == {"full": 1.0, "partial": 0.5, "skip": 0.1}


def test_simulate_uses_and_prints_the_measured_costs(files, capsys):
    folder, gold, (data, test) = files
    project = _project(folder, gold, MEASURED)
    out = folder / "curve.json"
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--set",
            "max_iter=1",
            "--strategy",
            "random",
            "--mode",
            "review",
            "--step",
            "150",
            "--budget",
            "300",
            "--full-data-f1",
            "80",
            "--costs-from",
            str(project),
            "--json",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"costs measured in {project}") and "60 s" in printed[0]
    rows = {" ".join(line.split()[:2]): line.split() for line in printed[2:6]}
    assert rows["full label"][2:] == ["4", "40", "80.0", "2.00", "1"]
    assert rows["candidate set"][2:] == ["3", "30", "36.0", "1.20", "0.6"]
    assert rows["accepted suggestion"][2:] == ["2", "30", "3.0", "0.10", "0.05"]
    assert rows["skipped token"][2:] == ["1", "5", "3.0", "0.60", "0.1*"]
    assert printed[6].split()[2:] == ["0", "0.0", "-", "1.4*"], "no sentence opened in this log"
    assert "skipped token: 5 token(s) in the log, fewer than 20; the default 0.1 is used" in printed[8]
    assert "opened sentence: 0 sentence(s) observed, fewer than 20; the default 1.4 is used" in printed[9]
    assert "costs: full label 1, candidate set 0.6, skipped token 0.1, accepted suggestion 0.05" in printed[10]
    result = json.loads(out.read_text())
    assert result["costs"] == {"full": 1.0, "partial": 0.6, "skip": 0.1, "accept": pytest.approx(0.05)}
    assert any(str(project) in note for note in result["notes"])


def test_a_cost_given_on_the_command_line_replaces_the_measured_one(files, capsys, monkeypatch):
    import tagtool.services.simulate.loop as sim

    folder, gold, (data, test) = files
    project = _project(folder, gold, MEASURED)
    seen = []

    def stop_here(config, *args, **kwargs):
        seen.append(config.costs)
        raise KeyboardInterrupt

    monkeypatch.setattr(sim, "simulate", stop_here)
    main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--strategy",
            "random",
            "--costs-from",
            str(project),
            "--cost-partial",
            "0.4",
            "--cost-skip",
            "0.2",
        ]
    )
    printed = capsys.readouterr().out
    assert seen == [Costs(full=1.0, partial=0.4, skip=0.2, accept=pytest.approx(0.05))]
    assert "--cost-partial 0.4 replaces the measured 0.6" in printed and "--cost-skip 0.2 given" in printed


@pytest.mark.parametrize(
    "log, extra, message",
    [
        (None, [], "no such"),
        ([], [], "its action log is empty"),
        ([("full", 5, 10.0), ("accept", 100, 10.0)], [], "its action log holds 5 full label(s) (at least 20"),
        (MEASURED, ["--cost-full", "2"], "--cost-full cannot be used with --costs-from"),
    ],
)
def test_a_log_that_cannot_give_the_costs_is_one_error_line(files, capsys, log, extra, message):
    folder, gold, (data, test) = files
    project = folder / "missing.tagproj" if log is None else _project(folder, gold, log)
    code = main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--strategy",
            "random",
            "--costs-from",
            str(project),
            *extra,
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1, err
    assert err[0].startswith("tagtool: error: ") and message in err[0]
    if log is not None and "--cost-full" not in extra:
        assert str(project) in err[0]


def _visits_project(folder, gold, visits: int) -> pathlib.Path:
    """A project whose log holds ``visits`` sentences opened as the app logs them.

    Each visit: 9 s to open the sentence, its first label (1 token, no time
    of its own), then 2 more tokens labeled in 4 s; so 2 s per full label,
    and 9 s − 1 × 2 s = 7 s (3.5 full labels) to open a sentence.
    """
    path = folder / f"visits{visits}.tagproj"
    corpus = Corpus.from_sentences([s.unlabeled() for s in gold.sentences[:visits]], labels=gold.labels)
    with Project.create(path, corpus) as project:
        t = 1_700_000_000.0
        for sid in project.sentence_ids():
            n = len(project.sentence(sid).tokens)
            opened, first = Action("open", n, t, t + 9.0, 9.0), Action("full", 1, t + 9.0, t + 9.0, 0.0)
            project.apply_action(sid, {0: "O"}, first, opened=opened)
            project.apply_action(sid, {1: "O", 2: "O"}, Action("full", 2, t + 9.0, t + 13.0, 4.0))
            t += 13.0
    return path


@pytest.mark.parametrize("visits, sentence", [(MIN_TOKENS, 3.5), (MIN_TOKENS - 1, None)])
def test_costs_from_reads_the_cost_of_opening_a_sentence(files, capsys, monkeypatch, visits, sentence):
    import tagtool.services.simulate.loop as sim

    folder, gold, (data, test) = files
    project = _visits_project(folder, gold, visits)
    seen = []

    def stop_here(config, *args, **kwargs):
        seen.append(config.costs)
        raise KeyboardInterrupt

    monkeypatch.setattr(sim, "simulate", stop_here)
    main(
        [
            "simulate",
            "--data",
            data,
            "--test",
            test,
            "--learner",
            "perceptron",
            "--strategy",
            "gain",
            "--costs-from",
            str(project),
        ]
    )
    printed = capsys.readouterr().out.splitlines()
    rows = {" ".join(line.split()[:2]): line.split() for line in printed[2:7]}
    # the first labels' tokens count, their time went to opening the sentence
    assert rows["full label"][2:] == [str(2 * visits), str(3 * visits), f"{4.0 * visits:.1f}", "2.00", "1"]
    cost = "3.5" if sentence is not None else "1.4*"
    assert rows["opened sentence"][2:] == [str(visits), f"{9.0 * visits:.1f}", "7.00", cost]
    assert any(f"{visits} of the {visits} sentences opened in the log are observations" in line for line in printed)
    missing = f"opened sentence: {visits} sentence(s) observed, fewer than {MIN_TOKENS}; the default 1.4 is used"
    assert any(missing in line for line in printed) == (sentence is None)
    assert seen == [Costs(full=1.0, sentence=pytest.approx(sentence) if sentence is not None else None)]
    assert seen[0].opening == pytest.approx(sentence or 1.4)

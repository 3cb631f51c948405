"""The mode a project's own data propose (tagtool.services.mode_advice) and ``tagtool mode``."""

from __future__ import annotations

import pathlib

import pytest

from tagtool.cli.main import main
from tagtool.core import Corpus
from tagtool.errors import Cancelled
from tagtool.services import mode_advice as ma
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


@pytest.fixture(scope="module")
def gold():
    return list(read_corpus(CONLL).sentences)


def test_too_few_labeled_sentences_propose_the_suites_mode_for_the_labels_and_say_why(gold):
    some = [s if i < 10 else s.unlabeled() for i, s in enumerate(gold)]
    advice = ma.advise(some)  # chunks: spans
    assert advice.mode == "tokens" and not advice.measured
    assert "10 fully labeled sentences are too few" in advice.reason and ma.SUITE in advice.reason
    pos = list(read_corpus(DATA / "ptb_wsj_sample_head.txt").sentences)[:10]
    advice = ma.advise(pos)  # word classes
    assert advice.mode == "review" and "reviewing leaves every token labeled" in advice.reason


def test_only_fully_labeled_sentences_count(gold):
    partial = gold[0].with_annotations([frozenset({"O", "B-NP"})] + list(gold[0].annotations[1:]))
    assert ma.fully_labeled([gold[1], gold[2].unlabeled(), partial]) == [gold[1]]


def test_the_split_is_a_seeded_two_thirds_pool_and_a_held_out_third(gold):
    pool, test = ma.split(gold, seed=3)
    again, _ = ma.split(gold, seed=3)
    other, _ = ma.split(gold, seed=4)
    assert (len(pool), len(test)) == (66, 34)
    assert [s.tokens for s in pool] == [s.tokens for s in again] != [s.tokens for s in other]
    assert {tuple(s.tokens) for s in pool}.isdisjoint({tuple(s.tokens) for s in test})


@pytest.mark.parametrize(
    ("review", "tokens", "spans", "mode", "note"),
    [
        (0.20, 0.10, False, "tokens", False),  # cheaper by more than one step (x1.25)
        (0.20, 0.18, False, "review", True),  # cheaper, but within one step: word classes lean to review
        (0.20, 0.18, True, "tokens", False),  # spans lean to token questions
        (0.18, 0.20, True, "tokens", True),
        (0.10, 0.30, True, "review", False),
        (None, 0.30, False, "tokens", False),  # review never got there
        (0.30, None, True, "review", False),
        (None, None, False, "review", False),
        (None, None, True, "tokens", False),
    ],
)
def test_the_verdict_takes_the_mode_cheaper_beyond_one_step_else_the_suites(review, tokens, spans, mode, note):
    advice = ma._verdict({"review": review, "tokens": tokens}, 200, 200, measured_costs=False, span_labels=spans)
    assert advice.mode == mode and advice.measured and advice.sentences == 200
    assert ("not cheaper by more than one step" in advice.reason) == note
    assert "the default costs" in advice.reason and "200 of your fully labeled" in advice.reason
    sampled = ma._verdict({"review": review, "tokens": tokens}, 900, 600, measured_costs=True, span_labels=spans)
    assert "600 of 900 of your" in sampled.reason and "your measured annotation costs" in sampled.reason


def test_a_proposal_is_measured_on_the_project_sentences_and_can_be_cancelled(gold):
    progress = []
    advice = ma.advise(gold, "perceptron", progress=lambda f, m="": progress.append(f))
    assert advice.measured and advice.sentences == len(gold) and set(advice.cost_share) == {"review", "tokens"}
    assert advice.mode in ("review", "tokens") and "simulated on 100 of your" in advice.reason
    assert progress and max(progress) <= 1.0 and min(progress) >= 0.0
    with pytest.raises(Cancelled):
        ma.advise(gold, "perceptron", should_stop=lambda: True)


def test_the_project_keeps_its_mode(tmp_path, gold):
    path = tmp_path / "p.tagproj"
    with Project.create(path, Corpus.from_sentences(gold)) as project:
        assert ma.project_mode(project) == "review"
        ma.set_project_mode(project, "tokens")
        assert ma.project_mode(project) == "tokens"
        with pytest.raises(ValueError, match="unknown mode"):
            ma.set_project_mode(project, "partial")


def test_the_mode_command_sets_shows_and_proposes(tmp_path, gold, capsys):
    path = tmp_path / "p.tagproj"
    Project.create(path, Corpus.from_sentences(gold[:30])).close()
    assert main(["mode", str(path), "tokens", "--no-proposal"]) == 0
    assert f"{path}: mode tokens" in capsys.readouterr().out
    assert main(["mode", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: mode tokens" in out and "proposed tokens" in out and "too few" in out


def test_the_suite_default_names_no_count_and_follows_the_kind_of_labels():
    for spans, mode in ((True, "tokens"), (False, "review")):
        advice = ma.suite_default(spans)
        assert advice.mode == mode and not advice.measured
        assert "are too few" not in advice.reason and "once 60 sentences are fully labeled" in advice.reason
    assert ma.span_label_set(read_corpus(CONLL).labels) and ma.span_label_set(ma.LabelSet.from_observed(["O"]))
    assert not ma.span_label_set(read_corpus(DATA / "ptb_wsj_sample_head.txt").labels)

"""String-match suggestions in the simulated review and token questions (``tagtool simulate --string-matches``)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from tagtool.cli.main import main
from tagtool.cli.simulating import SIMULATE_STRING_MATCHES
from tagtool.core import Corpus, Sentence
from tagtool.core.labels import LabelSet
from tagtool.services.simulate.config import DEFAULT_STRING_MATCHES, SimulationConfig
from tagtool.services.simulate.loop import Simulation, simulate
from tagtool.services.simulate.suggestions import StringMatchSuggester, shown_labels
from tagtool.store.formats import read_corpus

DATA = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"
LABELS = ("O", "B-LOC", "I-LOC", "B-PER", "I-PER")


def _sentence(text: str, labels: str) -> Sentence:
    return Sentence(text.split(), [frozenset((label,)) for label in labels.split()])


@pytest.fixture()
def tiny():
    sentences = [
        _sentence("Ana visited New York .", "B-PER O B-LOC I-LOC O"),
        _sentence("New York is big .", "B-LOC I-LOC O O O"),
        _sentence("Bob met Ana in Paris .", "B-PER O B-PER O B-LOC O"),
        _sentence("Paris is old .", "B-LOC O O O"),
    ]
    corpus = Corpus.from_sentences(sentences, labels=LabelSet(LABELS))
    return corpus, corpus


def _config(mode="review", **kw):
    base = dict(
        learner="perceptron",
        params={"max_iter": 2},
        strategy="random",
        mode=mode,
        step=5,
        budget=100,
        full_data_f1=0.8,
        max_unlabeled=0,
    )
    return SimulationConfig(**{**base, **kw})


def test_the_cli_default_is_the_configs():
    assert SIMULATE_STRING_MATCHES == DEFAULT_STRING_MATCHES
    assert _config().string_matches == DEFAULT_STRING_MATCHES


def test_the_first_label_is_suggested_in_the_next_sentence_before_any_model(tiny):
    sim = Simulation(_config(string_matches=True), *tiny)
    first = sim.what_to_ask(0, None)
    assert not first.accepted.any(), "nothing labeled yet: nothing suggested"
    sim.show(0, first)
    assert sim.oracle.spent == pytest.approx(5.0)
    second = sim.what_to_ask(1, None)
    assert second.accepted.tolist() == [True, True, False, False, False], "'New York' suggested as labeled"
    sim.show(1, second)
    assert sim.oracle.spent == pytest.approx(5.0 + 2 * 0.1 + 3 * 1.0)
    assert (sim.matcher.shown, sim.matcher.right) == (2, 2)
    # the second sentence's "is" labeled O does not make "is" a suggestion; "Ana" (B-PER) is one
    third = sim.what_to_ask(2, None)
    assert third.accepted.tolist() == [False, False, True, False, False, False]


def test_with_string_matches_off_the_first_step_types_every_label(tiny):
    sim = Simulation(_config(string_matches=False), *tiny)
    assert sim.matcher is None
    sim.show(0, sim.what_to_ask(0, None))
    answer = sim.what_to_ask(1, None)
    assert answer.accepted is None and answer.ask.all()
    sim.show(1, answer)
    assert sim.oracle.spent == pytest.approx(10.0)


def test_full_mode_ignores_the_switch(tiny):
    assert Simulation(_config(mode="full", string_matches=True), *tiny).matcher is None


def test_a_wrong_string_match_costs_a_correction():
    sentences = [
        _sentence("Paris Hilton sang .", "B-PER I-PER O O"),
        _sentence("Paris Hilton is a hotel .", "B-LOC I-LOC O O O O"),
    ]
    suggester = StringMatchSuggester([s.tokens for s in sentences], LABELS)
    suggester.add(0, np.array([3, 4, 0, 0]))
    gold = np.array([1, 2, 0, 0, 0, 0])
    right = suggester.walk(1, np.arange(6), gold, None)
    assert not right.any()
    # "Paris" corrected to B-LOC: the match is gone, and "Hilton" shows no suggestion (no model yet)
    assert (suggester.shown, suggester.right) == (1, 0)


def test_the_precedence_rule_is_the_apps():
    # tokens: 0 no match; 1 one label, the model agrees; 2 one label, the model suggests another (the match wins);
    # 3 a candidate set holding the model's label (its pick); 4 a candidate set without it (no single label)
    allowed = np.zeros((5, 5), dtype=bool)
    allowed[[1, 2], 1] = True
    allowed[3, [1, 3]] = True
    allowed[4, [1, 3]] = True
    model = np.array([0, 1, 3, 3, 0])
    shown, matched = shown_labels(allowed, model)
    assert shown.tolist() == [0, 1, 1, 3, -1]
    assert matched.tolist() == [False, True, True, True, True]
    shown, matched = shown_labels(allowed, None)
    assert shown.tolist() == [-1, 1, 1, -1, -1] and matched.tolist() == [False, True, True, True, True]


@pytest.fixture(scope="module")
def chunks():
    gold = read_corpus(DATA)
    return Corpus.from_sentences(gold.sentences[:60], labels=gold.labels), Corpus.from_sentences(
        gold.sentences[60:], labels=gold.labels
    )


@pytest.mark.parametrize("on", [False, True])
def test_review_pays_a_correction_per_wrong_suggestion_and_a_read_per_right_one(chunks, on):
    config = _config(learner="mv-perceptron", strategy="combined", step=150, growth=1.5, budget=700, max_unlabeled=10)
    result = simulate(SimulationConfig(**{**config.__dict__, "string_matches": on}), *chunks)
    assert len(result.curve) >= 2
    for point in result.curve:  # review: every shown token ends labeled, paid full or accept
        assert point.cost == pytest.approx((point.tokens_labeled - point.accepted) + 0.1 * point.accepted)
        assert point.string_matched_right <= min(point.string_matched, point.accepted)
    last = result.curve[-1]
    assert (last.string_matched > last.string_matched_right > 0) if on else last.string_matched == 0
    assert any("string matches:" in note for note in result.notes) == on


def _cli(tmp_path, chunks, switch):
    paths = []
    for name, corpus in zip(("data.txt", "test.txt"), chunks):
        path = tmp_path / name
        path.write_text(
            "\n\n".join("\n".join(f"{t} {next(iter(a))}" for t, a in zip(s.tokens, s.annotations)) for s in corpus)
            + "\n"
        )
        paths.append(str(path))
    argv = ["simulate", "--data", paths[0], "--test", paths[1], "--learner", "perceptron", "--set", "max_iter=2"]
    argv += ["--strategy", "random", "--mode", "review", "--step", "200", "--budget", "400"]
    argv += ["--full-data-f1", "80", "--string-matches", switch]
    return main(argv)


@pytest.mark.parametrize("switch", ["on", "off"])
def test_cli_switch(tmp_path, chunks, capsys, switch):
    assert _cli(tmp_path, chunks, switch) == 0
    assert ("note: string matches:" in capsys.readouterr().out) == (switch == "on")


def test_the_queue_ranks_string_matched_tokens_as_accepted_in_review():
    from tagtool.services.strategies import Showing, Tokens, gain_per_cost, questions_per_cost

    offsets = np.array([0, 3, 6])
    allowed = np.ones((6, 2), dtype=bool)
    q = np.full(6, 0.9)
    cheap = np.array([False, False, False, True, True, False])
    review = Showing("review", threshold=0.7)
    for score in (gain_per_cost, questions_per_cost):
        plain = score(q, Tokens.from_allowed(allowed, offsets), review)
        ranked = score(q, Tokens.from_allowed(allowed, offsets, cheap), review)
        assert plain[0] == pytest.approx(plain[1]) and ranked[0] == pytest.approx(plain[0])
        assert ranked[1] > ranked[0], "the sentence whose suggestions are string matches is cheaper to review"
        tokens_mode = score(q, Tokens.from_allowed(allowed, offsets, cheap), Showing("tokens", threshold=0.7))
        assert tokens_mode[0] == pytest.approx(tokens_mode[1]), "outside review the matches change nothing"


def test_agreeing_matches_mark_their_tokens(tiny):
    sim = Simulation(_config(string_matches=True), *tiny)
    offsets = sim.pool.data.offsets
    assert not sim.matcher.agreeing(offsets).any()
    sim.show(0, sim.what_to_ask(0, None))
    mask = sim.matcher.agreeing(offsets)
    # "New York" in sentence 1, "Ana" in sentence 2 (sentence 0 is labeled)
    assert np.flatnonzero(mask).tolist() == [5, 6, 12]


def test_the_suggestions_are_those_of_the_service_over_every_labeled_sentence(chunks):
    from tagtool.services.string_matches import string_matches

    corpus, _ = chunks
    names = list(corpus.labels.names)
    data = corpus.sentences
    suggester = StringMatchSuggester([s.tokens for s in data], names)
    order = np.random.default_rng(0).permutation(len(data)).tolist()
    labeled = []  # whole sentences labeled (review): the app's evidence rule is the service's then
    for step, i in enumerate(order[:40]):
        probe = Sentence(data[i].tokens)
        naive = [m for m in string_matches([*labeled, probe], names) if m.sentence == step]
        mine = suggester.matches(i)
        assert [(m.start, m.end, m.allowed, m.evidence) for m in mine] == [
            (m.start, m.end, m.allowed, m.evidence) for m in naive
        ]
        suggester.add(i, np.array([names.index(next(iter(a))) for a in data[i].annotations]))
        labeled.append(data[i])
    assert suggester.matcher.keys()


@pytest.mark.parametrize("rank", [False, True])
def test_the_queue_ranks_with_the_matches_only_when_asked(tiny, monkeypatch, rank):
    from tagtool.services.simulate import loop

    seen = []
    real = loop.ask_questions
    monkeypatch.setattr(loop, "ask_questions", lambda *a, **kw: seen.append(kw.get("cheap")) or real(*a, **kw))
    sim = Simulation(_config(strategy="combined", learner="mv-perceptron", string_matches=True), *tiny)
    assert sim.rank_matches is False
    sim.rank_matches = rank
    sim.show(0, sim.what_to_ask(0, None))
    model, _ = sim.train(None, None)
    sim.questions(model, sim.oracle.sentence_status())
    assert (seen[-1] is not None) == rank
    if rank:
        assert seen[-1].tolist() == sim.matcher.agreeing(sim.pool.data.offsets).tolist()


def _questions_on_new_york(sim):
    """A model that asks about "New York" in the second sentence and suggests O there."""
    from tagtool.services.simulate.questions import Questions

    n = int(sim.pool.data.offsets[-1])
    q = np.zeros(n)
    q[5:7] = 0.9
    return Questions(q=q, sentence_scores={}, scores=None, scale=None, probabilistic=False, suggested=np.zeros(n, int))


def test_before_a_model_token_modes_label_whole_sentences_with_the_matches_and_questions_show_the_model(tiny):
    sim = Simulation(_config(mode="tokens", string_matches=True, cv_folds=0, threshold=0.5), *tiny)
    sim.show(0, sim.what_to_ask(0, None))
    assert sim.oracle.spent == pytest.approx(5.0)
    first = sim.what_to_ask(1, None)  # no model yet: the whole sentence, "New York" suggested as labeled
    assert first.ask.all() and first.accepted.tolist() == [True, True, False, False, False]
    # with a model, a question shows the model's suggestion (O here), as the app does: typed, not accepted
    answer = sim.what_to_ask(1, _questions_on_new_york(sim))
    assert answer.ask.tolist() == [True, True, False, False, False] and not answer.accepted.any()


def test_answered_tokens_are_evidence_and_a_correction_the_match_contradicts_takes_it_away():
    sentences = [
        _sentence("Ana visited New York .", "B-PER O B-LOC I-LOC O"),
        _sentence("New York .", "O I-LOC O"),
        _sentence("New York is big .", "B-LOC I-LOC O O O"),
    ]
    suggester = StringMatchSuggester([s.tokens for s in sentences], LABELS)
    suggester.add(0, np.array([-1, -1, 1, 2, -1]))  # "New York" answered, its neighbours not: the app counts it
    assert suggester.suggested(2)[:2].argmax(axis=1).tolist() == [1, 2]
    right = suggester.walk(2, np.arange(5), np.array([1, 2, 0, 0, 0]), np.zeros(5, int))
    assert right.tolist() == [True, True, True, True, True]
    # "New" corrected to O: the match is gone from "York", which shows the model's O (wrong there)
    right = suggester.walk(1, np.arange(3), np.array([0, 2, 0]), np.zeros(3, int))
    assert right.tolist() == [False, False, True]

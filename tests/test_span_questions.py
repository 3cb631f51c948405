"""Span questions: token questions grown to the model's uncertain mentions, and what the simulator charges."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tagtool.cli.simulating import SIMULATE_DEFAULT_QUESTIONS, SIMULATE_QUESTIONS
from tagtool.core import Corpus
from tagtool.services import span_questions
from tagtool.services.simulate.config import Costs, SimulationConfig, SimulationError
from tagtool.services.simulate.loop import Simulation
from tagtool.services.simulate.questions import Questions
from tagtool.services.span_questions import grow, span_at, spans
from tagtool.store.formats import read_corpus

BIO = ["O", "B-D", "I-D"]
BIOES = ["O", "B-X", "I-X", "E-X", "S-X"]
IOB1 = ["O", "I-X", "B-X"]
POS = ["NOUN", "VERB", "DET"]
DATA_DIR = Path(__file__).parent / "data"


def _grow(names, labels, asked, q=None, open_=None, offsets=None, threshold=0.7):
    labels = np.array([names.index(n) for n in labels])
    mask = np.zeros(len(labels), dtype=bool)
    mask[list(asked)] = True
    q = np.where(mask, 0.9, 0.0) if q is None else np.asarray(q, dtype=float)
    open_ = np.ones(len(labels), dtype=bool) if open_ is None else np.asarray(open_, dtype=bool)
    offsets = np.array([0, len(labels)]) if offsets is None else np.asarray(offsets)
    return np.flatnonzero(grow(mask, q, threshold, labels, open_, offsets, names)).tolist()


def test_a_token_asked_inside_a_predicted_mention_asks_the_whole_mention_bio():
    labels = ["O", "B-D", "I-D", "I-D", "O", "O"]
    assert _grow(BIO, labels, {2}) == [1, 2, 3]
    assert _grow(BIO, labels, {1}) == [1, 2, 3]
    assert _grow(BIO, labels, {5}) == [5], "a token outside any mention stays a token"
    # two mentions side by side: only the one touched
    assert _grow(BIO, ["B-D", "I-D", "B-D", "I-D"], {3}) == [2, 3]
    # an I- without a B- begins a mention (seqeval's rule)
    assert _grow(BIO, ["O", "I-D", "I-D", "O"], {2}) == [1, 2]


def test_bioes_and_iob1_mentions():
    labels = ["O", "B-X", "I-X", "E-X", "O", "S-X"]
    assert _grow(BIOES, labels, {3}) == [1, 2, 3]
    assert _grow(BIOES, labels, {5}) == [5]
    assert _grow(BIOES, labels, {4}) == [4]
    # IOB1: B- only where a mention follows one of the same type
    assert _grow(IOB1, ["I-X", "I-X", "B-X", "I-X", "O"], {1}) == [0, 1]
    assert _grow(IOB1, ["I-X", "I-X", "B-X", "I-X", "O"], {2}) == [2, 3]


def test_labels_that_are_not_spans_keep_token_questions():
    assert _grow(POS, ["NOUN", "NOUN", "VERB", "DET"], {1}) == [1]


def test_labeled_tokens_and_sentence_ends_bound_a_span():
    labels = ["O", "B-D", "I-D", "I-D", "O"]
    assert _grow(BIO, labels, {2}, open_=[True, False, True, True, True]) == [2, 3]
    # the mention at the end of one sentence does not run into the next one's first token
    two = ["O", "B-D", "I-D", "I-D", "O"]
    assert _grow(BIO, two, {2}, offsets=[0, 3, 5]) == [1, 2]
    assert _grow(BIO, two, {3}, offsets=[0, 3, 5]) == [3]


def test_runs_of_uncertain_tokens_and_edges_join_where_set(monkeypatch):
    labels = ["O", "O", "O", "B-D", "O", "O", "O"]
    q = [0.0, 0.5, 0.5, 0.9, 0.1, 0.4, 0.0]
    assert _grow(BIO, labels, {3}, q=q) == [3], "by default only the tokens asked and their mentions"
    monkeypatch.setattr(span_questions, "RUN_SHARE", 0.5)  # q >= 0.35 joins
    assert _grow(BIO, labels, {3}, q=q) == [1, 2, 3]
    monkeypatch.setattr(span_questions, "BOUNDARY_SHARE", 0.1)  # one edge token each side with q >= 0.07
    assert _grow(BIO, labels, {3}, q=q) == [1, 2, 3, 4]
    monkeypatch.setattr(span_questions, "BOUNDARY_SHARE", 0.0)
    assert _grow(BIO, labels, {3}, q=q) == [0, 1, 2, 3, 4]


def test_spans_of_a_mask():
    mask = np.array([0, 1, 1, 0, 1, 0, 1, 1], dtype=bool)
    assert spans(mask) == [(1, 3), (4, 5), (6, 8)]
    assert span_at(mask, 2) == (1, 3) and span_at(mask, 7) == (6, 8) and span_at(mask, 0) is None
    assert spans(np.zeros(0, dtype=bool)) == []


def test_the_settings_agree_and_an_unknown_one_is_refused():
    assert SIMULATE_QUESTIONS == span_questions.QUESTIONS
    assert SIMULATE_DEFAULT_QUESTIONS == span_questions.DEFAULT_QUESTIONS
    with pytest.raises(SimulationError, match="questions"):
        Simulation(SimulationConfig(learner="mv-perceptron", questions="mentions"), *_corpora())


def _corpora():
    gold = read_corpus(DATA_DIR / "conll2002_esp_train_head.txt")
    return Corpus.from_sentences(gold.sentences[:20], labels=gold.labels), Corpus.from_sentences(gold.sentences[20:30])


def _one_mention(questions: str, **kw) -> tuple[Simulation, slice, np.ndarray, np.ndarray]:
    """A warm simulation whose model predicts one ORG mention on tokens 1–3 of sentence 0 and asks token 2.

    Returns the simulation, sentence 0's rows, the best labels and the questions ``q``.
    """
    data, test = _corpora()
    config = SimulationConfig(learner="mv-perceptron", mode="tokens", questions=questions, cv_folds=0, **kw)
    sim = Simulation(config, data, test)
    names = list(sim.pool.labels.names)
    rows = sim.oracle.rows(0)
    n = sim.pool.data.n_tokens
    best = np.full(n, names.index("O"), dtype=np.int64)
    best[rows.start + 1 : rows.start + 4] = [names.index("B-ORG"), names.index("I-ORG"), names.index("I-ORG")]
    q = np.zeros(n)
    q[rows.start + 2] = 0.9  # one token asked, inside a three-token mention the model predicts
    return sim, rows, best, q


@pytest.mark.parametrize("questions", ["tokens", "spans"])
def test_the_simulator_asks_a_span_question_and_charges_each_of_its_tokens(questions):
    sim, rows, best, q = _one_mention(questions)
    length = rows.stop - rows.start
    asked = Questions(q, {}, None, None, False, best=best)
    answer = sim.what_to_ask(0, asked)
    expected = [1, 2, 3] if questions == "spans" else [2]
    assert np.flatnonzero(answer.ask).tolist() == expected
    sim.show(0, answer)
    costs = Costs()
    assert sim.oracle.spent == pytest.approx(costs.full * len(expected) + costs.skip * (length - len(expected)))
    assert sim.oracle.tokens_labeled == len(expected)


def test_the_mention_tables_are_seqevals_and_read_what_the_f1_scorer_reads():
    from seqeval.metrics.sequence_labeling import end_of_chunk, start_of_chunk

    from tagtool.core.chunks import F1Scorer
    from tagtool.core.labels import LabelSet

    for names in (BIO, BIOES, IOB1, ["O", "B-A", "I-A", "B-B", "I-B", "E-B", "S-A"]):
        found = span_questions.MentionReader(names)
        scorer = F1Scorer(LabelSet(names), np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64))
        assert np.array_equal(found.ends, scorer.ends) and np.array_equal(found.starts, scorer.starts)
        assert found.ends[0, 1] == end_of_chunk("O", names[1][0], "_", names[1][2:])
        assert found.starts[0, 1] == start_of_chunk("O", names[1][0], "_", names[1][2:])
        rng = np.random.default_rng(len(names))
        labels = rng.integers(0, len(names), 200)
        offsets = np.array([0, 50, 120, 200])
        ids = found.mention_ids(labels, offsets)
        gold = F1Scorer(LabelSet(names), labels, offsets)
        # every mention F1 counts is one run of equal ids, and every id run is one of its mentions
        width = len(labels) + len(offsets) + 1  # F1Scorer.entities: its sequence and one more
        keys = {(int(k) // width % width, int(k) % width) for k in gold.gold_keys}
        positions = np.arange(len(labels)) + np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        runs = {}
        for t in np.flatnonzero(ids >= 0):
            runs.setdefault(int(ids[t]), []).append(int(positions[t]))
        assert keys == {(min(p), max(p)) for p in runs.values()}


@pytest.mark.parametrize(
    "questions, wrong, accept, expected_accepted",
    [
        ("tokens", None, True, [2]),  # the asked token is suggested right: Space
        ("tokens", 2, True, []),  # suggested wrong: typed
        ("spans", None, True, [1, 2, 3]),  # every token of the span question right: Space on the span
        ("spans", 3, True, []),  # one token wrong: the span's label key, every token typed
        ("tokens", None, False, []),  # accept_questions off: every asked token typed
    ],
)
def test_a_question_suggested_right_is_accepted_at_the_accept_cost(questions, wrong, accept, expected_accepted):
    sim, rows, best, q = _one_mention(questions, accept_questions=accept)
    length = rows.stop - rows.start
    suggested = sim.oracle.gold.copy()
    if wrong is not None:
        suggested[rows.start + wrong] = (suggested[rows.start + wrong] + 1) % sim.pool.data.n_labels
    answer = sim.what_to_ask(0, Questions(q, {}, None, None, False, suggested, best))
    asked = np.flatnonzero(answer.ask).tolist()
    got = [] if answer.accepted is None else np.flatnonzero(answer.accepted).tolist()
    assert got == expected_accepted
    sim.show(0, answer)
    costs = Costs()
    typed = len(asked) - len(expected_accepted)
    assert sim.oracle.spent == pytest.approx(
        costs.full * typed + costs.accepted * len(expected_accepted) + costs.skip * (length - len(asked))
    )
    assert sim.oracle.tokens_labeled == len(asked) and sim.oracle.accepted == len(expected_accepted)


def test_whole_runs_keeps_only_span_questions_right_throughout():
    asked = np.array([1, 1, 0, 1, 1, 1, 0, 1], dtype=bool)
    right = np.array([1, 1, 1, 1, 0, 1, 0, 0], dtype=bool)
    assert span_questions.whole_runs(asked, right).astype(int).tolist() == [1, 1, 0, 0, 0, 0, 0, 0]
    assert not span_questions.whole_runs(np.zeros(3, dtype=bool), np.ones(3, dtype=bool)).any()

"""The app's cross-validation estimates the F1 on new text."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.core.labels import LabelSet
from tagtool.core.metrics import evaluate
from tagtool.gui.training import TrainingInputs, run_training
from tagtool.services.crossval import (
    bootstrap_se,
    column_check,
    cross_validate,
    f1_from_counts,
    fold_trainer,
    plan_folds,
    sentence_counts,
)
from tagtool.services.pipeline import train_tagger
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR
from tests.run_states import QuietRun


@pytest.fixture(scope="module")
def chunks():
    """The CoNLL-2000 slice as the sample project holds it: 30 labeled sentences, 30 unlabeled."""
    gold = read_corpus(DATA_DIR / "conll2000_train_head.txt", format="conll")
    sentences = tuple(s if i < 30 else s.unlabeled() for i, s in enumerate(gold.sentences[:60]))
    return gold, TrainingInputs(tuple(range(60)), sentences, gold.labels, cv_folds=3)


def test_a_fold_trains_neither_on_the_held_out_text_nor_on_features_fitted_to_it(chunks, monkeypatch):
    """The leak the app had: held-out sentences stayed in each fold as unlabeled text and the
    vocabulary was the one fitted on every sentence, held-out ones included."""
    import tagtool.gui.training as training

    _, inputs = chunks
    seen, real = [], training.fold_trainer

    def spying(*args, **kwargs):
        inner = real(*args, **kwargs)

        def train(corpus, progress, should_stop):
            fold = inner(corpus, progress, should_stop)
            seen.append((corpus, fold))
            return fold

        return train

    monkeypatch.setattr(training, "fold_trainer", spying)
    result = run_training(inputs, "mv-perceptron", {"max_iter": 1}, None, QuietRun())
    assert result.metrics["cv_folds"] == 3 and result.metrics["cv_sentences"] == 30 and len(seen) == 3
    for held, (corpus, fold) in zip(plan_folds(inputs.sentences, 3), seen):
        trained = {s.tokens for s in corpus}
        assert not any(inputs.sentences[i].tokens in trained for i in held)
        held_words = {w for i in held for w in inputs.sentences[i].tokens}
        only_held = {f"default/w={w}" for w in held_words - {w for s in corpus for w in s.tokens}}
        assert only_held & set(result.tagger.extractor.feature_names_), "fitted on all text, the vocabulary has them"
        assert not only_held & set(fold.extractor.feature_names_)


def test_folds_are_contiguous_blocks_of_the_fully_labeled_sentences(chunks):
    _, inputs = chunks
    plan = plan_folds(inputs.sentences, 4)
    assert [len(b) for b in plan] == [8, 8, 7, 7]
    assert sum(plan, []) == list(range(30))  # document order, each block a stretch of it
    assert plan_folds(inputs.sentences[:1] + inputs.sentences[40:], 3).startswith("needs 2")
    random = plan_folds(inputs.sentences, 3, folds="random", seed=1)
    assert sorted(sum(random, [])) == list(range(30)) and random[0] != plan_folds(inputs.sentences, 3)[0]


def _documents(n_docs: int, per_doc: int, seed: int) -> list[Sentence]:
    """Sentences whose words are their document's own; two words of six are B-NP, the others O.

    Within a document the words repeat; a word of one document never occurs
    in another.  A tagger can only learn the words it saw.
    """
    rng = np.random.default_rng(seed)
    sentences = []
    for _ in range(n_docs):
        # random lower-case strings: no affix or shape tells a word's label
        words = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=7)) for _ in range(6)]
        tags = {w: ("B-NP" if j < 2 else "O") for j, w in enumerate(words)}
        for _ in range(per_doc):
            tokens = tuple(rng.choice(words, size=5))
            sentences.append(Sentence(tokens, tuple(frozenset([tags[w]]) for w in tokens)))
    return sentences


def test_held_out_blocks_predict_new_documents_where_random_folds_do_not():
    """Neighbouring sentences share a document's words: random folds score them as if known."""
    labels = LabelSet(["O", "B-NP"])
    project = _documents(6, 8, seed=0)
    new_text = _documents(4, 8, seed=1)
    tagger = train_tagger(Corpus.from_sentences(project, labels=labels), "perceptron", features={"min_count": 1})
    gold = [[next(iter(a)) for a in s.annotations] for s in new_text]
    on_new_text = evaluate(gold, tagger.tag(new_text), labels).token_accuracy
    train = fold_trainer("perceptron", {"max_iter": 5}, tagger)
    blocks = cross_validate(project, labels, train, 6)
    random = cross_validate(project, labels, train, 6, folds="random")
    assert abs(blocks["token_accuracy"] - on_new_text) <= 2 * blocks["token_accuracy_se"] + 0.05
    assert random["token_accuracy"] > on_new_text + 0.3


def test_span_counts_per_sentence_add_up_to_the_pooled_conlleval_f1():
    gold = [["B-NP", "I-NP", "O", "B-VP"], ["I-NP", "I-NP", "B-PP"], ["O"]]
    pred = [["B-NP", "I-NP", "B-VP", "I-VP"], ["B-NP", "I-NP", "B-PP"], ["I-NP"]]
    counts = sentence_counts(gold, pred, spans=True)
    assert counts.tolist() == [[1, 2, 2], [2, 2, 2], [0, 1, 0]]
    assert f1_from_counts(counts.sum(axis=0)) == pytest.approx(evaluate(gold, pred).f1)
    assert f1_from_counts(np.zeros(3, dtype=int)) == 0.0


def test_the_bootstrap_se_of_an_accuracy_is_the_binomial_one():
    hits = np.random.default_rng(3).random(400) < 0.8
    counts = np.stack([hits.astype(int), np.ones(400, int), np.ones(400, int)], axis=1)
    p = hits.mean()
    assert bootstrap_se(counts, resamples=2000) == pytest.approx(np.sqrt(p * (1 - p) / 400), rel=0.1)
    assert bootstrap_se(counts[:1]) == 0.0


def test_the_app_records_the_loss_without_a_column_measured_on_held_out_sentences(chunks):
    """On its own 30 training sentences the model loses nothing without POS; on held-out ones it does."""
    _, inputs = chunks
    result = run_training(inputs, "perceptron", {"max_iter": 3}, None, QuietRun())
    m = result.metrics
    assert m["cv_protocol"] == "new-text, blocks" and 0 < m["f1_se"] < 0.1
    without = m["cv_without"]["col1"]
    assert without["token_accuracy"] < m["token_accuracy"] - 0.05 and without["f1"] < m["f1"] - 0.05
    check = result.tagger.input_columns["check"]
    assert check == column_check(m) and check["held_out"] and check["accuracy_without"]["col1"] < check["accuracy"]
    from tagtool.tagger.inputs import loss_text
    from tagtool.tagger.model import Tagger

    again = Tagger.from_bytes(result.data, "stored")
    assert again.input_columns["check"] == check
    assert "held-out sentences (cross-validation)" in loss_text(again.input_columns, "col1")


def test_the_sample_project_names_the_pos_column_as_the_readers_of_files_to_tag_do(tmp_path):
    """The exported sample tagger read its POS from a column named 'pos'; a CoNLL-2000 file given to
    `tagtool evaluate` has it as 'col1', so it was tagged without POS (wdpsl: 58.5 F1 for 79.0)."""
    from tagtool.store.sample import sample_corpus

    sample = sample_corpus()
    to_tag = read_corpus(DATA_DIR / "conll2000_train_head.txt")
    assert sample.column_names == to_tag.column_names == ("col1",)
    labeled = [s for s in sample if s.status == "full"][:20]
    tagger = train_tagger(Corpus.from_sentences(labeled, labels=sample.labels), "perceptron")
    assert tagger.check_input(to_tag.sentences[60:]) == []  # no column missing, no warning


def test_the_transductive_protocol_is_the_old_behaviour_kept_for_comparison(chunks):
    _, inputs = chunks
    tagger = train_tagger(Corpus.from_sentences(inputs.sentences, labels=inputs.labels), "perceptron")
    seen = []
    inner = fold_trainer("perceptron", {"max_iter": 1}, tagger, protocol="transductive")

    def spy(corpus, progress, should_stop):
        seen.append(corpus)
        fold = inner(corpus, progress, should_stop)
        assert fold.extractor is tagger.extractor
        return fold

    metrics = cross_validate(inputs.sentences, inputs.labels, spy, 2, protocol="transductive", folds="random")
    assert metrics["cv_protocol"] == "transductive, random"
    assert all(len(c) == len(inputs.sentences) for c in seen)
    with pytest.raises(ValueError):
        cross_validate(inputs.sentences, inputs.labels, spy, 2, protocol="leaky")
    assert replace(inputs, cv_folds=0).cv_folds == 0

"""run_training with a mock state and no Qt (Orange3's contract)."""

from __future__ import annotations

from collections import Counter

import pytest

from tagtool.core import Corpus
from tagtool.errors import Cancelled
from tagtool.gui.training import TrainingInputs, run_training
from tagtool.store.formats import read_corpus
from tests.gui.helpers import DATA_DIR


class MockState:
    def __init__(self, stop_after: int | None = None):
        self.reports, self.ready, self.stop_after = [], [], stop_after

    def progress(self, fraction, message):
        self.reports.append((fraction, message))

    def should_stop(self):
        return self.stop_after is not None and len(self.reports) >= self.stop_after

    def model_ready(self, result):
        self.ready.append(result)


@pytest.fixture(scope="module")
def inputs():
    gold = read_corpus(DATA_DIR / "conll2000_train_head.txt", column_names=["token", "pos", "chunk"])
    sentences = tuple(s if i < 8 else s.unlabeled() for i, s in enumerate(gold.sentences[:40]))
    return TrainingInputs(tuple(range(100, 140)), sentences, gold.labels, cv_folds=2)


def test_run_training_returns_model_guidance_and_metrics(inputs):
    state = MockState()
    result = run_training(inputs, "mv-perceptron", {"max_iter": 2}, None, state)
    assert state.ready == [result], "the model is handed over before the cross-validation"
    assert set(result.guidance) == set(inputs.ids)
    assert result.status[100] == "full" and result.status[139] == "none"
    m = result.metrics
    assert m["sentences"] == {"full": 8, "partial": 0, "none": 32}
    assert m["cv_folds"] == 2 and m["cv_sentences"] == 8 and 0.0 <= m["token_accuracy"] <= 1.0
    # better than always guessing the commonest label of the labeled sentences (about 0.32 here)
    gold = Counter(next(iter(a)) for s in inputs.sentences if s.status == "full" for a in s.annotations)
    majority_rate = max(gold.values()) / sum(gold.values())
    assert sum(gold.values()) == m["labeled_tokens"] and m["token_accuracy"] > majority_rate + 0.1
    assert result.tagger.metrics == m
    fractions = [f for f, _ in state.reports]
    assert fractions[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in fractions)
    # a warm start of the same learner continues from the model
    again = run_training(inputs, "mv-perceptron", {"max_iter": 1}, result.tagger, MockState())
    assert again.tagger.extractor is result.tagger.extractor


def test_run_training_cancels_through_should_stop(inputs):
    with pytest.raises(Cancelled):
        run_training(inputs, "mv-perceptron", {"max_iter": 50}, None, MockState(stop_after=2))


def test_inputs_from_project(chunk_project):
    from tagtool.store.project import Project

    with Project.open(chunk_project) as project:
        inputs = TrainingInputs.from_project(project, cv_folds=3)
        assert inputs.ids == tuple(project.sentence_ids())
        assert inputs.sentences[0].tokens == project.sentence(inputs.ids[0]).tokens
    assert isinstance(Corpus.from_sentences(inputs.sentences, labels=inputs.labels), Corpus)


def test_the_training_run_module_imports_no_qt():
    import subprocess
    import sys

    code = (
        "import sys, tagtool.gui.training, tagtool.gui.statistics_numbers, tagtool.services.guidance, "
        "tagtool.services.batch\n"
        "print(any(m.split('.')[0] in ('PySide6', 'shiboken6') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_training_on_a_conllu_project_reads_no_gold_field(tmp_path):
    """The app trains by the CLI's rule: no CoNLL-U field is a feature (none can be named in the app)."""
    from tagtool.store.project import Project

    path = tmp_path / "ud.tagproj"
    Project.create(path, read_corpus(DATA_DIR / "ud_en_ewt_train_head.conllu"), name="ud").close()
    with Project.open(path) as project:
        inputs = TrainingInputs.from_project(project, cv_folds=2)
    assert "xpos" in inputs.sentences[0].columns
    result = run_training(inputs, "perceptron", {"max_iter": 1}, None, MockState())
    assert result.tagger.extractor.columns_ == () and result.tagger.input_columns["required"] == []


def test_cross_validation_tags_project_sentences_lacking_a_column_others_have(inputs):
    from dataclasses import replace

    mixed = tuple(replace(s, columns={}) if i % 2 else s for i, s in enumerate(inputs.sentences))
    result = run_training(replace(inputs, sentences=mixed), "perceptron", {"max_iter": 1}, None, MockState())
    assert result.tagger.input_columns["required"] == ["pos"]
    assert "cv" not in result.metrics and result.metrics["cv_folds"] == 2

"""``tagtool simulate --vectors / --gazetteer``: the knowledge a user brings, in the simulated annotator's learner."""

from __future__ import annotations

import pathlib

import pytest

from tagtool.cli.main import main
from tagtool.core import Corpus
from tagtool.services.dictionaries import Dictionary, gazetteers_of
from tagtool.services.simulate.config import SimulationConfig
from tagtool.services.simulate.loop import Simulation
from tagtool.services.training_setup import TrainingSetupError
from tagtool.store.formats import read_corpus
from tests.user_vector_files import write_vector_files

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"
POS = DATA / "ud_en_ewt_train_head.conllu"


def _halves(path, **options):
    corpus = read_corpus(path, **options)
    sentences = list(corpus.sentences)
    return (
        Corpus.from_sentences(sentences[:60], labels=corpus.labels),
        Corpus.from_sentences(sentences[60:], labels=corpus.labels),
    )


def test_the_pool_reads_the_dictionaries_its_gaz_set_names():
    data, test = _halves(CONLL)
    config = SimulationConfig(learner="perceptron", strategy="random", features={"feature_set": "default+gaz"})
    with pytest.raises(TrainingSetupError, match="needs dictionaries"):
        Simulation(config, data, test)
    gazetteers = gazetteers_of([Dictionary("NP", (("the", "company"), ("he",)), "np.txt")])
    with_gaz = Simulation(config, data, test, knowledge={"gazetteers": gazetteers}).pool
    without = Simulation(SimulationConfig(learner="perceptron", strategy="random"), data, test).pool
    assert with_gaz.data.n_features > without.data.n_features


def test_simulate_takes_vectors_for_word_classes_and_dictionaries(tmp_path, capsys):
    data, test = _halves(POS, label_field="upos")
    files = write_vector_files(data, tmp_path)[1]
    nouns = tmp_path / "noun.txt"
    nouns.write_text("company\nweek\n", encoding="utf-8")
    args = ["simulate", "--data", str(POS), "--test", str(POS), "--label-field", "upos", "--learner", "perceptron"]
    args += ["--strategy", "random", "--step", "300", "--budget", "600", "--set", "max_iter=2"]
    assert main([*args, "--vectors", str(files["vec"]), "--gazetteer", f"NOUN={nouns}"]) == 0
    err = capsys.readouterr().err
    assert "reading small.vec" in err and "not read" not in err


def test_simulate_on_span_labels_does_not_read_vectors_unless_named(tmp_path, capsys):
    data, _ = _halves(CONLL)
    files = write_vector_files(data, tmp_path)[1]
    args = ["simulate", "--data", str(CONLL), "--test", str(CONLL), "--learner", "perceptron", "--strategy", "random"]
    args += ["--step", "300", "--budget", "600", "--set", "max_iter=2", "--vectors", str(files["vec"])]
    assert main(args) == 0
    assert "small.vec not read: no vec set for span labels" in capsys.readouterr().err
    assert main([*args, "--set", "features.feature_set=default+vec"]) == 0
    assert "reading small.vec" in capsys.readouterr().err

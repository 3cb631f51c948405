"""``tagtool vectors`` and ``train --vectors``: a user's word vectors through the command line.

On part-of-speech data (UD, UPOS): the default rule adds the ``vec`` sets for word classes, not for spans.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from tagtool.cli.main import main
from tagtool.store.formats import read_corpus
from tagtool.tagger.model import load_tagger
from tests.user_vector_files import write_vector_files

DATA = pathlib.Path(__file__).parent / "data"
POS = DATA / "ud_en_ewt_train_head.conllu"
CONLL = DATA / "conll2000_train_head.txt"
UPOS = ("--label-field", "upos")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_vector_files(read_corpus(POS, label_field="upos"), tmp_path_factory.mktemp("cli-vectors"))[1]


def _train(data, model, *extra) -> int:
    args = ["train", str(data), "--learner", "perceptron", "--set", "max_iter=2", *extra, "-o", str(model)]
    return main(args + ([] if str(data).endswith(".tagproj") else list(UPOS)))


def test_a_project_keeps_its_vectors_and_training_reads_them(tmp_path, files, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(POS), *UPOS, "-p", str(project)]) == 0
    assert main(["vectors", str(project)]) == 0
    assert "word vectors none" in capsys.readouterr().out
    assert main(["vectors", str(project), str(files["bin"])]) == 0
    out = capsys.readouterr().out
    assert "stored word vectors small.bin (fasttext-bin, dim 12)" in out and "unseen words from n-grams" in out
    assert main(["info", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["word_vectors"].startswith("small.bin (fasttext-bin")
    model = tmp_path / "m.tagger"
    assert _train(project, model) == 0
    tagger = load_tagger(model)
    assert "vec" in tagger.extractor.feature_set.split("+")
    assert tagger.model.info["vectors"]["file"] == "small.bin"
    assert main(["tag", str(model), str(POS), "-o", str(tmp_path / "tagged.conllu")]) == 0
    # turned off in the project, or for one run
    assert main(["vectors", str(project), "--use", "off"]) == 0
    assert _train(project, model) == 0 and load_tagger(model).extractor.vectors is None
    assert main(["vectors", str(project), "--use", "on"]) == 0
    assert _train(project, model, "--no-vectors") == 0 and load_tagger(model).extractor.vectors is None
    assert main(["vectors", str(project), "--remove"]) == 0
    assert "word vectors removed" in capsys.readouterr().out
    assert _train(project, model) == 0 and load_tagger(model).extractor.vectors is None


def test_train_on_a_corpus_file_with_a_vectors_file(tmp_path, files, capsys):
    model = tmp_path / "m.tagger"
    assert _train(POS, model, "--vectors", str(files["vec.gz"])) == 0
    assert "word vectors: small.vec.gz (word2vec-text" in capsys.readouterr().err
    tagger = load_tagger(model)
    assert tagger.extractor.vectors.info["file"] == "small.vec.gz"
    assert main(["evaluate", str(model), str(POS), *UPOS]) == 0


def test_vec_sets_without_vectors_and_a_bad_file_are_clear_errors(tmp_path, capsys):
    model = tmp_path / "m.tagger"
    assert _train(POS, model, "--set", "features.feature_set=crfsuite+vec") != 0
    assert "need word vectors" in capsys.readouterr().err
    bad = tmp_path / "bad.vec"
    bad.write_text("2 3\ncat 1 2 3\ndog 1 x 3\n", encoding="utf-8")
    assert _train(POS, model, "--vectors", str(bad)) != 0
    assert "bad.vec" in capsys.readouterr().err and not model.exists()


def test_span_labels_do_not_read_a_vectors_file_unless_the_features_name_vec(tmp_path, files, capsys):
    model = tmp_path / "m.tagger"
    args = ["train", str(CONLL), "--learner", "perceptron", "--set", "max_iter=2", "-o", str(model)]
    assert main([*args, "--vectors", str(files["vec"])]) == 0
    assert "not read: the default rule adds no vec set for span labels" in capsys.readouterr().err
    assert load_tagger(model).extractor.vectors is None
    assert main([*args, "--vectors", str(files["vec"]), "--set", "features.feature_set=crfsuite+vec"]) == 0
    assert load_tagger(model).extractor.vectors.info["file"] == "small.vec"


def test_storing_vectors_in_a_span_project_says_they_are_not_used_by_default(tmp_path, files, capsys):
    project = tmp_path / "chunks.tagproj"
    assert main(["import", str(CONLL), "-p", str(project)]) == 0
    assert main(["vectors", str(project), str(files["vec"])]) == 0
    assert "its labels are spans: training adds no vec set" in capsys.readouterr().out

"""``tagtool text`` / ``tagtool represent`` and ``train`` with word representations."""

import json
import pathlib

from tagtool.cli.main import main
from tagtool.store.project import Project
from tagtool.tagger.model import load_tagger

DATA = pathlib.Path(__file__).parent / "data"
CONLL = DATA / "conll2000_train_head.txt"


def _raw_text(path: pathlib.Path) -> pathlib.Path:
    """The tokens of the Spanish head file as plain text lines."""
    lines, words = [], []
    for line in (DATA / "conll2002_esp_train_head.txt").read_text(encoding="utf-8").splitlines():
        if line.strip():
            words.append(line.split()[0])
        elif words:
            lines.append(" ".join(words))
            words = []
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_text_represent_and_train_use_the_stored_representations(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(CONLL), "-p", str(project)]) == 0
    assert main(["text", str(project), str(_raw_text(tmp_path / "raw.txt"))]) == 0
    assert "tagtool represent" in capsys.readouterr().out
    assert main(["represent", str(project)]) == 0
    assert "word representations of" in capsys.readouterr().out
    assert main(["represent", str(project)]) == 0
    assert "are current" in capsys.readouterr().out
    assert main(["info", str(project), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["word_representations"].endswith("(current)")
    with Project.open(project, readonly=True) as p:
        stored = p.stored.representations().fingerprint
    model = tmp_path / "m.tagger"
    assert (
        main(
            [
                "train",
                str(project),
                "--learner",
                "perceptron",
                "--set",
                "features.feature_set=crfsuite+dist",
                "-o",
                str(model),
            ]
        )
        == 0
    )
    assert load_tagger(model).extractor.representations.fingerprint == stored


def test_text_with_a_bad_byte_changes_nothing(tmp_path, capsys):
    project = tmp_path / "p.tagproj"
    assert main(["import", str(CONLL), "-p", str(project)]) == 0
    good = _raw_text(tmp_path / "good.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine line\nbroken \xfe\n")
    assert main(["text", str(project), str(good), str(bad)]) != 0
    assert "bad.txt:2" in capsys.readouterr().err
    with Project.open(project, readonly=True) as p:
        assert p.stored.texts() == []


def test_train_text_needs_features_that_read_it(tmp_path, capsys):
    raw = _raw_text(tmp_path / "raw.txt")
    model = tmp_path / "m.tagger"
    assert main(["train", str(CONLL), "--learner", "perceptron", "--text", str(raw), "-o", str(model)]) != 0
    assert "features.feature_set=crfsuite+dist" in capsys.readouterr().err
    assert (
        main(
            [
                "train",
                str(CONLL),
                "--learner",
                "perceptron",
                "--text",
                str(raw),
                "--set",
                "features.feature_set=crfsuite+dist",
                "-o",
                str(model),
            ]
        )
        == 0
    )
    reps = load_tagger(model).extractor.representations
    assert reps.info["n_tokens"] == 2440 + 1960  # the training file's tokens and the text's

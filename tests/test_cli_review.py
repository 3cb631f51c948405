"""The command line and the review flags of the app: info counts them, export carries them, train skips."""

import json
import pathlib

from tagtool.cli.main import main
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tagtool.store.review import Review

CONLL = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


def _project(tmp_path):
    path = tmp_path / "chunks.tagproj"
    assert main(["import", str(CONLL), "-p", str(path)]) == 0
    with Project.open(path) as project:
        ids = project.sentence_ids()
        project.review.flag(ids[0], "check the PP attachment")
        project.review.set_skipped(ids[1])
        project.review.set_skipped(ids[2])
    return path, ids


def test_info_export_and_train_know_the_flags_and_skips(tmp_path, capsys):
    project, ids = _project(tmp_path)
    capsys.readouterr()
    assert main(["info", str(project), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["review"] == {"flagged": 1, "skipped": 2}
    out = tmp_path / "out.conllu"
    assert main(["export", str(project), "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("# tagtool:flag = check the PP attachment") == 1 and text.count("# tagtool:skipped = yes") == 2
    # the exported file makes a project with the same flags
    again = tmp_path / "again.tagproj"
    assert main(["import", str(out), "-p", str(again)]) == 0
    with Project.open(again) as p:
        new = p.sentence_ids()
        assert p.review.all() == {
            new[0]: Review(True, "check the PP attachment"),
            new[1]: Review(skipped=True),
            new[2]: Review(skipped=True),
        }
    # a column file has no place for them
    plain = tmp_path / "out.txt"
    assert main(["export", str(project), "-o", str(plain), "--format", "conll"]) == 0
    assert plain.read_bytes() == CONLL.read_bytes()
    # training on the project: the skipped sentences are unlabeled text
    capsys.readouterr()
    model = tmp_path / "m.tagger"
    assert main(["train", str(project), "--learner", "perceptron", "-o", str(model)]) == 0
    n = len(read_corpus(CONLL))
    assert f"{n - 2} full, 0 partial, 2 none" in capsys.readouterr().out

"""``tagtool train PROJECT.tagproj`` trains on the project's annotations."""

import pathlib

from tagtool.cli.main import main
from tagtool.store.project import Project
from tagtool.store.sources import is_project_file, read_source
from tagtool.tagger.model import load_tagger

CONLL = pathlib.Path(__file__).parent / "data" / "conll2000_train_head.txt"


def _project(tmp_path):
    path = tmp_path / "chunks.tagproj"
    assert main(["import", str(CONLL), "-p", str(path)]) == 0
    with Project.open(path) as project:
        ids = project.sentence_ids()
        for sid in ids[50:]:  # half unlabeled, one candidate set, as in an app session
            project.set_annotations(sid, {t: [] for t in range(len(project.annotations(sid)))})
        project.set_annotation(ids[0], 0, "B-NP|B-PP")
    return path


def test_train_on_a_project_file(tmp_path, capsys):
    project = _project(tmp_path)
    model = tmp_path / "m.tagger"
    assert main(["train", str(project), "--learner", "perceptron", "-o", str(model)]) == 0
    out = capsys.readouterr().out
    assert "49 full, 1 partial, 50 none" in out
    tagger = load_tagger(model)
    with Project.open(project, readonly=True) as p:
        assert set(tagger.labels) == set(p.labels)
    assert main(["evaluate", str(model), str(CONLL)]) == 0


def test_a_project_is_recognised_by_its_header_not_its_name(tmp_path):
    project = _project(tmp_path)
    assert is_project_file(project)
    renamed = tmp_path / "chunks.txt"
    renamed.write_bytes(project.read_bytes())
    assert is_project_file(renamed)
    text_named_like_a_project = tmp_path / "x.tagproj"
    text_named_like_a_project.write_bytes(CONLL.read_bytes())
    assert not is_project_file(text_named_like_a_project)
    assert len(read_source(text_named_like_a_project)) == len(read_source(project))


def test_a_project_as_unlabeled_text(tmp_path):
    corpus = read_source(_project(tmp_path), label_column=None)
    assert all(s.status == "none" for s in corpus)

"""File-safety case 1 (benchmarks/reliability.py): a corpus whose label set has one label keeps its labels."""

from tagtool.cli.main import main
from tagtool.store.project import Project


def test_one_label_corpus_import_keeps_full_labels(tmp_path, capsys):
    data = tmp_path / "one.conll"
    data.write_text("a O\nb O\n\nc O\n")
    project_path = tmp_path / "one.tagproj"
    assert main(["import", str(data), "-p", str(project_path)]) == 0
    with Project.open(project_path) as project:
        assert project.listing.annotation_counts()["full"] == 3
        assert project.listing.status_counts()["full"] == 2
        sid = project.sentence_ids()[0]
        project.set_annotation(sid, 0, [])
        assert project.annotations(sid)[0] == frozenset()
        project.set_annotation(sid, 0, "O")
        assert project.annotations(sid)[0] == frozenset({"O"})
    out = tmp_path / "out.conll"
    assert main(["export", str(project_path), "-o", str(out)]) == 0
    assert out.read_text() == "a O\nb O\n\nc O\n\n"

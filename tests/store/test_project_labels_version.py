"""File-safety case 4 (benchmarks/reliability.py): two processes on one project never write a dead label."""

import subprocess
import sys

import pytest

from tagtool.core import Corpus, LabelSet, Sentence
from tagtool.errors import LabelError
from tagtool.store.formats import write_corpus
from tagtool.store.project import Project


@pytest.fixture
def project_path(tmp_path):
    labels = LabelSet(["O", "B-PER", "I-PER", "B-LOC"])
    corpus = Corpus.from_sentences(
        [Sentence(("Ann", "lives", "here"), (frozenset(), frozenset(), frozenset()))], labels=labels
    )
    path = tmp_path / "p.tagproj"
    with Project.create(path, corpus):
        pass
    return path


def _other_process(path, code):
    """Run ``code`` with ``p`` open on ``path`` in another Python process."""
    script = f"from tagtool.store.project import Project\nwith Project.open({str(path)!r}) as p:\n    {code}\n"
    subprocess.run([sys.executable, "-c", script], check=True)


def test_label_removed_elsewhere_is_not_written(project_path, tmp_path):
    with Project.open(project_path) as a:
        sid = a.sentence_ids()[0]
        assert "B-LOC" in a.labels
        _other_process(project_path, "p.label_set.remove_label('B-LOC')")
        with pytest.raises(LabelError, match="B-LOC"):
            a.set_annotation(sid, 0, "B-LOC")
        assert "B-LOC" not in a.labels  # re-read: the next edit uses the current set
        a.set_annotation(sid, 0, "B-PER")
    with Project.open(project_path, readonly=True) as p:
        write_corpus(p.corpus(), tmp_path / "out.conll")  # exportable
        assert p.annotations(sid)[0] == frozenset({"B-PER"})


def test_label_renamed_elsewhere_is_not_written(project_path, tmp_path):
    with Project.open(project_path) as a:
        sid = a.sentence_ids()[0]
        _ = a.labels  # read before the other process changes it
        _other_process(project_path, "p.label_set.rename_label('B-LOC', 'B-GPE')")
        with pytest.raises(LabelError):
            a.set_annotations(sid, {0: {"B-LOC", "O"}})
        a.set_annotations(sid, {0: {"B-GPE", "O"}})
    with Project.open(project_path, readonly=True) as p:
        write_corpus(p.corpus(), tmp_path / "out.conll")
        assert p.annotations(sid)[0] == frozenset({"B-GPE", "O"})


def test_label_added_elsewhere_is_seen(project_path):
    with Project.open(project_path) as a:
        sid = a.sentence_ids()[0]
        before = a.label_set.labels_version
        _other_process(project_path, "p.label_set.add_label('I-LOC')")
        assert a.label_set.labels_version == before + 1
        assert "I-LOC" in a.labels
        a.set_annotation(sid, 2, "I-LOC")
        a.label_set.rename_label("I-LOC", "I-GPE")  # its own change is seen too
        assert a.label_set.labels_version == before + 2
        assert "I-GPE" in a.labels and "I-LOC" not in a.labels


def test_candidate_set_normalised_against_current_labels(project_path):
    with Project.open(project_path) as a:
        sid = a.sentence_ids()[0]
        _ = a.labels
        _other_process(project_path, "p.label_set.remove_label('B-LOC')")
        # {O, B-PER, I-PER} named all but one label when read; it names every label now
        a.set_annotations(sid, {1: {"O", "B-PER", "I-PER"}})
        assert a.annotations(sid)[1] == frozenset()


def _two_annotator_project(tmp_path):
    import pathlib

    from tagtool.store.formats import read_corpus

    data = pathlib.Path(__file__).resolve().parents[1] / "data" / "labelstudio_full.json"
    path = tmp_path / "ls.tagproj"
    Project.create(path, read_corpus(data)).close()
    return path


def _own_labels(project):
    return {
        n
        for sid in project.sentence_ids()
        for anns in project.team.annotator_labels(sid).values()
        for a in anns
        for n in a
    }


def test_rename_and_remove_reach_every_annotators_own_labels(tmp_path):
    # Found in review: a renamed label lived on in annotator_labels (a dead label again).
    path = _two_annotator_project(tmp_path)
    with Project.open(path) as p:
        assert "B-ORG" in _own_labels(p)
        p.label_set.rename_label("B-ORG", "B-COMPANY")
        assert "B-ORG" not in _own_labels(p) and "B-COMPANY" in _own_labels(p)
        with pytest.raises(LabelError, match="annotators' own labels"):
            p.label_set.remove_label("B-COMPANY")
        p.label_set.remove_label("B-COMPANY", force=True)
        assert "B-COMPANY" not in _own_labels(p)

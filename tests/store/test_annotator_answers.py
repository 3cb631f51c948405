"""The store's queries of each annotator's own answers and progress (tagtool.store.annotator_answers)."""

from __future__ import annotations

from tagtool.core import Corpus
from tagtool.core.corpus import Sentence
from tagtool.store.project import Project
from tests.store.agreement_samples import ner_team_project


def list_answers(project, *args, **kwargs) -> list:
    return list(project.team.annotator_answers(*args, **kwargs))


def test_answers_in_order_and_by_range(tmp_path):
    with Project.open(ner_team_project(tmp_path / "p.tagproj", n_sentences=6), readonly=True) as p:
        ids = p.sentence_ids()
        rows = list_answers(
            p,
        )
        assert rows == sorted(rows, key=lambda r: (r[0], r[1]))
        assert {name for _, _, name, _ in rows} == {"ana", "ben"}
        assert all(isinstance(labels, frozenset) and labels for *_, labels in rows)
        first = list_answers(p, ids[0], ids[0])
        assert first == [r for r in rows if r[0] == ids[0]]
        n = len(p.sentence(ids[0]))
        assert len(first) == 2 * n  # both annotators answered every token of the first half
        by_step = list_answers(p, ids[0], ids[2]) + list_answers(p, ids[3], None)
        assert by_step == rows


def test_progress_counts_answers_and_own_edits_not_the_imported_labels(tmp_path):
    path = ner_team_project(tmp_path / "p.tagproj", n_sentences=6)
    with Project.open(path) as p:
        ids = p.sentence_ids()
        tokens = [len(p.sentence(i)) for i in ids]
        progress = p.team.annotator_progress()
        assert progress == {"ana": (6, sum(tokens)), "ben": (3, sum(tokens[:3]))}  # "import" is nobody
        # ben's edits in the app count where nobody answered (a new sentence), not as a second count
        new = p.imports.import_corpus(Corpus.from_sentences([Sentence(("x", "y"))], labels=p.labels))[0]
        p.set_annotations(new, {0: {"B-PER"}, 1: {"B-PER", "B-ORG"}}, annotator="ben")
        p.set_annotations(ids[0], {0: {"B-MISC"}}, annotator="ben")
        assert p.team.annotator_progress()["ben"] == (4, sum(tokens[:3]) + 2)
        ids = p.sentence_ids()
        halves = [p.team.annotator_progress(ids[0], ids[2]), p.team.annotator_progress(ids[3], ids[-1])]
        assert {
            k: tuple(map(sum, zip(*(h.get(k, (0, 0)) for h in halves)))) for k in ("ana", "ben")
        } == p.team.annotator_progress()


def test_shared_answers_are_those_of_tokens_two_annotators_answered(tmp_path):
    with Project.open(ner_team_project(tmp_path / "p.tagproj", n_sentences=6), readonly=True) as p:
        ids = p.sentence_ids()
        shared = list_answers(p, shared=True)
        assert shared == [
            r
            for r in list_answers(
                p,
            )
            if r[0] in ids[:3]
        ]  # ben answered the first half
        assert p.team.answering_annotators() == ["ana", "ben"]
        assert list_answers(p, ids[3], None, shared=True) == []

"""Team work meets the project's own changes: a joint giver (``ana+ben``) never becomes an annotator,
an edit or a clear made in the project stands when unchanged files are merged again, and an edit of a
resolved token carries its resolution along (so the merge report counts what is true)."""

from __future__ import annotations

import sqlite3

from team_samples import LABELS, dump

from tagtool.cli.main import main
from tagtool.core import Corpus, Sentence
from tagtool.core.annotators import JOINER, combine
from tagtool.store.project import Project

TOKENS = ("New", "York", "is", "big")


def _team(tmp_path, names=("ana", "ben", "cy")):
    """A project of two sentences and each annotator's file holding both (``tagtool assign``)."""
    path = tmp_path / "p.tagproj"
    Project.create(path, Corpus.from_sentences([Sentence(TOKENS), Sentence(("Ana", "left"))], LABELS)).close()
    out = tmp_path / "out"
    assert (
        main(
            [
                "assign",
                str(path),
                "--annotators",
                ",".join(names),
                "--overlap",
                "1",
                "--shared-by",
                str(len(names)),
                "-o",
                str(out),
            ]
        )
        == 0
    )
    return path, {name: out / f"p.{name}.tagproj" for name in names}


def _answer(path, labels):
    """Label the file's sentence of :data:`TOKENS` (``labels`` one a token) as an annotator does."""
    with Project.open(path) as f:
        sid = next(i for i in f.sentence_ids() if f.sentence(i).tokens == TOKENS)
        f.set_annotations(sid, dict(enumerate(labels)), "whoever")


def _merge(capsys, path, *files):
    capsys.readouterr()
    assert main(["merge", str(path), *map(str, files)]) == 0
    return capsys.readouterr().out


def _names(path):
    conn = sqlite3.connect(path)
    try:
        return sorted(n for (n,) in conn.execute("SELECT DISTINCT annotator FROM annotator_labels"))
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# joint givers


def test_a_token_merge_and_split_then_a_merge_makes_no_phantom_annotator(tmp_path, capsys):
    path, files = _team(tmp_path)
    _answer(files["ana"], ["B-PER", "I-PER", "O", "O"])
    _answer(files["ben"], ["B-PER", "O", "O", "O"])
    _merge(capsys, path, files["ana"], files["ben"])
    with Project.open(path) as p:
        sid = p.sentence_ids()[0]
        p.review.merge_tokens(sid, 0)  # "NewYork" by mistake ...
        p.review.split_token(sid, 0, 3)  # ... and split again: the tokens are the files' again
        for t, answers in enumerate(p.team.answers(sid)):  # the training labels are the rule's
            assert p.annotations(sid)[t] == combine(answers.values(), LABELS)
    _answer(files["cy"], ["B-PER", "I-PER", "O", "O"])
    _merge(capsys, path, files["cy"])
    assert _names(path) == ["ana", "ben", "cy"]
    with Project.open(path, readonly=True) as p:
        assert p.annotations(sid)[0] == {"B-PER"}  # ana and cy against ben's B-PER|O
        assert all(JOINER not in name for answers in p.team.answers(sid) for name in answers)


def test_a_token_merge_then_import_as_annotator_makes_no_phantom_annotator(tmp_path, capsys):
    path = tmp_path / "p.tagproj"
    with Project.create(path, Corpus.from_sentences([Sentence(TOKENS)], LABELS)) as p:
        sid = p.sentence_ids()[0]
        p.team.add_answers(
            [(sid, "s", {"ana": [{"B-PER"}, {"I-PER"}, {"O"}, {"O"}], "ben": [{"B-PER"}, {"O"}, {"O"}, {"O"}]})]
        )
        p.review.merge_tokens(sid, 0)
        assert p.annotations(sid)[0] == combine(p.team.answers(sid)[0].values(), LABELS)
    cy = tmp_path / "cy.conll"
    cy.write_text("NewYork B-PER\nis O\nbig B-ORG\n\n", encoding="utf-8")
    assert main(["import", str(cy), "-p", str(path), "--as-annotator", "--annotator", "cy"]) == 0
    assert _names(path) == ["ana", "ben", "cy"]


def test_merging_tokens_two_annotators_answered_one_each_makes_no_annotator_of_the_merger(tmp_path):
    with Project.create(tmp_path / "p.tagproj", Corpus.from_sentences([Sentence(TOKENS)], LABELS)) as p:
        sid = p.sentence_ids()[0]
        p.team.add_answers([(sid, "s", {"ana": [{"O"}, set(), {"O"}, {"O"}], "ben": [set(), {"B-PER"}, {"O"}, {"O"}]})])
        p.review.merge_tokens(sid, 0, "merger")
        assert p.team.answers(sid)[0] == {} and p.annotations(sid)[0] == frozenset()  # nobody answered "NewYork"
        p.team.add_answers([(sid, "s", {"cy": [{"B-ORG"}, {"O"}, {"O"}]})])
        assert p.team.answering_annotators() == ["ana", "ben", "cy"] and p.annotations(sid)[0] == {"B-ORG"}


def test_a_stale_joint_giver_of_an_older_project_is_not_made_an_annotator(tmp_path):
    with Project.create(tmp_path / "p.tagproj", Corpus.from_sentences([Sentence(TOKENS)], LABELS)) as p:
        sid = p.sentence_ids()[0]
        p.team.add_answers(
            [(sid, "s", {"ana": [{"B-PER"}, {"O"}, {"O"}, {"O"}], "ben": [{"B-ORG"}, {"O"}, {"O"}, {"O"}]})]
        )
        # what a token merge of an earlier version left: a label the answers do not make, by both
        p._db.execute("UPDATE annotations SET labels = 'B-PER', annotator = 'ana+ben' WHERE token = 0")
        # a real annotator whose name holds the joiner still gives an answer by an edit
        p.set_annotation(sid, 1, "B-ORG", "jo+tagtool@example.org")
        counts = p.team.add_answers([(sid, "s", {"cy": [{"B-PER"}, {"O"}, {"O"}, {"O"}]})])
        assert p.team.answering_annotators() == ["ana", "ben", "cy", "jo+tagtool@example.org"]
        assert counts.seeded == 1 and p.annotations(sid)[0] == {"B-PER"}
        # ... and a joint giver of such a name is no person either
        p._db.execute(
            "UPDATE annotations SET labels = 'I-ORG', annotator = 'cy+jo+tagtool@example.org' WHERE token = 1"
        )
        p.team.add_answers([(sid, "s", {"ana": [{"B-PER"}, {"B-ORG"}, {"O"}, {"O"}]})])
        assert p.team.answering_annotators() == ["ana", "ben", "cy", "jo+tagtool@example.org"]
        assert p.annotations(sid)[1] == {"B-ORG", "O"}  # ana and jo against ben and cy


# ---------------------------------------------------------------------------
# edits and clears in the project, then the same files again


def test_a_clear_and_edits_stand_when_unchanged_files_are_merged_again(tmp_path, capsys):
    path, files = _team(tmp_path, ("ana", "ben"))
    _answer(files["ana"], ["B-PER", "I-PER", "O", "O"])
    _answer(files["ben"], ["B-PER", "I-PER", "O", "B-ORG"])
    _merge(capsys, path, *files.values())
    with Project.open(path) as p:
        sid = p.sentence_ids()[0]
        p.set_annotation(sid, 1, "_")  # a clear by the project's own annotator
        p.set_annotation(sid, 0, "B-ORG")  # an edit
        p.set_annotation(sid, 2, "B-ORG", "ana")  # an edit by one of the team, in the project
    out = _merge(capsys, path, *files.values())
    assert "0 tokens whose answers changed, 0 training labels changed" in out
    with Project.open(path, readonly=True) as p:
        assert p.annotations(sid)[:3] == (frozenset({"B-ORG"}), frozenset(), frozenset({"B-ORG"}))
    before = dump(path)
    assert "0 tokens whose answers changed, 0 training labels changed" in _merge(capsys, path, *files.values())
    assert dump(path) == before
    _answer(files["ben"], ["B-PER", "O", "O", "B-ORG"])  # a changed answer brings the rule back there
    out = _merge(capsys, path, files["ben"])
    assert "1 tokens whose answers changed, 1 training labels changed" in out
    with Project.open(path, readonly=True) as p:
        assert p.annotations(sid)[1] == {"I-PER", "O"} and p.annotations(sid)[0] == {"B-ORG"}


# ---------------------------------------------------------------------------
# resolutions


def test_an_edit_of_a_resolved_token_carries_its_resolution(tmp_path, capsys):
    path, files = _team(tmp_path, ("ana", "ben"))
    _answer(files["ana"], ["B-PER", "I-PER", "O", "O"])
    _answer(files["ben"], ["B-ORG", "I-PER", "O", "O"])
    _merge(capsys, path, *files.values())
    with Project.open(path) as p:
        sid = p.sentence_ids()[0]
        p.team.resolve_token(sid, 0, "B-ORG", "judge")
        p.set_annotation(sid, 0, "O", "editor")
        resolution = p.team.resolutions(sid)[0]
        assert (resolution.labels, resolution.annotator) == ({"O"}, "editor")
    out = _merge(capsys, path, *files.values())
    assert "0 disagree (training label: the candidate set of the answers), 1 disagree but were resolved" in out
    with Project.open(path) as p:
        assert p.annotations(sid)[0] == {"O"}
        p.set_annotation(sid, 0, "_", "editor")  # a resolution is a label: a clear takes it back
        assert p.team.resolutions(sid) == {} and p.annotations(sid)[0] == frozenset()
        assert p.sentence_ids(status="disagree") == [sid]
    out = _merge(capsys, path, *files.values())
    assert "1 disagree (training label: the candidate set of the answers), 0 disagree but were resolved" in out


def test_a_stale_resolution_of_an_older_project_follows_its_training_label(tmp_path):
    with Project.create(tmp_path / "p.tagproj", Corpus.from_sentences([Sentence(TOKENS)], LABELS)) as p:
        sid = p.sentence_ids()[0]
        p.team.add_answers(
            [(sid, "s", {"ana": [{"B-PER"}, {"O"}, {"O"}, {"O"}], "ben": [{"B-ORG"}, {"O"}, {"B-PER"}, {"O"}]})]
        )
        p.team.resolve_token(sid, 0, "B-ORG", "judge")
        p.team.resolve_token(sid, 2, "B-PER", "judge")
        # what an edit made before resolutions followed edits: the label changed, the resolution not
        p._db.execute("UPDATE annotations SET labels = 'O', annotator = 'editor' WHERE token = 0")
        p._db.execute("DELETE FROM annotations WHERE token = 2")
        p.team.add_answers([(sid, "s", {"cy": [{"B-PER"}, {"O"}, {"O"}, {"O"}]})])
        assert {t: r.labels for t, r in p.team.resolutions(sid).items()} == {0: {"O"}}
        assert p.annotations(sid)[0] == {"O"}

"""Annotators' answers in a project: the rule for training labels, who gave them, what a new answer keeps."""

from __future__ import annotations

import pytest

from tagtool.core import Corpus, LabelSet
from tagtool.core.annotators import attribute, check_name, combine, giver
from tagtool.core.corpus import Sentence
from tagtool.errors import LabelError
from tagtool.store.project import Project

LABELS = LabelSet(["O", "B-PER", "I-PER", "B-ORG", "I-ORG"])
TOKENS = ("Ann", "met", "Acme")


def _ann(*names):
    return frozenset(names)


def _project(tmp_path, sentences=None, name="p.tagproj"):
    sentences = sentences or [Sentence(TOKENS), Sentence(("Bob", "left"))]
    return Project.create(tmp_path / name, Corpus.from_sentences(sentences, LABELS))


def _training(project, sid):
    rows = project._db.execute(
        "SELECT token, labels, annotator FROM annotations WHERE sentence_id = ? ORDER BY token", (sid,)
    ).fetchall()
    return {t: (labels, who) for t, labels, who in rows}


def test_combine_is_the_common_answer_or_the_union():
    assert combine([_ann("B-PER"), _ann("B-PER")]) == {"B-PER"}
    assert combine([_ann("B-PER"), _ann("B-ORG")]) == {"B-PER", "B-ORG"}
    assert combine([_ann("B-PER", "O"), _ann("B-ORG")]) == {"B-PER", "B-ORG", "O"}
    assert combine([_ann("B-PER"), _ann()]) == {"B-PER"}  # an unlabeled token is no answer
    assert combine([]) == frozenset()
    assert combine([frozenset(LABELS.names[:3]), frozenset(LABELS.names[2:])], LABELS) == frozenset()


def test_combine_takes_a_strict_majority_before_the_union():
    # two of three agree: their answer (team_noise.md: the union lost 1.8-2.4 F1 on NCBI here)
    assert combine([_ann("B-PER"), _ann("B-ORG"), _ann("B-PER")]) == {"B-PER"}
    assert combine([_ann("B-PER", "B-ORG"), _ann("B-ORG"), _ann("B-PER", "B-ORG")]) == {"B-PER", "B-ORG"}
    # no strict majority: two of four, one of three, one each of two
    assert combine([_ann("B-PER"), _ann("B-PER"), _ann("B-ORG"), _ann("O")]) == {"B-PER", "B-ORG", "O"}
    assert combine([_ann("B-PER"), _ann("B-ORG"), _ann("O")]) == {"B-PER", "B-ORG", "O"}
    # the majority is of those who answered: an unlabeled token is no vote
    assert combine([_ann("B-PER"), _ann("B-PER"), _ann("B-ORG"), _ann(), _ann()]) == {"B-PER"}


def test_giver_names_who_gave_the_label():
    answers = {"bob": _ann("B-ORG"), "alice": _ann("B-PER"), "carol": _ann("B-PER")}
    assert giver(answers, _ann("B-PER"), "import") == "alice+carol"
    assert giver(answers, _ann("B-PER", "B-ORG"), "import") == "alice+bob+carol"
    assert giver({}, _ann("O"), "import") == "import"


def test_names_are_trimmed_and_never_empty():
    assert check_name("  ann@example.com ") == "ann@example.com"
    for bad in ("", "   ", None, 3):
        with pytest.raises(ValueError):
            check_name(bad)


def test_attribute_gives_unnamed_labeled_sentences_to_the_annotator():
    labeled = Sentence(("a", "b"), [_ann("O"), _ann()])
    named = Sentence(("c",), [_ann("O")], annotator_labels={"bob": [_ann("O")]})
    corpus = attribute(Corpus.from_sentences([labeled, Sentence(("d",)), named], LABELS), " alice ")
    first, unlabeled, kept = corpus.sentences
    assert first.annotator_labels == {"alice": (_ann("O"), _ann())} and first.annotations == labeled.annotations
    assert not unlabeled.annotator_labels and kept.annotator_labels == {"bob": (_ann("O"),)}


def test_import_names_the_giver_of_each_training_label(tmp_path):
    sentence = Sentence(
        TOKENS,
        [_ann("B-PER"), _ann("O"), _ann("B-ORG", "B-PER")],
        annotator_labels={
            "alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG")],
            "bob": [_ann("B-PER"), _ann(), _ann("B-PER")],
        },
    )
    with _project(tmp_path, [sentence]) as p:
        (sid,) = p.sentence_ids()
        assert _training(p, sid) == {0: ("B-PER", "alice+bob"), 1: ("O", "alice"), 2: ("B-PER|B-ORG", "alice+bob")}
        assert p.team.annotator_labels(sid)["bob"][1] == frozenset()


def test_answers_of_two_annotators_make_candidate_sets_where_they_differ(tmp_path):
    with _project(tmp_path) as p:
        sid, other = p.sentence_ids()
        p.team.add_answers([(sid, "s1", {"alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG")]})])
        assert _training(p, sid) == {0: ("B-PER", "alice"), 1: ("O", "alice"), 2: ("B-ORG", "alice")}
        counts = p.team.add_answers([(sid, "s1", {"bob": [_ann("B-PER"), _ann("O"), _ann("B-PER")]})])
        assert (counts.sentences, counts.answers, counts.changed, counts.candidate_sets) == (1, 3, 1, 1)
        assert _training(p, sid) == {0: ("B-PER", "alice+bob"), 1: ("O", "alice+bob"), 2: ("B-PER|B-ORG", "alice+bob")}
        assert p.annotations(sid)[2] == {"B-PER", "B-ORG"}
        assert set(p.team.annotator_labels(sid)) == {"alice", "bob"} and not p.team.annotator_labels(other)
        assert p.listing.status_counts()["full"] == 0 and p.listing.status_counts()["partial"] == 1


def test_an_annotators_new_answers_replace_their_old_ones(tmp_path):
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.team.add_answers(
            [
                (
                    sid,
                    "s1",
                    {
                        "alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG")],
                        "bob": [_ann("B-ORG"), _ann("O"), _ann("B-ORG")],
                    },
                )
            ]
        )
        p.team.add_answers([(sid, "s1", {"bob": [_ann("B-PER"), _ann(), _ann("B-ORG")]})])
        assert p.team.annotator_labels(sid)["bob"] == (_ann("B-PER"), _ann(), _ann("B-ORG"))
        assert _training(p, sid) == {0: ("B-PER", "alice+bob"), 1: ("O", "alice"), 2: ("B-ORG", "alice+bob")}


def test_labels_a_named_person_gave_before_any_answer_become_their_answers(tmp_path):
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.set_annotations(sid, {0: ["B-PER"], 2: ["B-ORG"]}, annotator="carol")
        counts = p.team.add_answers([(sid, "s1", {"alice": [_ann("B-PER"), _ann("O"), _ann("B-PER")]})])
        assert counts.seeded == 2
        assert p.team.annotator_labels(sid)["carol"] == (_ann("B-PER"), _ann(), _ann("B-ORG"))
        assert _training(p, sid) == {0: ("B-PER", "alice+carol"), 1: ("O", "alice"), 2: ("B-PER|B-ORG", "alice+carol")}


@pytest.mark.parametrize("giver", ["user", "import"])
def test_the_projects_own_labels_stand_beside_the_answers_and_make_no_annotator(tmp_path, giver):
    """The person editing under no name (``user``), or a file of training labels naming nobody (``import``):
    their labels are the project's curated ones, as in INCEpTION's curation, not one more annotator's."""
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.set_annotations(sid, {0: ["B-PER"], 2: ["B-ORG"]}, annotator=giver)
        counts = p.team.add_answers(
            [
                (
                    sid,
                    "s1",
                    {"alice": [_ann("B-PER"), _ann("O"), _ann("B-PER")], "bob": [_ann("O"), _ann("O"), _ann("B-PER")]},
                )
            ]
        )
        assert (counts.seeded, counts.kept) == (0, 2)
        assert set(p.team.annotator_labels(sid)) == {"alice", "bob"} and p.team.answering_annotators() == [
            "alice",
            "bob",
        ]
        # tokens 0 and 2 keep the project's labels (the answers would make {B-PER, O} and B-PER); token 1,
        # which the project left unlabeled, takes what the answers make
        assert _training(p, sid) == {0: ("B-PER", giver), 1: ("O", "alice+bob"), 2: ("B-ORG", giver)}
        # an edit after the answers is the project's label as well
        p.set_annotations(sid, {1: ["B-PER"]}, annotator=giver)
        p.team.add_answers([(sid, "s1", {"carol": [_ann("O"), _ann("O"), _ann("O")]})])
        assert _training(p, sid)[1] == ("B-PER", giver) and "user" not in p.team.answering_annotators()


def test_an_edit_after_the_answers_becomes_its_editors_answer(tmp_path):
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.team.add_answers(
            [
                (
                    sid,
                    "s1",
                    {
                        "alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG")],
                        "bob": [_ann("B-PER"), _ann("O"), _ann("B-PER")],
                    },
                )
            ]
        )
        p.set_annotations(sid, {2: ["B-ORG"]}, annotator="judge")  # an edit in the editor, not a resolution
        counts = p.team.add_answers([(sid, "s1", {"carol": [_ann("B-ORG"), _ann("O"), _ann("B-PER")]})])
        assert (counts.seeded, counts.kept) == (1, 0)
        assert p.team.answers(sid)[2] == {
            "alice": _ann("B-ORG"),
            "bob": _ann("B-PER"),
            "carol": _ann("B-PER"),
            "judge": _ann("B-ORG"),
        }
        assert _training(p, sid)[2] == ("B-PER|B-ORG", "alice+bob+carol+judge")  # two against two
        assert _training(p, sid)[0] == ("B-PER", "alice+bob")  # two of three: the majority


def test_a_resolved_token_keeps_its_label_when_more_answers_come(tmp_path):
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.team.add_answers(
            [
                (
                    sid,
                    "s1",
                    {
                        "alice": [_ann("B-PER"), _ann("O"), _ann("B-ORG")],
                        "bob": [_ann("B-PER"), _ann("O"), _ann("B-PER")],
                    },
                )
            ]
        )
        p.team.resolve_token(sid, 2, "B-ORG", "judge")
        counts = p.team.add_answers([(sid, "s1", {"carol": [_ann("B-ORG"), _ann("O"), _ann("I-PER")]})])
        assert (counts.seeded, counts.kept, counts.answers_changed) == (0, 1, 3)
        assert _training(p, sid)[2] == ("B-ORG", "judge") and p.team.answers(sid)[2]["carol"] == _ann("I-PER")
        p.team.unresolve_token(sid, 2, "judge")  # its answers make its label again
        assert _training(p, sid)[2] == ("B-PER|I-PER|B-ORG", "alice+bob+carol")


def test_a_label_outside_the_label_set_changes_nothing(tmp_path):
    with _project(tmp_path) as p:
        sid, other = p.sentence_ids()
        given = [
            (other, "s2", {"alice": [_ann("B-PER"), _ann("O")]}),
            (sid, "document 'x', sentence 1", {"alice": [_ann("B-PER"), _ann("B-LOC"), _ann("O")]}),
        ]
        with pytest.raises(LabelError, match="document 'x', sentence 1, token 2"):
            p.team.add_answers(given)
        assert not p.team.annotator_labels(other) and not _training(p, other)
        p.team.add_answers(given, add_labels=["B-LOC"])
        assert "B-LOC" in p.labels and p.annotations(sid)[1] == {"B-LOC"}


def test_export_corpus_carries_each_annotators_labels(tmp_path):
    with _project(tmp_path) as p:
        sid, other = p.sentence_ids()
        p.team.add_answers([(other, "s2", {"bob": [_ann("B-PER"), _ann()]})])
        first, second = p.review.export_corpus().sentences
    assert not first.annotator_labels
    assert second.annotator_labels == {"bob": (_ann("B-PER"), _ann())} and second.annotations[0] == {"B-PER"}


def test_a_split_keeps_the_projects_own_label_and_makes_no_annotator(tmp_path):
    with _project(tmp_path) as p:
        sid, _ = p.sentence_ids()
        p.team.add_answers(
            [
                (
                    sid,
                    "s1",
                    {
                        "alice": [_ann("B-PER"), _ann("O"), _ann("B-PER")],
                        "bob": [_ann("B-PER"), _ann("O"), _ann("B-PER")],
                    },
                )
            ]
        )
        p.set_annotations(sid, {2: ["B-ORG"]}, annotator="user")  # the person, under no name of theirs
        p.review.split_token(sid, 2, 2, annotator="user")  # "Ac" + "me"
        assert p.annotations(sid)[2:] == (_ann("B-ORG"), _ann("I-ORG"))  # the split of the person's label
        assert p.team.answering_annotators() == ["alice", "bob"]

"""Many sentences and their one action written on a connection of their own, decided in the transaction."""

from __future__ import annotations

import pytest
from project_samples import ann, plain_corpus

from tagtool.core.labels import LabelSet
from tagtool.errors import LabelError, ProjectError
from tagtool.store import writes
from tagtool.store.actions import Action
from tagtool.store.bulk_writes import write_groups
from tagtool.store.project import Project

NP = {0: ann("B-NP"), 1: ann("I-NP")}


@pytest.fixture
def project(tmp_path):
    with Project.create(tmp_path / "p.tagproj", plain_corpus(5, 4)) as p:
        yield p


def _label_all(project, groups, **kwargs):
    action = Action("label_all", 0, 10.0, 14.0, 4.0)
    return write_groups(project.path, project.labels, groups, "ann1", action, project.sentence_ids()[0], True, **kwargs)


def test_occurrences_still_unlabeled_are_written_with_one_action(project):
    ids = project.sentence_ids()
    project.set_annotation(ids[2], 1, "O")  # labeled since the occurrences were found (by another program)
    done = []
    result = _label_all(project, {sid: [NP] for sid in ids[1:4]}, progress=lambda d, t: done.append((d, t)))
    assert set(result.after) == {ids[1], ids[3]} and result.n_tokens == 4
    assert result.before[ids[1]] == {0: frozenset(), 1: frozenset()}
    assert project.annotations(ids[1])[:2] == project.annotations(ids[3])[:2] == (ann("B-NP"), ann("I-NP"))
    assert project.annotations(ids[2])[:2] == (frozenset(), ann("O"))  # that occurrence is left alone
    assert done == [(1, 3), (2, 3), (3, 3)]
    (row,) = project.actions()
    assert (row.id, row.kind, row.sentence_id, row.n_tokens, row.active) == (
        result.action_id,
        "label_all",
        ids[0],
        4,
        4.0,
    )
    assert {e.sentence_id for e in project.annotation_history()} == {ids[1], ids[2], ids[3]}
    # an undo writes the tokens back whatever they hold, and names the action it reverses
    undo = Action("undo", 0, 14.0, 15.0, 1.0, result.action_id)
    back = write_groups(
        project.path, project.labels, {s: [c] for s, c in result.before.items()}, "ann1", undo, None, False
    )
    assert back.n_tokens == 4 and not any(project.annotations(ids[3]))
    assert [(r.kind, r.ref, r.n_tokens) for r in project.actions()][-1] == ("undo", result.action_id, 4)


def test_nothing_to_write_logs_nothing(project):
    sid = project.sentence_ids()[1]
    project.set_annotation(sid, 0, "O")
    assert _label_all(project, {sid: [NP]}).action_id is None and project.actions() == []


def test_a_failure_halfway_writes_nothing(project, monkeypatch):
    ids, real, calls = project.sentence_ids(), writes.apply, []

    def failing(*args, **kwargs):
        calls.append(args[3])
        if len(calls) == 3:
            raise ProjectError("the disk is full (simulated)")
        return real(*args, **kwargs)

    monkeypatch.setattr(writes, "apply", failing)
    with pytest.raises(ProjectError, match="simulated"):
        _label_all(project, {sid: [NP] for sid in ids})
    assert len(calls) == 3 and not any(any(project.annotations(sid)) for sid in ids) and project.actions() == []


def test_a_label_set_changed_since_is_refused(project):
    with pytest.raises(LabelError, match="label set was changed"):
        write_groups(
            project.path,
            LabelSet(["O", "B-X"]),
            {project.sentence_ids()[1]: [NP]},
            "a",
            Action("label_all", 0, 1.0, 2.0, 1.0),
            None,
            True,
        )
    assert project.actions() == []

"""Crash safety: an edit the store reported as committed survives SIGKILL."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest
from crash_editor import opens, planned_action, planned_edits, planned_open
from kill_child import run_and_kill
from project_samples import plain_corpus

from tagtool.core.annotation import parse_annotation
from tagtool.store.project import Project

EDITOR = Path(__file__).with_name("crash_editor.py")


def _run_and_kill(path: Path, kill_after: int, delay: float, *extra: str) -> list[str]:
    """Start the editor, kill it once it reported ``kill_after`` edits (plus ``delay``); its lines."""
    lines = run_and_kill(EDITOR, path, kill_after, delay, *extra)
    assert "done\n" not in lines, "the editor finished before it was killed"
    return lines


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("kill_after, delay", [(1, 0.0), (9, 0.0007), (60, 0.003)])
def test_every_reported_action_survives_a_kill_with_its_edit(tmp_path, kill_after, delay):
    """The action log is written in the edit's transaction: after a kill, each
    edit the store reported has its action, and the one in flight has both or neither."""
    path = tmp_path / "crash.tagproj"
    Project.create(path, plain_corpus(200, 10)).close()
    with Project.open(path) as p:
        labels = p.labels
        lengths = {s.id: s.n_tokens for s in p.listing.sentence_summaries()}
        plan = list(planned_edits(p.sentence_ids(), lengths, labels.names, seed=kill_after))
    n = len(_run_and_kill(path, kill_after, delay, "actions"))
    with Project.open(path) as p:
        history, actions = p.annotation_history(), p.actions()
    assert len(history) in (n, n + 1) and len(actions) == len(history), "an edit without its action, or back"
    for i, (entry, action) in enumerate(zip(history, actions)):
        sid, token, labels_set = plan[i]
        assert (entry.sentence_id, entry.token, entry.new) == (sid, token, labels_set)
        expected = planned_action(i, labels_set)
        assert action.sentence_id == sid and action.annotator == "crash-test"
        assert (action.kind, action.n_tokens, action.started, action.ended, action.active, action.ref) == expected


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("kill_after, delay", [(1, 0.0), (10, 0.0007), (61, 0.003)])
def test_every_reported_open_survives_a_kill_with_its_first_action(tmp_path, kill_after, delay):
    """An ``open`` (the time to get to a sentence and read it) is written in the transaction of the
    visit's first action: after a kill each reported edit has its action and, if it began a visit,
    the ``open`` just before it; the edit in flight has all of them or none."""
    path = tmp_path / "crash.tagproj"
    Project.create(path, plain_corpus(200, 10)).close()
    with Project.open(path) as p:
        lengths = {s.id: s.n_tokens for s in p.listing.sentence_summaries()}
        plan = list(planned_edits(p.sentence_ids(), lengths, p.labels.names, seed=kill_after))
    n = len(_run_and_kill(path, kill_after, delay, "opens"))
    with Project.open(path) as p:
        history, actions = p.annotation_history(), p.actions()
    assert len(history) in (n, n + 1), "a reported edit lost"
    expected = []
    for i in range(len(history)):
        sid, _token, labels_set = plan[i]
        if opens(i):
            expected.append(("open", sid, planned_open(i, lengths[sid])))
        expected.append(("edit", sid, planned_action(i, labels_set)))
    assert len(actions) == len(expected), "an edit without its action or its open, or back"
    for action, (_what, sid, want) in zip(actions, expected):
        assert action.sentence_id == sid and action.annotator == "crash-test"
        assert (action.kind, action.n_tokens, action.started, action.ended, action.active, action.ref) == want


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("kill_after, delay", [(1, 0.0), (7, 0.0005), (40, 0.002), (150, 0.007)])
def test_every_reported_edit_survives_a_kill(tmp_path, kill_after, delay):
    """Kill the editor after it reported ``kill_after`` edits (plus ``delay``
    seconds, so the kill lands at different points of an edit)."""
    path = tmp_path / "crash.tagproj"
    Project.create(path, plain_corpus(200, 10)).close()
    with Project.open(path) as p:
        labels = p.labels
        lengths = {s.id: s.n_tokens for s in p.listing.sentence_summaries()}
        plan = list(planned_edits(p.sentence_ids(), lengths, labels.names, seed=kill_after))

    lines = _run_and_kill(path, kill_after, delay)
    reported = []
    for line in lines:
        _, sid, token, text = line.split()
        reported.append((int(sid), int(token), parse_annotation(text, labels)))
    n = len(reported)
    assert reported == plan[:n]

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    with Project.open(path) as p:
        state = {sid: p.annotations(sid) for sid in p.sentence_ids()}
        for sid, token, labels_set in plan[:n]:
            assert state[sid][token] == labels_set
        # the edit in flight at the kill may or may not have been committed ...
        sid, token, labels_set = plan[n]
        in_flight = state[sid][token] == labels_set
        assert in_flight or state[sid][token] == frozenset()
        # ... and nothing after it was
        assert all(state[sid][token] == frozenset() for sid, token, _ in plan[n + 1 :])
        history = p.annotation_history()
        assert [(e.sentence_id, e.token, e.new) for e in history] == plan[: n + in_flight]
        counts = p.listing.annotation_counts()
        assert counts["full"] + counts["partial"] == n + in_flight

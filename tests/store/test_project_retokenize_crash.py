"""Crash safety of splits and merges: each one reported as committed survives SIGKILL, whole."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

import pytest
from crash_retokenizer import planned_changes
from kill_child import run_and_kill
from project_samples import LABELS

from tagtool.core import Corpus, Document, Sentence
from tagtool.store import retokenize
from tagtool.store.project import Project

EDITOR = Path(__file__).with_name("crash_retokenizer.py")


def labeled_corpus(n_sentences: int = 60) -> Corpus:
    """Sentences of 6 tokens with BIO chunk labels, a candidate set and an unlabeled token, and a column."""
    sentences = []
    for i in range(n_sentences):
        tokens = tuple(f"w{i}x{t}yz" for t in range(6))
        anns = ({"B-NP"}, {"I-NP"}, {"O"}, {"B-VP", "O"}, set(), {"I-VP"})
        sentences.append(Sentence(tokens, anns, {"pos": tuple(f"P{t}" for t in range(6))}))
    return Corpus(LABELS, (Document("d", sentences),))


def replay(states: dict, plan) -> dict:
    """The sentences after ``plan``, by the store's own pure functions."""
    states = dict(states)
    for op, sid, t, offset in plan:
        if op == "split":
            states[sid] = retokenize.split_state(states[sid], t, offset, LABELS, "x", 0.0)
        else:
            states[sid] = retokenize.merge_state(states[sid], t, LABELS, "x", 0.0)
    return states


def visible(state: retokenize.TokenState) -> tuple:
    """What a state says, without who made a change and when."""
    return state.tokens, state.columns, tuple((t, text) for t, text, _, _ in state.annotations)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize("kill_after, delay", [(1, 0.0), (9, 0.0007), (60, 0.003)])
def test_every_reported_split_and_merge_survives_a_kill(tmp_path, kill_after, delay):
    path = tmp_path / "crash.tagproj"
    Project.create(path, labeled_corpus()).close()
    with Project.open(path) as p:
        ids = p.sentence_ids()
        start = {sid: retokenize.read_state(p._db, sid) for sid in ids}
    lines = run_and_kill(EDITOR, path, kill_after, delay)
    n = len(lines)
    plan = []
    for _, (op, sid, t, offset) in zip(
        range(n + 1), planned_changes(ids, {s: start[s].tokens for s in ids}, kill_after)
    ):
        plan.append((op, sid, t, offset))
    assert [tuple(line.split()[1:]) for line in lines] == [tuple(map(str, c)) for c in plan[:n]]

    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    # the cached length, search text and counts agree with the tokens in every row
    for sid, tokens, n_tokens, text, n_full, n_partial in conn.execute(
        "SELECT id, tokens, n_tokens, text, n_full, n_partial FROM sentences"
    ):
        tokens = json.loads(tokens)
        assert n_tokens == len(tokens) and text == " ".join(tokens)
        stored = [r[0] for r in conn.execute("SELECT labels FROM annotations WHERE sentence_id = ?", (sid,))]
        assert n_full == sum("|" not in s for s in stored) and n_partial == sum("|" in s for s in stored)
    assert conn.execute(
        "SELECT count(*) FROM annotations a JOIN sentences s ON s.id = a.sentence_id WHERE a.token >= s.n_tokens"
    ).fetchone() == (0,)
    conn.close()

    done, with_in_flight = replay(start, plan[:n]), replay(start, plan[: n + 1])
    with Project.open(path) as p:
        now = {sid: visible(retokenize.read_state(p._db, sid)) for sid in ids}
    in_flight_sid = plan[n][1]
    for sid in ids:
        if sid != in_flight_sid:
            assert now[sid] == visible(done[sid])
    # the change in flight at the kill is there entirely or not at all
    assert now[in_flight_sid] in (visible(done[in_flight_sid]), visible(with_in_flight[in_flight_sid]))

"""Costs from the action log: the clock's idle threshold, the sums by kind, the relative costs."""

from __future__ import annotations

import pytest

from tagtool.annotation_costs import (
    ActionClock,
    CostsError,
    action_tokens,
    active_minutes_at,
    infer_kind,
    measure,
    relative_costs,
)
from tagtool.store.actions import IDLE_SECONDS
from tagtool.store.records import ActionRecord


class FakeTime:
    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def test_the_clock_charges_the_gap_since_the_last_action_up_to_the_idle_threshold():
    now = FakeTime()
    clock = ActionClock(now)
    now.t += 4.0
    first = clock.action("full", 2)
    assert (first.started, first.ended, first.active) == (1000.0, 1004.0, 4.0)
    clock.advance(first)
    now.t += 600.0  # a coffee break
    second = clock.action("accept", 5)
    assert second.ended - second.started == 600.0 and second.active == IDLE_SECONDS
    clock.advance(second)
    now.t += IDLE_SECONDS  # exactly the threshold counts whole
    third = clock.action("skip", 1)
    assert third.active == IDLE_SECONDS
    assert ActionClock(now, idle=10.0).action("full", 1).active == 0.0


def test_a_refused_action_leaves_its_time_to_the_next_one_and_a_clock_set_back_gives_no_negative_time():
    now = FakeTime()
    clock = ActionClock(now)
    now.t += 3.0
    clock.action("full", 1)  # not advanced: the project refused it
    now.t += 2.0
    again = clock.action("full", 1)
    assert again.active == 5.0
    clock.advance(again)
    now.t -= 100.0  # the system clock was set back
    back = clock.action("full", 1)
    assert back.active == 0.0 and back.ended == back.started


def test_kinds_and_tokens_of_edits():
    full, pair, none = frozenset({"O"}), frozenset({"O", "B-NP"}), frozenset()
    assert infer_kind({0: full, 1: full}) == "full"
    assert infer_kind({0: full, 1: pair}) == "candidate"
    assert infer_kind({0: none}) == "clear"
    assert action_tokens("full", {0: full, 1: full, 2: none}) == 2
    assert action_tokens("candidate", {0: full}) == 0, "a first toggle makes no candidate set yet"
    assert action_tokens("candidate", {0: pair, 1: pair}) == 2
    assert action_tokens("accept", {0: full, 1: full, 2: full}) == 3
    assert action_tokens("clear", {0: none, 1: none}) == 2
    assert action_tokens("undo", {0: none, 1: full}) == 2


def record(i, kind, n, active, ref=None, ended=None):
    ended = float(i) if ended is None else ended
    return ActionRecord(i, kind, 1, n, ended - active, ended, active, "user", ref)


def test_measure_sums_seconds_and_tokens_and_charges_corrections_to_the_kind_corrected():
    log = [
        record(1, "full", 2, 4.0),
        record(2, "full", 3, 6.0),
        record(3, "undo", 3, 1.0, ref=2),      # the 3 tokens of action 2 are undone ...
        record(4, "full", 3, 5.0),              # ... and labeled again
        record(5, "candidate", 0, 1.5),         # first toggle: a single label
        record(6, "candidate", 1, 1.5),         # second: the candidate set
        record(7, "accept", 8, 4.0),
        record(8, "undo", 8, 0.5, ref=7),
        record(9, "redo", 8, 0.5, ref=7),       # the acceptance stands
        record(10, "skip", 5, 2.5),
        record(11, "clear", 1, 1.0),
    ]
    m = measure(log)
    assert (m["full"].actions, m["full"].tokens, m["full"].seconds) == (3, 5, 16.0)
    assert m["full"].seconds_per_token == pytest.approx(3.2)
    assert (m["candidate"].tokens, m["candidate"].seconds) == (1, 3.0)
    assert (m["accept"].tokens, m["accept"].seconds) == (8, 5.0)
    assert m["skip"].tokens_per_minute == pytest.approx(120.0)
    assert (m["clear"].tokens, m["undo"].actions, m["redo"].actions) == (1, 2, 1)
    assert m["undo"].seconds == 1.5 and m["redo"].seconds == 0.5
    empty = measure([])["full"]
    assert empty.seconds_per_token is None and empty.tokens_per_minute is None


def test_relative_costs_divide_by_the_full_label_and_fall_back_for_rare_kinds():
    log = [record(i, "full", 5, 10.0) for i in range(1, 5)]           # 20 tokens, 2 s each
    log += [record(i, "accept", 10, 2.0) for i in range(5, 7)]        # 20 tokens, 0.2 s each
    log += [record(7, "candidate", 3, 3.0), record(8, "skip", 40, 8.0)]
    measured = relative_costs(log, "p.tagproj", min_tokens=20)
    assert measured.relative == pytest.approx({"full": 1.0, "accept": 0.1, "skip": 0.1})
    assert list(measured.missing) == ["candidate"] and "3 token(s)" in measured.missing["candidate"]
    table = measured.table({"full": 1.0, "partial": 0.5, "accept": 0.1, "skip": 0.1})
    assert "p.tagproj" in table and "60 s" in table
    assert "candidate set" in table and "0.5*" in table and "the default 0.5 is used" in table
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:6]}
    assert rows["full"][-2:] == ["2.00", "1"] and rows["accepted"][-2:] == ["0.20", "0.1"]


def test_relative_costs_refuse_without_enough_full_labels():
    with pytest.raises(CostsError, match=r"p.tagproj: its action log holds 4 full label\(s\) \(at least 20"):
        relative_costs([record(1, "full", 4, 8.0), record(2, "accept", 50, 5.0)], "p.tagproj", min_tokens=20)


def test_active_minutes_at_counts_the_actions_ended_by_then():
    log = [record(1, "full", 1, 30.0, ended=100.0), record(2, "full", 1, 60.0, ended=300.0),
           record(3, "skip", 1, 30.0, ended=200.0)]
    assert active_minutes_at(log, [50.0, 100.0, 250.0, 1e9]) == [0.0, 0.5, 1.0, 2.0]
    assert active_minutes_at([], [1.0]) == [0.0]


def test_the_log_priced_with_the_simulators_costs():
    from tagtool.annotation_costs import logged_cost, logged_tokens
    from tagtool.simulate import Costs

    rows = [("full", 3), ("skip", 7), ("candidate", 2), ("accept", 10), ("full", 1), ("undo", 1), ("clear", 4),
            ("review", 30)]
    records, t = [], 0.0
    for i, (kind, n) in enumerate(rows, start=1):
        ref = 5 if kind == "undo" else None  # the second full label was undone
        records.append(ActionRecord(i, kind, 1, n, t, t + 1.0, 1.0, "user", ref))
        t += 1.0
    assert logged_tokens(records) == {"full": 3, "candidate": 2, "accept": 10, "skip": 7}
    assert logged_cost(records, Costs()) == pytest.approx(3 * 1.0 + 2 * 0.5 + 10 * 0.1 + 7 * 0.1)
    assert logged_cost(records, Costs(accept=0.3)) == pytest.approx(3 + 1 + 3 + 0.7)

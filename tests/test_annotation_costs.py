"""Costs from the action log: the clock's idle threshold, the sums by kind, the relative costs."""

from __future__ import annotations

import pytest

from tagtool.services.annotation_costs import (
    MIN_TOKENS,
    ActionClock,
    CostsError,
    OpeningCost,
    action_tokens,
    active_minutes_at,
    infer_kind,
    measure,
    opening_cost,
    relative_costs,
)
from tagtool.store.actions import IDLE_SECONDS, first_ids, undone_ids
from tagtool.store.record_types import ActionRecord


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
        record(3, "undo", 3, 1.0, ref=2),  # the 3 tokens of action 2 are undone ...
        record(4, "full", 3, 5.0),  # ... and labeled again
        record(5, "candidate", 0, 1.5),  # first toggle: a single label
        record(6, "candidate", 1, 1.5),  # second: the candidate set
        record(7, "accept", 8, 4.0),
        record(8, "undo", 8, 0.5, ref=7),
        record(9, "redo", 8, 0.5, ref=7),  # the acceptance stands
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
    log = [record(i, "full", 5, 10.0) for i in range(1, 5)]  # 20 tokens, 2 s each
    log += [record(i, "accept", 10, 2.0) for i in range(5, 7)]  # 20 tokens, 0.2 s each
    log += [record(7, "candidate", 3, 3.0), record(8, "skip", 40, 8.0)]
    measured = relative_costs(log, "p.tagproj", min_tokens=20)
    assert measured.relative == pytest.approx({"full": 1.0, "accept": 0.1, "skip": 0.1})
    assert list(measured.missing) == ["candidate", "open"] and "3 token(s)" in measured.missing["candidate"]
    assert "0 sentence(s) observed" in measured.missing["open"]
    table = measured.table({"full": 1.0, "partial": 0.5, "accept": 0.1, "skip": 0.1})
    assert "p.tagproj" in table and "60 s" in table
    assert "candidate set" in table and "0.5*" in table and "the default 0.5 is used" in table
    rows = {line.split()[0]: line.split() for line in table.splitlines()[2:6]}
    assert rows["full"][-2:] == ["2.00", "1"] and rows["accepted"][-2:] == ["0.20", "0.1"]


def test_relative_costs_refuse_without_enough_full_labels():
    with pytest.raises(CostsError, match=r"p.tagproj: its action log holds 4 full label\(s\) \(at least 20"):
        relative_costs([record(1, "full", 4, 8.0), record(2, "accept", 50, 5.0)], "p.tagproj", min_tokens=20)


def test_active_minutes_at_counts_the_actions_ended_by_then():
    log = [
        record(1, "full", 1, 30.0, ended=100.0),
        record(2, "full", 1, 60.0, ended=300.0),
        record(3, "skip", 1, 30.0, ended=200.0),
    ]
    assert active_minutes_at(log, [50.0, 100.0, 250.0, 1e9]) == [0.0, 0.5, 1.0, 2.0]
    assert active_minutes_at([], [1.0]) == [0.0]


def test_the_log_priced_with_the_simulators_costs():
    from tagtool.services.annotation_costs import logged_cost, logged_tokens
    from tagtool.services.simulate.config import Costs

    rows = [
        ("full", 3),
        ("skip", 7),
        ("candidate", 2),
        ("accept", 10),
        ("full", 1),
        ("undo", 1),
        ("clear", 4),
        ("review", 30),
    ]
    records, t = [], 0.0
    for i, (kind, n) in enumerate(rows, start=1):
        ref = 5 if kind == "undo" else None  # the second full label was undone
        records.append(ActionRecord(i, kind, 1, n, t, t + 1.0, 1.0, "user", ref))
        t += 1.0
    assert logged_tokens(records) == {"full": 3, "candidate": 2, "accept": 10, "skip": 7}
    assert logged_cost(records, Costs()) == pytest.approx(3 * 1.0 + 2 * 0.5 + 10 * 0.1 + 7 * 0.1)
    assert logged_cost(records, Costs(accept=0.3)) == pytest.approx(3 + 1 + 3 + 0.7)


def visit(i, sid, open_seconds, first, rest=()):
    """Rows of one visit as the app logs them: ``open``, its first action (no time), then ``rest``."""
    kind, n = first
    rows = [
        ActionRecord(i, "open", sid, 10, 0.0, open_seconds, open_seconds, "user", None),
        ActionRecord(i + 1, kind, sid, n, open_seconds, open_seconds, 0.0, "user", None),
    ]
    for j, (kind, n, active) in enumerate(rest, start=i + 2):
        rows.append(ActionRecord(j, kind, sid, n, 0.0, active, active, "user", None))
    return rows


def test_the_first_action_of_a_visit_counts_its_tokens_but_not_in_the_seconds_per_token():
    log = visit(1, 7, 9.0, ("full", 1), [("full", 2, 4.0)]) + visit(10, 8, 5.0, ("accept", 6), [("skip", 2, 1.0)])
    m = measure(log)
    assert (m["full"].tokens, m["full"].rated, m["full"].seconds_per_token) == (3, 2, 2.0)
    assert (m["accept"].tokens, m["accept"].rated, m["accept"].seconds_per_token) == (6, 0, None)
    assert (m["open"].actions, m["open"].tokens, m["open"].seconds) == (2, 20, 14.0)
    assert first_ids(log) == {2, 11}
    # an open followed by an action of another sentence (not as the app logs it) marks nothing
    stray = [
        ActionRecord(1, "open", 1, 3, 0.0, 1.0, 1.0, "user", None),
        ActionRecord(2, "full", 2, 1, 1.0, 2.0, 1.0, "user", None),
    ]
    assert first_ids(stray) == set() and measure(stray)["full"].rated == 1


def test_opening_a_sentence_costs_its_open_time_beyond_the_first_actions_tokens():
    per_token = {"full": 2.0, "candidate": 1.0, "accept": 0.5, "skip": 0.1}
    log = visit(1, 1, 9.0, ("full", 1)) + visit(3, 2, 10.0, ("accept", 4)) + visit(5, 3, 3.0, ("candidate", 2))
    log += visit(7, 4, 30.0, ("clear", 1))  # opened, but its first action is no cost kind: not an observation
    cost = opening_cost(log, per_token)
    assert (cost.opened, cost.observations, cost.seconds) == (4, 3, 22.0)
    assert cost.seconds_per_sentence == pytest.approx(((9 - 2) + (10 - 2) + (3 - 2)) / 3)
    assert opening_cost(visit(1, 1, 1.0, ("full", 3)), per_token).seconds_per_sentence == 0.0, "floored at 0"
    assert opening_cost(log[:0], per_token) == OpeningCost()


def test_relative_costs_measure_the_sentence_from_enough_observations_only():
    log, i = [], 1
    for sid in range(MIN_TOKENS):  # 20 visits: 9 s open, first label 1 token, then 2 tokens in 4 s
        log += visit(i, sid, 9.0, ("full", 1), [("full", 2, 4.0)])
        i += 3
    measured = relative_costs(log, "p.tagproj")
    assert measured.relative == pytest.approx({"full": 1.0, "sentence": 3.5})
    assert measured.opening.observations == MIN_TOKENS and "open" not in measured.missing
    fewer = relative_costs(log[:-3], "p.tagproj")
    assert "sentence" not in fewer.relative and "19 sentence(s) observed" in fewer.missing["open"]
    assert "the default 1.4 is used" in fewer.table({"full": 1.0, "partial": 0.5, "accept": 0.1, "skip": 0.1})


def test_the_clock_gives_an_open_the_time_up_to_the_first_action():
    now = FakeTime()
    clock = ActionClock(now)
    now.t += 7.0
    opened, first = clock.opening("full", 2, 11)
    assert opened == ("open", 11, 1000.0, 1007.0, 7.0, None) and first == ("full", 2, 1007.0, 1007.0, 0.0, None)
    clock.advance(first)
    now.t += 500.0
    opened, _ = clock.opening("accept", 3, 4)
    assert opened.active == IDLE_SECONDS, "idle time over the threshold is not counted"


def test_a_label_all_is_one_action_of_its_own_not_labels_typed_by_hand():
    from tagtool.services.agreement.progress import annotator_progress
    from tagtool.services.annotation_costs import logged_cost, logged_tokens
    from tagtool.services.queue_costs import from_log
    from tagtool.services.simulate.config import Costs

    def record(i, kind, n, seconds, ref=None):
        return ActionRecord(i, kind, 1, n, 100.0 * i, 100.0 * i + seconds, seconds, "user", ref)

    hand = [record(i, "full", 1, 2.0) for i in range(1, MIN_TOKENS + 1)]  # 2 s per label typed
    bulk = record(MIN_TOKENS + 1, "label_all", 998, 4.0)  # one decision labeling 998 tokens
    records = [*hand, bulk]
    kinds = measure(records)
    assert kinds["full"].seconds_per_token == 2.0  # not diluted by the 998 tokens
    assert (kinds["label_all"].actions, kinds["label_all"].tokens, kinds["label_all"].seconds) == (1, 998, 4.0)
    assert logged_tokens(records) == logged_tokens(hand)
    assert logged_cost(records, Costs()) == logged_cost(hand, Costs()) == MIN_TOKENS * Costs().full
    assert relative_costs(records, "log").relative == relative_costs(hand, "log").relative
    assert from_log(records) == from_log(hand)
    (progress,) = annotator_progress({}, records)
    assert progress.logged_tokens == MIN_TOKENS  # its speed counts the labels given one by one
    # undone, it produced nothing; the undo's time is part of what it cost
    undo = ActionRecord(MIN_TOKENS + 2, "undo", 1, 998, 3000.0, 3001.0, 1.0, "user", bulk.id)
    undone = measure([*records, undo])["label_all"]
    assert (undone.tokens, undone.seconds) == (0, 5.0)
    assert undone_ids([*records, undo]) == {bulk.id}

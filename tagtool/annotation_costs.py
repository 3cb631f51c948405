"""Annotation costs measured from a project's action log (no Qt here).

The app logs every annotation action with the seconds it took
(:mod:`tagtool.store.actions`); this module

* times actions as they happen (:class:`ActionClock`) and counts their
  tokens (:func:`action_tokens`), for the app's session;
* prices the log's tokens in the simulator's cost model (:func:`logged_cost`);
* sums the log into seconds per token of each kind (:func:`measure`), which
  the statistics dock shows as tokens per minute and ``tagtool simulate
  --costs-from`` turns into the simulator's costs (:func:`relative_costs`);
* dates annotation work, for the learning curve against annotation minutes
  (:func:`active_minutes_at`).

How the seconds of a kind are summed
------------------------------------
The seconds of kind ``K`` are the ``active`` seconds of every action of
kind ``K`` plus those of the undos and redos that reversed one (fixing a
mistake is part of what a label costs).  Its tokens are the ``n_tokens`` of
the actions of kind ``K`` that are not undone at the end of the log (an
undone label produced nothing).  Seconds per token is their ratio; the
simulator's costs are those ratios divided by the full label's (``full =
1``), as :class:`tagtool.simulate.Costs` states them.
"""

from __future__ import annotations

import logging
import time
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from os import PathLike

from tagtool.errors import TagtoolError
from tagtool.store.actions import COST_KINDS, IDLE_SECONDS, KINDS, REVERSING, Action, undone_ids

log = logging.getLogger(__name__)

#: Fewest tokens a kind needs in the log before its measured cost is used
#: (below, ``--costs-from`` keeps that kind's default and says so).
MIN_TOKENS = 20
#: What the simulator's cost names call each logged kind.
SIMULATE_NAMES = {"full": "full", "candidate": "partial", "accept": "accept", "skip": "skip"}
#: The kinds in words (the dock and the CLI).
KIND_NAMES = {
    "full": "full label", "candidate": "candidate set", "accept": "accepted suggestion",
    "skip": "skipped token", "clear": "cleared", "review": "flagged / skipped sentence",
    "retokenize": "split / merged token", "adjudicate": "resolved token", "undo": "undo", "redo": "redo",
}


class CostsError(TagtoolError, ValueError):
    """A project whose action log cannot give the costs asked for."""


class ActionClock:
    """Times consecutive actions: each is charged with the time since the previous one.

    Parameters
    ----------
    now : callable, optional
        The clock (Unix seconds); :func:`time.time` by default, a fake one in tests.
    idle : float
        Gaps longer than this count as this many seconds (:data:`IDLE_SECONDS`).
    """

    def __init__(self, now: Callable[[], float] = time.time, idle: float = IDLE_SECONDS):
        self.now, self.idle = now, float(idle)
        self.last = now()

    def action(self, kind: str, n_tokens: int, ref: int | None = None) -> Action:
        """The action ending now, charged from the previous one; the clock does not move yet.

        Call :meth:`advance` once the action is saved, so a refused edit
        leaves its time to the next one.
        """
        ended = max(self.now(), self.last)  # a clock set back must not give negative times
        return Action(kind, int(n_tokens), self.last, ended, min(ended - self.last, self.idle), ref)

    def advance(self, action: Action) -> None:
        """The next action is charged from the end of ``action``."""
        self.last = max(self.last, action.ended)


def infer_kind(after: Mapping[int, frozenset]) -> str:
    """The kind of an edit that did not say: ``clear``, ``candidate`` or ``full``, by its result."""
    if all(len(a) == 0 for a in after.values()):
        return "clear"
    if any(len(a) > 1 for a in after.values()):
        return "candidate"
    return "full"


def action_tokens(kind: str, after: Mapping[int, frozenset]) -> int:
    """Tokens an edit of ``kind`` gave its kind's outcome (:mod:`tagtool.store.actions`).

    ``after`` holds only the tokens the edit changed.
    """
    if kind == "full":
        return sum(len(a) == 1 for a in after.values())
    if kind == "candidate":
        return sum(len(a) > 1 for a in after.values())
    if kind == "clear":
        return sum(len(a) == 0 for a in after.values())
    return len(after)


@dataclass(frozen=True)
class KindCost:
    """What the log says one kind of action costs.

    Attributes
    ----------
    kind : str
    actions : int
        Actions of the kind (undone ones included).
    tokens : int
        Their tokens, undone actions left out.
    seconds : float
        Active seconds of those actions and of the undos/redos that reversed them.
    """

    kind: str
    actions: int
    tokens: int
    seconds: float

    @property
    def seconds_per_token(self) -> float | None:
        return self.seconds / self.tokens if self.tokens else None

    @property
    def tokens_per_minute(self) -> float | None:
        return 60.0 * self.tokens / self.seconds if self.seconds > 0 else None


def measure(records: Sequence) -> dict[str, KindCost]:
    """Seconds and tokens of each kind in an action log (module doc), every kind of :data:`KINDS`."""
    undone = undone_ids(records)
    kind_of = {r.id: r.kind for r in records}
    seconds = dict.fromkeys(KINDS, 0.0)
    tokens = dict.fromkeys(KINDS, 0)
    actions = dict.fromkeys(KINDS, 0)
    for r in records:
        if r.kind not in seconds:
            continue  # a kind a newer tagtool logs
        actions[r.kind] += 1
        seconds[r.kind] += r.active
        if r.kind in REVERSING:
            target = kind_of.get(r.ref)
            if target in seconds and target not in REVERSING:
                seconds[target] += r.active
        if r.id not in undone:
            tokens[r.kind] += r.n_tokens
    return {k: KindCost(k, actions[k], tokens[k], seconds[k]) for k in KINDS}


def logged_tokens(records: Sequence) -> dict[str, int]:
    """Tokens of each cost kind (:data:`COST_KINDS`) in an action log, undone actions left out."""
    kinds = measure(records)
    return {kind: kinds[kind].tokens for kind in COST_KINDS}


def logged_cost(records: Sequence, costs) -> float:
    """What the work in an action log costs in ``tagtool simulate``'s cost model.

    ``costs``: a :class:`tagtool.simulate.Costs` (its ``full``, ``partial``,
    ``skip`` and ``accepted``).  Each kind's tokens (:func:`logged_tokens`)
    at its simulator cost (:data:`SIMULATE_NAMES`): what the simulated
    annotator would have been charged for the same decisions, so an app
    session and a simulation can be compared on one scale
    (``benchmarks/app_vs_simulate.py``).
    """
    tokens = logged_tokens(records)
    price = {"full": costs.full, "candidate": costs.partial, "accept": costs.accepted, "skip": costs.skip}
    return float(sum(price[kind] * n for kind, n in tokens.items()))


def active_minutes_at(records: Sequence, times: Sequence[float]) -> list[float]:
    """Annotation minutes logged up to each of ``times`` (the actions that had ended by then)."""
    ordered = sorted(records, key=lambda r: r.ended)
    ends = [r.ended for r in ordered]
    totals = list(accumulate((r.active for r in ordered), initial=0.0))
    return [totals[bisect_right(ends, t)] / 60.0 for t in times]


@dataclass(frozen=True)
class MeasuredCosts:
    """The simulator's costs from a project's log, and what was measured.

    Attributes
    ----------
    source : str
        The project file.
    kinds : dict of str to KindCost
        The four cost kinds (:data:`COST_KINDS`).
    relative : dict of str to float
        Measured cost relative to a full label, by simulator name
        (``full``, ``partial``, ``accept``, ``skip``), for kinds with
        at least ``min_tokens`` tokens.
    missing : dict of str to str
        The other cost kinds, and why (too few tokens).
    """

    source: str
    kinds: dict
    relative: dict
    missing: dict

    def table(self, defaults: Mapping[str, float]) -> str:
        """The measured costs in seconds and relative to a full label (printed by the CLI)."""
        lines = [f"costs measured in {self.source} (gaps over {IDLE_SECONDS:g} s between actions count as "
                 f"{IDLE_SECONDS:g} s):",
                 f"  {'action':<20} {'actions':>7} {'tokens':>7} {'seconds':>9} {'s/token':>8} {'cost':>6}"]
        for kind in COST_KINDS:
            k, name = self.kinds[kind], SIMULATE_NAMES[kind]
            per = "-" if k.seconds_per_token is None else f"{k.seconds_per_token:.2f}"
            if name in self.relative:
                cost = f"{self.relative[name]:.3g}"
            else:
                cost = f"{defaults[name]:g}*"
            lines.append(f"  {KIND_NAMES[kind]:<20} {k.actions:>7} {k.tokens:>7} {k.seconds:>9.1f} {per:>8} {cost:>6}")
        for kind, why in self.missing.items():
            lines.append(f"  * {KIND_NAMES[kind]}: {why}; the default {defaults[SIMULATE_NAMES[kind]]:g} is used")
        return "\n".join(lines)


def relative_costs(records: Sequence, source: str, min_tokens: int = MIN_TOKENS) -> MeasuredCosts:
    """The measured cost of each kind relative to a full label.

    Refuses (:class:`CostsError`) when the log has fewer than ``min_tokens``
    full labels: every cost is relative to it.  A kind other than ``full``
    with fewer tokens is left out of ``relative`` (the caller keeps its
    default) and named in ``missing``.
    """
    kinds = {k: v for k, v in measure(records).items() if k in COST_KINDS}
    full = kinds["full"]
    if full.tokens < min_tokens or full.seconds <= 0:
        raise CostsError(
            f"{source}: its action log holds {full.tokens} full label(s) (at least {min_tokens} are needed); "
            "the costs are relative to a full label, so they cannot be measured. Label more tokens in the app "
            "(tagtool gui), or leave out --costs-from")
    per_full = full.seconds_per_token
    relative, missing = {"full": 1.0}, {}
    for kind in COST_KINDS[1:]:
        k = kinds[kind]
        if k.tokens < min_tokens:
            missing[kind] = f"{k.tokens} token(s) in the log, fewer than {min_tokens}"
            continue
        relative[SIMULATE_NAMES[kind]] = k.seconds_per_token / per_full
    return MeasuredCosts(source, kinds, relative, missing)


def costs_from_project(path: str | PathLike, min_tokens: int = MIN_TOKENS) -> MeasuredCosts:
    """:func:`relative_costs` of a project file's action log (opened read-only)."""
    from tagtool.store.project import Project

    with Project.open(path, readonly=True) as project:
        records = project.actions()
    if not records:
        raise CostsError(f"{path}: its action log is empty (no annotation was made in the app since "
                         "tagtool logs actions); the costs cannot be measured")
    return relative_costs(records, str(path), min_tokens)

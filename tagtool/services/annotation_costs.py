"""Annotation costs measured from a project's action log (no Qt here).

The app logs every annotation action with the seconds it took
(:mod:`tagtool.store.actions`); this module

* times actions as they happen (:class:`ActionClock`) and counts their
  tokens (:func:`action_tokens`), for the app's session;
* prices the log's tokens in the simulator's cost model (:func:`logged_cost`);
* sums the log into seconds per token of each kind (:func:`measure`), which
  the statistics dock shows as tokens per minute and ``tagtool simulate
  --costs-from`` turns into the simulator's costs (:func:`relative_costs`);
* estimates the cost of opening a sentence from the ``open`` rows
  (:func:`opening_cost`; :mod:`tagtool.store.actions` says why it is an
  estimate);
* dates annotation work, for the learning curve against annotation minutes
  (:func:`active_minutes_at`).

How the seconds of a kind are summed
------------------------------------
The seconds of kind ``K`` are the ``active`` seconds of every action of
kind ``K`` plus those of the undos and redos that reversed one (fixing a
mistake is part of what a label costs).  Its tokens are the ``n_tokens`` of
the actions of kind ``K`` that are not undone at the end of the log (an
undone label produced nothing).  Seconds per token is the ratio of the
seconds to the tokens of the actions that do not begin a visit
(:func:`tagtool.store.actions.first_ids`: their time went to the
``open`` before them); the simulator's costs are those ratios divided by
the full label's (``full = 1``), as :class:`tagtool.services.simulate.config.Costs` states
them.  A Label all occurrences (kind ``label_all``) is one action of its
own: its seconds and tokens are its kind's, never a cost kind's, so the
labels it gave neither lower the seconds per full label nor count as labels
the simulator charges.

The cost of opening a sentence (:func:`opening_cost`), in seconds: the
mean over the ``open`` rows whose first action is a cost kind
(:data:`COST_KINDS`) of ``open.active − n₁ · c(K₁)``, the first action's
``n₁`` tokens of kind ``K₁`` at that kind's seconds per token as used
(measured, or its default relative cost times the full label's seconds):
the method-of-moments estimate of the intercept of Ringger et al.'s
(2008) linear model, time = per-sentence cost + Σ per-token costs.  It is
floored at 0 (a noisy estimate below nothing).
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
from tagtool.services.strategies import Showing
from tagtool.store.actions import COST_KINDS, IDLE_SECONDS, KINDS, REVERSING, Action, first_ids, undone_ids

log = logging.getLogger(__name__)

#: Fewest tokens a kind needs in the log before its measured cost is used
#: (below, ``--costs-from`` keeps that kind's default and says so); also the
#: fewest opened sentences the cost of opening one rests on.
MIN_TOKENS = 20
#: What the simulator's cost names call each logged kind.
SIMULATE_NAMES = {"full": "full", "candidate": "partial", "accept": "accept", "skip": "skip", "open": "sentence"}
#: The kinds in words (the dock and the CLI).
KIND_NAMES = {
    "full": "full label",
    "candidate": "candidate set",
    "accept": "accepted suggestion",
    "skip": "skipped token",
    "clear": "cleared",
    "review": "flagged / skipped sentence",
    "retokenize": "split / merged token",
    "adjudicate": "resolved token",
    "undo": "undo",
    "redo": "redo",
    "open": "opened sentence",
    "label_all": "label all occurrences",
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

    def opening(self, kind: str, n_tokens: int, n_read: int) -> tuple[Action, Action]:
        """The ``open`` of a sentence of ``n_read`` tokens and its first action, ending now.

        The ``open`` takes the time :meth:`action` would give the first
        action; the first action has none of its own
        (:mod:`tagtool.store.actions`).  :meth:`advance` with the second.
        """
        opened = self.action("open", n_read)
        return opened, Action(kind, int(n_tokens), opened.ended, opened.ended, 0.0)

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
    rated_tokens : int, optional
        The tokens the seconds are spread over: ``tokens`` without those of
        the actions that begin a visit (module doc); None: ``tokens``.
    """

    kind: str
    actions: int
    tokens: int
    seconds: float
    rated_tokens: int | None = None

    @property
    def rated(self) -> int:
        return self.tokens if self.rated_tokens is None else self.rated_tokens

    @property
    def seconds_per_token(self) -> float | None:
        return self.seconds / self.rated if self.rated else None

    @property
    def tokens_per_minute(self) -> float | None:
        return 60.0 * self.rated / self.seconds if self.seconds > 0 else None


def measure(records: Sequence) -> dict[str, KindCost]:
    """Seconds and tokens of each kind in an action log (module doc), every kind of :data:`KINDS`."""
    undone, first = undone_ids(records), first_ids(records)
    kind_of = {r.id: r.kind for r in records}
    seconds = dict.fromkeys(KINDS, 0.0)
    tokens = dict.fromkeys(KINDS, 0)
    rated = dict.fromkeys(KINDS, 0)
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
            if r.id not in first:
                rated[r.kind] += r.n_tokens
    return {k: KindCost(k, actions[k], tokens[k], seconds[k], rated[k]) for k in KINDS}


def logged_tokens(records: Sequence) -> dict[str, int]:
    """Tokens of each cost kind (:data:`COST_KINDS`) in an action log, undone actions left out."""
    kinds = measure(records)
    return {kind: kinds[kind].tokens for kind in COST_KINDS}


def logged_cost(records: Sequence, costs) -> float:
    """What the work in an action log costs in ``tagtool simulate``'s cost model.

    ``costs``: a :class:`tagtool.services.simulate.config.Costs` (its ``full``, ``partial``,
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
class OpeningCost:
    """What the log says opening a sentence costs (module doc).

    Attributes
    ----------
    opened : int
        ``open`` rows in the log.
    observations : int
        Those whose first action is a cost kind: what the estimate rests on.
    seconds : float
        Their ``open`` seconds summed.
    seconds_per_sentence : float or None
        The estimate (None without an observation).
    """

    opened: int = 0
    observations: int = 0
    seconds: float = 0.0
    seconds_per_sentence: float | None = None


def opening_cost(records: Sequence, per_token: Mapping[str, float]) -> OpeningCost:
    """The cost of opening a sentence in an action log, in seconds (module doc).

    ``per_token``: the seconds per token of each cost kind as used
    (:data:`COST_KINDS`), subtracted for each ``open``'s first action.
    """
    opened = sum(1 for r in records if r.kind == "open")
    pairs = [
        (a, b)
        for a, b in zip(records, records[1:])
        if a.kind == "open" and b.kind in COST_KINDS and b.sentence_id == a.sentence_id
    ]
    if not pairs:
        return OpeningCost(opened)
    seconds = sum(a.active for a, _ in pairs)
    beyond = sum(a.active - b.n_tokens * per_token[b.kind] for a, b in pairs) / len(pairs)
    return OpeningCost(opened, len(pairs), seconds, max(0.0, beyond))


def default_relative() -> dict[str, float]:
    """The default costs relative to a full label, by simulator name.

    Those of :class:`tagtool.services.strategies.Showing`.
    """
    showing = Showing()
    return {
        "full": showing.full,
        "partial": showing.partial,
        "skip": showing.skip,
        "accept": showing.skip,
        "sentence": showing.sentence,
    }


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
        (``full``, ``partial``, ``accept``, ``skip``, and ``sentence`` for
        opening a sentence), for kinds with at least ``min_tokens`` tokens
        (opened sentences: observations).
    missing : dict of str to str
        The other cost kinds (and ``open``), and why (too few tokens).
    opening : OpeningCost
    """

    source: str
    kinds: dict
    relative: dict
    missing: dict
    opening: OpeningCost = OpeningCost()

    def table(self, defaults: Mapping[str, float]) -> str:
        """The measured costs in seconds and relative to a full label (printed by the CLI)."""
        defaults = {**default_relative(), **defaults}
        lines = [
            f"costs measured in {self.source} (gaps over {IDLE_SECONDS:g} s between actions count as "
            f"{IDLE_SECONDS:g} s):",
            f"  {'action':<20} {'actions':>7} {'tokens':>7} {'seconds':>9} {'s/token':>8} {'cost':>6}",
        ]
        for kind in COST_KINDS:
            k, name = self.kinds[kind], SIMULATE_NAMES[kind]
            per = "-" if k.seconds_per_token is None else f"{k.seconds_per_token:.2f}"
            lines.append(
                f"  {KIND_NAMES[kind]:<20} {k.actions:>7} {k.tokens:>7} {k.seconds:>9.1f} {per:>8} "
                f"{self._cost(name, defaults):>6}"
            )
        o = self.opening
        per = "-" if o.seconds_per_sentence is None else f"{o.seconds_per_sentence:.2f}"
        lines.append(
            f"  {KIND_NAMES['open']:<20} {o.observations:>7} {'':>7} {o.seconds:>9.1f} {per:>8} "
            f"{self._cost('sentence', defaults):>6}"
        )
        lines.append(
            f"  (opened sentence: {o.observations} of the {o.opened} sentences opened in the log are "
            "observations, those whose first action is a label, candidate set or accepted suggestion; "
            "its s/token column is seconds per sentence beyond its first action's tokens)"
        )
        for kind, why in self.missing.items():
            lines.append(f"  * {KIND_NAMES[kind]}: {why}; the default {defaults[SIMULATE_NAMES[kind]]:g} is used")
        return "\n".join(lines)

    def _cost(self, name: str, defaults: Mapping[str, float]) -> str:
        return f"{self.relative[name]:.3g}" if name in self.relative else f"{defaults[name]:g}*"


def relative_costs(records: Sequence, source: str, min_tokens: int = MIN_TOKENS) -> MeasuredCosts:
    """The measured cost of each kind relative to a full label, and of opening a sentence.

    Refuses (:class:`CostsError`) when the log has fewer than ``min_tokens``
    full labels: every cost is relative to it.  A kind other than ``full``
    with fewer tokens is left out of ``relative`` (the caller keeps its
    default) and named in ``missing``; so is opening a sentence with fewer
    than ``min_tokens`` observations (:func:`opening_cost`, which prices the
    first actions at the costs in use: measured, else default).
    """
    kinds = {k: v for k, v in measure(records).items() if k in COST_KINDS}
    full = kinds["full"]
    if full.rated < min_tokens or full.seconds <= 0:
        raise CostsError(
            f"{source}: its action log holds {full.rated} full label(s) (at least {min_tokens} are needed); "
            "the costs are relative to a full label, so they cannot be measured. Label more tokens in the app "
            "(tagtool gui), or leave out --costs-from"
        )
    per_full = full.seconds_per_token
    relative, missing = {"full": 1.0}, {}
    for kind in COST_KINDS[1:]:
        k = kinds[kind]
        if k.rated < min_tokens:
            missing[kind] = f"{k.rated} token(s) in the log, fewer than {min_tokens}"
            continue
        relative[SIMULATE_NAMES[kind]] = k.seconds_per_token / per_full
    in_use = {**default_relative(), "accept": relative.get("skip", Showing().skip), **relative}
    opening = opening_cost(records, {k: in_use[SIMULATE_NAMES[k]] * per_full for k in COST_KINDS})
    if opening.observations < min_tokens:
        missing["open"] = f"{opening.observations} sentence(s) observed, fewer than {min_tokens}"
    else:
        relative["sentence"] = opening.seconds_per_sentence / per_full
    return MeasuredCosts(source, kinds, relative, missing, opening)


def costs_from_project(path: str | PathLike, min_tokens: int = MIN_TOKENS) -> MeasuredCosts:
    """:func:`relative_costs` of a project file's action log (opened read-only)."""
    from tagtool.store.project import Project

    with Project.open(path, readonly=True) as project:
        records = project.actions()
    if not records:
        raise CostsError(
            f"{path}: its action log is empty (no annotation was made in the app since "
            "tagtool logs actions); the costs cannot be measured"
        )
    return relative_costs(records, str(path), min_tokens)

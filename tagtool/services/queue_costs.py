"""The annotation costs the app's queue ranks with: the project's measured ones when it has enough, else the defaults.

The cost-aware strategies (``gain`` and ``combined``,
:mod:`tagtool.services.strategies`) rank sentences by the model's questions per unit
of annotation cost, in the cost model of ``tagtool simulate``
(:class:`tagtool.services.strategies.Showing`).  :func:`from_log` takes those costs
from the project's action log by the rules of ``tagtool simulate
--costs-from`` (:func:`tagtool.services.annotation_costs.relative_costs`): each kind
and the cost of opening a sentence measured when the log holds at least
:data:`tagtool.services.annotation_costs.MIN_TOKENS` of it (tokens; opened
sentences), otherwise its default; all defaults while the log holds fewer
full labels than that (every cost is relative to a full label).

No Qt here: the app measures in a worker thread
(:class:`tagtool.gui.queue_costs_watch.QueueCostsWatch`) with
:func:`of_project`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from os import PathLike

from tagtool.services.annotation_costs import MIN_TOKENS, CostsError, relative_costs
from tagtool.services.strategies import SENTENCE_COST, Showing

log = logging.getLogger(__name__)

#: The costs' names, in the order they are described.
NAMES = ("full", "partial", "skip", "accept", "sentence")
_WORDS = {
    "full": "full label",
    "partial": "candidate set",
    "skip": "skipped token",
    "accept": "accepted suggestion",
    "sentence": "opening a sentence",
}


def _rounded(value: float) -> float:
    """Three significant digits: a queue is not re-ranked for a change in the fourth."""
    return float(f"{value:.3g}")


@dataclass(frozen=True)
class QueueCosts:
    """Costs relative to a full label, and which of them were measured.

    Attributes
    ----------
    full, partial, skip : float
    accept : float or None
        None: an accepted suggestion costs ``skip``.
    sentence : float
        Opening a sentence (:data:`tagtool.services.strategies.SENTENCE_COST` by default).
    measured : tuple of str
        The names (:data:`NAMES`) taken from the action log.
    observations : int
        Opened sentences the measured ``sentence`` rests on (0: not measured).
    why : str
        Why the other costs are the defaults ("" when all were measured).
    """

    full: float = 1.0
    partial: float = 0.5
    skip: float = 0.1
    accept: float | None = None
    sentence: float = SENTENCE_COST
    measured: tuple[str, ...] = ()
    observations: int = 0
    why: str = ""

    def showing(self, mode: str, threshold: float) -> Showing:
        """The cost model of the strategies' sentence scores in ``mode``."""
        return Showing(mode, threshold, self.full, self.partial, self.skip, self.sentence, self.accept)

    def value(self, name: str) -> float:
        return self.skip if name == "accept" and self.accept is None else getattr(self, name)

    def describe(self) -> str:
        """One line: which costs are in use (the Go menu shows it)."""
        if not self.measured:
            return f"Default annotation costs ({self.why})" if self.why else "Default annotation costs"
        parts = [f"{_WORDS[name]} {self.value(name):g}" + ("" if name in self.measured else "*") for name in NAMES[1:]]
        sentence = f"; opening a sentence measured on {self.observations}" if "sentence" in self.measured else ""
        return f"Measured annotation costs (full label 1): {', '.join(parts)}{sentence}" + (
            " (* default: too few in the log)" if len(self.measured) < len(NAMES) else ""
        )


#: The defaults (``tagtool simulate``'s without ``--costs-from``).
DEFAULT = QueueCosts()


def from_log(records: Sequence, min_tokens: int = MIN_TOKENS) -> QueueCosts:
    """The queue's costs from an action log (module doc)."""
    if not records:
        return QueueCosts(why="no annotation action logged yet")
    try:
        measured = relative_costs(records, "the action log", min_tokens)
    except CostsError:
        return QueueCosts(why=f"fewer than {min_tokens} full labels timed in the log")
    relative = measured.relative
    values = {name: _rounded(relative[name]) for name in NAMES[1:] if name in relative}
    if "accept" not in values and "skip" in values:
        values["accept"] = values["skip"]  # an unmeasured accept costs a (measured) skip, as in --costs-from
    return QueueCosts(
        **values,
        measured=("full", *(name for name in NAMES[1:] if name in relative)),
        observations=measured.opening.observations if "sentence" in relative else 0,
    )


def of_project(path: str | PathLike, state=None) -> QueueCosts:
    """:func:`from_log` of the action log of a project file open in this process, on a read-only connection of its own.

    A bare SQLite connection, not :meth:`Project.open`: that reads the
    file's header with a file descriptor of its own, and closing it drops
    every POSIX lock this process holds on the file — the editing
    connection's too, so another program's connection may then think it
    is the last one and remove the WAL the app still uses.  SQLite keeps
    its own descriptors of a file open while any connection to it is.  A
    file whose schema has no action log yet (opened read-only and migrated
    in memory) has the defaults.
    """
    import sqlite3
    from pathlib import Path

    from tagtool.store import actions, dbfile

    conn = dbfile.connect_readonly(Path(path))
    try:
        records = actions.read(conn)
    except sqlite3.OperationalError as exc:  # no actions table: a schema before the action log
        log.info("%s: no action log (%s); default queue costs", path, exc)
        records = []
    finally:
        conn.close()
    costs = from_log(records)
    log.info("queue costs of %s: %s", path, costs.describe())
    return costs

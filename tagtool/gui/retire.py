"""Letting go of what a new model replaced a piece per turn of the event loop, not all at once.

A big project's model result holds some twenty arrays over every token (the
analysis, the queue plan: 2.4 million tokens make each 19 MB) and
dictionaries over every sentence (the plan's scores, the list's copy of
them).  When :meth:`ModelLoop._use <tagtool.gui.model_loop.ModelLoop._use>`
took a new result in, dropping the last reference to the previous one freed
all of it inside that one turn of the GUI thread, a stall at every update
(benchmarks/results/design-measurements.md, "GUI thread: stalls").  :class:`Retirer` holds the
replaced objects and the heavy pieces inside them instead, and lets go of
the objects themselves at once (cheap: their heavy pieces are still held),
then of one heavy piece per turn.  It only drops references, never changes
an object, so a piece something else still uses simply stays alive.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from PySide6.QtCore import QObject, QTimer

#: A numpy array of at least this many bytes, or a container of at least this many items, is a piece of its own.
HEAVY_BYTES = 1 << 20
HEAVY_ITEMS = 1000
#: How deep into objects' attributes the pieces are looked for (result → analysis → evidence → array).
DEPTH = 4


def heavy_pieces(roots) -> list:
    """The heavy arrays and containers reachable from ``roots`` through attributes, each once, in the order met.

    A loop, not a recursive closure: a closure that calls itself is a
    reference cycle, which would hold the pieces until the collector runs.
    """
    seen, pieces = set(), []
    stack = [(root, DEPTH) for root in reversed(roots)]
    while stack:
        obj, depth = stack.pop()
        if obj is None or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            if obj.nbytes >= HEAVY_BYTES:
                pieces.append(obj)
        elif isinstance(obj, (dict, list, set, frozenset, tuple)) and len(obj) >= HEAVY_ITEMS:
            pieces.append(obj)
        elif isinstance(obj, tuple):
            if depth > 0:
                stack.extend((item, depth - 1) for item in reversed(obj))
        elif depth > 0 and not isinstance(obj, (dict, list, set, frozenset)):
            attributes = getattr(obj, "__dict__", None)
            if isinstance(attributes, dict):
                stack.extend((value, depth - 1) for value in reversed(list(attributes.values())))
    return pieces


class Retirer(QObject):
    """Holds replaced objects and lets go of them over the next turns of the event loop (module docstring)."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._pieces: deque = deque()
        self._timer = QTimer(self, singleShot=True, interval=0)
        self._timer.timeout.connect(self.release_one)

    def retire(self, *objects) -> None:
        """Hold ``objects`` and their heavy pieces; the objects go in the next turn, the pieces one a turn after."""
        self._pieces.append([obj for obj in objects if obj is not None])
        self._pieces.extend(heavy_pieces(objects))
        self._timer.start()

    @property
    def held(self) -> int:
        """Pieces not let go of yet (the objects of one call count as one)."""
        return len(self._pieces)

    def release_one(self) -> None:
        """One turn's share: let go of the next piece (the timer calls it until none is left)."""
        if self._pieces:
            self._pieces.popleft()
        if self._pieces:
            self._timer.start()

    def close(self) -> None:
        """Let go of everything now (the project closes)."""
        self._timer.stop()
        self._pieces.clear()

"""Python's cyclic garbage collector paused around work that makes many objects but no cycles (no Qt).

Feature extraction, tagging a file and reading a project make hundreds of
thousands of short-lived containers (sentences, each word's feature
names); reference counting frees them.  With the collector on, the
containers that live through a block of work are promoted to the oldest
generation, and every few seconds they set off a full collection, which
walks every tracked object and every reference of the big containers (a
project's 100,000 sentences in lists and tuples) while holding the GIL,
so a retrain's extraction in the app stalled the window for as long
(benchmarks/results/design-measurements.md, "Garbage collection").

:func:`paused` is shared by threads: the collector resumes when the last
pause ends, and only if it was on when the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_resume = False


@contextmanager
def paused() -> Iterator[None]:
    """Within the block (on any thread), no automatic collection runs; see the module doc."""
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                gc.enable()

"""Checkpoints in long Python loops where a worker thread can let the window have a turn (no Qt here).

A worker thread running Python holds the GIL, and while it does every
Python call of the GUI thread (a paint, a slot) waits for it, up to the
interpreter's switch interval each time; a turn that paints makes dozens
of them.  The app's paced workers therefore stop now and then and let the
GUI thread run its pending events first (``TaskState.pause``,
:class:`tagtool.gui.sentence_reader.Pacer`).  Between two polls of
``should_stop`` the work may run long enough to be felt, so the longest pure-Python
loops (the feature extraction's, per distinct word) also
call :func:`checkpoint`, which calls the hook the worker installed for its
thread with :func:`paced`; without one it does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

#: Iterations of such a loop between two checkpoints, so that a checkpoint comes well within one frame.
EVERY = 128

_local = threading.local()


@contextmanager
def paced(hook: Callable[[], None] | None) -> Iterator[None]:
    """Within the block, :func:`checkpoint` on this thread calls ``hook`` (None: nothing)."""
    previous = getattr(_local, "hook", None)
    _local.hook = hook
    try:
        yield
    finally:
        _local.hook = previous


def checkpoint() -> None:
    """Call this thread's hook (see :func:`paced`), if any."""
    hook = getattr(_local, "hook", None)
    if hook is not None:
        hook()

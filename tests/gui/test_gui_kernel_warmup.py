"""The window compiles the learner's kernels in the background: the event loop keeps running meanwhile, and
it reports when they are ready."""

from __future__ import annotations

from PySide6.QtCore import QTimer


def test_the_warmup_runs_beside_the_event_loop_and_reports(window, qtbot):
    window.model_loop.auto = False
    ticks = []
    timer = QTimer(window, interval=10)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    with qtbot.waitSignal(window.kernel_warmup.done, timeout=600_000) as blocker:
        window.warm_kernels()
        assert window.kernel_warmup.thread.daemon  # a closing app does not wait for a compile
    timer.stop()
    assert blocker.args[0] >= 0 and window.kernel_warmup.seconds == blocker.args[0]
    assert ticks  # the GUI thread ran its timers while the kernels were readied
    thread = window.kernel_warmup.thread
    window.warm_kernels()  # once per window
    assert window.kernel_warmup.thread is thread
    thread.join(60)

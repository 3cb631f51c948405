"""A paced worker's long loops (tagtool.pacing checkpoints) give the GUI thread turns; others do not pause."""

from __future__ import annotations

import pytest

from tagtool import pacing
from tagtool.gui import sentence_reader
from tagtool.gui.worker import TaskRunner


@pytest.mark.parametrize("paced", [True, False])
def test_a_checkpoint_in_a_task_pauses_only_a_paced_runners_worker(qtbot, monkeypatch, paced):
    calls = []
    monkeypatch.setattr(sentence_reader.Pacer, "pause", lambda self, force=False: calls.append(force))

    paused = []

    def work(state):
        before = len(calls)
        for _ in range(3):
            pacing.checkpoint()
        paused.append(len(calls) - before)

    runner = TaskRunner(paced=paced)
    runner.start(work)
    qtbot.waitUntil(lambda: bool(paused), timeout=10_000)
    assert paused == [3 if paced else 0]
    pacing.checkpoint()  # the GUI thread: no hook installed here
    assert runner.wait()

"""A cancel raised deep in a task reaches the GUI's task runner as the one :class:`~tagtool.errors.Cancelled`."""

from __future__ import annotations

import pytest

from tagtool.errors import Cancelled, TagtoolError
from tagtool.gui.worker import Task
from tagtool.learn.progress import TrainingMonitor


def _learner_cancel(state) -> None:
    # The learner's own stop callback says stop while the task's state does not:
    # only the exception's type can make this a cancel.
    TrainingMonitor(should_stop=lambda: True).check()


def _plain_error(state) -> None:
    raise TagtoolError("bad input")


def _run(function) -> list[str]:
    task = Task(function)
    seen: list[str] = []
    task.signals.cancelled.connect(lambda: seen.append("cancelled"))
    task.signals.errored.connect(lambda message, trace: seen.append(f"errored: {message}"))
    task.signals.returned.connect(lambda result: seen.append("returned"))
    task.run()  # on this thread: the signals arrive directly
    return seen


def test_a_learners_cancel_is_the_one_cancellation(qapp):
    with pytest.raises(Cancelled):
        _learner_cancel(None)
    assert _run(_learner_cancel) == ["cancelled"]


def test_other_errors_are_not_taken_for_a_cancel(qapp):
    assert _run(_plain_error) == ["errored: bad input"]


def test_wire_connects_the_signals_before_the_task_runs(qtbot):
    """A task that returns at once still reaches a slot connected by ``wire`` (QueueSteering.replan's race)."""
    from tagtool.gui.worker import TaskRunner

    runner = TaskRunner()
    got = []
    order = []

    def wire(task):
        order.append("wired")
        task.signals.returned.connect(got.append)

    def quick(state):
        order.append("ran")
        return 42

    runner.start(quick, wire=wire)
    qtbot.waitUntil(lambda: got == [42], timeout=5000)
    assert order == ["wired", "ran"]
    runner.pool.waitForDone(5000)

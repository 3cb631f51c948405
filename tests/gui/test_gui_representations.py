"""The app's word representations: learned in the background, cancellable, stored, reused."""

from __future__ import annotations

import time
from pathlib import Path

from tagtool.gui.representations import RepresentationsController
from tagtool.gui.session import Session
from tagtool.store.project import Project

DATA = Path(__file__).resolve().parents[1] / "data"


def _session(path: Path) -> Session:
    session = Session(Project.open(path))
    session.cache.read_sentences()
    return session


def _wait_idle(qtbot, controller):
    qtbot.waitUntil(lambda: not controller.learning and not controller.runner.busy, timeout=60000)


def test_learned_in_the_background_then_stored_and_reused(qtbot, chunk_project):
    session = _session(chunk_project)
    controller = RepresentationsController(session)
    assert not controller.wanted()  # 2,440 tokens: below the auto rule
    assert "off —" in controller.status_text()
    stalls = []
    last = [time.perf_counter()]

    def beat():
        now = time.perf_counter()
        stalls.append(now - last[0])
        last[0] = now

    from PySide6.QtCore import QTimer

    timer = QTimer(interval=10)
    timer.timeout.connect(beat)
    timer.start()
    with qtbot.waitSignal(controller.changed, timeout=5000):
        controller.set_mode("on")
    assert controller.learning and "learning" in controller.status_text()
    _wait_idle(qtbot, controller)
    timer.stop()
    assert controller.current is not None and controller.for_training() is controller.current
    assert "in use" in controller.status_text()
    assert max(stalls[1:], default=0) < 0.5  # the event loop kept running (the 50 ms goal: benchmarks/)
    fingerprint = controller.current.fingerprint
    session.project.close()

    again = RepresentationsController(_session(chunk_project))
    again.mode = "on"
    qtbot.waitUntil(lambda: again.current is not None, timeout=10000)
    assert again.current.fingerprint == fingerprint and not again.learning  # reused, not relearned
    again.shutdown()
    again.session.project.close()


def test_stored_by_the_worker_and_kept_in_use_when_the_file_cannot_take_them(qtbot, chunk_project, monkeypatch):
    """The worker writes them through its own connection; a write that fails leaves the project unchanged and
    the learned representations in use, with the reason in the status line."""
    import tagtool.gui.representations as module
    from tagtool.errors import ProjectError

    threads = []
    real = module.store_in_file

    def store(*args):
        import threading

        threads.append(threading.current_thread() is threading.main_thread())
        raise ProjectError("disk full")

    monkeypatch.setattr(module, "store_in_file", store)
    session = _session(chunk_project)
    controller = RepresentationsController(session)
    controller.set_mode("on")
    _wait_idle(qtbot, controller)
    assert threads == [False], "stored from the worker thread"
    assert controller.current is not None and controller.for_training() is controller.current
    assert session.project.stored.representations() is None
    assert "in use" in controller.status_text() and "not saved in the project: disk full" in controller.status_text()
    monkeypatch.setattr(module, "store_in_file", real)
    controller.current = None
    controller.refresh()
    _wait_idle(qtbot, controller)
    assert session.project.stored.representations().fingerprint == controller.current.fingerprint
    assert "not saved" not in controller.status_text()
    controller.shutdown()
    session.project.close()


def test_cancel_leaves_nothing_stored(qtbot, chunk_project):
    session = _session(chunk_project)
    controller = RepresentationsController(session)
    controller.set_mode("on")
    assert controller.learning
    controller.cancel()
    _wait_idle(qtbot, controller)
    assert controller.current is None and session.project.stored.representations() is None
    assert "cancelled" in controller.status_text()
    controller.shutdown()
    session.project.close()


def test_window_trains_with_the_representations_once_they_are_on(qtbot, window):
    loop = window.model_loop
    box = window.model_panel.representations
    assert box is not None and "off —" in box.status.text()
    box.mode.setCurrentIndex(box.mode.findData("on"))
    controller = loop.representations
    _wait_idle(qtbot, controller)
    assert "in use" in box.status.text()
    qtbot.waitUntil(
        lambda: loop.tagger is not None and loop.tagger.extractor.uses_representations and not loop.busy, timeout=120000
    )
    reps = loop.tagger.extractor.representations
    assert reps.fingerprint == controller.current.fingerprint
    assert any(n.startswith("dist/") for n in loop.tagger.extractor.feature_names_)
    qtbot.waitUntil(lambda: "with word representations" in window.model_panel.metrics.text(), timeout=10000)
    box.mode.setCurrentIndex(box.mode.findData("off"))
    assert controller.for_training() is None and "off" in box.status.text()


def test_wheel_over_the_mode_does_not_change_it(qtbot, window):
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    box = window.model_panel.representations
    before = box.mode.currentData()
    event = QWheelEvent(
        QPointF(5, 5),
        QPointF(box.mode.mapToGlobal(QPoint(5, 5))),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.NoButton,
        Qt.NoModifier,
        Qt.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(box.mode, event)
    assert box.mode.currentData() == before


def test_auto_holds_them_back_from_a_two_view_learner_until_enough_span_labels(
    qtbot, open_window, chunk_project, monkeypatch
):
    import tagtool.gui.representations as gui_reps

    monkeypatch.setattr(gui_reps, "wanted_by_default", lambda _tokens: True)  # as if the text were large
    window = open_window(chunk_project)
    loop, box = window.model_loop, window.model_panel.representations
    controller = loop.representations
    assert controller.mode == "auto"
    _wait_idle(qtbot, controller)
    assert controller.current is not None
    loop.train()
    qtbot.waitUntil(lambda: loop.tagger is not None and not loop.busy, timeout=120000)
    assert loop.learner_name == "mv-perceptron" and not loop.tagger.extractor.uses_representations
    assert "not used yet" in box.status.text() and "(3 so far)" in box.status.text()
    assert controller.for_training() is None  # and a relearn does not retrain with them
    loop.set_learner("crf", {})  # one view: reads them at once
    qtbot.waitUntil(
        lambda: loop.tagger is not None and loop.tagger.extractor.uses_representations and not loop.busy, timeout=120000
    )
    assert "in use" in box.status.text()

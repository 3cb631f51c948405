"""A warning that repeats on every retrain shows once: in the status bar and in the log file (and once in the
terminal), not on every run; Python warnings go the same way."""

from __future__ import annotations

import logging
import warnings

import pytest

from tagtool import logs

TIMEOUT = 60_000


@pytest.fixture
def app_logging(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    logs.reset_app_logging()
    seen: list[logging.LogRecord] = []

    class Terminal(logging.Handler):  # stands for the terminal's handler
        added_by_app = True

        def emit(self, record):
            seen.append(record)

    terminal = Terminal(logging.WARNING)
    yield lambda *extra: logs.configure_app_logging(terminal, *extra), seen
    logs.reset_app_logging()


def _train(window, qtbot):
    with qtbot.waitSignal(window.model_loop.finished, timeout=TIMEOUT):
        window.model_panel.train()


def test_a_learners_note_on_every_retrain_shows_once(window, qtbot, app_logging):
    configure, terminal = app_logging
    configure(window.status_log)
    window.model_loop.auto = False
    window.model_loop.cv_folds = 0
    window.model_panel.select_learner("perceptron", {"max_iter": 1})  # learns from full and partial only
    for _ in range(3):
        _train(window, qtbot)
    notes = [r for r in terminal if "cannot use unlabeled sentences" in r.getMessage()]
    assert len(notes) == 1
    qtbot.waitUntil(lambda: "cannot use unlabeled sentences" in window.warning_label.text())
    assert window.warning_label.isVisible() and str(logs.log_file()) in window.warning_label.toolTip()
    text = logs.log_file().read_text()
    assert text.count("cannot use unlabeled sentences") == 1


def test_repeats_are_the_same_text_up_to_its_numbers_and_python_warnings_count(app_logging):
    configure, terminal = app_logging
    configure()
    log = logging.getLogger("tagtool.test")
    for n in (350, 349, 349, 1200):
        log.warning("crf cannot use unlabeled sentences: %d left out", n)
    log.warning("something else")
    log.info("details for the file")
    log.info("details for the file")
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        logging.captureWarnings(True)  # catch_warnings restores showwarning on exit
        for _ in range(3):
            warnings.warn("a library warning", UserWarning, stacklevel=1)
    texts = [r.getMessage() for r in terminal]
    assert texts[:2] == ["crf cannot use unlabeled sentences: 350 left out", "something else"]
    assert sum("a library warning" in t for t in texts) == 1
    for handler in logging.getLogger().handlers:
        handler.flush()
    text = logs.log_file().read_text()
    assert text.count("left out") == 1 and text.count("details for the file") == 2

"""Start the desktop application: ``run(path)`` opens a project in the main window."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication

from tagtool.errors import TagtoolError
from tagtool.gui.main_window import MainWindow
from tagtool.gui.qt_libraries import check_xcb
from tagtool.gui.style import apply_theme
from tagtool.logs import configure_app_logging, reset_app_logging
from tagtool.paths import ICON_PNG, resource
from tagtool.services.warmup import start_filling_cache

log = logging.getLogger(__name__)

#: The interpreter's GIL switch interval in the app (see :func:`application`).
GIL_SWITCH_SECONDS = 0.001


def application() -> QApplication:
    """The QApplication (created once)."""
    app = QApplication.instance()
    if app is None:
        problem = check_xcb()  # Qt would abort (exit status 134) without a word a person can act on
        if problem is not None:
            raise TagtoolError(problem)
        # Each Python call of the GUI thread (a slot, a view's data(), a paint event) waits for the
        # GIL while a worker runs Python, up to the switch interval each time (the default is
        # too long for the hundreds of calls of a repaint; benchmarks/results/big_project.md §4).
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        app = QApplication(sys.argv[:1])
        app.setApplicationName("tagtool")
        app.setOrganizationName("tagtool")
        # Lets the desktop match the windows to packaging/tagtool.desktop.
        app.setDesktopFileName("tagtool")
        icon = app_icon()
        if icon is not None:
            app.setWindowIcon(icon)
    return app


def app_icon() -> QIcon | None:
    """The window icon from ``resources/``, or None where resources are missing."""
    try:
        path = resource(ICON_PNG)
    except TagtoolError:
        return None
    icon = QIcon(str(path))
    return None if icon.isNull() else icon


def run(project: Path | None = None, quit_after_ms: int | None = None, child=None) -> int:
    """Show the main window (on ``project`` if given) until it is closed.

    Parameters
    ----------
    project : Path or None
        Project file to open.
    quit_after_ms : int or None
        Smoke test of a build (``tagtool gui --quit-after``): close the window
        after this many milliseconds of running; the exit status is 0 if the
        project opened, 1 if it did not.
    child : subprocess.Popen or None
        The process filling numba's cache, started by the caller before it
        imported Qt (``tagtool gui``); else it is started here.
    """
    app = application()
    # On a cold numba cache the first model's kernels start compiling now, in a child process on another
    # core, while this one builds the window (not in a smoke test, which must leave nothing running).
    if child is None and quit_after_ms is None:
        child = start_filling_cache()
    window = MainWindow()
    configure_app_logging(window.status_log)  # the log file; a repeated warning once, in the status bar
    try:
        return _show(app, window, project, quit_after_ms, child)
    finally:
        reset_app_logging()  # the log file closed; a caller's own logging as it was


def _show(app: QApplication, window: MainWindow, project: Path | None, quit_after_ms: int | None, child=None) -> int:
    apply_theme(app, window.settings.theme)
    state = {"looping": False}
    if quit_after_ms is not None:
        QTimer.singleShot(quit_after_ms, lambda: _end_smoke_test(app, window, state))
    opened = project is None or window.open_project(project)
    if quit_after_ms is not None and not opened:
        return 1
    window.show()
    window.warm_kernels(child)  # the first model's kernels are readied while the person reads the window
    state["looping"] = True
    return app.exec()


def _end_smoke_test(app: QApplication, window: MainWindow, state: dict) -> None:
    """Log what the window shows, close it and leave the event loop.

    Before the main loop runs (the project is still opening), close a modal
    box such as open_project's error, which offscreen would wait forever for
    a click, and look again shortly: run() returns 1 itself if opening failed.
    """
    modal = app.activeModalWidget()
    if modal is not None:
        modal.close()
    if not state["looping"]:
        QTimer.singleShot(100, lambda: _end_smoke_test(app, window, state))
        return
    if window.session is not None:
        from tagtool.learn import available_learners

        log.info(
            "smoke test: window %r shows %d sentences; learners offered: %s",
            window.windowTitle(),
            window.session.project.n_sentences,
            ", ".join(available_learners()),
        )
    window.close()
    app.exit(0)

"""Start the desktop application: ``run(path)`` opens a project in the main window."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from tagtool.gui.main_window import MainWindow
from tagtool.gui.style import apply_theme


def application() -> QApplication:
    """The QApplication (created once)."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
        app.setApplicationName("tagtool")
        app.setOrganizationName("tagtool")
    return app


def run(project: Path | None = None) -> int:
    """Show the main window (on ``project`` if given) until it is closed."""
    app = application()
    window = MainWindow()
    apply_theme(app, window.settings.theme)
    if project is not None:
        window.open_project(project)
    window.show()
    return app.exec()

"""Help › Reset the sample project: the built-in sample again, after a confirmation.

``tagtool`` with no project opens the user's copy of the sample
(:func:`tagtool.store.sample.ensure_sample_project`, in :func:`tagtool.paths.user_data_dir`),
and every edit made there is kept like in any project; a new user who tried
things out had no way back to the sample as shipped.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QMessageBox

from tagtool.errors import TagtoolError


def sample_path() -> Path:
    """Where the user's copy of the sample project is."""
    from tagtool.paths import SAMPLE_PROJECT, user_data_dir

    return user_data_dir() / SAMPLE_PROJECT


def ask_reset_sample(window) -> bool:
    """Ask, then rewrite the sample (closed first if the window shows it, reopened after); True once reset."""
    from tagtool.store.sample import reset_sample_project

    path = sample_path()
    answer = QMessageBox.question(
        window,
        "Reset the sample project",
        f"Replace the sample project ({path}) with the built-in one? Its labels, trained models and "
        "every other change are lost; your own projects are not touched.",
        QMessageBox.Reset | QMessageBox.Cancel,
        QMessageBox.Cancel,
    )
    if answer != QMessageBox.Reset:
        return False
    showing = window.session is not None and _same_file(window.session.project.path, path)
    if showing:
        window.close_project()  # no connection may outlive the file it reads
    try:
        reset_sample_project()
    except (TagtoolError, OSError) as e:
        window.show_error("Reset the sample project", str(e))
        return False
    if showing or window.session is None:
        window.open_project(path)
    window.statusBar().showMessage(f"The sample project is as built in again ({path}).", 8000)
    return True


def _same_file(a: Path, b: Path) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False

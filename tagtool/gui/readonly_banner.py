"""The status bar's read-only banner, and the message of a project another window has open."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QWidget

BANNER_STYLE = "QLabel { background: #f2c14e; color: #1d1d1d; padding: 1px 8px; border-radius: 3px; }"


def held_elsewhere_text(path: Path, holder: int | None) -> str:
    """What a window says when another tagtool window has ``path`` open."""
    who = f"another tagtool window (process {holder})" if holder else "another tagtool window"
    return (
        f"{path} is open in {who}. It is open read-only here, so the two windows do not overwrite "
        "each other's work: you can look at it, search it and train models, but edits are not saved. "
        "Close the other window and open the project again to edit it here."
    )


class ReadonlyBanner(QLabel):
    """ "Read-only" with the reason in its tooltip; hidden while the project can be edited."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setStyleSheet(BANNER_STYLE)
        self.hide()

    def show_reason(self, short: str, reason: str) -> None:
        self.setText(f"Read-only: {short}")
        self.setToolTip(reason)
        self.show()

    def clear_reason(self) -> None:
        self.clear()
        self.setToolTip("")
        self.hide()


def say_if_readonly(window, project, lock) -> None:
    """Why an opened project cannot be edited in ``window`` (a :class:`~tagtool.gui.main_window.MainWindow`),
    if it cannot: the banner and a non-modal message."""
    if lock.elsewhere:
        window.readonly_banner.show_reason("open in another window", held_elsewhere_text(project.path, lock.holder))
        window.show_error("Read-only project", held_elsewhere_text(project.path, lock.holder))
    elif project.newer_schema:
        text = (
            f"{project.path} was written by a newer tagtool (project schema "
            f"{project.schema_version}). It is open read-only: you can look at it and "
            "train models, but edits cannot be saved. Open it with that newer tagtool to edit it."
        )
        window.readonly_banner.show_reason("written by a newer tagtool", text)
        window.show_error("Read-only project", text)
    elif project.readonly_reason:
        text = (
            f"{project.path}: {project.readonly_reason}. It is open read-only: you can look at it "
            "and train models, but edits cannot be saved. Copy it to a folder you can write to edit it."
        )
        window.readonly_banner.show_reason(project.readonly_reason, text)
        window.show_error("Read-only project", text)

"""The status bar's read-only banner, and the message of a project another window has open."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QWidget

BANNER_STYLE = "QLabel { background: #f2c14e; color: #1d1d1d; padding: 1px 8px; border-radius: 3px; }"


def held_elsewhere_text(path: Path, holder: int | None) -> str:
    """What a window says when another tagtool window has ``path`` open."""
    who = f"another tagtool window (process {holder})" if holder else "another tagtool window"
    return (f"{path} is open in {who}. It is open read-only here, so the two windows do not overwrite "
            "each other's work: you can look at it, search it and train models, but edits are not saved. "
            "Close the other window and open the project again to edit it here.")


class ReadonlyBanner(QLabel):
    """"Read-only" with the reason in its tooltip; hidden while the project can be edited."""

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

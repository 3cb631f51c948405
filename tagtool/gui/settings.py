"""Per-user GUI settings (QSettings): recent projects, the theme, the folders file dialogs last used."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

MAX_RECENT = 8
THEMES = ("system", "light", "dark")


def default_settings() -> QSettings:
    return QSettings("tagtool", "tagtool")


class GuiSettings:
    """Typed access to the few values the window keeps between runs."""

    def __init__(self, settings: QSettings | None = None):
        self.qsettings = settings if settings is not None else default_settings()

    def recent_projects(self) -> list[Path]:
        value = self.qsettings.value("recent_projects", [])
        if isinstance(value, str):  # QSettings returns a lone item as a string
            value = [value]
        return [Path(p) for p in value or [] if Path(p).exists()]

    def add_recent(self, path: Path) -> None:
        path = Path(path).resolve()
        paths = [path] + [p for p in self.recent_projects() if p.resolve() != path]
        self.qsettings.setValue("recent_projects", [str(p) for p in paths[:MAX_RECENT]])
        self.qsettings.sync()

    @property
    def theme(self) -> str:
        value = self.qsettings.value("theme", "system")
        return value if value in THEMES else "system"

    @theme.setter
    def theme(self, value: str) -> None:
        self.qsettings.setValue("theme", value)
        self.qsettings.sync()

    def folder(self, kind: str) -> Path | None:
        """The folder a file dialog of ``kind`` (``"export"``, ``"import"``, …) last used, if it still exists."""
        value = self.qsettings.value(f"folders/{kind}")
        return Path(value) if value and Path(value).is_dir() else None

    def set_folder(self, kind: str, folder: Path) -> None:
        self.qsettings.setValue(f"folders/{kind}", str(folder))
        self.qsettings.sync()

"""Per-user GUI settings (QSettings): recent projects, the theme, the folders file dialogs last used,
the queue strategy, its seed, the annotator's name and whether Enter opens the next sentence.

The token-question mode is not here: it is a setting of each project (:mod:`tagtool.gui.queue_menu`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PySide6.QtCore import QSettings

from tagtool.core.annotators import check_name
from tagtool.services import span_questions, strategies

MAX_RECENT = 8
THEMES = ("system", "light", "dark")
#: Who edits are recorded as until a name is set in Edit › Preferences.
DEFAULT_ANNOTATOR = "user"


def default_settings() -> QSettings:
    return QSettings("tagtool", "tagtool")


def _on_unless_off(key: str, doc: str, default: bool = True) -> property:
    """A switch kept under ``key`` that is on unless turned off (``default`` False: off unless turned on).

    Parameters
    ----------
    key : str
        The QSettings key.
    doc : str
        The property's docstring.
    default : bool
        What it reads before it is set.

    Returns
    -------
    property
        Reads ``True`` unless the stored value is false (QSettings' INI
        files give ``"false"`` back as a string); writing stores a bool and
        syncs at once.
    """

    def get(self) -> bool:
        return self.qsettings.value(key, default) not in (False, "false", "0", 0)

    def put(self, value: bool) -> None:
        self.qsettings.setValue(key, bool(value))
        self.qsettings.sync()

    return property(get, put, doc=doc)


def _position_key(project: Path) -> str:
    """One key per project file (its resolved path's hash: QSettings keys cannot hold every path)."""
    digest = hashlib.sha256(str(Path(project).resolve()).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"positions/{digest}"


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

    def last_position(self, project: Path) -> tuple[int, int] | None:
        """The sentence id and token the window showed when ``project`` was last closed here, if known."""
        value = self.qsettings.value(_position_key(project))
        try:
            sentence_id, token = (int(part) for part in str(value).split(","))
        except (TypeError, ValueError):
            return None
        return sentence_id, token

    def set_last_position(self, project: Path, sentence_id: int, token: int) -> None:
        self.qsettings.setValue(_position_key(project), f"{int(sentence_id)},{int(token)}")
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

    @property
    def queue_strategy(self) -> str:
        """The queue strategy picked in Go › Queue strategy (a :mod:`tagtool.services.strategies` name)."""
        value = self.qsettings.value("queue_strategy", strategies.DEFAULT_STRATEGY)
        return value if value in strategies.REGISTRY else strategies.DEFAULT_STRATEGY

    @queue_strategy.setter
    def queue_strategy(self, value: str) -> None:
        self.qsettings.setValue("queue_strategy", strategies.get(value).name)
        self.qsettings.sync()

    @property
    def questions(self) -> str:
        """What the token-question mode asks (Go › Ask whole spans): ``tokens`` or ``spans``.

        ``questions``, as ``tagtool simulate --questions`` (:mod:`tagtool.services.span_questions`).
        """
        value = self.qsettings.value("questions", span_questions.DEFAULT_QUESTIONS)
        return value if value in span_questions.QUESTIONS else span_questions.DEFAULT_QUESTIONS

    @questions.setter
    def questions(self, value: str) -> None:
        self.qsettings.setValue("questions", value if value in span_questions.QUESTIONS else "tokens")
        self.qsettings.sync()

    measured_costs = _on_unless_off(
        "measured_costs", "Go › Queue strategy › Rank by measured annotation costs (on unless turned off)."
    )
    skip_near_duplicates = _on_unless_off(
        "skip_near_duplicates",
        "Go › Queue strategy › Pass over near-duplicates until the next model (off unless turned on; "
        "tagtool simulate --skip-near-duplicates).",
        default=False,  # tagtool.services.near_duplicates.DEFAULT_SKIP (not imported here: numpy); a test checks
    )

    @property
    def queue_seed(self) -> int:
        """The seed of the queue's random order and tie order.

        ``queue_seed``; :func:`tagtool.services.strategies.tie_order`.

        0 unless set in the settings file: the same seed as ``tagtool
        simulate --seed`` gives the same order.
        """
        try:
            return int(self.qsettings.value("queue_seed", 0))
        except (TypeError, ValueError):
            return 0

    @queue_seed.setter
    def queue_seed(self, value: int) -> None:
        self.qsettings.setValue("queue_seed", int(value))
        self.qsettings.sync()

    advance_after_accept = _on_unless_off(
        "advance_after_accept",
        "After Enter accepts a sentence's suggestions, open the queue's next sentence (on unless turned off).",
    )

    @property
    def annotator(self) -> str:
        """The name every edit, flag, split, resolution and action is recorded with (Edit › Preferences)."""
        value = self.qsettings.value("annotator", DEFAULT_ANNOTATOR)
        try:
            return check_name(value) if isinstance(value, str) else DEFAULT_ANNOTATOR
        except ValueError:
            return DEFAULT_ANNOTATOR

    @annotator.setter
    def annotator(self, value: str) -> None:
        """Set the name (trimmed; ValueError for an empty one)."""
        self.qsettings.setValue("annotator", check_name(value))
        self.qsettings.sync()

"""Where tagtool finds its resources and keeps per-user files.

``resources/`` sits at the top of the source tree (DESIGN §8); the program
runs from an editable install (``pip install -e .``) or from the PyInstaller
bundle, which copies the folder next to the executable's data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tagtool.errors import TagtoolError

SAMPLE_CORPUS = "sample/conll2000-train-400.txt"
SAMPLE_PROJECT = "sample.tagproj"


def resources_dir() -> Path:
    """The ``resources`` folder, or :class:`TagtoolError` if it cannot be found."""
    candidates = []
    if getattr(sys, "frozen", False):
        candidates.append(Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "resources")
    candidates.append(Path(__file__).resolve().parent.parent / "resources")
    for folder in candidates:
        if (folder / SAMPLE_CORPUS).is_file():
            return folder
    raise TagtoolError(
        "the resources folder is missing (looked in "
        + ", ".join(str(c) for c in candidates)
        + "); install tagtool from its source tree with 'pip install -e .'"
    )


def resource(name: str) -> Path:
    """Path of a file inside ``resources/``."""
    return resources_dir() / name


def user_data_dir() -> Path:
    """Per-user folder for the sample project and settings (XDG on Linux)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    folder = Path(base) / "tagtool"
    folder.mkdir(parents=True, exist_ok=True)
    return folder

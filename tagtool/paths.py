"""Where tagtool finds its resources and keeps per-user files.

``resources/`` sits at the top of the source tree (docs/design.md#layout).  The program
finds it in the PyInstaller bundle (``packaging/tagtool.spec`` copies it into
the bundle's data folder), in the source tree of an editable install
(``pip install -e .``), or under ``share/tagtool/resources`` of the prefix a
wheel was installed into (``pip install .``; ``pyproject.toml`` lists the
files as data files).
"""

from __future__ import annotations

import os
import site
import sys
from pathlib import Path

from tagtool.errors import TagtoolError

SAMPLE_CORPUS = "sample/conll2000-train-400.txt"
SAMPLE_PROJECT = "sample.tagproj"
#: The application icon (``resources/README.md`` says how it is made).
ICON_PNG = "tagtool.png"
#: Where a wheel install puts ``resources/``, under its prefix.
SHARED_RESOURCES = Path("share", "tagtool", "resources")


def resources_dir() -> Path:
    """The ``resources`` folder, or :class:`TagtoolError` if it cannot be found."""
    candidates = []
    if getattr(sys, "frozen", False):
        candidates.append(Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent)) / "resources")
    candidates.append(Path(__file__).resolve().parent.parent / "resources")
    candidates.extend(prefix / SHARED_RESOURCES for prefix in _install_prefixes())
    for folder in candidates:
        if (folder / SAMPLE_CORPUS).is_file():
            return folder
    raise TagtoolError(
        "the resources folder is missing (looked in "
        + ", ".join(str(c) for c in candidates)
        + "); reinstall tagtool ('pip install .' or 'pip install -e .' from its source tree)"
    )


def _install_prefixes() -> list[Path]:
    """Prefixes a wheel's data files may have gone to: the environment's, then the user's."""
    prefixes = [Path(sys.prefix)]
    # Frozen apps may carry a reduced ``site`` module without it.
    user_base = site.getuserbase() if hasattr(site, "getuserbase") else None
    if user_base:
        prefixes.append(Path(user_base))
    return prefixes


def resource(name: str) -> Path:
    """Path of a file inside ``resources/``."""
    return resources_dir() / name


def user_data_dir() -> Path:
    """Per-user folder for the sample project and settings (XDG on Linux)."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    folder = Path(base) / "tagtool"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def user_cache_dir() -> Path:
    """Per-user folder for files tagtool can rebuild, e.g. compiled kernels (XDG on Linux).

    Not created here: the caller decides what to do when it cannot be written.
    """
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "tagtool"


def user_state_dir() -> Path:
    """Per-user folder for state that is neither data nor cache: the log file, open-project locks
    (XDG on Linux).  Not created here."""
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "tagtool"

"""Process set-up that must happen before numba is imported: the numba cache of the frozen app.

Numba reads ``NUMBA_CACHE_DIR`` once, when it is first imported.  In a
normal install the kernels cache next to their sources (``__pycache__``),
but the desktop bundle (``packaging/tagtool.spec``) may sit in a read-only
folder, so there :func:`configure_numba_cache` points numba at a per-user,
per-build folder under :func:`tagtool.paths.user_cache_dir`.  It runs from
``tagtool/__init__.py`` and, earlier still, from the bundle's runtime hook
(``packaging/rthook_numba_cache.py``); the second call changes nothing.

The folder is keyed by the bundle's build id because numba, when frozen,
stamps cache entries with the executable instead of the kernel sources: a
new build must not load kernels compiled by an older one.

Only the standard library (and :mod:`tagtool.paths`) is imported here.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sys
import tempfile
from pathlib import Path

from tagtool.paths import user_cache_dir

logger = logging.getLogger(__name__)

#: Numba's environment variable for its cache folder.
NUMBA_CACHE_ENV = "NUMBA_CACHE_DIR"
#: File in the bundle's ``tagtool`` folder holding the build id (written by the spec).
BUILD_ID_FILE = "BUILD_ID"

_UNSET = object()
_configured: Path | None | object = _UNSET


def is_frozen() -> bool:
    """Whether this process runs from a frozen (PyInstaller) bundle."""
    return bool(getattr(sys, "frozen", False))


def bundle_dir() -> Path:
    """The frozen bundle's data folder (PyInstaller's ``sys._MEIPASS``)."""
    return Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))


def build_id(folder: Path) -> str:
    """The id of the build in ``folder``: the spec's ``tagtool/BUILD_ID``, or
    the executable's size and time when a build did not write one."""
    try:
        text = (folder / "tagtool" / BUILD_ID_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        text = ""
    if re.fullmatch(r"[0-9A-Za-z._-]{1,64}", text):
        return text
    st = os.stat(sys.executable)
    return hashlib.sha256(f"{sys.executable}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]


def frozen_numba_cache_dir() -> Path:
    """Where the frozen app keeps compiled kernels (not created here)."""
    return user_cache_dir() / "numba" / build_id(bundle_dir())


def configure_numba_cache() -> Path | None:
    """In a frozen app, give numba a writable cache folder; call before importing numba.

    Keeps a ``NUMBA_CACHE_DIR`` the user set.  Returns the folder, or None
    when not frozen (numba's own default applies) or when no folder can be
    written, in which case the kernels compile without caching
    (:func:`jit_cache_enabled`).  Later calls return the first call's answer.
    """
    global _configured
    if _configured is not _UNSET:
        return _configured
    _configured = None
    if not is_frozen():
        return None
    folder = Path(os.environ.get(NUMBA_CACHE_ENV) or frozen_numba_cache_dir())
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()  # numba's own writability test
    except OSError as exc:
        logger.warning("compiled kernels will not be cached: cannot write to %s (%s)", folder, exc)
        return None
    os.environ[NUMBA_CACHE_ENV] = str(folder)
    config = sys.modules.get("numba.core.config")
    if config is not None:  # numba came first (not in tagtool's own start-up): update it too
        config.CACHE_DIR = str(folder)
    _configured = folder
    return folder


def jit_cache_enabled() -> bool:
    """Whether kernels compile with ``cache=True``.

    Always outside a frozen app.  Inside one only with a writable cache
    folder: numba refuses to decorate a cached kernel it has nowhere to
    cache, which would stop the app at start-up.
    """
    return not is_frozen() or configure_numba_cache() is not None

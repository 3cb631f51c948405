"""PyInstaller runtime hook: the numba cache folder, set before any app import.

Runs before the entry script, so even a module that imports numba ahead of
``tagtool`` finds ``NUMBA_CACHE_DIR`` set.  The logic lives in
``tagtool._runtime`` (tested there); ``tagtool/__init__.py`` calls it again,
which changes nothing.
"""

from tagtool._runtime import configure_numba_cache

configure_numba_cache()

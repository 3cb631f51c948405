"""The one decorator every decoder kernel uses.

``nogil`` lets a training thread decode while the GUI thread keeps painting.
``error_model="numpy"`` keeps divisions free of Python-style zero checks.

On-disk caching spares every start of the application the compilation, but
it is switched off inside a frozen (PyInstaller) bundle, whose package
directory is read-only and whose sources numba cannot locate.  Numba's cache
notices edits to a kernel's own source file only, not to the modules it calls
into; so a kernel calls only compiled functions of its own module.
"""

from __future__ import annotations

import sys

from numba import njit

_njit = njit(cache=not getattr(sys, "frozen", False), nogil=True, error_model="numpy")

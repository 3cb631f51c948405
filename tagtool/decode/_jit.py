"""The one decorator every decoder kernel uses.

``nogil`` lets a training thread decode while the GUI thread keeps painting.
``error_model="numpy"`` keeps divisions free of Python-style zero checks.

On-disk caching spares every start of the application the compilation.  In
the frozen (PyInstaller) bundle the cache goes to the per-user folder that
:func:`tagtool._runtime.configure_numba_cache` set up before numba was
imported; only if no folder could be written do the kernels compile uncached.
Numba's cache notices edits to a kernel's own source file only, not to the
modules it calls into; so a kernel calls only compiled functions of its own
module.
"""

from __future__ import annotations

from numba import njit

from tagtool._runtime import jit_cache_enabled

#: Whether kernels are cached on disk (see the module docstring).
CACHE = jit_cache_enabled()

_njit = njit(cache=CACHE, nogil=True, error_model="numpy")

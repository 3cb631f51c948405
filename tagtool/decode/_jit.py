"""The one decorator every numba kernel of tagtool uses, and the on-disk cache it keys.

``nogil`` lets a training thread decode while the GUI thread keeps painting.
``error_model="numpy"`` keeps divisions free of Python-style zero checks.

On-disk caching spares every start of the application the compilation.  In
the frozen (PyInstaller) bundle the cache goes to the per-user folder that
:func:`tagtool._runtime.configure_numba_cache` set up before numba was
imported; only if no folder could be written do the kernels compile uncached.

Why numba's own cache is not enough.  Numba stamps a kernel's cache index
with its *own* source file (its contents, or its size and time in older
numba) and keys every entry by the kernel's own bytecode.  A kernel that
calls a kernel of another module has that callee compiled into its machine
code, so after an edit of the callee's module the caller's index still
matches and the caller loads its stale copy.  Every kernel module would
then have to hold private copies of the helpers it calls.

The design here.  :data:`_njit` (and :func:`kernel` with more numba options)
compiles with ``cache=False`` and then gives the dispatcher a
:class:`KernelCache`: numba's own function cache, whose locators are
numba's own (user-provided ``NUMBA_CACHE_DIR`` folder, ``__pycache__``,
the user-wide folder, ...) wrapped so that their *source stamp* is the pair
(numba's stamp of the kernel's file, :func:`kernel_sources_digest`).  The
digest is a SHA-256 over the path and text of every *kernel module*: every
``.py`` file below the ``tagtool`` package, and below the kernel's own
folder when it lies outside tagtool, that imports from this module
(``from tagtool.decode._jit import``), and this module itself.  Editing any
kernel module therefore changes the stamp of every cached kernel, whose
index numba then discards and recompiles: a caller always sees its callees'
current code, and kernels can share helpers across modules.  Editing a
module without kernels invalidates nothing.  The digest is computed once per
process for all of tagtool's kernels (reading the package's sources;
only when numba is loaded anyway).

Frozen and read-only installs.  The wrapped locators keep numba's rules
for where a cache may live: numba's stamp of a frozen app is its
executable, and the bundle's cache folder is keyed by its build id
(:mod:`tagtool._runtime`); the digest of the bundled sources (the spec ships
tagtool as ``.py`` files) only adds to that.  When no locator finds a
writable folder -- numba itself would then refuse to decorate the kernel --
the kernel compiles uncached, with a warning in the log, instead of stopping
the program.

Numba's private classes.  ``FunctionCache``, ``CompileResultCacheImpl`` and its ``_locator_classes``
are not numba's public API: pyproject.toml bounds numba above, and
``tests/decode/test_numba_cache_shape.py`` fails when what this module relies on changes shape.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
from pathlib import Path

from numba import njit
from numba.core.caching import CompileResultCacheImpl, FunctionCache

from tagtool._runtime import jit_cache_enabled

logger = logging.getLogger(__name__)

#: Whether kernels are cached on disk (see the module docstring).
CACHE = jit_cache_enabled()

#: Text that makes a ``.py`` file a kernel module (its import of this module; this module counts too).
KERNEL_MARKER = b"from tagtool.decode._jit import"
#: The folder whose kernel modules every kernel's stamp covers: the ``tagtool`` package.
PACKAGE_DIR = Path(__file__).resolve().parents[1]

_OPTIONS = {"nogil": True, "error_model": "numpy"}


def _kernel_files(folder: Path) -> list[Path]:
    """The kernel modules below ``folder`` (see :data:`KERNEL_MARKER`), sorted."""
    found = []
    for here, subfolders, files in os.walk(folder):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in files:
            if not name.endswith(".py"):
                continue
            path = Path(here, name)
            try:
                if KERNEL_MARKER in path.read_bytes() or path == Path(__file__).resolve():
                    found.append(path)
            except OSError:  # unreadable: not a source numba could compile either
                continue
    return sorted(found)


@functools.cache
def kernel_sources_digest(folder: str | None = None) -> str:
    """SHA-256 over the kernel modules of tagtool and of ``folder`` (a kernel's own folder).

    Paths enter relative to their root, so a moved checkout keeps its cache.
    """
    roots = [PACKAGE_DIR]
    if folder is not None and not Path(folder).resolve().is_relative_to(PACKAGE_DIR):
        roots.append(Path(folder).resolve())
    digest = hashlib.sha256()
    for root in roots:
        for path in _kernel_files(root):
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamped(locator_class: type) -> type:
    """``locator_class`` whose source stamp also covers every kernel module (module docstring)."""

    class KernelLocator(locator_class):
        _kernel_folder: str | None = None

        @classmethod
        def from_function(cls, py_func, py_file):
            locator = super().from_function(py_func, py_file)
            if locator is not None:
                folder = Path(py_file).resolve().parent
                # tagtool's own kernels share one digest (computed once); only an outside folder adds its own
                locator._kernel_folder = None if folder.is_relative_to(PACKAGE_DIR) else str(folder)
            return locator

        def get_source_stamp(self):
            return super().get_source_stamp(), kernel_sources_digest(self._kernel_folder)

    KernelLocator.__name__ = KernelLocator.__qualname__ = f"Kernel{locator_class.__name__}"
    return KernelLocator


class KernelCacheImpl(CompileResultCacheImpl):
    """Numba's cache of compiled functions, with the stamped locators."""

    _locator_classes = [_stamped(cls) for cls in CompileResultCacheImpl._locator_classes]


class KernelCache(FunctionCache):
    """Numba's function cache keyed by every kernel module's source (module docstring)."""

    _impl_class = KernelCacheImpl


def in_cache(dispatcher) -> bool:
    """Whether numba's on-disk cache holds ``dispatcher`` compiled from today's sources (for any argument types).

    Reads the kernel's cache index the way numba does before it loads an
    entry: a missing index, or one of other sources or another numba, holds
    nothing.  False for a kernel that is not cached on disk at all.
    """
    cache = getattr(dispatcher, "_cache", None)
    if not isinstance(cache, FunctionCache):
        return False
    try:
        return bool(cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 -- an unreadable index is one numba would recompile too
        return False


def kernel(**options):
    """A decorator compiling a kernel with tagtool's options plus ``options`` (e.g. ``fastmath``)."""
    settings = {**_OPTIONS, **options}

    def decorate(py_func):
        dispatcher = njit(cache=False, **settings)(py_func)
        if CACHE:
            try:
                dispatcher._cache = KernelCache(py_func)  # what Dispatcher.enable_caching does
            except RuntimeError as exc:  # no locator found a writable folder
                logger.warning("kernel %s will not be cached: %s", py_func.__qualname__, exc)
        return dispatcher

    return decorate


_njit = kernel()

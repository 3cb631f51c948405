"""The shape of numba's private cache classes that :mod:`tagtool.decode._jit` subclasses.

``_jit`` hands a dispatcher a :class:`~tagtool.decode._jit.KernelCache`: a subclass of
``numba.core.caching.FunctionCache`` whose implementation class replaces ``_locator_classes``
with locators stamping every kernel module's source.  None of that is numba's public API, so
pyproject.toml bounds numba above at the newest version these tests passed with; before raising
the bound, run this file against the new version: it fails when a name, a signature or a
behaviour ``_jit`` relies on has changed.  (test_kernel_cache.py checks the cache end to end.)
"""

from __future__ import annotations

import inspect
import pathlib

import pytest
from numba import njit
from numba.core import caching
from numba.core.dispatcher import Dispatcher

from tagtool.decode import _jit


def _params(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def _twice(x):
    return 2 * x


def test_function_cache_is_built_from_the_python_function_by_its_impl_class():
    assert issubclass(_jit.KernelCache, caching.FunctionCache)
    assert _params(caching.FunctionCache.__init__) == ["self", "py_func"]
    assert caching.FunctionCache._impl_class is caching.CompileResultCacheImpl
    assert issubclass(_jit.KernelCacheImpl, caching.CompileResultCacheImpl)


def test_every_locator_class_is_found_by_from_function_and_stamps_its_source():
    locators = caching.CompileResultCacheImpl._locator_classes
    assert isinstance(locators, list) and locators
    for cls in locators:
        assert issubclass(cls, caching._CacheLocator), cls
        assert isinstance(inspect.getattr_static(cls, "from_function"), classmethod), cls
        assert _params(cls.from_function) == ["py_func", "py_file"], cls
        assert _params(cls.get_source_stamp) == ["self"], cls
    stamped = _jit.KernelCacheImpl._locator_classes
    assert [cls.__mro__[1] for cls in stamped] == locators  # one stamped subclass per numba locator, in order


def test_the_dispatcher_keeps_its_cache_in_the_attribute_enable_caching_sets():
    assert "self._cache = FunctionCache(self.py_func)" in inspect.getsource(Dispatcher.enable_caching)
    dispatcher = njit(cache=False)(_twice)
    assert isinstance(dispatcher, Dispatcher) and isinstance(dispatcher._cache, caching.NullCache)


def test_the_cache_index_is_stamped_with_the_locators_stamp():
    cache = _jit.KernelCache(_twice)
    stamp = cache._impl.locator.get_source_stamp()
    here = str(pathlib.Path(__file__).resolve().parent)  # this file lies outside tagtool: its folder counts too
    assert stamp[1] == _jit.kernel_sources_digest(here)
    assert cache._cache_file._source_stamp == stamp


def test_no_locator_is_a_runtime_error():
    class NoLocators(_jit.KernelCacheImpl):
        _locator_classes = []

    class NoCache(_jit.KernelCache):
        _impl_class = NoLocators

    with pytest.raises(RuntimeError, match="no locator"):
        NoCache(_twice)


@pytest.mark.skipif(not _jit.CACHE, reason="kernels are not cached in this environment")
def test_a_kernel_is_compiled_uncached_and_given_a_kernel_cache():
    dispatcher = _jit.kernel()(_twice)
    assert isinstance(dispatcher._cache, _jit.KernelCache)
    assert dispatcher(3) == 6

"""Numba kernels of L-BFGS (:mod:`tagtool.learn.lbfgs`): the vector operations over ``θ``.

A CRF's ``θ`` has about a million entries and an iteration makes some
thirty passes over vectors of that size, so these are kernels rather than
numpy expressions: no temporaries, no threaded BLAS.  They call nothing
outside this module (numba's cache notices edits to a kernel's own file only).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tagtool.decode._jit import CACHE

# Sums of products: letting LLVM reassociate them vectorises the loops (as in _crf_kernels).
_fast = njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"reassoc", "contract"})


@_fast
def dot(a, b):
    """``a · b`` of two 1-D float64 arrays, on this thread.

    numpy's ``@`` goes to a threaded BLAS that, on a shared machine, spends
    several times the work spinning; L-BFGS takes a dozen of these per
    iteration over a million entries.
    """
    total = 0.0
    for i in range(a.shape[0]):
        total += a[i] * b[i]
    return total


@_fast
def axpy(a, x, y):
    """``y += a * x`` in place, without the temporary numpy would allocate."""
    for i in range(x.shape[0]):
        y[i] += a * x[i]

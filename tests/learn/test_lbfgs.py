"""L-BFGS's kernels: the fused two-loop recursion against the textbook one, and the stored pairs."""

from __future__ import annotations

import numpy as np
import pytest

from tagtool.learn.lbfgs import _History


def _textbook_direction(history: _History, g: np.ndarray) -> np.ndarray:
    """``-H g`` by Nocedal & Wright's Alg. 7.4, numpy step by step, on the stored pairs."""
    q, alphas = g.copy(), []
    for row in reversed(history.order):
        s, y = history.s[row].astype(np.float64), history.y[row].astype(np.float64)
        a = history.rho[row] * (s @ q)
        q -= a * y
        alphas.append(a)
    if history.order:
        newest = history.y[history.order[-1]].astype(np.float64)
        q *= 1.0 / (history.rho[history.order[-1]] * (newest @ newest))
    for row, a in zip(history.order, reversed(alphas)):
        s, y = history.s[row].astype(np.float64), history.y[row].astype(np.float64)
        q += (a - history.rho[row] * (y @ q)) * s
    return -q


@pytest.mark.parametrize("pushes", [0, 1, 2, 6, 9])
def test_the_fused_two_loop_recursion_is_the_textbook_one(pushes):
    rng = np.random.default_rng(pushes)
    n = 257
    curvature = rng.uniform(0.5, 3.0, size=n)
    history = _History(6, n)
    for _ in range(pushes):
        x, step = rng.normal(size=n), rng.normal(size=n)
        g = rng.normal(size=n)
        history.push(x + step, x, g + curvature * step, g)  # s·y > 0: every pair is kept
    assert history.size == min(pushes, 6)
    g = rng.normal(size=n)
    out = np.empty(n)
    history.direction(g, out)
    expected = _textbook_direction(history, g)
    np.testing.assert_allclose(out, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    if pushes:
        assert g @ out < 0  # a descent direction


def test_a_pair_of_negative_curvature_is_not_stored():
    history = _History(3, 4)
    x, g = np.zeros(4), np.ones(4)
    history.push(x + 1.0, x, g - 1.0, g)  # s·y = -4
    assert history.size == 0
    history.push(x + 1.0, x, g + 2.0, g)
    assert history.order == [0]
    np.testing.assert_array_equal(history.s[0], np.ones(4, dtype=np.float32))
    assert history.rho[0] == pytest.approx(1 / 8) and history.yy[0] == pytest.approx(16)

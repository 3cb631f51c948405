"""What a new model replaces is let go of a piece per turn of the event loop, never changed (tagtool.gui.retire)."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass

import numpy as np

from tagtool.gui.retire import HEAVY_BYTES, HEAVY_ITEMS, Retirer, heavy_pieces


class Scores(dict):
    """A dict that can be weakly referenced."""


@dataclass
class Inner:
    array: np.ndarray
    small: np.ndarray


@dataclass
class Result:
    inner: Inner
    scores: Scores
    pair: tuple


def _result() -> Result:
    big = np.zeros(HEAVY_BYTES // 8)
    return Result(Inner(big, np.zeros(3)), Scores((i, float(i)) for i in range(HEAVY_ITEMS)), (np.ones(HEAVY_BYTES), 1))


def test_the_heavy_pieces_are_found_through_attributes_and_short_tuples_each_once():
    result = _result()
    pieces = heavy_pieces([result, result.inner])
    assert [id(p) for p in pieces] == [id(result.inner.array), id(result.scores), id(result.pair[0])]


def test_the_objects_go_first_then_one_heavy_piece_a_turn(qtbot):
    gc.disable()  # only the retirer's references keep them alive: no collector run in between
    try:
        retirer = Retirer()
        result = _result()
        alive = [weakref.ref(result), weakref.ref(result.inner), weakref.ref(result.scores)]
        retirer.retire(result, None)
        del result
        assert all(ref() is not None for ref in alive)  # nothing is let go of in the turn that retires
        assert retirer.held == 4  # the objects, then three pieces
        retirer.release_one()  # the next turn (called here: the event loop does not run in between)
        assert alive[0]() is None and alive[1]() is None and alive[2]() is not None  # the heavy dict still held
        retirer.release_one()  # the array
        assert alive[2]() is not None and retirer.held == 2
        retirer.release_one()
        assert alive[2]() is None
        qtbot.waitUntil(lambda: retirer.held == 0, timeout=2000)  # the last piece by the timer
    finally:
        gc.enable()


def test_a_piece_still_in_use_elsewhere_is_left_as_it_is(qtbot):
    retirer = Retirer()
    result = _result()
    kept = result.scores
    retirer.retire(result)
    del result
    qtbot.waitUntil(lambda: retirer.held == 0, timeout=2000)
    assert len(kept) == HEAVY_ITEMS and kept[5] == 5.0


def test_close_lets_go_of_everything_at_once(qtbot):
    retirer = Retirer()
    result = _result()
    ref = weakref.ref(result.scores)
    retirer.retire(result)
    del result
    retirer.close()
    assert retirer.held == 0 and ref() is None

"""Mouse gestures on the editor's chips as a person makes them, through QTest (screenshots, benchmarks, tests).

Each sends the real events a pointer sends (press, moves, release at the
chips' positions), so what they exercise is the editor's own mouse code
(:mod:`tagtool.gui.editor_mouse`), not a shortcut around it.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest


def chip_point(editor, t: int, band: str = "token") -> QPoint:
    """The centre of token ``t``'s upper band (``token``: the word) or lower band (``label``: its label or
    suggestion), in the editor's coordinates."""
    rect = editor._rects[t]
    chips = editor._painter()
    y = rect.top() + (chips.token_band / 2 if band == "token" else chips.token_band + chips.label_band / 2)
    return QPoint(int(rect.center().x()), int(y))


def drag(editor, first: int, last: int) -> None:
    """Press on token ``first``, move over the tokens between, release on token ``last``."""
    QTest.mousePress(editor, Qt.LeftButton, Qt.NoModifier, chip_point(editor, first))
    step = 1 if last >= first else -1
    for t in range(first + step, last + step, step):
        QTest.mouseMove(editor, chip_point(editor, t))
    QTest.mouseRelease(editor, Qt.LeftButton, Qt.NoModifier, chip_point(editor, last))


def click(editor, t: int, band: str = "token", modifier=Qt.NoModifier, button=Qt.LeftButton) -> None:
    """A click on token ``t`` (``band``: see :func:`chip_point`)."""
    QTest.mouseClick(editor, button, modifier, chip_point(editor, t, band))


def click_button(button, modifier=Qt.NoModifier) -> None:
    """A click on a widget's centre (a label palette button)."""
    QTest.mouseClick(button, Qt.LeftButton, modifier, button.rect().center())

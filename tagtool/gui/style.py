"""Colours: label colours with readable text, and the light and dark palettes.

Label colours come from the project (``#rrggbb``); the text drawn on them is
black or white, whichever contrasts more (WCAG 2 relative luminance).
Everything else (chip outlines, neutral chips, selection) takes its colours
from the widget's :class:`QPalette`, so a dark palette stays readable.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtGui import QColor, QPalette

from tagtool.errors import LabelError
from tagtool.store.colors import check_shortcut
from tagtool.store.record_types import LabelInfo

_FALLBACK = QColor("#cccccc")


def relative_luminance(color: QColor) -> float:
    """WCAG 2 relative luminance of an sRGB colour, in [0, 1]."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def contrast_ratio(a: QColor, b: QColor) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable_text(background: QColor) -> QColor:
    """Black or white, whichever is easier to read on ``background``."""
    black, white = QColor("#000000"), QColor("#ffffff")
    return black if contrast_ratio(background, black) >= contrast_ratio(background, white) else white


class LabelStyle:
    """Colour, text colour and shortcut of every label of a project."""

    def __init__(self, infos: Iterable[LabelInfo]):
        self.infos = list(infos)
        self._by_name = {info.name: info for info in self.infos}
        self._colors = {info.name: QColor(info.color) for info in self.infos}
        self._text = {name: readable_text(c) for name, c in self._colors.items()}
        # keys in their stored form ("Shift+2", "v"): a project may hold "V" typed before they were
        self._by_key = {}
        for info in self.infos:
            if info.shortcut:
                self._by_key.setdefault(_stored_key(info.shortcut), info.name)

    @property
    def names(self) -> list[str]:
        return [info.name for info in self.infos]

    def color(self, name: str) -> QColor:
        return self._colors.get(name, _FALLBACK)

    def text_color(self, name: str) -> QColor:
        return self._text.get(name, readable_text(_FALLBACK))

    def shortcut(self, name: str) -> str | None:
        info = self._by_name.get(name)
        return None if info is None else info.shortcut

    def label_for_shortcut(self, key: str) -> str | None:
        return self._by_key.get(_stored_key(key)) if key else None


def _stored_key(key: str) -> str:
    try:
        return check_shortcut(key)
    except LabelError:  # a key read from an old or hand-edited file
        return key


def light_palette() -> QPalette:
    """A plain light palette (Fusion's defaults, explicit for screenshots)."""
    return _palette(
        window="#efefef",
        base="#ffffff",
        alt="#f5f5f5",
        text="#1a1a1a",
        button="#e6e6e6",
        highlight="#2a6fdb",
        disabled="#8a8a8a",
        link="#1a5fb4",
    )


def dark_palette() -> QPalette:
    """A dark palette with light text (for dark desktops and screenshots)."""
    return _palette(
        window="#2b2b2b",
        base="#1e1e1e",
        alt="#262626",
        text="#e8e8e8",
        button="#353535",
        highlight="#4a90e2",
        disabled="#7a7a7a",
        link="#8ab4f8",
    )


def _palette(*, window, base, alt, text, button, highlight, disabled, link) -> QPalette:
    p = QPalette()
    roles = {
        QPalette.Window: window,
        QPalette.WindowText: text,
        QPalette.Base: base,
        QPalette.AlternateBase: alt,
        QPalette.Text: text,
        QPalette.Button: button,
        QPalette.ButtonText: text,
        QPalette.ToolTipBase: base,
        QPalette.ToolTipText: text,
        QPalette.PlaceholderText: disabled,
        QPalette.Highlight: highlight,
        QPalette.HighlightedText: "#ffffff",
        QPalette.Link: link,
        QPalette.BrightText: "#ff5555",
    }
    for role, color in roles.items():
        p.setColor(role, QColor(color))
    for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
        p.setColor(QPalette.Disabled, role, QColor(disabled))
    return p


def is_dark(palette: QPalette) -> bool:
    """True when the palette draws light text on a dark background."""
    return relative_luminance(palette.color(QPalette.Base)) < 0.3


def apply_theme(app, theme: str) -> None:
    """Use the system palette, or the light or dark one (with the Fusion style,
    which follows the palette everywhere)."""
    if theme == "system":
        app.setPalette(app.style().standardPalette())
        return
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if theme == "dark" else light_palette())

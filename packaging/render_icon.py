"""Render ``resources/tagtool.svg`` to ``resources/tagtool.png`` (256 x 256).

The PNG is what the window and the ``.desktop`` entry use, so that neither
needs Qt's SVG plugins in the bundle.  Re-run after editing the SVG::

    QT_QPA_PLATFORM=offscreen python packaging/render_icon.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


def render(svg: Path, png: Path, size: int) -> None:
    """Draw ``svg`` onto a transparent ``size`` x ``size`` image saved as ``png``."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG file")
    image = QImage(size, size, QImage.Format_ARGB32_Premultiplied)
    image.fill(Qt.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    renderer.render(painter)
    painter.end()
    if not image.save(str(png), "PNG"):
        raise SystemExit(f"{png}: could not be written")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args(argv)
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (QImage needs it)
    render(RESOURCES / "tagtool.svg", RESOURCES / "tagtool.png", args.size)
    print(f"wrote {RESOURCES / 'tagtool.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

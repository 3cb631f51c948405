"""The screenshot script renders every state in both palettes."""

from __future__ import annotations

from PySide6.QtGui import QImage

from tagtool.gui.window_layout import DEFAULT_SIZE
from tools import screenshots


def test_screenshots_render_light_and_dark(chunk_project, tmp_path, qapp):
    paths = screenshots.render(tmp_path / "shots", chunk_project, model=True, wdpsl=False)
    names = {p.name for p in paths}
    for theme in ("light", "dark"):
        assert {
            f"sample-{theme}.png",
            f"partial-{theme}.png",
            f"mouse-span-{theme}.png",
            f"palette-{theme}.png",
            f"string-matches-{theme}.png",
        } <= names
        assert {f"mouse-span-1024-{theme}.png", f"palette-1024-{theme}.png", f"waiting-1024-{theme}.png"} <= names
        assert {
            f"training-{theme}.png",
            f"suggestions-{theme}.png",
            f"disagreement-{theme}.png",
            f"questions-{theme}.png",
            f"statistics-{theme}.png",
            f"adjudication-{theme}.png",
            f"agreement-{theme}.png",
            f"waiting-{theme}.png",
            f"knowledge-panel-{theme}.png",
            f"knowledge-dialog-{theme}.png",
        } <= names
    for path in paths:
        image = QImage(str(path))
        assert not image.isNull() and image.width() > 200
    sizes = {p.name: QImage(str(p)).size() for p in paths}
    assert (sizes["mouse-span-light.png"].width(), sizes["mouse-span-light.png"].height()) == DEFAULT_SIZE
    assert (sizes["waiting-dark.png"].width(), sizes["waiting-dark.png"].height()) == DEFAULT_SIZE
    for name in ("mouse-span-1024-light.png", "waiting-1024-dark.png"):
        assert (sizes[name].width(), sizes[name].height()) == (1024, 700)

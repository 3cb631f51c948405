"""The screenshot script renders every state in both palettes."""

from __future__ import annotations

from PySide6.QtGui import QImage

from tagtool.gui import screenshots


def test_screenshots_render_light_and_dark(chunk_project, tmp_path, qapp):
    paths = screenshots.render(tmp_path / "shots", chunk_project, model=True, wdpsl=False)
    names = {p.name for p in paths}
    for theme in ("light", "dark"):
        assert {f"sample-{theme}.png", f"partial-{theme}.png", f"mouse-span-{theme}.png", f"palette-{theme}.png"} <= names
        assert {f"training-{theme}.png", f"suggestions-{theme}.png", f"disagreement-{theme}.png",
                f"questions-{theme}.png", f"statistics-{theme}.png", f"adjudication-{theme}.png",
                f"agreement-{theme}.png", f"waiting-{theme}.png"} <= names
    for path in paths:
        image = QImage(str(path))
        assert not image.isNull() and image.width() > 200

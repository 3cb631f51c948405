"""Render the main window's states to PNGs: ``python -m tagtool.gui.screenshots OUTDIR``.

Works offscreen (``QT_QPA_PLATFORM=offscreen``).  The sample project is
copied into a temporary folder first, so the user's own copy is not edited.
States: the sample project as it opens, a sentence with full and partial
labels and a selection, the label picker, each in a light and a dark palette.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tagtool.gui.app import application  # noqa: E402
from tagtool.gui.main_window import MainWindow  # noqa: E402
from tagtool.gui.style import apply_theme  # noqa: E402


def _settle(app: QApplication) -> None:
    for _ in range(3):
        app.processEvents()


def _label_some(window: MainWindow) -> None:
    """A sentence with a span, a candidate set and a selection (by keys)."""
    editor = window.editor
    window.session.next_unfinished()
    labels = window.session.project.labels
    names = [n for n in ("B-NP", "I-NP", "B-VP", "B-PP") if n in labels] or list(labels)[:3]
    editor.set_focus(0)
    editor.set_focus(2, extend=True)
    editor.apply_full(names[0])  # a span: B-NP I-NP I-NP
    for name in names[:3]:  # a candidate set on the next token
        editor.toggle_candidate(name)
    editor.set_focus(editor.focus + 1)
    editor.toggle_candidate(names[-1])
    editor.toggle_candidate(names[2 % len(names)])
    editor.set_focus(editor.focus + 2)
    QTest.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)
    QTest.keyClick(editor, Qt.Key_Right, Qt.ShiftModifier)


def render(outdir: Path, project: Path) -> list[Path]:
    app = application()
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    style, palette = app.style().name(), app.palette()
    with tempfile.TemporaryDirectory() as tmp:
        settings = QSettings(str(Path(tmp) / "gui.ini"), QSettings.IniFormat)
        for theme in ("light", "dark"):
            copy = Path(tmp) / f"{theme}-{project.name}"
            shutil.copy(project, copy)
            apply_theme(app, theme)
            window = MainWindow(settings)
            window.resize(1280, 760)
            window.open_project(copy)
            window.show()
            _settle(app)
            shots = {"sample": None, "partial": lambda: _label_some(window),
                     "picker": window.editor.open_picker}
            for name, action in shots.items():
                if action is not None:
                    action()
                _settle(app)
                path = outdir / f"{name}-{theme}.png"
                window.grab().save(str(path))
                written.append(path)
                if name == "picker":  # a popup is its own window
                    picker = window.editor.picker
                    picker.filter.setText("NP")
                    _settle(app)
                    path = outdir / f"picker-popup-{theme}.png"
                    picker.grab().save(str(path))
                    picker.hide()
                    written.append(path)
            window.close()
            window.deleteLater()
            _settle(app)
    app.setStyle(style)
    app.setPalette(palette)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--project", type=Path, help="project file (default: the sample project)")
    args = parser.parse_args(argv)
    if args.project is None:
        from tagtool.cli import ensure_sample_project

        args.project = ensure_sample_project()
    for path in render(args.outdir, args.project):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

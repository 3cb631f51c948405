"""Screenshots of the knowledge a user brings (:mod:`tools.screenshots`): ``python -m tools.knowledge_shots [OUTDIR]``.

On a window whose project is the sample: made-up word vectors of the
sample's words (a word2vec text file, random numbers: the screenshot shows
the app, not what vectors give), a dictionary of noun phrases and a
patterns file are added through the app's controller, the model is trained
with them, and the Model panel (naming what the model reads) and
the *Knowledge in the project* dialog are saved: ``knowledge-panel-<theme>.png``
and ``knowledge-dialog-<theme>.png``.  Alone, it writes only those two
files of each theme.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

#: The Model panel's width in the screenshot (about its width in a 1280-pixel window).
PANEL_WIDTH = 300
#: Seconds the reads and the training run may take.
WAIT_SECONDS = 180.0

DICTIONARY = "# currencies and markets, as noun phrases\nthe pound\nsterling\nthe dollar\nthe yen\nbase rates\n"
PATTERNS = (
    '{"label": "NP", "pattern": [{"lower": "the"}, {"lower": {"IN": ["pound", "dollar", "yen"]}}]}\n'
    '{"label": "NP", "pattern": [{"like_num": true}, {"orth": "%"}]}\n'
)


def _wait(app, condition, seconds: float = WAIT_SECONDS) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the knowledge screenshots waited too long")
        app.processEvents()
        time.sleep(0.01)


def knowledge_files(folder: Path, words) -> dict[str, Path]:
    """The demo files in ``folder``: vectors of ``words`` (random, 50 dimensions), a dictionary, patterns."""
    rng = np.random.default_rng(7)
    words = sorted(set(words))
    rows = [f"{len(words)} 50"] + [w + " " + " ".join(f"{x:.3f}" for x in rng.normal(size=50)) for w in words]
    files = {"vectors": folder / "news-vectors.txt", "dictionary": folder / "np.txt", "patterns": folder / "np.jsonl"}
    files["vectors"].write_text("\n".join(rows) + "\n", encoding="utf-8")
    files["dictionary"].write_text(DICTIONARY, encoding="utf-8")
    files["patterns"].write_text(PATTERNS, encoding="utf-8")
    return files


def render(app, window, theme: str, outdir: Path, folder: Path) -> list[Path]:
    """Add the demo knowledge to ``window``'s project, train, and save the two screenshots of ``theme``."""
    from tagtool.gui.knowledge_dialog import KnowledgeDialog

    loop = window.model_loop
    knowledge = loop.knowledge
    files = knowledge_files(folder, (t for s in window.session.project.corpus() for t in s.tokens))
    loop.auto = False  # one run below, with all of it
    knowledge.add_vectors(files["vectors"])
    _wait(app, lambda: not knowledge.reading and not knowledge.vector_runner.busy)
    knowledge.add_dictionary(files["dictionary"], "NP")
    _wait(app, lambda: not knowledge.adding)
    knowledge.add_patterns(files["patterns"])
    _wait(app, lambda: not knowledge.adding)
    loop.cv_folds = 0
    window.model_panel.select_learner("mv-perceptron")  # the default, whatever the states before chose
    failed: list[str] = []
    loop.failed.connect(lambda message, _tb: failed.append(message))
    loop.train()
    _wait(
        app,
        lambda: bool(failed) or (loop.tagger is not None and not loop.busy and loop.tagger.extractor.gazetteers),
    )
    if failed:
        raise RuntimeError(f"training with the knowledge failed: {failed[0]}")
    _wait(app, lambda: "Dictionaries" in window.model_panel.metrics.text(), 10.0)
    body = window.model_panel.layout().itemAt(0).widget().widget()  # the panel's column, unscrolled
    body.resize(PANEL_WIDTH, body.sizeHint().height())
    for _ in range(5):
        app.processEvents()
    written = [_save(body, outdir / f"knowledge-panel-{theme}.png")]
    dialog = KnowledgeDialog(knowledge, window)
    dialog.show()
    for _ in range(5):
        app.processEvents()
    written.append(_save(dialog, outdir / f"knowledge-dialog-{theme}.png"))
    dialog.close()
    return written


def _save(widget, path: Path) -> Path:
    widget.grab().save(str(path), "PNG", 0)
    return path


def main(argv: list[str] | None = None) -> int:
    from PySide6.QtCore import QSettings

    from tagtool.gui.app import application
    from tagtool.gui.main_window import MainWindow
    from tagtool.gui.style import apply_theme
    from tools.screenshots import DOCS, SHOT_SIZE, _fresh_sample

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, nargs="?", default=DOCS, help=f"default: {DOCS}")
    args = parser.parse_args(argv)
    app = application()
    args.outdir.mkdir(parents=True, exist_ok=True)
    for theme in ("light", "dark"):
        with tempfile.TemporaryDirectory() as tmp:
            project = _fresh_sample(Path(tmp))
            apply_theme(app, theme)
            window = MainWindow(QSettings(str(Path(tmp) / "gui.ini"), QSettings.IniFormat))
            window.resize(*SHOT_SIZE)
            window.open_project(project)
            window.show()
            for path in render(app, window, theme, args.outdir, Path(tmp)):
                print(path)
            window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

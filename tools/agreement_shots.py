"""The agreement panel's screenshot (:mod:`tools.screenshots`): a demo team on the sample's sentences.

The sample project's labeled sentences answered by three made-up
annotators (:func:`tools.demo_team.team_sentences`, a third of them
by all three), each with an action log (2–4 s a token) so the progress
table shows tokens per minute.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from PySide6.QtWidgets import QApplication

from tagtool.store.actions import Action
from tools.demo_team import team_sentences

#: Seconds the panel's worker may take on the demo project.
WAIT_SECONDS = 60.0


def team_project(folder: Path) -> Path:
    """The demo team's project in ``folder`` (the sample's labeled sentences)."""
    from tagtool.core import Corpus
    from tagtool.store.project import Project
    from tagtool.store.sample import SAMPLE_LABELED, sample_corpus

    sample = sample_corpus()
    gold = sample.sentences[:SAMPLE_LABELED]
    sentences = team_sentences(gold, sample.labels.names, overlap=0.35, seed=14)
    path = folder / "team-demo.tagproj"
    with Project.create(path, Corpus.from_sentences(sentences, labels=sample.labels), name="team demo") as project:
        _log_work(project)
    return path


def _log_work(project) -> None:
    """One full-label action per sentence an annotator answered, 2–4 s a token (made up)."""
    rng = random.Random(14)
    clock = {}
    for sid in project.sentence_ids():
        for name in project.team.annotator_labels(sid):
            n = len(project.sentence(sid))
            start = clock.get(name, 1_700_000_000.0)
            active = min(60.0, n * rng.uniform(2.0, 4.0))
            project.log_action(Action("full", n, start, start + active, active), sid, name)
            clock[name] = start + active


def render(app: QApplication, settings, folder: Path, theme: str, outdir: Path) -> list[Path]:
    """``agreement-THEME.png``: the window on the demo team with the statistics dock at the agreement panel."""
    from tagtool.gui.main_window import MainWindow
    from tools.screenshots import _save, _settle

    window = MainWindow(settings)
    window.resize(1280, 760)
    (folder / theme).mkdir(exist_ok=True)
    window.open_project(team_project(folder / theme))
    window.show()
    window.model_loop.auto = False
    window.model_dock.hide()
    window.stats_dock.show()
    window.stats_dock.raise_()
    panel = window.stats_panel
    panel.refresh()
    deadline = time.monotonic() + WAIT_SECONDS
    while panel.team.result is None and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    _settle(app)
    panel.verticalScrollBar().setValue(panel.team.y())  # the panel at the top of the dock
    _settle(app)
    path = _save(window, outdir / f"agreement-{theme}.png")
    window.model_loop.cancel()
    window.close()
    window.deleteLater()
    _settle(app)
    return [path]

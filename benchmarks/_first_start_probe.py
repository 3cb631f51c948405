"""One timed start of the app, run by ``benchmarks/first_start.py`` in a child process (offscreen).

``window``: prints ``shown <seconds>`` (from this process's start) once the
window is shown on the sample project.  ``suggest <warm>``: opens a copy of
the sample corpus with no sentence labeled, optionally starts the kernel
warm-up at window show and waits for it, then labels the first sentence
(its gold labels, one edit, as Enter on accepted labels would store it) and
prints ``suggest <seconds from the edit to the first model's suggestions>
<warm-up seconds> <longest event-loop gap during the warm-up>``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

START = time.perf_counter()


def _window(kind: str) -> None:
    from PySide6.QtCore import QSettings

    from tagtool.gui.app import application
    from tagtool.gui.main_window import MainWindow

    tmp = Path(tempfile.mkdtemp())
    app = application()
    window = MainWindow(QSettings(str(tmp / "gui.ini"), QSettings.IniFormat))
    if kind == "window":
        from tagtool.store.sample import ensure_sample_project

        window.open_project(ensure_sample_project())
        window.show()
        while not window.isVisible() or window.windowHandle() is None or not window.windowHandle().isExposed():
            app.processEvents()
        app.processEvents()
        print(f"shown {time.perf_counter() - START:.3f}", flush=True)
        window.close()
        return
    _suggest(app, window, tmp, warm=(kind == "warm"))


def _suggest(app, window, tmp: Path, warm: bool) -> None:
    from tagtool.core import Corpus
    from tagtool.paths import SAMPLE_CORPUS, resource
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    gold = read_corpus(resource(SAMPLE_CORPUS))
    path = tmp / "fresh.tagproj"
    Project.create(path, Corpus.from_sentences([s.unlabeled() for s in gold], labels=gold.labels),
                   name="fresh").close()
    window.open_project(path)
    window.model_loop.cv_folds = 0
    window.show()
    warm_seconds = float("nan")
    gap = 0.0
    if warm:
        # The GUI thread's longest wait between two turns of a 10 ms timer while the kernels compile.
        from PySide6.QtCore import QTimer

        last = [time.perf_counter()]
        gaps = []

        def tick():
            now = time.perf_counter()
            gaps.append(now - last[0])
            last[0] = now

        timer = QTimer(interval=10)
        timer.timeout.connect(tick)
        timer.start()
        window.warm_kernels()
        while window.kernel_warmup.seconds is None:
            app.processEvents()
            time.sleep(0.002)
        timer.stop()
        warm_seconds = window.kernel_warmup.seconds
        gap = max(gaps, default=0.0)
    arrived = []
    window.model_loop.modelChanged.connect(lambda *_: arrived.append(time.perf_counter()))
    session = window.session
    first = session.sentence_ids[0]
    session.go_to(first)
    labels = next(iter(gold)).annotations
    started = time.perf_counter()
    session.edit({i: frozenset(a) for i, a in enumerate(labels)}, "label the first sentence")
    while not arrived:
        app.processEvents()
        time.sleep(0.005)
    print(f"suggest {arrived[0] - started:.3f} {warm_seconds:.3f} {gap:.3f}", flush=True)
    window.close()


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _window(sys.argv[1])

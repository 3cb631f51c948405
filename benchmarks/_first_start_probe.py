"""One timed start of the app, run by ``benchmarks/first_start.py`` in a child process (offscreen).

Both kinds start as ``tagtool gui`` does (:func:`tagtool.gui.app.run`): the
child process that fills numba's cache on a cold cache
(:func:`tagtool.services.warmup.start_filling_cache`) first, then the window.

``window``: prints ``shown <seconds>`` (from this process's start) once the
window is shown on the sample project, then waits for that child.
``suggest <when>``: opens a copy of the sample corpus with no sentence
labeled and, unless ``when`` is ``none``, starts the kernel warm-up at window
show as the app does; then labels the first sentence (its gold labels, one
edit, as Enter on accepted labels would store it) ``when`` seconds after the
window showed, or once the warm-up is done (``when`` = ``done``), and prints
``suggest <seconds from the edit to the first model's suggestions> <warm-up
seconds from window show, nan if still running at the edit> <longest
event-loop gap before the edit>``.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

START = time.perf_counter()


def _window(kind: str, when: str) -> None:
    from PySide6.QtCore import QSettings

    from tagtool.gui.app import application
    from tagtool.gui.main_window import MainWindow
    from tagtool.services.warmup import start_filling_cache

    tmp = Path(tempfile.mkdtemp())
    app = application()
    child = start_filling_cache() if when != "none" else None
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
        if child is not None:
            child.wait()  # the cache filled, for the later start
        return
    _suggest(app, window, tmp, when, child)


def _suggest(app, window, tmp: Path, when: str, child) -> None:
    from PySide6.QtCore import QTimer

    from tagtool.core import Corpus
    from tagtool.paths import SAMPLE_CORPUS, resource
    from tagtool.store.formats import read_corpus
    from tagtool.store.project import Project

    gold = read_corpus(resource(SAMPLE_CORPUS))
    path = tmp / "fresh.tagproj"
    Project.create(path, Corpus.from_sentences([s.unlabeled() for s in gold], labels=gold.labels), name="fresh").close()
    window.open_project(path)
    window.model_loop.cv_folds = 0
    window.show()
    shown = time.perf_counter()
    # The GUI thread's longest wait between two turns of a 10 ms timer before the edit.
    last = [time.perf_counter()]
    gaps = []

    def tick():
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer(interval=10)
    timer.timeout.connect(tick)
    timer.start()
    if when != "none":
        window.warm_kernels(child)
    if when == "done":
        while window.kernel_warmup.seconds is None:
            app.processEvents()
            time.sleep(0.002)
    elif when != "none":
        while time.perf_counter() - shown < float(when):
            app.processEvents()
            time.sleep(0.002)
    timer.stop()
    app.processEvents()
    warm_seconds = window.kernel_warmup.seconds
    arrived = []
    window.model_loop.modelChanged.connect(lambda *_: arrived.append(time.perf_counter()))
    session = window.session
    session.go_to(session.sentence_ids[0])
    labels = next(iter(gold)).annotations
    started = time.perf_counter()
    session.edit({i: frozenset(a) for i, a in enumerate(labels)}, "label the first sentence")
    while not arrived:
        app.processEvents()
        time.sleep(0.005)
    warm = float("nan") if warm_seconds is None else warm_seconds
    print(f"suggest {arrived[0] - started:.3f} {warm:.3f} {max(gaps, default=0.0):.3f}", flush=True)
    window.close()


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    _window(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "done")

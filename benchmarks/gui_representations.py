"""Does the window stall while word representations are learned, stored and loaded?

A project of the whole CoNLL-2002 Spanish training file (8,323 sentences,
264,715 tokens: over the 200,000 tokens from which the app switches the
representations on by itself), 20 of them labeled, is opened in the main
window with the app's defaults.  A 5 ms ``QTimer`` heartbeat on the GUI
thread records the gaps between its ticks; a stall is the longest gap minus
the interval (target < 50 ms), from the moment the project is
open in the window.  Phases, each measured alone:

1. **open and learn**: from opening the project until the representations
   are stored and the cold retrain they trigger has finished (learning in
   the worker, the npz INSERT on the GUI thread, the retrain with the
   ``dist`` features);
2. **reopen**: opening the project again until the stored representations
   are loaded (read in the GUI thread, decoded in the worker) and the
   retrain they trigger has finished;
3. **cancel**: relearning is started (mode on after off) and cancelled
   after 2 s.

Each phase lists its longest gaps with what the controller reported around
them, so a stall can be traced.  The file's ~30 MB of text is real, so the
numbers include SQLite and FastText at that size.

``QT_QPA_PLATFORM=offscreen python benchmarks/gui_representations.py``;
results go to ``benchmarks/results/gui_representations.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _heartbeat import HEARTBEAT_MS, Heartbeat
from _results import machine_lines, write_keeping_analysis
from _stall_sampler import StackSampler, explain_gaps
from gui_responsiveness import wait

from tagtool.core import Corpus
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "conll2002-es" / "esp.train"
OUT = ROOT / "benchmarks" / "results" / "gui_representations.md"
LABELED = 20


class Timeline:
    """Heartbeat gaps with the time they ended, and the controller's events, on one clock."""

    def __init__(self):
        self.beat = Heartbeat()
        self.events: list[tuple[float, str]] = []
        self.started = 0.0

    def start(self):
        self.started = time.perf_counter()
        self.events = []
        self.ends: list[float] = []
        self.beat.timer.timeout.connect(self._stamp)
        self.beat.start()

    def _stamp(self):
        self.ends.append(time.perf_counter() - self.started)

    def note(self, what: str):
        self.events.append((time.perf_counter() - self.started, what))

    def stop(self) -> dict:
        self.beat.stop()
        self.ends.append(time.perf_counter() - self.started)
        self.beat.timer.timeout.disconnect(self._stamp)
        gaps = self.beat.gaps
        worst = sorted(range(len(gaps)), key=gaps.__getitem__, reverse=True)[:3]
        ends = [self.ends[min(i, len(self.ends) - 1)] for i in worst]  # when each of those gaps ended
        ready = next((when for when, what in self.events if what == "representations ready"), None)
        before = [g for g, end in zip(gaps, self.ends) if ready is not None and end <= ready]
        return {
            "until_ready_ms": (max(before) - HEARTBEAT_MS) if before else None,
            "seconds": time.perf_counter() - self.started,
            "ticks": len(gaps),
            "median_gap_ms": statistics.median(gaps),
            "max_stall_ms": max(gaps) - HEARTBEAT_MS,
            "worst": [(gaps[i] - HEARTBEAT_MS, end, self._near(end)) for i, end in zip(worst, ends)],
        }

    def _near(self, t: float) -> str:
        before = [what for when, what in self.events if when <= t + 0.005]
        return before[-1] if before else "(opening)"


def make_project(folder: Path) -> Path:
    gold = read_corpus(SOURCE)
    sentences = [s if i < LABELED else s.unlabeled() for i, s in enumerate(gold.sentences)]
    path = folder / "es-train.tagproj"
    Project.create(path, Corpus.from_sentences(sentences, labels=gold.labels), name="CoNLL-2002 es").close()
    return path


def watch(window: MainWindow, timeline: Timeline) -> dict:
    """Connect the controller's and the model loop's signals to the timeline; returns the flags it sets."""
    flags = {"ready": 0, "finished": 0}
    reps, loop = window.model_loop.representations, window.model_loop

    def ready():
        flags["ready"] += 1
        timeline.note("representations ready")

    def finished(result):
        flags["finished"] += 1
        timeline.note(f"training finished ({result.metrics.get('train_seconds', 0):.1f} s)")

    reps.ready.connect(ready)
    reps.changed.connect(lambda: timeline.note("controller: " + reps.status_text()[:60]))
    loop.finished.connect(finished)
    return flags


def open_window(path: Path, folder: Path, timeline: Timeline) -> tuple[MainWindow, dict]:
    timeline.note("open project")
    window = MainWindow(QSettings(str(folder / "gui.ini"), QSettings.IniFormat))
    window.open_project(path)
    flags = watch(window, timeline)
    window.show()
    return window, flags


def explained(timeline: Timeline, sampler) -> list[str]:
    """The stalls over 50 ms and where they were (``--sample-stacks``, :mod:`_stall_sampler`)."""
    if sampler is None:
        return []
    sampler.stop()
    t0 = timeline.started
    gaps = [
        (t0 + end - gap / 1000, t0 + end)
        for gap, end in zip(timeline.beat.gaps, timeline.ends)
        if gap - HEARTBEAT_MS > 50
    ]
    return explain_gaps(gaps, [(t0 + when, what) for when, what in timeline.events], t0, sampler)


def phase_open(app, path: Path, folder: Path, limit: float, sample: bool = False) -> dict:
    """Open the project, wait until its representations are ready (learned, or loaded when stored) and the
    retrain they trigger has ended; the first open learns them, a reopen loads them."""
    timeline = Timeline()
    opened = time.perf_counter()
    window, flags = open_window(path, folder, timeline)
    opened = time.perf_counter() - opened
    sampler = StackSampler() if sample else None
    timeline.start()
    if sampler is not None:
        sampler.start()
    ready = wait(app, lambda: flags["ready"] >= 1, limit)
    trained = wait(app, lambda: flags["finished"] >= 1, limit) if ready else False
    result = timeline.stop()
    result["explained"] = explained(timeline, sampler)
    result.update(
        learned=ready, trained=trained, status=window.model_loop.representations.status_text(), open_seconds=opened
    )
    window.model_loop.cancel()
    window.close()
    wait(app, lambda: False, 1.0)
    return result


def phase_cancel(app, path: Path, folder: Path) -> dict:
    window, _ = open_window(path, folder, Timeline())
    reps = window.model_loop.representations
    wait(app, lambda: reps.current is not None, 120)
    window.model_loop.cancel()
    wait(app, lambda: False, 1.0)
    timeline = Timeline()
    timeline.start()
    reps.current = None  # as if the text had changed: learn again
    reps.set_mode("on")
    timeline.note("learning started")
    wait(app, lambda: False, 2.0)
    started = time.perf_counter()
    reps.cancel()
    timeline.note("cancel pressed")
    stopped = wait(app, lambda: not reps.runner.busy, 30)
    cancel_seconds = time.perf_counter() - started
    wait(app, lambda: False, 1.0)
    result = timeline.stop()
    result.update(learned=stopped, trained=None, status=reps.status_text(), cancel_seconds=cancel_seconds)
    window.close()
    return result


def table(rows: list[tuple[str, dict]]) -> list[str]:
    lines = [
        "| phase | done | measured over | median gap | longest stall until the representations were ready | "
        "**longest stall** | the three longest (ms, at s, last event before) | target |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in rows:
        worst = "; ".join(f"{ms:.0f} @ {t:.1f} s ({what})" for ms, t, what in r["worst"])
        done = "yes" if r["learned"] and r["trained"] is not False else "no"
        ready = f"{r['until_ready_ms']:.0f} ms" if r.get("until_ready_ms") is not None else "–"
        lines.append(
            f"| {name} | {done} | {r['seconds']:.1f} s | {r['median_gap_ms']:.1f} ms | {ready} | "
            f"**{r['max_stall_ms']:.0f} ms** | {worst} | < 50 ms |"
        )
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=600.0, help="seconds to wait for each step")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument(
        "--sample-stacks",
        action="store_true",
        help="say where each stall over 50 ms was (a stack sampler; it costs the window some turns)",
    )
    args = parser.parse_args(argv)
    if not SOURCE.exists():
        print(f"{SOURCE} is missing (../shared/data)", file=sys.stderr)
        return 2
    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = make_project(folder)
        first = phase_open(app, path, folder, args.limit, args.sample_stacks)  # learns them
        print("open and learn", first, flush=True)
        again = phase_open(app, path, folder, args.limit, args.sample_stacks)  # loads the stored ones
        print("reopen", again, flush=True)
        cancel = phase_cancel(app, path, folder)
        print("cancel", cancel, flush=True)
        size = Project.open(path, readonly=True)
        record = size.stored.representations_record()
        size.close()
    lines = [
        "# GUI responsiveness with word representations",
        "",
        "`QT_QPA_PLATFORM=offscreen python benchmarks/gui_representations.py`",
        "",
        *machine_lines(", shared with other jobs: gaps are pessimistic"),
        "",
        f"Project: CoNLL-2002 Spanish esp.train, {LABELED} sentences labeled, the rest unlabeled; the app's "
        "defaults (learner, representations auto). Heartbeat every "
        f"{HEARTBEAT_MS} ms on the GUI thread; stall = longest gap − {HEARTBEAT_MS} ms. Stored representations: "
        f"{record}.",
        "",
        *table(
            [
                ("open, learn, store, retrain", first),
                ("reopen: load stored, retrain", again),
                ("relearn, cancel after 2 s", cancel),
            ]
        ),
        "",
        "Measured from the moment `MainWindow.open_project` returned (the window opens with the project: "
        f"{first['open_seconds']:.2f} s the first time, {again['open_seconds']:.2f} s with a stored model and "
        "representations; opening is a blocking step before the window is in use, as in "
        "`big_project.md`).",
        "",
        f"Cancel: {cancel['cancel_seconds']:.2f} s from the click until the controller stopped waiting (the "
        "worker itself stops at the end of the running epoch; its result is dropped).",
        "",
    ]
    if args.sample_stacks:
        lines += [
            "Stalls over 50 ms and where they were (stack sampler, `--sample-stacks`):",
            "",
            *[f"{name}: {line[2:]}" for name, r in (("open", first), ("reopen", again)) for line in r["explained"]],
            "",
        ]
    write_keeping_analysis(args.out, lines)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

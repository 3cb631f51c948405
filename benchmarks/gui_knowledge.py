"""Does the window stay responsive while File › Add word vectors… reads a 1–2 GB file, and does Cancel stop it?

A project of the whole CoNLL-2000 training file (8,936 sentences, 20 of
them labeled) is opened in the main window.  A synthetic word2vec text file
of ``--rows`` rows of ``--dim`` numbers (1.5 M × 100 by default, about
1.3 GB: the size of common pretrained files) is written to a temporary
folder, the project's words spread through it, the other rows made-up
words; its gzip-compressed copy too.  Each is added through the app's
controller (what the menu item calls), with a 5 ms ``QTimer`` heartbeat on
the GUI thread (a stall: the longest gap minus the interval; target < 50 ms
for the editor, < 200 ms for a background job), until the vectors are
stored and the retrain they trigger (``mv-perceptron``, 3 passes, no
cross-validation) has finished.  Then the plain file is
added again and cancelled once its progress passes 30 %: the time until the
worker has stopped, and that nothing was stored.

The peak resident memory is the process's (``ru_maxrss``): its growth
until the vectors are stored bounds what reading the file took (the
retrain's, after, is counted apart).  The machine's load average is in the
header: stalls grow with other processes on the cores.

``QT_QPA_PLATFORM=offscreen nice python benchmarks/gui_knowledge.py``;
results go to ``benchmarks/results/gui_knowledge.md``.
"""

from __future__ import annotations

import argparse
import gzip
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
from PySide6.QtCore import QSettings

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _heartbeat import HEARTBEAT_MS, Heartbeat
from _results import load_average, machine_lines, write_keeping_analysis
from gui_responsiveness import wait

from tagtool.core import Corpus
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "data" / "conll2000" / "train.txt"
OUT = ROOT / "benchmarks" / "results" / "gui_knowledge.md"
LABELED = 20
#: Passes of the retrain the vectors start: this measures reading them, not the learner.
RETRAIN_PASSES = 3


def make_project(folder: Path) -> tuple[Path, list[str]]:
    gold = read_corpus(SOURCE)
    sentences = [s if i < LABELED else s.unlabeled() for i, s in enumerate(gold.sentences)]
    path = folder / "conll2000-train.tagproj"
    Project.create(path, Corpus.from_sentences(sentences, labels=gold.labels), name="CoNLL-2000").close()
    return path, sorted({t for s in sentences for t in s.tokens if " " not in t})


def write_vectors(path: Path, words: list[str], rows: int, dim: int) -> None:
    """A word2vec text file of ``rows`` rows: ``words`` spread evenly among made-up ones."""
    rng = np.random.default_rng(0)
    block = [" ".join(f"{x:.5f}" for x in rng.normal(size=dim)) for _ in range(4096)]
    step = max(rows // max(len(words), 1), 1)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"{rows} {dim}\n")
        for i in range(rows):
            k, r = divmod(i, step)
            word = words[k] if r == 0 and k < len(words) else f"filler{i}"
            out.write(f"{word} {block[i % len(block)]}\n")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def add(app, window, path: Path, cancel_at: float | None, limit: float) -> dict:
    """Add the vectors file at ``path`` through the window's controller; the phase's measures."""
    knowledge, loop = window.model_loop.knowledge, window.model_loop
    finished = []
    loop.finished.connect(finished.append)
    beat = Heartbeat()
    peak_before = peak_mb()
    started = time.perf_counter()
    beat.start()
    knowledge.add_vectors(path)
    row = {"file": path.name, "MB": path.stat().st_size / 1e6}
    if cancel_at is None:
        wait(app, lambda: not knowledge.reading and not knowledge.vector_runner.busy, limit)
        row["read_s"] = time.perf_counter() - started
        row["read_peak_growth_mb"] = peak_mb() - peak_before  # the retrain starts now
        wait(app, lambda: bool(finished) and not loop.busy, limit)
        row["retrained_s"] = time.perf_counter() - started
        row["stored"] = bool(window.session.project.stored.resources("vectors"))
        row["words"] = (knowledge.vectors.info.get("words") if knowledge.vectors is not None else 0) or 0
    else:
        wait(app, lambda: window.model_panel.knowledge.bar.value() >= 1000 * cancel_at, limit)
        pressed = time.perf_counter()
        knowledge.cancel()
        wait(app, lambda: not knowledge.vector_runner.pool.activeThreadCount(), limit)
        row["cancel_s"] = time.perf_counter() - pressed
        row["stored"] = bool(window.session.project.stored.resources("vectors"))
    stall = beat.stop()
    ends = np.cumsum(beat.gaps) / 1000  # seconds since the start at the end of each gap
    reading = [g for g, end in zip(beat.gaps, ends) if end <= row.get("read_s", np.inf)]
    row.update(
        read_stall_ms=max(reading) - HEARTBEAT_MS,
        max_stall_ms=stall,
        median_gap_ms=statistics.median(beat.gaps),
        peak_growth_mb=peak_mb() - peak_before,
    )
    loop.finished.disconnect(finished.append)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    app = application()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        project, words = make_project(folder)
        plain = folder / "vectors.txt"
        write_vectors(plain, words, args.rows, args.dim)
        packed = folder / "vectors.txt.gz"
        with open(plain, "rb") as src, gzip.open(packed, "wb", compresslevel=1) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        window = MainWindow(QSettings(str(folder / "gui.ini"), QSettings.IniFormat))
        window.open_project(project)
        window.show()
        window.model_panel.folds.setValue(0)
        window.model_panel.select_learner("mv-perceptron", {"max_iter": RETRAIN_PASSES})
        wait(app, lambda: not window.model_loop.busy, 300)
        wait(app, lambda: False, 10.0)  # the opening's background work (kernels, counts, costs) ends first
        rows = [
            {"phase": "read", **add(app, window, plain, None, 1800)},
            {"phase": "read gzip", **add(app, window, packed, None, 1800)},
        ]
        window.model_loop.auto = False
        window.model_loop.knowledge.remove("vectors", "vectors")  # so that "stored" says what the cancel left
        rows.append({"phase": "cancel at 30 %", **add(app, window, plain, 0.3, 1800)})
        window.close()
    lines = report(rows, args, len(words))
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0


def report(rows: list[dict], args, n_words: int) -> list[str]:
    lines = [
        "# File › Add word vectors… in the window: time, stalls, memory, Cancel",
        "",
        f"`benchmarks/gui_knowledge.py --rows {args.rows} --dim {args.dim}`: a synthetic word2vec text file, "
        f"{n_words:,} distinct words of the CoNLL-2000 training file ({LABELED} sentences labeled) among made-up "
        f"ones; heartbeat {HEARTBEAT_MS} ms on the GUI thread; the retrain: mv-perceptron, {RETRAIN_PASSES} passes.",
        "",
        *machine_lines(),
        f"- load average at the end (1, 5, 15 min): {load_average()}",
        "",
        "| phase | file | MB | read s | read + retrain s | cancel s | words kept | stored | max stall reading ms "
        "| max stall ms | median gap ms | peak RSS growth reading MB | peak RSS growth MB |",
        "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['phase']} | {r['file']} | {r['MB']:,.0f} | {_n(r.get('read_s'))} | {_n(r.get('retrained_s'))} "
            f"| {_n(r.get('cancel_s'), 2)} | {r.get('words', '') or ''} | {'yes' if r['stored'] else 'no'} "
            f"| {r['read_stall_ms']:.0f} | {r['max_stall_ms']:.0f} | {r['median_gap_ms']:.1f} "
            f"| {_n(r.get('read_peak_growth_mb'), 0)} | {r['peak_growth_mb']:.0f} |"
        )
    return lines


def _n(value, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


if __name__ == "__main__":
    sys.exit(main())

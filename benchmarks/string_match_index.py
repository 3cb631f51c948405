"""The app's string-match suggestions on a 10,000-sentence project: index, per-edit update, Label all.

Part 1 (no window): the first 10,000 sentences of conll2002-es (train, then
testa) with a share of them labeled (gold); :class:`tagtool.services.match_index.MatchIndex`
built once, then random edits (a sentence given its gold labels, or cleared),
each followed by the suggestions of the next sentence (what the editor asks
after an edit); against one pass of
:func:`tagtool.services.string_matches.string_matches` over the project (what
recomputing after each edit would cost).

Part 2 (the app, offscreen): the same project opened in the main window with
10 % labeled and automatic retraining off.  A 5 ms heartbeat timer on the GUI
thread measures its longest stall while the index is built in a worker;
then the time of one edit (``Session.edit``, every slot included) and of
Label all occurrences on the most often labeled string and its undo (both
run in a worker: their time until the window shows all of it, and the
heartbeat's longest stall meanwhile).

Writes ``benchmarks/results/string_match_index.md``.  Run:
``nice -n 10 python benchmarks/string_match_index.py``.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._results import load_average, machine_lines, write_keeping_analysis
from tagtool.core import Corpus
from tagtool.services.match_index import MatchIndex
from tagtool.services.string_matches import string_matches
from tagtool.store.formats import read_corpus

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "conll2002-es"
if not SHARED.exists():
    SHARED = Path("/work/shared/data/conll2002-es")
OUT = Path(__file__).resolve().parent / "results" / "string_match_index.md"
N_SENTENCES = 10_000
SHARES = (0.01, 0.1, 0.5)
EDITS = 300


def project_sentences():
    gold = [*read_corpus(SHARED / "esp.train").sentences, *read_corpus(SHARED / "esp.testa").sentences]
    names = list(read_corpus(SHARED / "esp.train").labels.names)
    return gold[:N_SENTENCES], names


def labeled(gold, share: float, seed: int = 0):
    rng = random.Random(seed)
    return [s if rng.random() < share else s.unlabeled() for s in gold]


def ms(values) -> str:
    values = sorted(values)
    p95 = values[int(0.95 * (len(values) - 1))]
    return f"{1000 * statistics.mean(values):.1f} / {1000 * p95:.1f} / {1000 * values[-1]:.1f}"


def service_row(gold, names, share: float) -> list[str]:
    sentences = labeled(gold, share)
    start = time.perf_counter()
    index = MatchIndex(sentences, names)
    build = time.perf_counter() - start
    start = time.perf_counter()
    string_matches(sentences, names)
    one_pass = time.perf_counter() - start
    rng, times = random.Random(1), []
    for _ in range(EDITS):
        i = rng.randrange(len(gold))
        changes = dict(enumerate(gold[i].annotations if rng.random() < 0.7 else (frozenset(),) * len(gold[i])))
        start = time.perf_counter()
        index.set_annotations(i, changes)
        index.matches((i + 1) % len(gold))
        times.append(time.perf_counter() - start)
    key = max(index.evidence, key=lambda k: sum(len(v) for v in index.evidence[k].values()))
    start = time.perf_counter()
    found = index.occurrences([key])
    lookup = time.perf_counter() - start
    n_found = sum(len(v) for v in found.values())
    return [
        f"| {share:.0%} | {index.keys()} | {build:.2f} | {one_pass:.2f} | {ms(times)} | "
        f"“{' '.join(key)}”: {n_found} in {1000 * lookup:.1f} ms |"
    ]


def app_lines(gold, names) -> list[str]:
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer

    from tagtool.gui.app import application
    from tagtool.gui.label_all import label_all
    from tagtool.gui.main_window import MainWindow
    from tagtool.store.project import Project

    app = application()
    folder = Path(tempfile.mkdtemp())
    path = folder / "big.tagproj"
    sentences = labeled(gold, 0.1)
    Project.create(path, Corpus.from_sentences(sentences, labels=read_corpus(SHARED / "esp.train").labels)).close()
    window = MainWindow(QSettings(str(folder / "gui.ini"), QSettings.IniFormat))
    gaps, clock = [], QElapsedTimer()
    beat = QTimer(interval=5)
    beat.timeout.connect(lambda: gaps.append(clock.restart()) if clock.isValid() else clock.start())
    beat.start()
    opened = time.perf_counter()
    window.open_project(path)
    window.model_loop.auto = False
    window.show()
    suggestions = window.model_loop.string_suggestions
    while suggestions.index is None:
        app.processEvents()
    ready = time.perf_counter() - opened
    beat.stop()
    stall = max(gaps) if gaps else 0
    session, times = window.session, []
    for sid in session.sentence_ids[1:40:2]:
        session.go_to(sid)
        i = session.index_of(sid)
        start = time.perf_counter()
        session.edit(dict(enumerate(gold[i].annotations)), "bench")
        times.append(time.perf_counter() - start)
    index = suggestions.index
    key = max(index.evidence, key=lambda k: sum(len(v) for v in index.evidence[k].values()))
    sid = session.sentence_ids[next(iter(index.evidence[key][next(iter(index.evidence[key]))]))]
    session.go_to(sid)
    window.editor.set_focus(next(s for s in range(len(session.sentence)) if session.sentence.tokens[s] == key[0]))
    label_all_line = bulk_lines(app, window, lambda: label_all(window.editor, index))  # without its question
    undo_line = bulk_lines(app, window, session.undo_stack.undo)
    window.close_project()
    return [
        f"- opening to index ready (read and built in workers): {ready:.2f} s; longest GUI-thread stall "
        f"meanwhile (5 ms heartbeat): {stall} ms",
        f"- one edit in the window (`Session.edit`, every slot; mean / p95 / max ms): {ms(times)}",
        f"- Label all occurrences of the most often labeled string (in a worker; until the window shows all of "
        f"it): {label_all_line}",
        f"- its undo: {undo_line}",
    ]


def bulk_lines(app, window, start) -> str:
    """Run ``start()`` (Label all or an undo) until its bulk write is done: its time, the GUI thread's longest
    stall meanwhile (5 ms heartbeat), and the status bar's last message."""
    from PySide6.QtCore import QElapsedTimer, QTimer

    session, messages, gaps, clock = window.session, [], [], QElapsedTimer()
    session.bulk.message.connect(messages.append)
    beat = QTimer(interval=5)
    beat.timeout.connect(lambda: gaps.append(clock.restart()) if clock.isValid() else clock.start())
    beat.start()
    began = time.perf_counter()
    start()
    while session.held is not None:
        app.processEvents()
    seconds = time.perf_counter() - began
    beat.stop()
    session.bulk.message.disconnect(messages.append)
    stall = max(gaps) if gaps else 0
    return f"{seconds:.2f} s, longest GUI-thread stall {stall} ms over {len(gaps)} heartbeats — “{messages[-1]}”"


def main() -> int:
    gold, names = project_sentences()
    lines = [
        "| labeled | strings | build s | one pass of string_matches s | edit + next sentence's matches ms "
        "(mean / p95 / max) | occurrences of the most labeled string |",
        "|---:|---:|---:|---:|---|---|",
    ]
    for share in SHARES:
        lines += service_row(gold, names, share)
        print(lines[-1], file=sys.stderr)
    lines += ["", "The app (10 % labeled, offscreen):", "", *app_lines(gold, names)]
    print("\n".join(lines))
    intro = [
        "# String-match suggestions in the app: a 10,000-sentence project",
        "",
        f"`nice -n 10 python benchmarks/string_match_index.py`: the first {N_SENTENCES:,} sentences of "
        "conll2002-es (train, then testa), a share labeled with their gold labels. "
        f"{EDITS} random edits (gold labels or a clear) each followed by the next sentence's matches.",
        "",
        *machine_lines(),
        f"- load average at the end (1, 5, 15 min): {load_average()}",
        "",
    ]
    write_keeping_analysis(OUT, intro + lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Big projects: create, open, filter and scroll a 100,000-sentence project.

Usage::

    QT_QPA_PLATFORM=offscreen python benchmarks/big_project.py [--sentences N] [--repeat R]

The project: the CoNLL-2000 training set (``../shared/data``; the 100-sentence
slice in tests/data when that folder is absent) repeated until it holds
``--sentences`` sentences (default 100,000), one document per repetition;
every 10th sentence keeps its gold chunks (fully labeled), every 10th + 1
keeps every other token's (partially labeled), the rest are unlabeled.

Measured:

1. **Core** (no Qt): reading the corpus file and creating the project
   (import); ``Project.open`` plus what the window reads first (all ids in
   document order and the first page of the list); an open that rebuilds
   the search index; the list's queries for each status filter and each
   search; the next unfinished sentence from the
   end; the whole training snapshot (what the worker thread reads).
2. **Window ready**: from ``MainWindow()`` to the end of the first paint of
   both the sentence list (all N rows, first page shown) and the editor
   (first sentence), offscreen; with the file in the OS cache, evicted
   from it first (``posix_fadvise(DONTNEED)``, Linux), and with a stored
   model (whose guidance is then recomputed in the worker).
3. **List actions** in the open window, each started from the event loop
   while a 5 ms ``QTimer`` heartbeat runs: its time (the action and a
   synchronous repaint of the list) and the event-loop stall (longest
   heartbeat gap − 5 ms), median of ``--repeat`` runs: every status
   filter, five searches, sorting (an action whose ids are read in a
   worker thread lasts until its rows are shown), jumping to the end, paging through
   (PageDown), selecting a sentence far down, J, an edit far down.  Once
   with the background read of the training sentences finished ("idle"),
   once right after opening while that read runs.

Results: ``benchmarks/results/big_project.md``.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import PySide6
from PySide6.QtCore import QEventLoop, QObject, QSettings, Qt, QTimer
from PySide6.QtTest import QTest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _model_arrival
from _heartbeat import HEARTBEAT_MS, Heartbeat
from _results import load_average, machine_lines, write_keeping_analysis

from tagtool.core import Corpus, Document
from tagtool.gui.app import application
from tagtool.gui.main_window import MainWindow
from tagtool.gui.sentence_list import STATUS_FILTERS
from tagtool.store import search_index
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project

#: The corpora of ../shared/data, beside the repository (not part of it).
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ROOT = Path(__file__).resolve().parents[1]
TRAIN = SHARED_DATA / "conll2000" / "train.txt"
FALLBACK = ROOT / "tests" / "data" / "conll2000_train_head.txt"
RESULT = ROOT / "benchmarks" / "results" / "big_project.md"
OPEN_TARGET = 3.0
#: Seconds from a model's arrival until the queue's first page is in use.
FIRST_PAGE_TARGET = 2.0
STALL_TARGET_MS = 50.0
#: Rare, common, absent, two characters (no trigram), frequent (13 % of the sentences).
SEARCHES = ("pound", "the", "zzzz", "of", "said")


# ----------------------------------------------------------------------
# the project


@dataclass(frozen=True)
class CorpusFacts:
    """What the report says of the corpus (the corpus itself is let go of before anything is measured)."""

    n_sentences: int
    n_tokens: int
    n_documents: int

    def __len__(self) -> int:
        return self.n_sentences


def build_corpus(n: int) -> tuple[Corpus, Path]:
    """The training set repeated to ``n`` sentences: 10% full, 10% partial, 80% none."""
    source = TRAIN if TRAIN.exists() else FALLBACK
    gold = read_corpus(source, column_names=["token", "pos", "chunk"])
    documents, k = [], 0
    while k < n:
        sentences = []
        for s in gold.sentences[: n - k]:
            if k % 10 == 1:
                s = s.with_annotations([a if t % 2 == 0 else () for t, a in enumerate(s.annotations)])
            elif k % 10:
                s = s.unlabeled()
            sentences.append(s)
            k += 1
        documents.append(Document(f"{source.name} #{len(documents) + 1}", sentences))
    return Corpus(gold.labels, documents), source


def add_model(path: Path, corpus: Corpus) -> None:
    """Store a small mv-perceptron model, as a project that was trained in the app has.

    Its metrics hold a 3-fold cross-validation of its training sentences, as
    the app's training stores with cross-validation on: the Statistics
    dock's learning curve then has a point, and draws its plots.
    """
    from tagtool.learn import make_learner
    from tagtool.services.crossval import cross_validate, fold_trainer
    from tagtool.services.pipeline import train_tagger

    labeled = [s for s in corpus.documents[0].sentences[:3000] if s.status == "full"]
    learner = make_learner("mv-perceptron", max_iter=3)
    tagger = train_tagger(Corpus.from_sentences(labeled, labels=corpus.labels), learner)
    params = tagger.model.params
    metrics = {
        "labeled_tokens": sum(len(s) for s in labeled),
        **cross_validate(labeled, corpus.labels, fold_trainer("mv-perceptron", params, tagger), 3),
    }
    with Project.open(path) as project:
        project.stored.add_model("mv-perceptron", params, metrics, tagger.to_bytes(), note="benchmark")


def evict(path: Path) -> bool:
    """Drop the file's pages from the OS cache (Linux); False where that is not possible."""
    if not hasattr(os, "posix_fadvise"):
        return False
    with open(path, "rb") as f:
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return True


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def best(fn, repeat: int) -> float:
    return min(timed(fn)[0] for _ in range(repeat))


def open_rebuilding_index(path: Path) -> float:
    """Seconds to open a copy of the project whose search index has lost its triggers
    (as an SQLite without FTS5 leaves it): the open rebuilds the index from the text."""
    stale = path.with_name("stale-index.tagproj")
    shutil.copyfile(path, stale)
    conn = sqlite3.connect(stale)
    for name in search_index.TRIGGERS:
        conn.execute(f"DROP TRIGGER {name}")
    conn.commit()
    conn.close()
    seconds, project = timed(lambda: Project.open(stale))
    assert project.listing.search_index
    project.close()
    stale.unlink()
    return seconds


def core_rows(path: Path, repeat: int) -> list[tuple[str, float]]:
    rows = []

    def open_and_first_page():
        with Project.open(path) as project:
            ids = project.sentence_ids()
            return project.listing.sentence_summaries_by_id(ids[:200])

    rows.append(("`Project.open` + all ids + first page (200 rows)", best(open_and_first_page, repeat)))
    rows.append(
        (
            "`Project.open` rebuilding the search index (once; what the migration to it does)",
            open_rebuilding_index(path),
        )
    )
    with Project.open(path, readonly=True) as project:
        for label, status in STATUS_FILTERS.items():
            if status is not None:
                rows.append((f"ids of filter “{label}”", best(lambda: project.sentence_ids(status=status), repeat)))
        for word in SEARCHES:
            rows.append((f"ids of search “{word}”", best(lambda: project.sentence_ids(search=word), repeat)))
        ids = project.sentence_ids()
        rows.append(
            (
                "page of 200 rows at the end (by id)",
                best(lambda: project.listing.sentence_summaries_by_id(ids[-200:]), repeat),
            )
        )
        rows.append(
            (
                "next unfinished sentence from the end (wraps)",
                best(lambda: project.listing.next_sentence(ids[-1], status="incomplete"), repeat),
            )
        )
        rows.append(
            (
                "status and token counts (SQL aggregates)",
                best(lambda: (project.listing.status_counts(), project.listing.annotation_counts()), repeat),
            )
        )
        rows.append(("whole training snapshot (the worker's read)", best(project.snapshot, 1)))
    return rows


# ----------------------------------------------------------------------
# the window


def spin(seconds: float) -> None:
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()


def wait(condition, seconds: float) -> bool:
    deadline = time.perf_counter() + seconds
    while not condition() and time.perf_counter() < deadline:
        spin(0.02)
    return bool(condition())


class Painted(QObject):
    """Which of some widgets have received a paint event."""

    def __init__(self, widgets):
        super().__init__()
        self.pending = set(widgets)
        for w in widgets:
            w.installEventFilter(self)

    def eventFilter(self, obj, event):
        if event.type() == event.Type.Paint:
            self.pending.discard(obj)
        return False


def open_window(app, path: Path, folder: Path) -> tuple[MainWindow, float]:
    """A shown window on ``path`` and the seconds until the list and the editor have painted."""
    start = time.perf_counter()
    window = MainWindow(QSettings(str(folder / "gui.ini"), QSettings.IniFormat))
    assert window.open_project(path)
    window.show()
    painted = Painted([window.list_panel.table.viewport(), window.editor])
    while painted.pending:
        app.processEvents(QEventLoop.AllEvents, 20)
    seconds = time.perf_counter() - start
    session = window.session
    assert window.list_panel.model.rowCount() == session.n_sentences
    assert window.editor.tokens and session.current_id == session.sentence_ids[0]
    return window, seconds


def watched(action, settle: float = 0.05, until=None) -> tuple[float, float]:
    """Run ``action`` from the event loop with the heartbeat: (seconds it took, stall in ms).

    The heartbeat runs ``settle`` seconds, and then until ``until()`` is true (if given; 60 s at most).
    """
    beat, took = Heartbeat(), []

    def run():
        start = time.perf_counter()
        action()
        took.append(time.perf_counter() - start)

    spin(0.03)  # the heartbeat measures this action, not what came before
    beat.start()
    QTimer.singleShot(0, run)
    spin(settle)
    wait(lambda: bool(took) and (until is None or until()), 60)
    return took[0], beat.stop()


def until_read(model) -> None:
    """Run the event loop until the list's ids read in the background are shown (on a big
    project a search, filter or sort reads them in a worker thread: the action lasts until then)."""
    if not model.reading:
        return
    loop = QEventLoop()
    model.rowsReplaced.connect(loop.quit)
    QTimer.singleShot(30_000, loop.quit)
    loop.exec()
    model.rowsReplaced.disconnect(loop.quit)


def list_actions(window: MainWindow) -> list[tuple[str, object]]:
    """``(name, action)`` pairs; each action ends with a synchronous repaint of the list."""
    panel, session = window.list_panel, window.session
    table = panel.table
    ids = session.sentence_ids

    def painted(fn):
        def action():
            fn()
            until_read(panel.model)
            table.viewport().repaint()

        return action

    def search(word):
        panel.search.setText(word)
        panel.apply_filter()

    def edit_far():
        target = ids[int(len(ids) * 0.95) + 3]
        session.go_to(target)
        label = session.style.names[0]
        anns = session.annotations[0]
        session.edit({0: frozenset() if anns == {label} else frozenset({label})}, "benchmark edit")

    actions = [
        (f"filter “{label}”", painted(lambda label=label: panel.set_status_filter(label)))
        for label in list(STATUS_FILTERS)[1:]
    ]
    actions.append(("filter back to “All sentences”", painted(lambda: panel.set_status_filter("All sentences"))))
    actions += [(f"search “{w}”", painted(lambda w=w: search(w))) for w in SEARCHES]
    actions.append(("clear the search", painted(lambda: search(""))))
    header = table.horizontalHeader()
    actions += [
        ("sort by status", painted(lambda: header.setSortIndicator(1, Qt.DescendingOrder))),
        ("sort by length", painted(lambda: header.setSortIndicator(2, Qt.AscendingOrder))),
        ("back to document order", painted(lambda: header.setSortIndicator(0, Qt.AscendingOrder))),
        ("jump to the end (Ctrl+End)", painted(lambda: QTest.keyClick(table, Qt.Key_End, Qt.ControlModifier))),
        ("back to the top (Ctrl+Home)", painted(lambda: QTest.keyClick(table, Qt.Key_Home, Qt.ControlModifier))),
        ("page down (PageDown ×1, 100 times)", painted(lambda: QTest.keyClick(table, Qt.Key_PageDown))),
        ("select a sentence at 90% (list + editor)", painted(lambda: session.go_to(ids[int(len(ids) * 0.9)]))),
        ("J: next unfinished from there", painted(session.next_unfinished)),
        (
            "in “Unlabeled”: an edit at 95% (save, row, counts)",
            painted(lambda: (panel.set_status_filter("Unlabeled"), edit_far())),
        ),
        ("filter back to “All sentences” ", painted(lambda: panel.set_status_filter("All sentences"))),
    ]
    return actions


def measure_actions(window: MainWindow, repeat: int) -> dict[str, tuple[float, float, str]]:
    """Each list action: median time (s), stall (ms) and how that stall was summarised.

    The stall is the median over the rounds; for the action repeated 100 times a round, the
    longest of all its presses (and, in the note, the 95th percentile).
    """
    results: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeat):
        for name, action in list_actions(window):
            runs = 100 if "100 times" in name else 1
            for _ in range(runs):
                results.setdefault(name, []).append(watched(action))
    summary = {}
    for name, r in results.items():
        stalls = sorted(s for _, s in r)
        if len(r) < 100:
            summary[name] = (statistics.median(t for t, _ in r), statistics.median(stalls), "")
        else:
            p95 = stalls[int(0.95 * (len(stalls) - 1))]
            summary[name] = (
                statistics.median(t for t, _ in r),
                stalls[-1],
                f" (longest of {len(r)}; 95% ≤ {p95:.0f} ms)",
            )
    return summary


def measure_during(window: MainWindow) -> list[tuple[str, float, float]]:
    """The list actions once each, right after opening: (name, time, stall) of those that
    ended before the background read did."""
    session, done = window.session, []
    for name, action in list_actions(window):
        t, stall = watched(action)
        if session.cache.sentences_ready:
            break
        done.append((name.replace(", 100 times", "").strip(), t, stall))
    return done


def gui_rows(app, path: Path, model_path: Path, folder: Path, repeat: int) -> dict:
    out: dict = {}
    window, out["warm"] = open_window(app, path, folder)  # first open: Python modules load
    window.close()
    warm = []
    for _ in range(repeat):
        window, seconds = open_window(app, path, folder)
        warm.append(seconds)
        window.close()
    out["warm"] = statistics.median(warm)
    if evict(path):
        window, out["cold"] = open_window(app, path, folder)
        window.close()

    # While the training sentences are read in the background, right after opening.
    started = time.perf_counter()
    window, _ = open_window(app, path, folder)
    window.model_loop.auto = False
    session, ready = window.session, []
    session.sentencesReady.connect(lambda: ready.append(time.perf_counter()))
    out["during"] = measure_during(window)
    wait(lambda: bool(ready), 600)
    out["read_seconds"] = ready[0] - started
    out["idle"] = measure_actions(window, repeat)
    window.close()

    # With a stored model (§4 measures its guidance and what follows).
    window, out["model_open"] = open_window(app, model_path, folder)
    window.close()
    return out


# ----------------------------------------------------------------------
# report


def cpu_check() -> float:
    """Seconds for 10 million Python additions: how fast the (shared) machine runs right now."""
    start = time.perf_counter()
    total = 0
    for i in range(10_000_000):
        total += i
    return time.perf_counter() - start


def machine(checks: tuple[float, float]) -> list[str]:
    return machine_lines(
        f"; load average at the end {load_average()}",
        f", SQLite {sqlite3.sqlite_version}, PySide6 {PySide6.__version__}",
    ) + [
        f"- CPU check (10 million Python additions, shared machine): {checks[0]:.2f} s before the run, "
        f"{checks[1]:.2f} s after",
    ]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def check(value: float, target: float) -> str:
    return f"{'✓' if value < target else '✗'}"


def report(args, corpus, source, size_mb, create_rows, core, gui, checks, model=None) -> list[str]:
    n = len(corpus)
    lines = [
        "# Big projects: create, open, filter and scroll",
        "",
        f"Command: `{args.command}`",
        "",
        *machine(checks),
        "",
        f"Data: `{source}` repeated to {n} sentences ({corpus.n_tokens} tokens) in {corpus.n_documents} "
        f"documents; 10% fully labeled, 10% partially, 80% unlabeled; project file {size_mb:.1f} MB.",
        "",
        "## 1. Core (no GUI)",
        "",
        f"Best of {args.repeat} runs (the snapshot: one run).",
        "",
        "| step | time |",
        "| --- | --- |",
        *[f"| {name} | {ms(t)} |" for name, t in create_rows + core],
        "",
        "## 2. Window ready",
        "",
        "From `MainWindow()` to the end of the first paint of the sentence list (all rows, first page) "
        "and of the editor (first sentence), offscreen.",
        "",
        "| case | time | target |",
        "| --- | --- | --- |",
        f"| file in the OS cache (median of {args.repeat}) | **{ms(gui['warm'])}** | < {OPEN_TARGET:g} s "
        f"{check(gui['warm'], OPEN_TARGET)} |",
    ]
    if "cold" in gui:
        lines.append(
            f"| file evicted from the OS cache first | **{ms(gui['cold'])}** | < {OPEN_TARGET:g} s "
            f"{check(gui['cold'], OPEN_TARGET)} |"
        )
    lines += [
        f"| with a stored model | **{ms(gui['model_open'])}** | < {OPEN_TARGET:g} s "
        f"{check(gui['model_open'], OPEN_TARGET)} |",
        "",
        "Then, in the background (worker threads; the window is in use meanwhile):",
        "",
        f"- training sentences read (`session.cache.read_sentences`): in memory {ms(gui['read_seconds'])} after "
        "`MainWindow()` (while the list actions of §3b ran)",
        "- with the stored model: its guidance, see §4",
        "",
        "## 3. List actions",
        "",
        f"Each action is started from the event loop while a {HEARTBEAT_MS} ms heartbeat runs; time = the "
        "action and a synchronous repaint of the list; stall = longest heartbeat gap − "
        f"{HEARTBEAT_MS} ms.  Page down: median time and longest stall of all its presses.",
        "",
        f"### a) Once the training sentences are in memory (median of {args.repeat} rounds)",
        "",
        "| action | time | stall | target stall |",
        "| --- | --- | --- | --- |",
    ]
    for name, (t, stall, note) in gui["idle"].items():
        lines.append(
            f"| {name.strip()} | {ms(t)} | **{stall:.0f} ms** {check(stall, STALL_TARGET_MS)}{note} | "
            f"< {STALL_TARGET_MS:g} ms |"
        )
    lines += [
        "",
        "### b) Right after opening, while the worker thread reads the training sentences",
        "",
        "The same actions once each (PageDown once), from the first; those that ended before the read did.",
        "",
        "| action | time | stall |",
        "| --- | --- | --- |",
        *[f"| {name} | {ms(t)} | {stall:.0f} ms |" for name, t, stall in gui["during"]],
        "",
    ]
    if model is not None:
        lines += _model_arrival.report(model, n, STALL_TARGET_MS, FIRST_PAGE_TARGET)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=None, help="where to write the project (default: temporary)")
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument(
        "--model-rounds", type=int, default=None, help="rounds of §4, a model arriving (default: --repeat)"
    )
    parser.add_argument("--only-model", action="store_true", help="measure §4 only (no result file)")
    parser.add_argument(
        "--sample-stacks", action="store_true", help="§4 with a stack sampler: say where each stall over 50 ms was"
    )
    parser.add_argument(
        "--compare-retire",
        action="store_true",
        help="§4: every other round with the replaced results freed in ModelLoop._use as before "
        "(no tagtool.gui.retire), in the same run; reported apart",
    )
    parser.add_argument(
        "--compare-collector",
        action="store_true",
        help="§4: every other round with a fit's feature extraction as before the collector pause "
        "(tagtool.collector) and the allowed rows in one C call, in the same run; reported apart",
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        default=None,
        metavar="FOLDER",
        help="keep the projects in FOLDER: big.tagproj and big-model.tagproj are copied from there if "
        "present (same --sentences; the creation row is then left out), else created "
        "and saved there",
    )
    args = parser.parse_args(argv)
    args.command = "QT_QPA_PLATFORM=offscreen python benchmarks/big_project.py " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    app = application()
    first_check = cpu_check()
    with tempfile.TemporaryDirectory(dir=args.folder) as tmp:
        folder = Path(tmp)
        read_seconds, (corpus, source) = timed(lambda: build_corpus(args.sentences))
        path, model_path = folder / "big.tagproj", folder / "big-model.tagproj"
        create_rows = [("read the corpus file and repeat it", read_seconds)]
        reuse = args.reuse is not None and (args.reuse / model_path.name).exists()
        if not reuse:
            create_seconds, project = timed(lambda: Project.create(path, corpus, name="big"))
            project.close()
            create_rows.append((f"create the project (import {len(corpus)} sentences)", create_seconds))
            model_path.write_bytes(path.read_bytes())
            add_model(model_path, corpus)
            if args.reuse is not None:
                args.reuse.mkdir(parents=True, exist_ok=True)
                for p in (path, model_path):
                    shutil.copyfile(p, args.reuse / p.name)
        else:
            for p in (path, model_path):
                shutil.copyfile(args.reuse / p.name, p)
        size_mb = path.stat().st_size / 1e6
        # Only its counts from here on: the 100,000 sentences held by this script (millions of objects the
        # collector tracks) made each full collection in the measured window take 150-500 ms (tagtool.collector).
        corpus = CorpusFacts(len(corpus), corpus.n_tokens, len(corpus.documents))
        gc.collect()
        print("\n".join(f"{name}: {ms(t)}" for name, t in create_rows), flush=True)
        model = _model_arrival.measure(
            app,
            open_window,
            wait,
            watched,
            model_path,
            folder,
            args.model_rounds or args.repeat,
            args.sample_stacks,
            args.compare_retire,
            args.compare_collector,
        )
        if args.only_model:
            print("\n".join(_model_arrival.report(model, len(corpus), STALL_TARGET_MS, FIRST_PAGE_TARGET)))
            for key, title in (
                ("without retire", "without the Retirer"),
                ("collector as before", "a fit's collector and allowed rows as before"),
            ):
                if key in model:
                    print(
                        "\n".join(
                            _model_arrival.report(
                                model[key], len(corpus), STALL_TARGET_MS, FIRST_PAGE_TARGET, title=title
                            )
                        )
                    )
            return 0
        core = core_rows(path, args.repeat)
        print("\n".join(f"{name}: {ms(t)}" for name, t in core), flush=True)
        gui = gui_rows(app, path, model_path, folder, args.repeat)
    checks = (first_check, cpu_check())
    lines = report(args, corpus, source, size_mb, create_rows, core, gui, checks, model)
    print("\n".join(lines))
    write_keeping_analysis(args.out, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())

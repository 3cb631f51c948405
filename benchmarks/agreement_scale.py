"""Agreement on a big team project: ``tagtool agreement`` and the statistics dock's panel.

Usage::

    QT_QPA_PLATFORM=offscreen python benchmarks/agreement_scale.py [--sentences N] [--overlap F]

The project: the CoNLL-2000 training set (``../shared/data``; the slice in
tests/data when absent) repeated to ``--sentences`` sentences (default
100,000), every sentence answered by one of two annotators in turn and a
share ``--overlap`` (default 0.1) by both (:func:`tools.demo_team.team_sentences`:
4 % label confusions, 1 % candidate sets), with one logged action per
sentence and annotator.  Every sentence is in ``annotator_labels``: what
a fully merged team project holds.

Measured:

1. **Core** (no Qt, what ``tagtool agreement`` does): each step of
   :func:`tagtool.services.agreement.progress.of_project` (reading the answers,
   building the table, the measures, the progress counts), and the whole
   command in a fresh process (``--json``).
2. **Dock**: the statistics dock's agreement panel recomputed in its
   worker thread while a 5 ms ``QTimer`` heartbeat runs on the GUI
   thread: time until the numbers are shown and the longest event-loop
   stall (longest heartbeat gap − 5 ms); and, for comparison, the same
   computation on the GUI thread (the path of an old read-only file).

3. **Crowds** (:mod:`_agreement_crowd`): 20, 50, 200, 300, 1,000 and
   3,000 annotators all answering one 14-token task, every pair sharing
   every token, each in a fresh process: time, peak RSS and tracemalloc
   peak of the computation, progress reports, alpha and the observed
   agreement checked against a reference; up to 50 annotators with the
   per-pair measures, above only the overall figures; the 3,000 again under
   the default ``--limit``, which must refuse it.

Results: ``benchmarks/results/agreement_scale.md``.  ``--crowds-only``
runs part 3 alone and keeps parts 1 and 2 of the result file as they were.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: tools/ (the app's drivers)
from _agreement_crowd import run_case, table_lines
from _heartbeat import HEARTBEAT_MS, Heartbeat
from _results import load_average, machine_lines, write_keeping_analysis

from tagtool.core import Corpus, Document
from tagtool.services.agreement import collect, compute
from tagtool.services.agreement.progress import annotator_progress
from tagtool.store.actions import Action
from tagtool.store.formats import read_corpus
from tagtool.store.project import Project
from tools.demo_team import team_sentences

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT.parent / "shared" / "data" / "conll2000" / "train.txt"
FALLBACK = ROOT / "tests" / "data" / "conll2000_train_head.txt"
RESULT = ROOT / "benchmarks" / "results" / "agreement_scale.md"
NAMES = ("ana", "ben")
STALL_TARGET_MS = 50.0
#: Crowd sizes of part 3 (annotators on one 14-token task).
CROWDS = (20, 50, 200, 300, 1_000, 3_000)


def build(path: Path, n: int, overlap: float) -> tuple[Path, float]:
    """The team project (module doc) and the seconds it took to create."""
    source = TRAIN if TRAIN.exists() else FALLBACK
    gold = read_corpus(source, column_names=["token", "pos", "chunk"])
    start = time.perf_counter()
    documents, k = [], 0
    while k < n:
        part = team_sentences(gold.sentences[: n - k], gold.labels.names, NAMES, overlap, seed=k)
        documents.append(Document(f"{source.name} #{len(documents) + 1}", part))
        k += len(part)
    with Project.create(path, Corpus(gold.labels, documents)) as project:
        _log(project)
    return source, time.perf_counter() - start


def _log(project: Project) -> None:
    """One full-label action per sentence and annotator, 3 s a token (for the progress counts)."""
    clock = dict.fromkeys(NAMES, 1_700_000_000.0)
    rows = project._db.execute(
        "SELECT sentence_id, annotator, count(*) FROM annotator_labels GROUP BY sentence_id, annotator"
    ).fetchall()
    with project._write() as conn:
        from tagtool.store import actions

        for sid, name, n in rows:
            active = min(60.0, 3.0 * n)
            actions.insert(conn, Action("full", n, clock[name], clock[name] + active, active), sid, name)
            clock[name] += active


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def core_rows(path: Path) -> list[tuple[str, float, str]]:
    import seqeval.metrics  # noqa: F401  (imported first, as the app has it: the steps time no import)

    with Project.open(path, readonly=True) as project:
        _, t_names = timed(project.team.answering_annotators)
        rows, t_read = timed(lambda: list(project.team.annotator_answers(shared=True)))
        answers, t_collect = timed(lambda: collect(rows, project.labels.names))
        result, t_compute = timed(lambda: compute(answers, project.labels.is_span_scheme))
        counts, t_counts = timed(project.team.annotator_progress)
        _, t_actions = timed(lambda: annotator_progress(counts, project.actions()))
    pair = result.pairs[0]
    with Project.open(path, readonly=True) as project:
        total = project._db.execute("SELECT count(*) FROM annotator_labels").fetchone()[0]
    note = (
        f"{len(rows):,} of {total:,} answers, {answers.n_units:,} tokens; {pair.compared:,} compared; "
        f"κ {pair.kappa:.3f}, α {pair.alpha:.3f}, span F1 {100 * pair.spans.f1:.1f}"
    )
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tagtool.cli", "agreement", str(path), "--json"],
        check=True,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    t_cli = time.perf_counter() - start
    return [
        ("annotators with answers (SQL)", t_names, ""),
        ("read the answers of tokens two annotators answered (SQL)", t_read, note),
        ("build the answer table", t_collect, ""),
        ("kappa, alpha, spans, confusion", t_compute, ""),
        ("progress counts (SQL)", t_counts, ""),
        ("action log and speeds", t_actions, ""),
        ("`tagtool agreement --json`, fresh process", t_cli, "Python start and imports included"),
    ]


def dock_rows(path: Path, folder: Path) -> list[tuple[str, float, float]]:
    from PySide6.QtCore import QEventLoop, QSettings, QTimer

    import tagtool.gui.agreement_panel as panel_module
    from tagtool.gui.app import application
    from tagtool.gui.main_window import MainWindow

    app = application()
    window = MainWindow(QSettings(str(folder / "gui.ini"), QSettings.IniFormat))
    assert window.open_project(path)
    window.show()
    window.model_loop.auto = False
    window.stats_dock.hide()  # the panel is driven by hand below
    team = window.stats_panel.team
    deadline = time.perf_counter() + 300
    while not window.session.cache.sentences_ready and time.perf_counter() < deadline:  # the background read ends
        app.processEvents(QEventLoop.AllEvents, 20)
    loop, beat = QEventLoop(), Heartbeat()
    beat.start()
    QTimer.singleShot(5000, loop.quit)
    loop.exec()
    out = [("nothing (idle window, 5 s: the shared machine's own gaps)", 5.0, beat.stop())]
    for name, gui_thread in (("worker thread (the dock)", False), ("GUI thread (old read-only file)", True)):
        real = panel_module.ProjectQuery.of
        if gui_thread:
            panel_module.ProjectQuery.of = classmethod(lambda cls, p: None)
        loop, beat = QEventLoop(), Heartbeat()
        team.shown.connect(loop.quit)
        QTimer.singleShot(300, loop.quit)
        loop.exec()  # settle
        beat.start()
        start = time.perf_counter()
        QTimer.singleShot(0, lambda: team.refresh(window.session.project))
        loop.exec()
        took = time.perf_counter() - start
        QTimer.singleShot(50, loop.quit)
        loop.exec()
        out.append((name, took, beat.stop()))
        team.shown.disconnect(loop.quit)
        panel_module.ProjectQuery.of = real
    window.close()
    return out


def crowd_cases(folder: Path) -> list:
    """Part 3: every crowd of :data:`CROWDS` under a limit above it, then the largest under the default."""
    from tagtool.services.agreement_limits import ANNOTATOR_LIMIT

    cases = [run_case(folder, n, max(n, ANNOTATOR_LIMIT), 0) for n in CROWDS]
    cases.append(run_case(folder, CROWDS[-1], ANNOTATOR_LIMIT, 0))
    for case in cases:
        print(case, file=sys.stderr)
    return cases


def crowd_lines(cases) -> list[str]:
    return [
        "## 3. Crowds: many annotators on one task",
        "",
        "`tests.store.agreement_samples.crowd_project`: n annotators each answering all 14 tokens of one task "
        "(each label wrong with chance 0.1), so every pair shares every token.  Time of "
        "`of_project` in a fresh process after its imports; peak RSS of that process (growth over the "
        "imports); tracemalloc peak in a second run; α and the observed agreement checked against the "
        "krippendorff package and a per-token count (failures: wrong numbers, missing refusal or progress).",
        "",
        *table_lines(cases),
    ]


def report(args, source, create_s, core, dock, crowds) -> list[str]:
    lines = [
        "# Agreement on a big team project",
        "",
        f"`python benchmarks/agreement_scale.py --sentences {args.sentences} --overlap {args.overlap}` "
        f"({source.name} repeated; two annotators, every sentence answered by one, {100 * args.overlap:.0f} % "
        "by both; project created in "
        f"{create_s:.1f} s).",
        "",
        *machine_lines(f"; load average at the end {load_average()}"),
        "",
        "## 1. Core (`tagtool agreement`)",
        "",
        "| step | time | note |",
        "| --- | ---: | --- |",
        *[f"| {name} | {t:.2f} s | {note} |" for name, t, note in core],
        "",
        "## 2. The statistics dock's agreement panel",
        "",
        f"Heartbeat {HEARTBEAT_MS} ms on the GUI thread; stall = longest gap − {HEARTBEAT_MS} ms; "
        f"target stall {STALL_TARGET_MS:.0f} ms.",
        "",
        "| computed on | time until shown | longest stall |",
        "| --- | ---: | ---: |",
        *[f"| {name} | {t:.2f} s | {stall:.0f} ms |" for name, t, stall in dock],
        "",
        *crowd_lines(crowds),
    ]
    return lines


def _replace_crowds(out: Path, crowds) -> None:
    """``--crowds-only``: part 3 of the result file replaced, the rest kept."""
    from _results import ANALYSIS_MARKER

    text = out.read_text(encoding="utf-8")
    head, tail = text.split(ANALYSIS_MARKER, 1)
    head = head.split("## 3. Crowds", 1)[0].rstrip("\n")
    out.write_text(head + "\n\n" + "\n".join(crowd_lines(crowds)) + "\n\n" + ANALYSIS_MARKER + tail, encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=100_000)
    parser.add_argument("--overlap", type=float, default=0.1)
    parser.add_argument("--out", type=Path, default=RESULT)
    parser.add_argument("--crowds-only", action="store_true", help="part 3 only (module doc)")
    args = parser.parse_args(argv)
    if args.crowds_only:
        with tempfile.TemporaryDirectory() as tmp:
            _replace_crowds(args.out, crowd_cases(Path(tmp)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "team.tagproj"
        source, create_s = build(path, args.sentences, args.overlap)
        print(f"created {path} in {create_s:.1f} s", file=sys.stderr)
        core = core_rows(path)
        for row in core:
            print(row, file=sys.stderr)
        dock = dock_rows(path, Path(tmp))
        for row in dock:
            print(row, file=sys.stderr)
        crowds = crowd_cases(Path(tmp))
    write_keeping_analysis(args.out, report(args, source, create_s, core, dock, crowds))
    return 0


if __name__ == "__main__":
    sys.exit(main())

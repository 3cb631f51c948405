"""§4 of benchmarks/big_project.py: a model arrives in a 100,000-sentence project (imports Qt).

Three things happen to the window when a model arrives, and each is timed
against the event loop's heartbeat (:class:`_stall_sampler.Timeline`):

1. **Opening with a stored model**: the model is read, the sentences are
   read, then the model's guidance is computed in the worker.  *Arrival*:
   the guidance starts (the tagger and the sentences are in).
2. **The queue strategy switch** and the token-question mode, with the
   model's plan in use; then a click on the Statistics dock's tab, its
   first appearance (until its learning curve's plots are drawn: the
   stored model has CV metrics).
3. **A retrain after an edit** (the debounced, warm-started one; the
   Statistics dock on screen, cross-validation off: its folds would each
   refit the 100,000 sentences).  *Arrival*: the fit has ended.

For 1 and 3: the time from arrival to the queue's first page in use on
the GUI thread (J and the list's Info column read the plan), the longest
stall before arrival (reading, fitting), from arrival to the first page,
and while the rest is scored (until the complete plan is in use, plus 2 s:
storing the model, the statistics); the GUI thread's longest turn taking a
plan in (``ModelLoop._use``).
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import threading
import time

from _stall_sampler import StackSampler, Timeline, explain
from PySide6.QtCore import QTimer

#: Seconds the window is watched after the complete plan is in use (the model is stored, the dock refreshed).
AFTER = 2.0
#: The row of the Statistics dock's first appearance.
STATISTICS = "Statistics tab clicked: the dock's first appearance (counts, learning curve plots)"


def click_tab(window, title: str) -> None:
    """Click the dock tab ``title`` as a user does (``QDockWidget.raise_`` from code also raises the dock
    above the central widget, which Qt then raises again: a repaint of the list and editor a click does not make)."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QTabBar

    bar = next(b for b in window.findChildren(QTabBar) if title in [b.tabText(i) for i in range(b.count())])
    index = [bar.tabText(i) for i in range(bar.count())].index(title)
    QTest.mouseClick(bar, Qt.LeftButton, Qt.NoModifier, bar.tabRect(index).center())


class Arrivals:
    """Stamps of one window's model loop: guidance starts, plans taken in (with their duration)."""

    def __init__(self, loop, timeline: Timeline):
        self.loop, self.timeline = loop, timeline
        self.arrived: list[float] = []
        self.uses: list[tuple[float, float, bool]] = []  # (end, seconds, complete)
        use = loop._use

        def timed_use(result, *args, **kwargs):
            start = time.perf_counter()
            use(result, *args, **kwargs)
            end = time.perf_counter()
            complete = getattr(result, "complete", True)
            arrived = getattr(result, "arrived", None)
            if arrived is not None and arrived not in self.arrived:
                self.arrived.append(arrived)
                timeline.note("model arrived", arrived)
            self.uses.append((end, end - start, complete))
            timeline.note("complete plan in use" if complete else "first page in use", end)

        loop._use = timed_use
        self._patch_guidance()

    def _patch_guidance(self) -> None:
        """Before incremental scoring: the guidance started when ``analyse_all`` was called."""
        from tagtool.gui import model_loop, training

        if hasattr(training, "scoring"):
            return  # the results carry their arrival time
        for module in (training, model_loop):
            original = module.analyse_all

            def stamped(*args, _original=original, **kwargs):
                now = time.perf_counter()
                self.arrived.append(now)
                self.timeline.note("model arrived", now)
                return _original(*args, **kwargs)

            module.analyse_all = stamped

    def complete_after(self, since: float) -> float | None:
        return next((end for end, _, complete in self.uses if complete and end > since), None)

    def first_after(self, since: float) -> float | None:
        return next((end for end, _, _ in self.uses if end > since), None)

    def arrival_after(self, since: float) -> float | None:
        return next((t for t in sorted(self.arrived) if t > since), None)

    def longest_use(self, since: float, until: float) -> float:
        return max((s for end, s, _ in self.uses if since < end <= until), default=float("nan"))


def _phase(timeline: Timeline, arrivals: Arrivals, since: float) -> dict:
    arrival, first = arrivals.arrival_after(since), arrivals.first_after(since)
    complete = arrivals.complete_after(since)
    end = complete + AFTER
    return {
        "before": timeline.stall(since, arrival),
        "to_first": first - arrival,
        "to_complete": complete - arrival,
        "first_stall": timeline.stall(arrival, first),
        "rest_stall": timeline.stall(first, end),
        "use": arrivals.longest_use(since, end),
    }


class Collections:
    """The collector's full (generation 2) runs on the GUI thread and on the others (the workers), with
    their durations (``gc.callbacks``)."""

    def __init__(self):
        self.thread, self.started, self.seconds, self.workers = threading.get_ident(), {}, [], []
        gc.callbacks.append(self._note)

    def _note(self, phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        ident = threading.get_ident()
        if phase == "start":
            self.started[ident] = time.perf_counter()
        elif ident in self.started:
            (self.seconds if ident == self.thread else self.workers).append(
                time.perf_counter() - self.started.pop(ident)
            )

    def stop(self) -> dict:
        gc.callbacks.remove(self._note)
        return {
            "count": len(self.seconds),
            "longest": max(self.seconds, default=0.0),
            "worker_count": len(self.workers),
            "worker_longest": max(self.workers, default=0.0),
        }


def one_round(
    app, open_window, wait, watched, path, folder, sample: bool, retire: bool = True
) -> tuple[dict, list[str]]:
    """Open ``path`` (a stored model), switch strategies, retrain after an edit; the figures of each.

    ``retire`` False: what a new result replaces is freed inside ``ModelLoop._use`` as before
    :mod:`tagtool.gui.retire` (the Retirer holds nothing).
    """
    sampler = StackSampler() if sample else None
    timeline = Timeline()
    collections = Collections()
    opened = time.perf_counter()
    window, _ = open_window(app, path, folder)
    loop, session = window.model_loop, window.session
    if not retire and hasattr(loop, "retirer"):
        loop.retirer.retire = lambda *objects: None
    loop.cv_folds = 0
    # Word representations off: on 2.4 million tokens "auto" learns them (FastText, minutes of two
    # cores) and then retrains; benchmarks/gui_representations.py measures that on its own.
    loop.representations.set_mode("off")
    arrivals = Arrivals(loop, timeline)
    timeline.start()
    if sampler is not None:
        sampler.start()
    timeline.note("window open")
    out: dict = {}
    assert wait(lambda: arrivals.complete_after(opened) is not None, 1200), "no guidance"
    wait(lambda: False, AFTER)

    switches = {}
    for name, action in (
        ("strategy → uncertainty", lambda: loop.queue.set_queue("uncertainty")),
        ("strategy → gain (back)", lambda: loop.queue.set_queue("gain")),
        ("token questions on", lambda: loop.queue.set_queue(asking=True)),
        ("token questions off", lambda: loop.queue.set_queue(asking=False)),
    ):
        timeline.note(name)
        switches[name] = watched(action, settle=0.3)[1]
    timeline.note("statistics dock")
    curve = window.stats_panel.curve
    switches[STATISTICS] = watched(
        lambda: click_tab(window, "Statistics"), settle=1.0, until=lambda: getattr(curve, "settled", True)
    )[1]  # (older code: at once)
    out["switch"] = switches
    edited = time.perf_counter()
    timeline.note("edit")
    label = session.style.names[0]
    anns = session.annotations[0]
    QTimer.singleShot(
        0, lambda: session.edit({0: frozenset() if anns == {label} else frozenset({label})}, "benchmark edit")
    )
    assert wait(lambda: arrivals.complete_after(edited) is not None, 1200), "no retrain"
    wait(lambda: not loop.busy, 60)
    wait(lambda: False, AFTER)
    timeline.stop()
    out["open"] = _phase(timeline, arrivals, opened)
    out["retrain"] = _phase(timeline, arrivals, edited)
    out["gc"] = collections.stop()
    lines = []
    if sampler is not None:
        sampler.stop()
        lines = explain(timeline, sampler)
    window.close()
    return out, lines


def measure(
    app,
    open_window,
    wait,
    watched,
    path,
    folder,
    repeat: int,
    sample: bool = False,
    compare_retire: bool = False,
    compare_collector: bool = False,
) -> dict:
    """``repeat`` rounds of :func:`one_round`: every figure's median and max, and the stall explanations.

    ``compare_retire`` / ``compare_collector``: ``repeat`` more rounds, every other one without the
    Retirer / as a fit ran before the collector pause (:func:`collector_as_before`), summarised
    under ``"without retire"`` / ``"collector as before"``.
    """
    rounds, explained, without = [], [], []
    compare = compare_retire or compare_collector
    for r in range(2 * repeat if compare else repeat):
        current = not compare or r % 2 == 1
        with contextlib.nullcontext() if current or not compare_collector else collector_as_before():
            figures, lines = one_round(
                app, open_window, wait, watched, path, folder, sample, retire=current or not compare_retire
            )
        print(f"model round {r + 1}{'' if current else ' (before)'}: {figures}", flush=True)
        (rounds if current else without).append(figures)
        explained += [f"round {r + 1}{'' if current else ' (before)'}: {line[2:]}" for line in lines]
    summary = _summary(rounds)
    summary["explained"] = explained
    if without:
        summary["without retire" if compare_retire else "collector as before"] = {**_summary(without), "explained": []}
    return summary


@contextlib.contextmanager
def collector_as_before():
    """A fit as before the stall15 branch: the collector not paused during its feature extraction and
    the column-loss measure, the allowed rows' ``dict.fromkeys`` and ``np.fromiter`` one C call each."""
    import types

    from tagtool.core import snapshot
    from tagtool.services import pipeline

    paused, slice_ = pipeline.collector, snapshot.SLICE
    pipeline.collector = types.SimpleNamespace(paused=contextlib.nullcontext)
    snapshot.SLICE = 1 << 62
    try:
        yield
    finally:
        pipeline.collector, snapshot.SLICE = paused, slice_


def _summary(rounds: list[dict]) -> dict:
    summary: dict = {"rounds": len(rounds)}
    for phase in ("open", "retrain"):
        summary[phase] = {
            k: (statistics.median(r[phase][k] for r in rounds), max(r[phase][k] for r in rounds))
            for k in rounds[0][phase]
        }
    summary["switch"] = {
        k: (statistics.median(r["switch"][k] for r in rounds), max(r["switch"][k] for r in rounds))
        for k in rounds[0]["switch"]
    }
    summary["gc"] = {
        k: (statistics.median(r["gc"][k] for r in rounds), max(r["gc"][k] for r in rounds)) for k in rounds[0]["gc"]
    }
    return summary


def _s(x: float) -> str:
    return f"{x * 1000:.0f} ms" if x < 1 else f"{x:.2f} s"


def report(m: dict, n: int, stall_target: float, first_target: float, title: str = "") -> list[str]:
    """The §4 table (medians and max of the rounds); ``title`` names a variant (a second table)."""

    def cell(pair, fmt, target=None):
        med, top = pair
        ok = "" if target is None else (" ✓" if top < target else " ✗")
        return f"**{fmt(med)}** (max {fmt(top)}){ok}"

    ms = lambda x: f"{x:.0f} ms"  # noqa: E731
    rows = []
    for phase, name in (("open", "opening with a stored model"), ("retrain", "a retrain after an edit")):
        p = m[phase]
        rows += [
            f"| {name}: from arrival to the queue's first page in use | {cell(p['to_first'], _s, first_target)} "
            f"| < {first_target:g} s |",
            f"| {name}: from arrival to the complete queue in use | {cell(p['to_complete'], _s)} | |",
            f"| {name}: longest stall before arrival ({'reading, loading' if phase == 'open' else 'the retrain'})"
            f" | {cell(p['before'], ms, stall_target)} | < {stall_target:g} ms |",
            f"| {name}: longest stall from arrival to the first page | {cell(p['first_stall'], ms, stall_target)} "
            f"| < {stall_target:g} ms |",
            f"| {name}: longest stall while the rest is scored (and {AFTER:g} s after) | "
            f"{cell(p['rest_stall'], ms, stall_target)} | < {stall_target:g} ms |",
            f"| {name}: longest turn of the GUI thread taking a plan in (`ModelLoop._use`) | "
            f"{cell((p['use'][0] * 1000, p['use'][1] * 1000), ms, stall_target)} | < {stall_target:g} ms |",
        ]
    for name, pair in m["switch"].items():
        what = name if name == STATISTICS else f"queue: {name}"
        rows.append(f"| {what} (stall) | {cell(pair, ms, stall_target)} | < {stall_target:g} ms |")
    count, longest = m["gc"]["count"], m["gc"]["longest"]
    rows.append(
        f"| full collections (gc generation 2) on the GUI thread in a round: how many; the longest | "
        f"{count[0]:g} (max {count[1]:g}); **{longest[0] * 1000:.0f} ms** (max {longest[1] * 1000:.0f} ms) | |"
    )
    if "worker_count" in m["gc"]:
        count, longest = m["gc"]["worker_count"], m["gc"]["worker_longest"]
        rows.append(
            f"| full collections on the worker threads in a round: how many; the longest | "
            f"{count[0]:g} (max {count[1]:g}); **{longest[0] * 1000:.0f} ms** (max {longest[1] * 1000:.0f} ms)"
            " | |"
        )
    lines = [
        "## 4. A model arrives" + (f" ({title})" if title else ""),
        "",
        f"The project with a stored mv-perceptron model, {m['rounds']} rounds (each: open the window, wait for "
        "the model's complete queue, switch the queue strategy and the token-question mode, then an edit and the "
        "retrain it starts, with the Statistics dock on screen, cross-validation and word representations off); "
        "median (max) of the "
        f"rounds.  *Arrival*: the model can be scored (opening: the model and the {n} sentences are read; "
        "retrain: the fit has ended).  Stall = longest heartbeat gap − 5 ms over the interval.",
        "",
        "| what | time or stall | target |",
        "| --- | --- | --- |",
        *rows,
        "",
    ]
    if m["explained"]:
        lines += ["Stalls over 50 ms and where they were (stack sampler):", "", *m["explained"], ""]
    return lines

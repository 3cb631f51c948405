"""Where the GUI thread's stalls come from: a heartbeat with timestamps and a stack sampler.

:class:`Timeline` is the 5 ms heartbeat of :mod:`_heartbeat` with the time
each gap ended (``time.perf_counter``, the clock the worker threads can
stamp events with too), so a stall can be attributed to a phase: the
longest stall over an interval is the longest gap that overlaps it.

:class:`StackSampler` is a thread that reads ``sys._current_frames()``
every few milliseconds.  It needs the GIL to run, so while another thread
holds the GIL in one long C call the sampler is late as well: the sample
taken right after such a delay shows, in the other threads, the Python
line that made the call (it has just returned).  While the GUI thread
itself runs Python, its samples show what it runs.  :func:`explain` turns
both into a line per stall.  The sampler costs the GUI thread some GIL
turns, so the measured runs go without it (``--sample-stacks``
diagnoses).
"""

from __future__ import annotations

import faulthandler
import gc
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass

from _heartbeat import HEARTBEAT_MS, Heartbeat


class Timeline:
    """Heartbeat gaps with the ``perf_counter`` time each one ended, and named events."""

    def __init__(self):
        self.beat = Heartbeat()
        self.ends: list[float] = []
        self.events: list[tuple[float, str]] = []
        self.beat.timer.timeout.connect(lambda: self.ends.append(time.perf_counter()))

    def start(self) -> None:
        self.ends, self.events = [], []
        self.beat.start()
        self.started = time.perf_counter()

    def note(self, what: str, when: float | None = None) -> None:
        self.events.append((time.perf_counter() if when is None else when, what))

    def stop(self) -> None:
        self.beat.stop()
        self.ends.append(time.perf_counter())

    def gaps(self) -> list[tuple[float, float]]:
        """``(start, end)`` of every gap between ticks (seconds, perf_counter)."""
        gaps = self.beat.gaps
        n = min(len(gaps), len(self.ends))
        return [(self.ends[i] - gaps[i] / 1000, self.ends[i]) for i in range(n)]

    def stall(self, start: float, end: float) -> float:
        """Longest stall (ms: gap − heartbeat) of the gaps overlapping ``[start, end]``; 0 without one."""
        overlapping = [(e - s) * 1000 for s, e in self.gaps() if e > start and s < end]
        return max(max(overlapping, default=HEARTBEAT_MS) - HEARTBEAT_MS, 0.0)

    def stalls_over(self, threshold_ms: float) -> list[tuple[float, float]]:
        """``(start, end)`` of the gaps longer than ``threshold_ms`` + the heartbeat."""
        return [(s, e) for s, e in self.gaps() if (e - s) * 1000 - HEARTBEAT_MS > threshold_ms]


def _stacks(text: str, depth: int = 6) -> dict[int, str]:
    """Thread ident → its innermost ``depth`` frames (``file:line function``) from a faulthandler dump."""
    out: dict[int, str] = {}
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if not lines or "hread 0x" not in lines[0]:
            continue
        ident = int(lines[0].split("0x", 1)[1].split()[0], 16)
        frames = []
        for line in lines[1 : 1 + depth]:
            line = line.strip()  # File "path", line N in name
            if line.startswith("File "):
                path, rest = line[6:].split('", line ', 1)
                number, _, name = rest.partition(" in ")
                frames.append(f"{'/'.join(path.rsplit('/', 2)[-2:])}:{number} {name}")
        out[ident] = " ← ".join(frames)
    return out


@dataclass
class Sample:
    at: float
    late: float  # seconds beyond the interval since the previous sample
    gui: str
    others: dict


class StackSampler(threading.Thread):
    """Samples every thread's stack every ``interval`` seconds (see the module doc).

    The stacks are read by :func:`faulthandler.dump_traceback`, which reads
    the frames without making frame objects: walking the frames of
    ``sys._current_frames()`` while the other threads run crashed Python
    3.11 here (a segfault in the benchmark).
    """

    def __init__(self, interval: float = 0.003):
        super().__init__(daemon=True, name="stack sampler")
        self.interval = interval
        self.gui_id = threading.main_thread().ident
        self.samples: list[Sample] = []
        self._halt = threading.Event()
        self._watch = GcWatch()
        self.gc = self._watch.passes

    def start(self) -> None:
        self._watch.__enter__()
        super().start()

    def run(self) -> None:
        last = time.perf_counter()
        with tempfile.TemporaryFile("w+") as dump:
            while not self._halt.is_set():
                time.sleep(self.interval)
                now = time.perf_counter()
                dump.seek(0)
                dump.truncate()
                faulthandler.dump_traceback(dump, all_threads=True)
                dump.flush()
                dump.seek(0)
                stacks = _stacks(dump.read())
                gui = stacks.pop(self.gui_id, "")
                stacks.pop(threading.get_ident(), None)
                self.samples.append(Sample(now, now - last - self.interval, gui, stacks))
                last = now

    def stop(self) -> None:
        self._halt.set()
        self.join(1.0)
        self._watch.__exit__()


class GcWatch:
    """The garbage collector's passes of 5 ms or more: ``(start, seconds, generation, thread)`` (perf_counter).

    A full collection walks every tracked object and holds the GIL
    throughout, whichever thread allocated last.
    """

    def __init__(self):
        self.passes: list[tuple[float, float, int, str]] = []
        self._started: dict[int, float] = {}

    def __enter__(self):
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        ident = threading.get_ident()
        now = time.perf_counter()
        if phase == "start":
            self._started[ident] = now
        elif ident in self._started:
            start = self._started.pop(ident)
            if now - start >= 0.005:
                self.passes.append((start, now - start, info.get("generation", -1), threading.current_thread().name))


def explain(timeline: Timeline, sampler: StackSampler, threshold_ms: float = 50.0, top: int = 8) -> list[str]:
    """One line per stall over ``threshold_ms`` of ``timeline`` (:func:`explain_gaps`)."""
    return explain_gaps(timeline.stalls_over(threshold_ms), timeline.events, timeline.started, sampler, top)


def explain_gaps(
    gaps: list[tuple[float, float]], events: list[tuple[float, str]], t0: float, sampler: StackSampler, top: int = 8
) -> list[str]:
    """One line per gap ``(start, end)`` (perf_counter), the ``top`` longest: when, what the GUI thread ran,
    what held the GIL.

    The GUI thread's most common stack during the gap; and, for the
    sampler's longest delay in it, the other threads' stacks right after
    (the call that held the GIL).
    """
    lines = []
    for start, end in sorted(sorted(gaps, key=lambda g: g[0] - g[1])[:top]):
        inside = [s for s in sampler.samples if start <= s.at <= end + 0.002]
        gui = Counter(s.gui for s in inside).most_common(1)
        after = next((s for s in sampler.samples if s.at > end), None)  # the sampler's first turn after
        late = max(inside + ([after] if after is not None else []), key=lambda s: s.late, default=None)
        before = [what for when, what in events if when <= end]
        line = (
            f"- {(end - start) * 1000 - HEARTBEAT_MS:.0f} ms at {start - t0:.2f} s "
            f"(last event: {before[-1] if before else '-'}); GUI thread: "
            f"{gui[0][0] if gui else '(no sample)'}"
        )
        collections = [p for p in getattr(sampler, "gc", None) or () if p[0] < end and p[0] + p[1] > start]
        if collections:
            line += "; garbage collection: " + ", ".join(
                f"generation {g} {d * 1000:.0f} ms in {name}" for _, d, g, name in collections
            )
        if late is not None and late.late > 0.02:
            held = (
                " | ".join(v for v in late.others.values() if v and "_bootstrap" not in v.split(" ← ")[0])
                or "(no other thread ran Python)"
            )
            line += f"; sampler {late.late * 1000:.0f} ms late, then: {held}"
        lines.append(line)
    return lines

"""Progress and cancellation for the long commands of ``tagtool``.

The first Ctrl-C asks the running work to stop (a learner's or batch's
``should_stop`` turns True; nothing is written); a second one exits at once
with status 130, even where the main thread is blocked. Progress goes to a
rich bar on stderr when stderr is a terminal, and to plain lines otherwise
(a pipe, a file, a CI log): one when the phase changes (the message, its
numbers aside: "iteration 4/100" and "iteration 5/100" are one phase) and one
every :data:`PLAIN_EVERY` seconds, so a log stays readable.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import time
from contextlib import contextmanager

#: Exit status of an interrupted command (128 + SIGINT, as shells report it).
EXIT_INTERRUPTED = 130
#: Seconds between two plain progress lines of one phase.
PLAIN_EVERY = 5.0


@contextmanager
def stop_on_sigint():
    """``should_stop`` that turns True on the first Ctrl-C; a second one interrupts hard."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    requested = threading.Event()

    def handler(signum, frame):
        if requested.is_set():
            raise KeyboardInterrupt
        requested.set()

    previous = signal.signal(signal.SIGINT, handler)
    hard_stop = HardStop()
    try:
        yield requested.is_set
    finally:
        hard_stop.close()
        signal.signal(signal.SIGINT, previous)


class HardStop:
    """Exit with 130 on the second Ctrl-C even where the main thread cannot act on it.

    The second Ctrl-C raises KeyboardInterrupt in the main thread, but what
    runs then may block: a process pool waiting for its workers' batches,
    a learner inside C code.  Python's C-level signal handler writes each
    signal number to a wakeup socket at once; this thread reads it and,
    :data:`GRACE` seconds after the second SIGINT, ends the process.  A
    killed atomic write leaves only its temporary file, removed by the
    next write of that output.
    """

    GRACE = 1.0

    def __init__(self):
        import socket

        self._read, self._write = socket.socketpair()
        self._write.setblocking(False)
        self._closed = threading.Event()
        self._previous = signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)
        threading.Thread(target=self._watch, name="tagtool-hard-stop", daemon=True).start()

    def _watch(self) -> None:
        with self._read:
            seen = 0
            while seen < 2:
                try:
                    data = self._read.recv(64)
                except OSError:
                    return
                if not data:
                    return
                seen += data.count(signal.SIGINT)
        if not self._closed.wait(self.GRACE):
            os.write(2, b"tagtool: interrupted\n")
            os._exit(EXIT_INTERRUPTED)

    def close(self) -> None:
        """Stop watching: restore the previous wakeup fd and end the watching thread.

        Called when the guarded work ends, whether it finished or was
        cancelled; a Ctrl-C after that is Python's own again.
        """
        self._closed.set()
        signal.set_wakeup_fd(self._previous)
        self._write.close()  # the watching thread's recv returns b""


@contextmanager
def progress_bar(description: str, stream=None, clock=time.monotonic):
    """Progress on stderr (or ``stream``); yields ``progress(fraction, message)``.

    A rich bar on a terminal; plain lines (:class:`PlainProgress`) elsewhere.
    """
    stream = sys.stderr if stream is None else stream
    if not _is_terminal(stream):
        plain = PlainProgress(description, stream, clock)
        yield plain.report
        plain.finish()
        return
    with _rich_bar(description) as report:
        yield report


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


class PlainProgress:
    """Progress as lines: ``training crf: 40% epoch 4/10 (12 s)``, on a phase change or every few seconds."""

    def __init__(self, description: str, stream, clock=time.monotonic):
        self.description, self.stream, self.clock = description, stream, clock
        self.started = self.last_time = clock()
        self.last_phase: str | None = None
        self.fraction = 0.0
        self.pending: str | None = None  # the last message reported, if no line showed it

    def report(self, fraction: float, message: str = "") -> None:
        self.fraction = fraction
        now = self.clock()
        if _phase(message) != self.last_phase or now - self.last_time >= PLAIN_EVERY:
            self._line(message, now)
        else:
            self.pending = message

    def finish(self) -> None:
        """The last message if no line showed it, and the closing line (only when the work got anywhere)."""
        if self.last_phase is None:
            return
        if self.pending is not None:
            self._line(self.pending, self.clock())
        self._line("done" if self.fraction >= 1.0 else "stopped", self.clock())

    def _line(self, message: str, now: float) -> None:
        self.last_phase, self.last_time, self.pending = _phase(message), now, None
        text = f"{self.description}: {100 * self.fraction:.0f}%" + (f" {message}" if message else "")
        self.stream.write(f"{text} ({now - self.started:.0f} s)\n")
        self.stream.flush()


def _phase(message: str) -> str:
    return re.sub(r"\d+", "#", message)


@contextmanager
def _rich_bar(description: str):
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[message]}"),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(description, total=1.0, message="")

        def report(fraction: float, message: str = "") -> None:
            bar.update(task, completed=fraction, message=message)

        yield report


def interrupt_only_inside(function) -> None:
    """Ctrl-C raises KeyboardInterrupt while ``function`` runs, and exits at once with 130 outside it.

    For the console script: after its command returned, Python joins the
    threads the command left (a progress bar's, a process pool's), and a
    Ctrl-C there printed a ``KeyboardInterrupt`` traceback from
    ``threading._shutdown``. Whether ``function`` runs is read from the
    interrupted stack, so there is no gap between its return and a switch of
    handlers. A SIGINT that starts ignored (a background job) stays ignored.
    """
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return
    code = function.__code__

    def handler(signum, frame) -> None:
        while frame is not None:
            if frame.f_code is code:
                raise KeyboardInterrupt
            frame = frame.f_back
        os.write(2, b"tagtool: interrupted\n")
        os._exit(EXIT_INTERRUPTED)

    signal.signal(signal.SIGINT, handler)

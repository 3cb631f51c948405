"""A second Ctrl-C ends ``tagtool`` with status 130 at once, whatever the command is doing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

# A command that ignores the first Ctrl-C's stop request and, on the second,
# runs cleanup that blocks (as a process pool waiting for its workers did).
STUBBORN = """
import sys, time
from tagtool.cli import main as cli
from tagtool.cli.progress import stop_on_sigint

def stubborn(args):
    with stop_on_sigint():
        print("ready", flush=True)
        try:
            while True:
                time.sleep(0.02)
        finally:
            time.sleep(60)

parser = cli.build_parser
def build():
    p = parser()
    p._subparsers._group_actions[0].choices["info"].set_defaults(func=stubborn)
    return p
cli.build_parser = build
sys.exit(cli.main(["info"]))
"""


def _start(code: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # SIGINT may be ignored where the suite itself runs in the background:
    # the child starts with the default disposition, as under a terminal.
    return subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def test_a_second_ctrl_c_exits_with_130_even_while_cleanup_blocks():
    child = _start(STUBBORN)
    assert child.stdout.readline() == "ready\n"
    child.send_signal(signal.SIGINT)
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    started = time.monotonic()
    try:
        code = child.wait(20)
    finally:
        if child.poll() is None:
            child.kill()
    assert code == 130 and time.monotonic() - started < 10
    assert child.stderr.read().strip().endswith("tagtool: interrupted")


def test_a_ctrl_c_after_the_command_returned_exits_with_130(monkeypatch):
    # While Python joins a command's threads at exit, Ctrl-C printed a KeyboardInterrupt traceback
    # from threading._shutdown (found by benchmarks/reliability.py): the console script exits at once.
    import signal as _signal
    import sys as _sys

    from tagtool.cli import main as cli
    from tagtool.cli import progress as cli_progress

    installed, exits, inside = {}, [], []

    def command():
        # inside the command, Ctrl-C is a KeyboardInterrupt as before
        with pytest.raises(KeyboardInterrupt):
            installed[_signal.SIGINT](_signal.SIGINT, _sys._getframe())
        inside.append(True)
        return 0

    monkeypatch.setattr(cli, "main", command)
    monkeypatch.setattr(cli_progress.signal, "getsignal", lambda sig: _signal.default_int_handler)
    monkeypatch.setattr(cli_progress.signal, "signal", lambda sig, handler: installed.setdefault(sig, handler))
    monkeypatch.setattr(cli_progress.os, "_exit", exits.append)
    with pytest.raises(SystemExit) as done:
        cli.run()
    assert done.value.code == 0 and inside == [True]
    installed[_signal.SIGINT](_signal.SIGINT, _sys._getframe())  # after it returned: exit at once
    assert exits == [130]

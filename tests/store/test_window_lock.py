"""The open-project lock of windows: held by the first, seen by a second (in this or another process),
released when the holder closes or dies; the command line is not affected by it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tagtool.store import window_lock

pytestmark = pytest.mark.skipif(window_lock.fcntl is None, reason="no flock here")


def test_the_first_holds_a_second_sees_it_until_released(tmp_path):
    project = tmp_path / "p.tagproj"
    first = window_lock.acquire(project)
    assert first.held and not first.elsewhere
    second = window_lock.acquire(tmp_path / "." / "p.tagproj")  # the same file by another spelling
    assert second.elsewhere and not second.held and second.holder == os.getpid()
    other = window_lock.acquire(tmp_path / "q.tagproj")
    assert other.held
    first.release()
    third = window_lock.acquire(project)
    assert third.held
    third.release()
    other.release()


def test_a_lock_of_another_process_names_it_and_goes_with_it(tmp_path):
    project = tmp_path / "p.tagproj"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import sys, time
        from tagtool.store import window_lock
        lock = window_lock.acquire(__import__("pathlib").Path({str(project)!r}))
        print("held" if lock.held else "not held", flush=True)
        sys.stdin.readline()
    """),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        seen = window_lock.acquire(project)
        assert seen.elsewhere and seen.holder == holder.pid
    finally:
        holder.kill()  # a crash: the kernel drops the lock
        holder.wait()
    after = window_lock.acquire(project)
    assert after.held
    after.release()


def test_an_unwritable_state_folder_means_no_lock_and_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))
    lock = window_lock.acquire(tmp_path / "p.tagproj")
    assert not lock.held and not lock.elsewhere
    lock.release()

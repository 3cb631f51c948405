"""The atomic writer replaces only regular files and cleans up after killed writes.

Special files are made inside tmp_path (never a real device): a symlink, a
FIFO read by a thread, and (as root) a null character device node.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from tagtool.errors import TagtoolError
from tagtool.store.atomic import atomic_write
from tagtool.store.outputs import STALE_SECONDS, stale_temps, temp_prefix


def write(path, text="new\n"):
    with atomic_write(path, "utf-8") as fh:
        fh.write(text)


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "data.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write(link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "new\n" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["data.txt"]  # temp beside the target


def test_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "later.txt")
    write(link)
    assert link.is_symlink() and (tmp_path / "later.txt").read_text() == "new\n"


def test_a_fifo_is_written_directly_not_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_text()), daemon=True)
    reader.start()
    write(fifo, "through the pipe\n")
    reader.join(10)
    assert received == ["through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="mknod of a device needs root")
def test_a_device_node_is_written_directly_not_replaced(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    before = os.lstat(null)
    with atomic_write(null, None) as fh:
        fh.write(b"x" * 100_000)
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino and after.st_rdev == before.st_rdev
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(TagtoolError, match="is a folder"):
        write(tmp_path)
    assert list(tmp_path.iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temporary_files_of_a_killed_write_are_removed_by_the_next_write(tmp_path):
    out = tmp_path / "out.txt"
    dead = tmp_path / f".out.txt.{_dead_pid()}.abc123xy.tmp"
    legacy_old = tmp_path / ".out.txt.k2j4h5g6.tmp"
    legacy_new = tmp_path / ".out.txt.z9y8x7w6.tmp"
    live = tmp_path / f".out.txt.{os.getppid()}.livewrtr.tmp"
    other = tmp_path / f".other.txt.{_dead_pid()}.abc123xy.tmp"
    for path in (dead, legacy_old, legacy_new, live, other):
        path.write_text("partial")
    old = time.time() - STALE_SECONDS - 5
    os.utime(legacy_old, (old, old))
    write(out)
    assert out.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["out.txt", legacy_new.name, live.name, other.name])


def test_a_killed_writer_leaves_a_temp_file_that_the_next_write_removes(tmp_path):
    """A real kill: the writer process dies (SIGKILL) while its temporary file is open."""
    out = tmp_path / "out.txt"
    code = (
        "import sys, time\n"
        "from tagtool.store.atomic import atomic_write\n"
        f"with atomic_write({str(out)!r}, 'utf-8') as fh:\n"
        "    fh.write('half'); fh.flush(); print('ready', flush=True); time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env, text=True)
    assert child.stdout.readline() == "ready\n"
    child.kill()
    child.wait()
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1 and left[0].startswith(f".out.txt.{child.pid}.") and left[0].endswith(".tmp")
    assert stale_temps(out) == [tmp_path / left[0]]
    write(out)
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_temp_names_carry_the_writer_pid(tmp_path):
    seen = []
    with atomic_write(tmp_path / "x.json", "utf-8") as fh:
        seen = [p.name for p in tmp_path.iterdir()]
        fh.write("{}")
    assert len(seen) == 1 and seen[0].startswith(temp_prefix(tmp_path / "x.json"))


def test_project_create_over_a_symlink_writes_its_target_and_refuses_a_fifo(tmp_path):
    from project_samples import sample_corpus

    from tagtool.errors import ProjectError
    from tagtool.store.project import Project

    target = tmp_path / "real.tagproj"
    Project.create(target, sample_corpus()).close()
    link = tmp_path / "link.tagproj"
    link.symlink_to(target)
    with Project.create(link, sample_corpus(), name="again", overwrite=True) as p:
        assert p.name == "again"
    assert link.is_symlink() and os.readlink(link) == str(target)
    with Project.open(target, readonly=True) as p:
        assert p.name == "again"
    fifo = tmp_path / "pipe.tagproj"
    os.mkfifo(fifo)
    with pytest.raises(ProjectError, match="not a regular file"):
        Project.create(fifo, sample_corpus(), overwrite=True)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_folder_that_cannot_be_written_names_the_output_not_a_temp_file(tmp_path, monkeypatch):
    # A read-only folder (here the error a read-only mount gives) or a missing
    # one used to surface as "[Errno 30] ...: '/dir/.out.txt.123.abc.tmp'".
    import errno
    import tempfile

    with pytest.raises(TagtoolError) as missing:
        write(tmp_path / "missing" / "out.txt")
    assert str(tmp_path / "missing" / "out.txt") in str(missing.value) and ".tmp" not in str(missing.value)

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(tmp_path / ".out.txt.1.x.tmp"))

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    with pytest.raises(
        TagtoolError, match=r"out.txt: cannot be written: the folder .* is read-only \(read-only file system\)"
    ) as ro:
        write(tmp_path / "out.txt")
    assert ".tmp" not in str(ro.value) and not (tmp_path / "out.txt").exists()


# ---------------------------------------------------------------------------
# Windows: a writer's pid is checked without a signal (signal 0 is CTRL_C_EVENT there)


def _never_kill(pid, sig):
    raise AssertionError(f"os.kill({pid}, {sig}) on Windows sends Ctrl-C to a process group")


def _temps(tmp_path, pids_ages):
    """``out.txt`` and a temporary file of each ``(pid, age in seconds)``."""
    now = time.time()
    for n, (pid, age) in enumerate(pids_ages):
        temp = tmp_path / f".out.txt.{pid}.writer{n}x.tmp"
        temp.write_text("partial")
        os.utime(temp, (now - age, now - age))
    return tmp_path / "out.txt"


def test_windows_without_kernel32_goes_by_age_and_never_signals(tmp_path, monkeypatch):
    from tagtool.store.outputs import UNKNOWN_WRITER_SECONDS

    recent, old = _dead_pid(), _dead_pid()  # before Windows is played: Popen would take it for real
    out = _temps(tmp_path, [(recent, 5), (old, UNKNOWN_WRITER_SECONDS + 60)])
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "kill", _never_kill)
    assert [p.name for p in stale_temps(out)] == [f".out.txt.{old}.writer1x.tmp"]


class _FakeKernel32:
    """OpenProcess / GetExitCodeProcess / CloseHandle of a few made-up processes."""

    def __init__(self, processes):
        self.processes, self.closed = processes, []  # pid: exit code, or an error of OpenProcess

    def OpenProcess(self, access, inherit, pid):  # the Windows names
        self.error = self.processes[pid][1]
        return 0 if self.error else 1000 + pid

    def GetExitCodeProcess(self, handle, code):
        code._obj.value = self.processes[handle - 1000][0]
        return 1

    def CloseHandle(self, handle):
        self.closed.append(handle)


def test_windows_asks_the_process_table_and_never_signals(tmp_path, monkeypatch):
    import tagtool.store.outputs as outputs

    running, exited, gone, other_users = 101, 102, 103, 104
    kernel32 = _FakeKernel32({running: (259, 0), exited: (0, 0), gone: (None, 87), other_users: (None, 5)})
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setattr(os, "kill", _never_kill)
    monkeypatch.setattr(outputs, "_kernel32", lambda: kernel32)
    monkeypatch.setattr(outputs, "_last_error", lambda: kernel32.error)
    out = _temps(tmp_path, [(running, 5), (exited, 5), (gone, 5), (other_users, 5)])
    assert sorted(p.name for p in stale_temps(out)) == [".out.txt.102.writer1x.tmp", ".out.txt.103.writer2x.tmp"]
    assert sorted(kernel32.closed) == [1101, 1102]  # every handle opened is closed

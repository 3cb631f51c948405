"""Full and read-only disks: an intact project is read, not called damaged; a write that
cannot be made says "the disk is full" or "the folder ... is read-only" and names the file;
``assign`` writes every annotator's file or none.

A full disk is simulated without mounting anything (the tests may run as root in a
container that cannot mount):

* under the project: the ``tagtool`` child process may not grow any file past 16 KiB
  (``RLIMIT_FSIZE``), so SQLite cannot size the 32 KiB ``-shm`` index a WAL reader
  needs, which is how a full disk meets a reader first (``SQLITE_IOERR_SHMSIZE``);
* under an output: the writes of the temporary file, or the build of an annotator's
  file, fail with ``ENOSPC`` / ``SQLITE_FULL`` after some have succeeded.

A read-only folder: ``os.statvfs`` reports a read-only mount and the calls that would
write there fail with ``EROFS`` (root ignores file modes).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tagtool.cli.main import main
from tagtool.store import assign, atomic, lifecycle
from tests.store.agreement_samples import ner_team_project
from tests.store.project_damage import digest
from tests.store.sqlite_faults import statvfs_read_only_under
from tests.store.team_samples import answered_team, unlabeled_project

resource = pytest.importorskip("resource")

#: Past this size no file may grow in the child: below the 32 KiB of SQLite's -shm index.
LIMIT = 16 * 1024

_CHILD = """
import resource, sys
from tagtool.store import lifecycle

limit, where, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
if where == "process":
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
else:  # only while the project is opened: its disk is full, the output's is not
    real = lifecycle.open_file

    def open_file(path, readonly):
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
        try:
            return real(path, readonly)
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

    lifecycle.open_file = open_file
from tagtool.cli.main import main
sys.exit(main(argv))
"""


def _on_full_disk(*argv: str, where: str = "process") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", _CHILD, str(LIMIT), where, *argv], env=env, capture_output=True, text=True, timeout=300
    )


def _sides(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.endswith(("-wal", "-shm", ".tmp")))


@pytest.fixture
def team(tmp_path) -> Path:
    """A closed project with two annotators' answers, its side files gone."""
    path = ner_team_project(tmp_path / "team.tagproj")
    assert _sides(tmp_path) == []
    return path


@pytest.mark.parametrize("command", ["info", "export", "agreement"])
def test_an_intact_project_on_a_full_disk_is_read_by_info_export_and_agreement(team, command):
    before = digest(team)
    argv = {
        "info": ["info", str(team)],
        "export": ["export", str(team), "-o", "-", "--format", "jsonl"],
        "agreement": ["agreement", str(team)],
    }[command]
    done = _on_full_disk(*argv)
    assert done.returncode == 0, done.stderr
    assert "damaged" not in done.stderr and "I/O error" not in done.stderr
    assert done.stdout.strip()
    assert digest(team) == before and _sides(team.parent) == []


def _assigned_and_answered(tmp_path) -> tuple[Path, list[Path]]:
    _, files = answered_team(tmp_path / "p.tagproj", ["ana", "ben"], 12)
    return tmp_path / "p.tagproj", list(files.values())


def test_merge_into_a_project_on_a_full_disk_says_the_disk_is_full(tmp_path):
    path, files = _assigned_and_answered(tmp_path)
    before = digest(path)
    done = _on_full_disk("merge", str(path), *map(str, files))
    assert done.returncode == 1
    assert str(path) in done.stderr and "the disk is full" in done.stderr, done.stderr
    assert "damaged" not in done.stderr
    assert digest(path) == before and _sides(tmp_path) == []
    assert main(["merge", str(path), *map(str, files)]) == 0  # once there is room


def test_assign_from_a_project_on_a_full_disk_into_another_folder(tmp_path):
    project, _ = unlabeled_project(tmp_path / "p.tagproj", 12)
    project.close()
    before = digest(project.path)
    done = _on_full_disk(
        "assign", str(project.path), "--annotators", "ana,ben", "-o", str(tmp_path / "out"), where="open"
    )
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp_path / "out")) == ["p.ana.tagproj", "p.ben.tagproj"]
    assert digest(project.path) == before and _sides(tmp_path) == []


# ----------------------------------------------------------------------
# assign onto a full disk: every file or none


def _disk_fills_after(monkeypatch, n_built: int) -> None:
    """The build of the annotator's file after the first ``n_built`` runs out of space."""
    real, built = lifecycle._build, []

    def build(tmp, *args):
        if len(built) == n_built:
            Path(tmp).write_bytes(b"SQLite format 3\0 partial")
            raise sqlite3.OperationalError("database or disk is full")
        built.append(tmp)
        real(tmp, *args)

    monkeypatch.setattr(lifecycle, "_build", build)


@pytest.mark.parametrize("n_built", [0, 1, 2])
def test_assign_onto_a_full_disk_leaves_none_of_its_files_and_can_be_run_again(tmp_path, monkeypatch, capsys, n_built):
    project, _ = unlabeled_project(tmp_path / "p.tagproj", 12)
    project.close()
    argv = ["assign", str(project.path), "--annotators", "ana,ben,cy", "-o", str(tmp_path / "out" / "team")]
    _disk_fills_after(monkeypatch, n_built)
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "the disk is full" in err and str(tmp_path / "out" / "team") in err and ".tmp" not in err, err
    assert sorted(os.listdir(tmp_path)) == ["p.tagproj"], "its files and the folders it made are gone"
    monkeypatch.undo()
    assert main(argv) == 0  # no --force needed
    assert len(os.listdir(tmp_path / "out" / "team")) == 3


def _assigned_once(tmp_path) -> tuple[list[str], Path, dict[str, str]]:
    """Three annotators' files assigned once: the command (to run again with ``--force``), the
    folder, and each file's digest."""
    project, _ = unlabeled_project(tmp_path / "p.tagproj", 12)
    project.close()
    out = tmp_path / "out"
    argv = ["assign", str(project.path), "--annotators", "ana,ben,cy", "-o", str(out)]
    assert main(argv) == 0
    return argv, out, {name: digest(out / name) for name in os.listdir(out)}


def test_assign_failing_while_moving_files_into_place_keeps_the_old_ones(tmp_path, monkeypatch, capsys):
    argv, out, before = _assigned_once(tmp_path)
    real, moved = os.replace, []

    def replace(src, dst):
        if str(dst).endswith(".tagproj") and not str(src).endswith(".tagproj"):
            moved.append(dst)
            if len(moved) == 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(src, dst)

    monkeypatch.setattr(lifecycle.os, "replace", replace)
    assert main([*argv, "--seed", "7", "--force"]) == 1
    assert "the disk is full" in capsys.readouterr().err
    monkeypatch.undo()
    assert {name: digest(out / name) for name in os.listdir(out)} == before  # no temporary file either


def test_assign_never_replaces_what_is_not_a_regular_file_it_made(tmp_path, monkeypatch):
    """A folder that appears between the check and the move is left alone, with the others undone."""
    project, _ = unlabeled_project(tmp_path / "p.tagproj", 12)
    out = tmp_path / "out"
    plan = assign.plan(assign.open_sentences(project), ["ana", "ben"], 0.1)
    real = lifecycle.build_file

    def build(path, *args):
        tmp = real(path, *args)
        if path.name == "p.ben.tagproj":
            path.mkdir()
        return tmp

    monkeypatch.setattr(lifecycle, "build_file", build)
    with pytest.raises(assign.AssignError, match="not a regular file"):
        assign.write_files(project, plan, out, force=True)
    assert os.listdir(out) == ["p.ben.tagproj"] and (out / "p.ben.tagproj").is_dir()
    project.close()


# ----------------------------------------------------------------------
# export onto a full disk, assign into a read-only folder


class _FullDisk:
    """A file object whose writes run out of space after ``room`` bytes."""

    def __init__(self, fh, room: int):
        self._fh, self._room = fh, room

    def write(self, data):
        self._room -= len(data)
        if self._room < 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return self._fh.write(data)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self._fh.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._fh, name)


@pytest.mark.parametrize("existed", [False, True])
def test_export_onto_a_full_disk_names_the_file(team, tmp_path, monkeypatch, capsys, existed):
    out = tmp_path / "out.jsonl"
    if existed:
        out.write_text("old\n")
    real = os.fdopen
    monkeypatch.setattr(atomic.os, "fdopen", lambda *a, **k: _FullDisk(real(*a, **k), 300))
    assert main(["export", str(team), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out}: cannot be written: the disk is full" in err, err
    assert ("was left as it was" if existed else "nothing was written") in err
    assert sorted(os.listdir(tmp_path)) == sorted(["team.tagproj", *(["out.jsonl"] if existed else [])])
    assert not existed or out.read_text() == "old\n"


def _read_only_folder(folder: Path, monkeypatch) -> None:
    """``folder`` (and what is in it) on a read-only mount, as far as tagtool can tell."""
    real_connect, real_mkdir = sqlite3.connect, Path.mkdir

    def inside(path) -> bool:
        return os.path.realpath(path).startswith(os.path.realpath(folder))

    def connect(database, *args, **kwargs):  # what SQLite says when it cannot create a file
        if isinstance(database, (str, os.PathLike)) and inside(database) and not os.path.exists(database):
            error = sqlite3.OperationalError("unable to open database file")
            error.sqlite_errorname = "SQLITE_CANTOPEN"
            raise error
        return real_connect(database, *args, **kwargs)

    def mkdir(self, *args, **kwargs):
        if inside(self):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real_mkdir(self, *args, **kwargs)

    statvfs_read_only_under(folder, monkeypatch)
    monkeypatch.setattr(lifecycle.sqlite3, "connect", connect)
    monkeypatch.setattr(Path, "mkdir", mkdir)


@pytest.mark.parametrize("missing", [False, True])
def test_assign_into_a_read_only_folder_says_so(tmp_path, monkeypatch, capsys, missing):
    project, _ = unlabeled_project(tmp_path / "p.tagproj", 12)
    project.close()
    folder = tmp_path / "ro"
    folder.mkdir()
    _read_only_folder(folder, monkeypatch)
    out = folder / "team" if missing else folder
    assert main(["assign", str(project.path), "--annotators", "ana,ben", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"the folder {folder} is read-only" in err and "Errno" not in err and ".tmp" not in err, err
    assert str(out) in err
    assert os.listdir(folder) == []


def test_an_os_error_no_command_explained_says_full_or_read_only_with_the_file(tmp_path):
    from tagtool.cli.main import _os_error

    out = tmp_path / "x.txt"
    assert _os_error(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out))) == f"{out}: the disk is full"
    assert (
        _os_error(OSError(errno.EROFS, os.strerror(errno.EROFS), str(out)))
        == f"{out}: the folder {tmp_path} is read-only (read-only file system)"
    )
    assert _os_error(OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))).startswith("the disk is full")
    assert _os_error(OSError(errno.EIO, "Input/output error")) == "[Errno 5] Input/output error"


def test_assign_on_a_file_system_without_hard_links_keeps_the_old_files_on_a_failure(tmp_path, monkeypatch, capsys):
    """Where the old file cannot be kept by a hard link, a failed --force still puts it back."""
    argv, out, before = _assigned_once(tmp_path)
    real, placed = lifecycle.place_file, []

    def no_link(*args, **kwargs):
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))

    def place(tmp, path, overwrite):
        placed.append(path)
        if len(placed) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(tmp, path, overwrite)

    monkeypatch.setattr(os, "link", no_link)
    monkeypatch.setattr(lifecycle, "place_file", place)
    assert main([*argv, "--seed", "7", "--force"]) == 1
    err = capsys.readouterr().err
    assert "the disk is full" in err and str(placed[-1]) in err, err  # the file that could not be placed
    monkeypatch.undo()
    assert {name: digest(out / name) for name in os.listdir(out)} == before  # no temporary file either


def test_assign_failing_after_a_file_was_moved_into_place_puts_the_old_one_back(tmp_path, monkeypatch, capsys):
    """A failure after the rename (syncing the folder) still leaves every old file as it was."""
    argv, out, before = _assigned_once(tmp_path)
    real, placed = lifecycle.place_file, []

    def place(tmp, path, overwrite):
        real(tmp, path, overwrite)
        placed.append(path)
        if len(placed) == 2:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(lifecycle, "place_file", place)
    assert main([*argv, "--seed", "7", "--force"]) == 1
    assert str(placed[-1]) in capsys.readouterr().err
    monkeypatch.undo()
    assert {name: digest(out / name) for name in os.listdir(out)} == before


_OPEN_CHILD = """
import resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), hard))
from tagtool.store.project import Project
with Project.open(sys.argv[2]) as p:
    print(p.readonly, len(p.corpus()), p.readonly_reason, sep="\\n")
"""


def test_opening_for_editing_on_a_full_disk_opens_read_only_and_leaves_no_side_file(team):
    """What the app does: asked to edit, an intact project on a full disk is read, not refused."""
    before = digest(team)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_CHILD, str(LIMIT), str(team)], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    readonly, n, reason = done.stdout.splitlines()[:3]
    assert readonly == "True" and int(n) > 0 and "the disk is full" in reason, done.stdout
    assert digest(team) == before and _sides(team.parent) == []

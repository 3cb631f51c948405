"""A merge killed at any moment leaves the project as it was before, or merged entirely."""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
from kill_child import run_and_kill
from team_samples import answer_file, dump, unlabeled_project

from tagtool.store import assign, merge
from tagtool.store.project import Project

MERGER = Path(__file__).with_name("crash_merger.py")


def _merged_copy(path: Path, files: list[Path], tmp: Path) -> tuple[dict, float]:
    """The tables after a full merge (done on a copy) and how long the merge took."""
    copy = tmp / "copy.tagproj"
    shutil.copy(path, copy)
    with Project.open(copy) as p:
        read = [merge.read_file(f, p.labels) for f in files]
        start = time.perf_counter()
        p.team.merge_answers(read)
        seconds = time.perf_counter() - start
    return dump(copy), seconds


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_merge_leaves_the_project_as_it_was_or_merged(tmp_path):
    path = tmp_path / "p.tagproj"
    project, gold = unlabeled_project(path, n_sentences=600)
    plan = assign.plan(assign.open_sentences(project), ["ann", "bob", "cy"], 0.3, seed=1)
    files = list(assign.write_files(project, plan, tmp_path / "out").values())
    project.close()
    for i, f in enumerate(files):
        answer_file(f, gold, noise=0.3, seed=i)
    before = dump(path)
    after, seconds = _merged_copy(path, files, tmp_path)
    assert after != before
    for fraction in (0.0, 0.3, 0.6, 0.9, 3.0):
        shutil.copy(tmp_path / "copy.tagproj", tmp_path / "unused.tagproj")  # keep the page cache warm alike
        work = tmp_path / f"kill{fraction}.tagproj"
        shutil.copy(path, work)
        run_and_kill(MERGER, work, 1, fraction * seconds, *map(str, files))
        now = dump(work)
        assert now in (before, after), f"a kill after {fraction * seconds:.3f} s left a half-merged project"
    # Killed once the child reported the merge done (its second line): the merge is all there.
    # (Waiting a multiple of the in-process time instead was flaky on a loaded machine.)
    work = tmp_path / "killed-after-merged.tagproj"
    shutil.copy(path, work)
    run_and_kill(MERGER, work, 2, 0.0, *map(str, files))
    assert dump(work) == after

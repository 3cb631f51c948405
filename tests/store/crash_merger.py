"""Crash-test child: merge the annotators' files given into a project; SIGKILLed mid-way by the test.

Usage: ``crash_merger.py PROJECT N FILE...`` (N, the number of lines the
test waits for, is always 1 here).  Prints ``committed ready`` once every
file is read and checked, just before the merge's one transaction begins,
then ``committed merged`` when it has returned, and waits to be killed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tagtool.store import merge
from tagtool.store.project import Project


def main(path: str, _n: str, *files: str) -> None:
    with Project.open(Path(path)) as project:
        read = [merge.read_file(Path(f), project.labels) for f in files]
        merge.check_files(project._db, project.path, read)
        print("committed ready", flush=True)
        project.team.merge_answers(read)
        print("committed merged", flush=True)
    time.sleep(600)  # the test kills it: a late kill must find it alive


if __name__ == "__main__":
    main(*sys.argv[1:])

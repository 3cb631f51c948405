"""Edit a project in a loop until killed; used by ``test_project_crash.py``.

Usage: ``python crash_editor.py PROJECT SEED``.  After each ``set_annotation``
returns it prints ``committed <sentence> <token> <labels>`` and flushes, so
every line the parent reads is an edit the store has reported as saved.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Mapping, Sequence

from tagtool.core.annotation import format_annotation
from tagtool.store.project import Project


def planned_edits(
    ids: Sequence[int], lengths: Mapping[int, int], labels: Sequence[str], seed: int
) -> Iterator[tuple[int, int, frozenset[str]]]:
    """Every token once, in a shuffled order, with a full or partial label."""
    rng = random.Random(seed)
    cells = [(sid, t) for sid in ids for t in range(lengths[sid])]
    rng.shuffle(cells)
    for sid, t in cells:
        yield sid, t, frozenset(rng.sample(list(labels), rng.choice([1, 1, 2, 3])))


def main(path: str, seed: int) -> None:
    with Project.open(path) as project:
        lengths = {s.id: s.n_tokens for s in project.sentence_summaries()}
        plan = planned_edits(project.sentence_ids(), lengths, project.labels.names, seed)
        for sid, t, labels in plan:
            project.set_annotation(sid, t, labels, annotator="crash-test")
            sys.stdout.write(f"committed {sid} {t} {format_annotation(labels, project.labels)}\n")
            sys.stdout.flush()
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

"""Edit a project in a loop until killed; used by ``test_project_crash.py``.

Usage: ``python crash_editor.py PROJECT SEED [actions|opens]``.  After each
``set_annotation`` returns it prints ``committed <sentence> <token> <labels>``
and flushes, so every line the parent reads is an edit the store has
reported as saved.  With ``actions``, each edit goes through
``apply_action`` with its action (kind ``full`` or ``candidate``, one token,
its index in the plan as ``started``), as the app logs them.  With
``opens``, every edit :func:`opens` names is also the first action of a
visit: its ``open`` row (:func:`planned_open`) goes in the same transaction.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Mapping, Sequence

from tagtool.core.annotation import format_annotation
from tagtool.store.actions import Action
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


def planned_action(i: int, labels: frozenset[str]) -> Action:
    """The action logged with the ``i``-th planned edit."""
    return Action("full" if len(labels) == 1 else "candidate", 1, float(i), float(i) + 0.5, 0.5)


def opens(i: int) -> bool:
    """Whether the ``i``-th planned edit begins a visit (``opens`` mode)."""
    return i % 3 == 0


def planned_open(i: int, n_tokens: int) -> Action:
    """The ``open`` logged before the ``i``-th planned edit, of its sentence's ``n_tokens``."""
    return Action("open", n_tokens, float(i) - 0.25, float(i), 0.25)


def main(path: str, seed: int, actions: str | None = None) -> None:
    with Project.open(path) as project:
        lengths = {s.id: s.n_tokens for s in project.listing.sentence_summaries()}
        plan = planned_edits(project.sentence_ids(), lengths, project.labels.names, seed)
        for i, (sid, t, labels) in enumerate(plan):
            if actions == "opens" and opens(i):
                project.apply_action(
                    sid,
                    {t: labels},
                    planned_action(i, labels),
                    annotator="crash-test",
                    opened=planned_open(i, lengths[sid]),
                )
            elif actions:
                project.apply_action(sid, {t: labels}, planned_action(i, labels), annotator="crash-test")
            else:
                project.set_annotation(sid, t, labels, annotator="crash-test")
            sys.stdout.write(f"committed {sid} {t} {format_annotation(labels, project.labels)}\n")
            sys.stdout.flush()
    print("done", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else None)

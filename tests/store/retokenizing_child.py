"""Split and merge tokens of a project in a loop until killed; used by ``test_concurrent_retokenize.py``.

Usage: ``python retokenizing_child.py PROJECT SEED``.  Only merges two
neighbours of the same kind (letters with letters, digits with digits), so
a project whose labels follow from their tokens' text (:func:`label_of`)
keeps them right.  Prints ``committed ...`` after each change.
"""

from __future__ import annotations

import random
import sys

from tagtool.errors import ProjectError
from tagtool.store.project import Project


def label_of(token: str) -> str:
    """The label a token's text calls for: ``LOW`` for letters, ``NUM`` for digits."""
    return "LOW" if token.isalpha() else "NUM"


def change_one(p: Project, ids: list[int], rng: random.Random, annotator: str) -> int:
    """Split a token of a random sentence of ``ids``, or merge two neighbours of one kind; its id.

    :class:`~tagtool.errors.ProjectError` when another process held the lock
    past the busy timeout (nothing changed).  Also the retokenizing process of
    ``benchmarks/_adv_concurrency.py``.
    """
    sid = rng.choice(ids)
    words = p.sentence(sid).tokens
    pairs = [t for t in range(len(words) - 1) if words[t].isalpha() == words[t + 1].isalpha()]
    long = [t for t, w in enumerate(words) if len(w) > 1]
    if pairs and (not long or rng.random() < 0.5):
        p.review.merge_tokens(sid, rng.choice(pairs), annotator=annotator)
    else:
        t = rng.choice(long)
        p.review.split_token(sid, t, rng.randrange(1, len(words[t])), annotator=annotator)
    return sid


def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    with Project.open(path) as p:
        ids = p.sentence_ids()
        while True:
            try:
                sid = change_one(p, ids, rng, "child")
            except ProjectError:  # the other process held the lock past the busy timeout
                continue
            sys.stdout.write(f"committed {sid}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

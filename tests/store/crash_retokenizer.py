"""Split and merge tokens of a project in a loop until killed; used by ``test_project_retokenize_crash.py``.

Usage: ``python crash_retokenizer.py PROJECT SEED``.  After each split or
merge returns it prints ``committed <op> <sentence> <token> <offset>`` and
flushes, so every line the parent reads is a change the store has reported
as saved.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator, Mapping, Sequence

from tagtool.store.project import Project


def planned_changes(
    ids: Sequence[int], tokens: Mapping[int, Sequence[str]], seed: int
) -> Iterator[tuple[str, int, int, int]]:
    """``(op, sentence, token, offset)``: splits and merges that are always possible.

    Tracks the token texts so that a split cuts a token of two characters or
    more and a merge has a next token.
    """
    rng = random.Random(seed)
    current = {sid: list(tokens[sid]) for sid in ids}
    while True:
        sid = rng.choice(list(ids))
        words = current[sid]
        splittable = [t for t, w in enumerate(words) if len(w) > 1]
        if len(words) > 1 and (not splittable or rng.random() < 0.5):
            t = rng.randrange(len(words) - 1)
            words[t : t + 2] = [words[t] + words[t + 1]]
            yield "merge", sid, t, 0
        else:
            t = rng.choice(splittable)
            offset = rng.randrange(1, len(words[t]))
            words[t : t + 1] = [words[t][:offset], words[t][offset:]]
            yield "split", sid, t, offset


def main(path: str, seed: int) -> None:
    with Project.open(path) as project:
        ids = project.sentence_ids()
        tokens = {sid: project.sentence(sid).tokens for sid in ids}
        for op, sid, t, offset in planned_changes(ids, tokens, seed):
            if op == "split":
                project.review.split_token(sid, t, offset, annotator="crash-test")
            else:
                project.review.merge_tokens(sid, t, annotator="crash-test")
            sys.stdout.write(f"committed {op} {sid} {t} {offset}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))

"""Damaged copies of a project file, and what opening one may do.

Shared by ``test_project_faults.py`` (a few dozen files) and
``benchmarks/reliability.py`` (hundreds). A damaged file must be refused
with a :class:`~tagtool.errors.ProjectError` and left byte for byte as it
was, with no side file left beside it; or, when the damage is inside a
value no check can see (a token's letter changed), open and read without
any error other than a :class:`~tagtool.errors.TagtoolError`.
"""

from __future__ import annotations

import hashlib
import random
import warnings
from collections.abc import Iterator
from pathlib import Path

from tagtool.errors import ProjectError, TagtoolError
from tagtool.store.project import Project

PAGE = 4096


def truncations(data: bytes, rng: random.Random, n_random: int) -> Iterator[tuple[str, bytes]]:
    """The file cut at every page boundary and at ``n_random`` offsets inside pages."""
    for end in range(0, len(data), PAGE):
        yield f"cut at {end}", data[:end]
    for _ in range(n_random):
        end = rng.randrange(1, len(data))
        yield f"cut at {end}", data[:end]


def corruptions(data: bytes, rng: random.Random, n: int) -> Iterator[tuple[str, bytes]]:
    """``n`` copies with bits flipped, bytes overwritten, or a page zeroed or swapped."""
    n_pages = len(data) // PAGE
    for _ in range(n):
        out = bytearray(data)
        kind = rng.choice(["flip", "flip", "overwrite", "zero-page", "swap-pages"])
        if kind == "flip":
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(len(out))
                out[at] ^= 1 << rng.randrange(8)
        elif kind == "overwrite":
            at = rng.randrange(len(out))
            out[at : at + 16] = rng.randbytes(16)
        elif kind == "zero-page":
            page = rng.randrange(1, n_pages)
            out[page * PAGE : (page + 1) * PAGE] = bytes(PAGE)
        else:
            a, b = rng.sample(range(1, n_pages), 2)
            out[a * PAGE : (a + 1) * PAGE], out[b * PAGE : (b + 1) * PAGE] = (
                data[b * PAGE : (b + 1) * PAGE],
                data[a * PAGE : (a + 1) * PAGE],
            )
        yield kind, bytes(out[: len(data)])


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def read_everything(project: Project) -> None:
    """Every read the app and the command line make."""
    project.meta, project.name, project.labels, project.label_set.label_infos()
    (
        project.documents(),
        project.listing.status_counts(),
        project.listing.annotation_counts(),
        project.listing.label_counts(),
    )
    for sid in project.sentence_ids():
        project.sentence(sid)
        project.annotations(sid)
    project.corpus()
    project.listing.sentence_summaries()
    project.annotation_history()
    for record in project.stored.models():
        project.stored.model_data(record.id)


def try_open(path: Path, readonly: bool) -> str:
    """Open a damaged file: ``"refused"`` (file untouched) or ``"opened"`` (and read in full).

    Anything else raises: an error other than ProjectError at opening, a
    changed file or a side file left after a refusal, an error other than
    a TagtoolError while reading.
    """
    before = digest(path)
    siblings = sorted(p.name for p in path.parent.iterdir())
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a damaged version number may read as "newer"
            project = Project.open(path, readonly=readonly)
    except ProjectError as e:
        assert str(path) in str(e), f"the message does not name the file: {e}"
        assert digest(path) == before, "a refused file was changed"
        after = sorted(p.name for p in path.parent.iterdir())
        assert after == siblings, f"files left beside a refused file: {set(after) - set(siblings)}"
        return "refused"
    with project:
        try:
            read_everything(project)
        except TagtoolError:
            pass
    return "opened"

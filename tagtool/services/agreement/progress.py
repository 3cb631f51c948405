"""Per-annotator progress, and everything ``tagtool agreement`` and the statistics dock show of a project.

An annotator's **sentences** and **tokens** are those they answered: their
own answers (``annotator_labels``) and the training labels stored under
their name (:func:`tagtool.store.annotator_answers.progress`).  Their
**tokens per minute** come from the action log (``actions.annotator``):
tokens given a full label, a candidate set or an accepted suggestion
(undone actions left out, :func:`tagtool.services.annotation_costs.measure`) over
the active minutes of all their logged actions (gaps over
:data:`~tagtool.store.actions.IDLE_SECONDS` count as that).  Work merged
from other projects brings no action log here, so its speed is None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tagtool.services.agreement import Agreement, collect, compute
from tagtool.services.annotation_costs import measure
from tagtool.errors import Cancelled

#: SQLite virtual-machine steps between two calls of a :class:`ProjectQuery`'s checkpoint.
STOP_CHECK_STEPS = 10_000
#: Action kinds whose tokens count as labeled for the speed.
LABELING_KINDS = ("full", "candidate", "accept")


@dataclass(frozen=True)
class AnnotatorProgress:
    """One annotator's sentences, tokens and speed (module doc)."""

    name: str
    sentences: int
    tokens: int
    logged_tokens: int
    minutes: float

    @property
    def tokens_per_minute(self) -> float | None:
        return self.logged_tokens / self.minutes if self.minutes > 0 else None


@dataclass(frozen=True)
class ProjectAgreement:
    """What a project says about its annotators.

    Attributes
    ----------
    answering : tuple of str
        Annotators with answers of their own (``annotator_labels``).
    agreement : Agreement or None
        None when fewer than two annotators answered.
    progress : list of AnnotatorProgress
        Every annotator the project names, by name.
    """

    answering: tuple[str, ...]
    agreement: Agreement | None
    progress: list[AnnotatorProgress]


def annotator_progress(
    counts: dict[str, tuple[int, int]], actions: Sequence, checkpoint: Callable[[], bool] | None = None
) -> list[AnnotatorProgress]:
    """Progress of every annotator in ``counts`` or in the action log ``actions``, by name."""
    by_name: dict[str, list] = {}
    for record in actions:
        by_name.setdefault(record.annotator, []).append(record)
    out = []
    for name in sorted(set(counts) | set(by_name)):
        if checkpoint is not None and checkpoint():
            raise Cancelled
        records = by_name.get(name, [])
        kinds = measure(records)
        sentences, tokens = counts.get(name, (0, 0))
        out.append(AnnotatorProgress(name, sentences, tokens, sum(kinds[k].tokens for k in LABELING_KINDS),
                                     sum(r.active for r in records) / 60.0))
    return out


def of_project(project, checkpoint: Callable[[], bool] | None = None) -> ProjectAgreement:
    """Agreement and progress of an open :class:`~tagtool.store.project.Project` (read only).

    ``checkpoint``: called between steps, True stops with
    :class:`~tagtool.errors.Cancelled` (:func:`compute`).
    """
    answering = tuple(project.answering_annotators())
    agreement = None
    if len(answering) >= 2:
        # Only tokens two or more answered: the others count for no pair (and are most of a split project).
        answers = collect(project.annotator_answers(shared=True), project.labels.names, checkpoint)
        agreement = compute(answers, project.labels.is_span_scheme, checkpoint)
    progress = annotator_progress(project.annotator_progress(), project.actions(), checkpoint)
    return ProjectAgreement(answering, agreement, progress)


@dataclass(frozen=True)
class ProjectQuery:
    """:func:`of_project` on a read-only connection of its own, for a worker thread.

    A project's connection belongs to the thread that opened it (the
    window's); this one reads the same file, and SQLite's WAL lets it read
    while the window writes (as :class:`tagtool.store.id_query.SentenceIdQuery`).
    """

    path: Path
    schema_version: int

    @classmethod
    def of(cls, project) -> ProjectQuery | None:
        """The query for ``project``; None when its data is not in its file (an old file
        opened read-only is migrated in memory, which no other connection can read)."""
        path = project.live_file
        return None if path is None else cls(path, project.schema_version)

    def __call__(self, checkpoint: Callable[[], bool] | None = None) -> ProjectAgreement:
        """Run it on any thread; ``checkpoint`` is also called while SQLite reads
        (every :data:`STOP_CHECK_STEPS` steps), and True stops it."""
        from tagtool.store import dbfile
        from tagtool.store.project import Project

        conn = dbfile.connect_readonly(self.path)
        if checkpoint is not None:
            conn.set_progress_handler(lambda: int(checkpoint()), STOP_CHECK_STEPS)
        with Project(self.path, conn, readonly=True, schema_version=self.schema_version) as reader:
            return of_project(reader, checkpoint)

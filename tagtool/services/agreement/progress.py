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

:func:`of_project` is what ``tagtool agreement`` and the statistics dock
run: it refuses a team bigger than its ``limit`` before reading any answer
(:class:`AgreementLimitError`), calls ``checkpoint`` to let a worker stop,
and reports ``progress(fraction, message)`` as it reads and compares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tagtool.errors import Cancelled, TagtoolError
from tagtool.services.agreement import PAIR_ANNOTATORS, Agreement, collect, compute
from tagtool.services.annotation_costs import measure

#: SQLite virtual-machine steps between two calls of a :class:`ProjectQuery`'s checkpoint.
STOP_CHECK_STEPS = 10_000
#: Action kinds whose tokens count as labeled for the speed.
LABELING_KINDS = ("full", "candidate", "accept")
#: Answers read between two progress reports.
ROWS_PER_REPORT = 5_000
#: Share of the work each step is reported as: reading the answers, the measures, the progress counts.
READ_SHARE, MEASURE_SHARE = 0.6, 0.3

Progress = Callable[[float, str], None]


class AgreementLimitError(TagtoolError):
    """More annotators have answers than the agreement was allowed to compare (:func:`of_project`'s ``limit``)."""

    def __init__(self, path, annotators: int, limit: int):
        self.path, self.annotators, self.limit = str(path), annotators, limit
        super().__init__(
            f"{path}: {annotators:,} annotators have answers of their own, more than the limit of {limit:,} "
            f"for agreement; to compute it anyway, raise the limit (tagtool agreement --limit {annotators})"
        )


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
        out.append(
            AnnotatorProgress(
                name,
                sentences,
                tokens,
                sum(kinds[k].tokens for k in LABELING_KINDS),
                sum(r.active for r in records) / 60.0,
            )
        )
    return out


def _reporting(rows: Iterable, ids: np.ndarray, progress: Progress) -> Iterator:
    """``rows`` (in sentence id order) as they are, reporting how far into ``ids`` (sorted) they are."""
    for i, row in enumerate(rows):
        if i % ROWS_PER_REPORT == 0:
            done = np.searchsorted(ids, row[0]) / max(len(ids), 1)
            progress(READ_SHARE * float(done), f"reading answers: {i:,}")
        yield row


def of_project(
    project,
    checkpoint: Callable[[], bool] | None = None,
    progress: Progress | None = None,
    limit: int | None = None,
    pair_limit: int = PAIR_ANNOTATORS,
) -> ProjectAgreement:
    """Agreement and progress of an open :class:`~tagtool.store.project.Project` (read only).

    Parameters
    ----------
    project : Project
    checkpoint : callable, optional
        Called between steps, True stops with :class:`~tagtool.errors.Cancelled` (:func:`compute`).
    progress : callable, optional
        ``progress(fraction, message)``: reading the answers is the first
        :data:`READ_SHARE` of the work, the measures the next :data:`MEASURE_SHARE`.
    limit : int, optional
        Most annotators with answers; more raise :class:`AgreementLimitError`
        before anything is read (None: no limit).
    pair_limit : int
        Most annotators for the per-pair measures (:func:`~tagtool.services.agreement.compute`).
    """
    report = progress or (lambda fraction, message="": None)
    answering = tuple(project.team.answering_annotators())
    if limit is not None and len(answering) > limit:
        raise AgreementLimitError(project.path, len(answering), limit)
    agreement = None
    if len(answering) >= 2:
        # Only tokens two or more answered: the others count for no pair (and are most of a split project).
        rows = project.team.annotator_answers(shared=True)
        if progress is not None:
            rows = _reporting(rows, np.sort(np.fromiter(project.sentence_ids(), dtype=np.int64)), progress)
        answers = collect(rows, project.labels.names, checkpoint)
        report(READ_SHARE, f"comparing {answers.n_units:,} tokens")
        agreement = compute(
            answers,
            project.labels.is_span_scheme,
            checkpoint,
            lambda f, m: report(READ_SHARE + MEASURE_SHARE * f, m),
            pair_limit,
        )
    report(READ_SHARE + MEASURE_SHARE, "counting each annotator's work")
    progress_rows = annotator_progress(project.team.annotator_progress(), project.actions(), checkpoint)
    report(1.0, "")
    return ProjectAgreement(answering, agreement, progress_rows)


@dataclass(frozen=True)
class ProjectQuery:
    """:func:`of_project` on a read-only connection of its own, for a worker thread.

    A project's connection belongs to the thread that opened it (the
    window's); this one reads the same file, and SQLite's WAL lets it read
    while the window writes (as :class:`tagtool.store.worker_reads.SentenceIdQuery`).
    """

    path: Path
    schema_version: int

    @classmethod
    def of(cls, project) -> ProjectQuery | None:
        """The query for ``project``; None when its data is not in its file (an old file
        opened read-only is migrated in memory, which no other connection can read)."""
        path = project.live_file
        return None if path is None else cls(path, project.schema_version)

    def __call__(
        self, checkpoint: Callable[[], bool] | None = None, progress: Progress | None = None
    ) -> ProjectAgreement:
        """Run it on any thread; ``checkpoint`` is also called while SQLite reads
        (every :data:`STOP_CHECK_STEPS` steps), and True stops it; ``progress`` as :func:`of_project`."""
        from tagtool.store import dbfile
        from tagtool.store.project import Project

        conn = dbfile.connect_readonly(self.path)
        if checkpoint is not None:
            conn.set_progress_handler(lambda: int(checkpoint()), STOP_CHECK_STEPS)
        with Project(self.path, conn, readonly=True, schema_version=self.schema_version) as reader:
            return of_project(reader, checkpoint, progress)

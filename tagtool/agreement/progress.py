"""Per-annotator progress, and everything ``tagtool agreement`` and the statistics dock show of a project.

An annotator's **sentences** and **tokens** are those they answered: their
own answers (``annotator_labels``) and the training labels stored under
their name (:func:`tagtool.store.annotator_answers.progress`).  Their
**tokens per minute** come from the action log (``actions.annotator``):
tokens given a full label, a candidate set or an accepted suggestion
(undone actions left out, :func:`tagtool.annotation_costs.measure`) over
the active minutes of all their logged actions (gaps over
:data:`~tagtool.store.actions.IDLE_SECONDS` count as that).  Work merged
from other projects brings no action log here, so its speed is None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tagtool.agreement import Agreement, collect, compute
from tagtool.annotation_costs import measure

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


def annotator_progress(counts: dict[str, tuple[int, int]], actions: Sequence) -> list[AnnotatorProgress]:
    """Progress of every annotator in ``counts`` or in the action log ``actions``, by name."""
    by_name: dict[str, list] = {}
    for record in actions:
        by_name.setdefault(record.annotator, []).append(record)
    out = []
    for name in sorted(set(counts) | set(by_name)):
        records = by_name.get(name, [])
        kinds = measure(records)
        sentences, tokens = counts.get(name, (0, 0))
        out.append(AnnotatorProgress(name, sentences, tokens, sum(kinds[k].tokens for k in LABELING_KINDS),
                                     sum(r.active for r in records) / 60.0))
    return out


def of_project(project, checkpoint: Callable[[], bool] | None = None) -> ProjectAgreement:
    """Agreement and progress of an open :class:`~tagtool.store.project.Project` (read only)."""
    answers = collect(project.annotator_answers(), project.labels.names)
    agreement = compute(answers, project.labels.is_span_scheme, checkpoint) if len(answers.annotators) >= 2 else None
    progress = annotator_progress(project.annotator_progress(), project.actions())
    return ProjectAgreement(answers.annotators, agreement, progress)

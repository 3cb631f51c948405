"""Which annotations of a Label Studio task are read, and whose they are.

Label Studio keeps one annotation per annotator and task in its editor, but
an export can hold more, and hand-made or converted files hold annotations
that name nobody. What is read of them (each with a note naming the file,
line and task, so that nothing is dropped without a word):

Cancelled annotations (``was_cancelled``)
    are skipped: the annotator pressed "skip", their result is no answer.

Two or more annotations of one task by one annotator
    One is kept, as the annotator's answer: the one marked ``ground_truth``
    (a reviewer chose it), else the latest by ``updated_at`` (``created_at``
    where that is missing), else, when not every one has a time, the last
    in the file. Keeping them all would count one annotator twice in the
    majority rule (:func:`tagtool.core.annotators.combine`).

Annotations that name nobody (no ``completed_by``; a JSON-MIN row without ``annotator``)
    The only annotation of a task stays nobody's: its labels are the
    sentence's training labels (as tagtool writes a sentence without
    annotators). Beside other annotations, each one is an annotator of its
    own, named :data:`ANONYMOUS` (``(anonymous)``, then ``(anonymous 2)``,
    ...), never a name the task holds or the file named before; a real
    annotator who later turns up with a name given so is an error, as the
    two would become one annotator.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tagtool.store.formats._common import ReadContext

#: The name of the first annotation of a task that names nobody; more get " 2", " 3", ...
ANONYMOUS = "(anonymous)"


class AnnotatorsSeen(set):
    """The annotators a file named so far (a ``set`` of names), and what else its tasks showed.

    ``given`` maps each name given to annotations that named nobody to the
    line where it was first given; ``hypertext`` is whether a task held
    HyperText results (:mod:`.labelstudio_html`).
    """

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.given: dict[str, int] = {}
        self.hypertext = False


@dataclass
class Answer:
    """One annotation of a task: who gave it, its raw span items, and what picks it among one annotator's."""

    who: str | None
    spans: list
    ident: Any = None
    time: datetime | None = None
    ground_truth: bool = False


def answer_time(annotation: dict) -> datetime | None:
    """``updated_at``, else ``created_at``, of an annotation (ISO 8601; a time without zone is UTC)."""
    for key in ("updated_at", "created_at"):
        value = annotation.get(key)
        if not isinstance(value, str):
            continue
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            continue
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return None


def task_name(record: dict, word: str = "task") -> str:
    """``task 7`` for a task with an id, else ``the task``: the messages' name for it."""
    ident = record.get("id")
    return f"{word} {ident}" if isinstance(ident, (str, int)) and not isinstance(ident, bool) else f"the {word}"


def whose(
    answers: list[Answer], task: str, line: int, ctx: ReadContext, seen: AnnotatorsSeen
) -> dict[str | None, list]:
    """Each annotator's spans in a task (module docstring), from its annotations in file order."""
    _check_real_names(answers, line, ctx, seen)
    answers = _one_each(answers, task, line, ctx)
    if len(answers) == 1 and answers[0].who is None:
        return {None: answers[0].spans}
    named = _name_anonymous(answers, task, line, ctx, seen)
    return {a.who if a.who is not None else named[i]: a.spans for i, a in enumerate(answers)}


def name_anonymous(
    sources: dict[str | None, list], task: str, line: int, ctx: ReadContext, seen: AnnotatorsSeen
) -> dict[str | None, list]:
    """``sources`` with the spans that name nobody given a name, where others name someone."""
    return whose([Answer(who, spans) for who, spans in sources.items()], task, line, ctx, seen)


def _check_real_names(answers: list[Answer], line: int, ctx: ReadContext, seen: AnnotatorsSeen) -> None:
    for answer in answers:
        if answer.who in seen.given:
            raise ctx.error(
                line,
                f"annotator {answer.who!r} has the name given to annotations without "
                f"completed_by at line {seen.given[answer.who]}; rename one of them in the file "
                "to keep them apart",
            )


def _one_each(answers: list[Answer], task: str, line: int, ctx: ReadContext) -> list[Answer]:
    """The annotations with one kept per named annotator (module docstring), in file order."""
    groups: dict[str, list[int]] = {}
    for i, answer in enumerate(answers):
        if answer.who is not None:
            groups.setdefault(answer.who, []).append(i)
    dropped: set[int] = set()
    for who, places in groups.items():
        if len(places) < 2:
            continue
        timed = all(answers[i].time is not None for i in places)
        keep = max(places, key=lambda i: (answers[i].ground_truth, answers[i].time if timed else 0, i))
        why = (
            "marked ground_truth"
            if answers[keep].ground_truth and sum(answers[i].ground_truth for i in places) == 1
            else "the latest"
            if timed
            else "the last in the file"
        )
        others = [i for i in places if i != keep]
        dropped.update(others)
        ctx.warn(
            line,
            f"{task}: annotator {who!r} has {len(places)} annotations; kept {_which(answers[keep], keep)} "
            f"({why}), skipped {', '.join(_which(answers[i], i) for i in others)}",
        )
    return [a for i, a in enumerate(answers) if i not in dropped]


def _which(answer: Answer, index: int) -> str:
    """An annotation in a message: its id, else its place in the task."""
    said = f"id {answer.ident}" if answer.ident is not None else f"annotation {index + 1}"
    return said + (f" of {answer.time.isoformat()}" if answer.time is not None else "")


def _name_anonymous(
    answers: list[Answer], task: str, line: int, ctx: ReadContext, seen: AnnotatorsSeen
) -> dict[int, str]:
    """Names for the annotations that name nobody, by their place in ``answers``."""
    real = {name for name in seen if name not in seen.given} | {a.who for a in answers if a.who is not None}
    names: dict[int, str] = {}
    number = 0
    for i, answer in enumerate(answers):
        if answer.who is not None:
            continue
        while True:
            number += 1
            name = ANONYMOUS if number == 1 else f"{ANONYMOUS[:-1]} {number})"
            if name not in real:
                break
        names[i] = name
        seen.given.setdefault(name, line)
    if names:
        ctx.warn(
            line,
            f"{task}: {len(names)} annotation(s) without completed_by beside others, kept as "
            f"annotator(s) {', '.join(map(repr, names.values()))}",
        )
    return names
